/** Job records: list, detail, results archive, logs, cancel, delete. */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { removeJob } from '../../jobs/admission/admission.js';
import { NotRegularFileError, tailLines } from '../../jobs/store/files.js';
import type { JobPaths } from '../../jobs/store/paths.js';
import { resultEntries, zipStream } from '../../jobs/catalogue/results.js';
import { answerNotModified, compositeValidators, NOT_MODIFIED_RESPONSE } from '../httpCaching.js';
import { isStacPath, stacZipEntries } from '../../jobs/catalogue/stac.js';
import type { JobQueue } from '../../jobs/queue/queue.js';
import type { JobStore } from '../../jobs/store/store.js';
import type { JobRecord, JobStatus } from '../../jobs/types.js';
import { badRequest, notFound } from '../errors.js';
import { ErrorDetail, JobIdParams, JobStatusSchema, JobTimestamp, WorkflowTypeSchema } from '../schemas.js';
import { RecordedGrammarParameters, RecordedModelChoices } from '../parameters.js';

const ClimateFileSchema = Type.Object({
  name: Type.String({ description: 'File name (inside the ZIP, or the uploaded ZIP as the client named it)' }),
  sha256: Type.String({ description: 'SHA-256 of the file, hex' }),
});

export const ClimateSourceSchema = Type.Union(
  [
    Type.Object({
      type: Type.Literal('daymet'),
      server: Type.String({ description: 'Daymet server' }),
      cells: Type.Array(Type.String(), { description: 'Daymet 1 km cells used, <x>_<y> (cell centre in Daymet LCC, m)' }),
    }),
    Type.Object({
      type: Type.Literal('user'),
      archive: ClimateFileSchema,
      layout: Type.Union([Type.Literal('time-series'), Type.Literal('climatology')]),
      naming: Type.Union([Type.Literal('plain'), Type.Literal('worldclim')]),
      files: Type.Array(ClimateFileSchema, { description: 'The grids used, with checksums' }),
      elevation: Type.Union([Type.String(), Type.Null()], { description: 'Reference-elevation grid, or null (no lapse-rate adjustment)' }),
      radiation: Type.Optional(Type.Boolean({ description: 'Whether the grids include the observed shortwave radiation (srad) of the real-sky maps' })),
    }),
  ],
  { description: 'eemt jobs: where the climate comes from (Daymet cells, or the uploaded climate_file)' },
);

export const JobParametersSchema = Type.Object(
  {
    step: Type.Number({ description: 'Time step [minutes]' }),
    linke_value: Type.Number({ description: 'Linke turbidity [-]' }),
    albedo_value: Type.Number({ description: 'Albedo [-]' }),
    num_threads: Type.Integer({ description: 'CPU threads requested' }),
    start_year: Type.Optional(Type.Integer({ description: 'First climate year (eemt jobs only)' })),
    end_year: Type.Optional(Type.Integer({ description: 'Last climate year (eemt jobs only)' })),
    climate_source: Type.Optional(ClimateSourceSchema),
    ...Object.fromEntries(Object.entries(RecordedModelChoices).map(([name, schema]) => [name, Type.Optional(schema)])),
    ...Object.fromEntries(Object.entries(RecordedGrammarParameters).map(([name, schema]) => [name, Type.Optional(schema)])),
  },
  {
    description:
      'Job parameters; start_year, end_year, climate_source and the EEMT model choices (pet_method, topo_npp, topo_radiation, ' +
      'lieth_npp_gate: the value the job runs with) are present for eemt jobs only; products (the solar products written, normalised) for every job ' +
      'submitted since it is recorded',
  },
);

export const JobSummary = Type.Object({
  id: Type.String(),
  workflow_type: WorkflowTypeSchema,
  status: JobStatusSchema,
  created_at: JobTimestamp,
  dem_filename: Type.String(),
  progress: Type.Integer({ minimum: 0, maximum: 100 }),
});

const NullableTimestamp = Type.Union([JobTimestamp, Type.Null()], { description: 'ISO 8601 UTC with trailing Z; null until it happens' });

export const JobDetail = Type.Object({
  id: Type.String({ description: 'Job identifier (UUID)' }),
  workflow_type: WorkflowTypeSchema,
  status: JobStatusSchema,
  created_at: JobTimestamp,
  started_at: NullableTimestamp,
  completed_at: NullableTimestamp,
  parameters: JobParametersSchema,
  dem_filename: Type.String({ description: 'Original name of the uploaded file' }),
  error_message: Type.Union([Type.String(), Type.Null()]),
  progress: Type.Integer({ minimum: 0, maximum: 100, description: '0–10 start-up, 10–90 workflow, 90–100 results; 100 only when completed' }),
  progress_message: Type.Union([Type.String(), Type.Null()], { description: 'Last progress message (extension)' }),
  runtime: Type.Union([Type.String(), Type.Null()], { description: 'Runtime that ran the job: docker, bubblewrap or process (extension)' }),
  output_estimate_bytes: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
    description:
      'Estimated size of the outputs in bytes, made at submission from the DEM size and the parameters (cells × products × measured ' +
      'bytes per cell, rounded to file-system blocks); null for jobs submitted before estimates were kept (extension)',
  }),
});

const ListQuery = Type.Object({
  status: Type.Optional(JobStatusSchema),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10000, description: 'At most this many jobs' })),
});

const LogsQuery = Type.Object({
  tail: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, default: 200, description: 'Last N lines' })),
});

const JobLogs = Type.Object({ job_id: Type.String(), lines: Type.Array(Type.String()) });
const JobAction = Type.Object({ job_id: Type.String(), status: JobStatusSchema, message: Type.String() });

export interface JobRoutesDeps {
  readonly store: JobStore;
  readonly scheduler: JobQueue;
  readonly paths: JobPaths;
}

export default async function jobRoutes(app: FastifyInstance, { store, scheduler, paths }: JobRoutesDeps) {
  const jobOr404 = (id: string): JobRecord => store.get(id) ?? notFound('Job not found');

  app.get(
    '/jobs',
    {
      schema: {
        summary: 'List jobs, newest first',
        tags: ['jobs'],
        querystring: ListQuery,
        response: { 200: Type.Array(JobSummary), 422: ErrorDetail },
      },
    },
    async (request) => {
      const query = request.query as { status?: JobStatus; limit?: number };
      return store.list({ ...(query.status ? { status: query.status } : {}), ...(query.limit ? { limit: query.limit } : {}) });
    },
  );

  app.get(
    '/jobs/:job_id',
    { schema: { summary: 'Job detail', tags: ['jobs'], params: JobIdParams, response: { 200: JobDetail, 404: ErrorDetail } } },
    async (request) => jobOr404((request.params as { job_id: string }).job_id),
  );

  app.get(
    '/jobs/:job_id/results',
    {
      schema: {
        summary: 'Download the results archive (ZIP)',
        description:
          'A ZIP of the output tree (global/…, insol/…, and for eemt jobs eemt/… and the climate folder), streamed; ' +
          'GeoTIFFs (Cloud Optimized) are stored without recompression. At its root, stac.json is the STAC Item of the job ' +
          '(with stac/daily-global.json and stac/daily-hours.json for the daily maps), hrefs relative to the archive.',
        tags: ['jobs'],
        params: JobIdParams,
        produces: ['application/zip'],
        response: {
          200: Type.String({ format: 'binary', description: 'eemt_results_{job_id}.zip' }),
          304: NOT_MODIFIED_RESPONSE,
          400: ErrorDetail,
          404: ErrorDetail,
        },
      },
    },
    async (request, reply) => {
      const job = jobOr404((request.params as { job_id: string }).job_id);
      if (job.status !== 'completed') badRequest('Job not completed');
      const outputDir = paths.outputDir(job.id);
      const files = job.data_deleted_at ? [] : (await resultEntries(outputDir)).filter((f) => !isStacPath(f.rel));
      if (files.length === 0) notFound('Results not found');
      const stac = await stacZipEntries(job, outputDir, files.map((f) => f.rel));
      // The archive's bytes follow from its files and the STAC entries (dated when the job completed).
      const completed = Date.parse(job.completed_at ?? job.created_at);
      const validators = compositeValidators(
        [...files.map((f) => `${f.rel}\t${f.stats.size}\t${f.stats.mtimeMs}`), ...stac.flatMap((e) => [e.name, e.bytes])],
        Math.max(completed, ...files.map((f) => f.stats.mtimeMs)),
      );
      reply
        .type('application/zip')
        .header('Content-Disposition', `attachment; filename="eemt_results_${job.id}.zip"`);
      if (answerNotModified(request, reply, validators)) return reply.code(304).send();
      const zip = zipStream(outputDir, files, stac, new Date(completed));
      const size = await zip.size;
      if (size !== null) reply.header('Content-Length', size);
      return reply.send(zip.stream);
    },
  );

  app.get(
    '/jobs/:job_id/logs',
    {
      schema: {
        summary: 'Last lines of the job log',
        tags: ['jobs'],
        params: JobIdParams,
        querystring: LogsQuery,
        response: { 200: JobLogs, 404: ErrorDetail, 422: ErrorDetail },
      },
    },
    async (request) => {
      const job = jobOr404((request.params as { job_id: string }).job_id);
      const { tail = 200 } = request.query as { tail?: number };
      try {
        return { job_id: job.id, lines: await tailLines(paths.logPath(job.id), tail) };
      } catch (error) {
        if (!(error instanceof NotRegularFileError)) throw error;
        request.log.warn(`job ${job.id}: job.log is not a regular file; not read`);
        return { job_id: job.id, lines: [] };
      }
    },
  );

  app.post(
    '/jobs/:job_id/cancel',
    {
      schema: {
        summary: 'Cancel a pending or running job',
        description: 'Stops the job process; the job fails with error_message "Cancelled by user".',
        tags: ['jobs'],
        params: JobIdParams,
        response: { 200: JobAction, 400: ErrorDetail, 404: ErrorDetail },
      },
    },
    async (request) => {
      const job = jobOr404((request.params as { job_id: string }).job_id);
      if (!scheduler.cancel(job.id)) badRequest(`Job cannot be cancelled: it is already ${job.status}`);
      return { job_id: job.id, status: 'failed' as const, message: 'Cancelled by user' };
    },
  );

  app.delete(
    '/jobs/:job_id',
    {
      schema: {
        summary: 'Delete a job and its files',
        description: 'Refused while the job is running (cancel it first).',
        tags: ['jobs'],
        params: JobIdParams,
        response: { 200: JobAction, 400: ErrorDetail, 404: ErrorDetail },
      },
    },
    async (request) => {
      const job = jobOr404((request.params as { job_id: string }).job_id);
      if (job.status === 'running' || scheduler.isActive(job.id)) badRequest('Cannot delete a running job; cancel it first');
      await removeJob({ store, paths, scheduler }, job.id);
      return { job_id: job.id, status: job.status, message: 'Job deleted' };
    },
  );
}
