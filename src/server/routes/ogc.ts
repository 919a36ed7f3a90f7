/**
 * OGC API – Processes – Part 1: Core (OGC 18-062r2), under /ogc: landing page, conformance, the process list and
 * descriptions (sol, eemt, echo), execution (sol and eemt as asynchronous jobs, echo synchronously), the job list,
 * job status, results and dismissal. Jobs are the service's jobs (one store): a job submitted through /api is
 * listed here and the other way round. Errors are exception documents (`installOgcErrorHandlers`).
 */
import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { admitJob, removeJob } from '../../jobs/admission/admission.js';
import type { DemChecker } from '../../jobs/admission/demCheck.js';
import { downloadDem } from '../../jobs/admission/demDownload.js';
import type { UploadsInProgress } from '../../jobs/queue/orphans.js';
import type { JobPaths } from '../../jobs/store/paths.js';
import { resultEntries } from '../../jobs/catalogue/results.js';
import type { JobQueue } from '../../jobs/queue/queue.js';
import type { JobStore } from '../../jobs/store/store.js';
import type { JobRecord } from '../../jobs/types.js';
import type { JobRuntime } from '../../runtime/types.js';
import { installOgcErrorHandlers, OGC_EXCEPTION_TYPES, OgcError } from '../errors.js';
import { executeEcho } from '../ogc/echo.js';
import { executeInputs, INLINE_DEM_PATHS, inlineDemTooLarge, NOT_BASE64 } from '../ogc/executeInputs.js';
import { requestedOutputs } from '../ogc/executeOutputs.js';
import { jobListFilter, type JobListQuery } from '../ogc/jobListQuery.js';
import { pageLinks } from '../ogc/pageLinks.js';
import { DEFAULT_JSON_BOUNDS as JSON_BOUNDS } from '../jsonBody/bounds.js';
import type { FileStaging } from '../jsonBody/inlineFile.js';
import { echoed } from '../../util/echoed.js';
import { PROCESS_IDS, processDescriptions, type ProcessDescription, type ProcessId } from '../ogc/processes.js';
import { OGC_STATUSES, ogcStatus, REL, statusInfo, type Link } from '../ogc/statusInfo.js';
import { queryLists } from '../queryLists.js';

/** The conformance classes of OGC API – Processes – Part 1 this service implements. */
export const CONFORMANCE_CLASSES = [
  'http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/core',
  'http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/ogc-process-description',
  'http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/json',
  'http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/oas30',
  'http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/job-list',
  'http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/dismiss',
] as const;

/** How long a download of a DEM reference may take [ms]. */
const HREF_TIMEOUT_MS = 120_000;

/**
 * Page sizes of the process and job lists: the default and the largest `limit` (the values of the OpenAPI fragments
 * of /req/core/pl-limit-definition and /req/job-list/limit-definition); a larger or smaller one is refused (400).
 */
export const LIST_LIMIT = { default: 10, maximum: 10_000 } as const;

export interface OgcRoutesDeps {
  readonly store: JobStore;
  readonly scheduler: JobQueue;
  readonly runtime: JobRuntime;
  readonly paths: JobPaths;
  readonly demChecker: DemChecker;
  readonly uploads: UploadsInProgress;
  readonly version: string;
  /** Largest inline (base64) DEM [bytes]. */
  readonly maxInlineBytes: number;
  /** Largest DEM fetched by reference [bytes] (the upload limit). */
  readonly maxUploadBytes: number;
  /** URL prefixes DEM references may come from; empty: references are refused. */
  readonly hrefAllow: readonly string[];
}

const LinkSchema = Type.Object(
  { href: Type.String(), rel: Type.String(), type: Type.Optional(Type.String()), title: Type.Optional(Type.String()) },
  { additionalProperties: true },
);
const Exception = Type.Object(
  { type: Type.String(), title: Type.String(), status: Type.Integer(), detail: Type.String() },
  { $id: 'OgcException', description: 'Exception document (exception.yaml of OGC API – Processes)' },
);
const StatusInfo = Type.Object(
  {
    processID: Type.String(),
    type: Type.Literal('process'),
    jobID: Type.String(),
    status: Type.Union(OGC_STATUSES.map((s) => Type.Literal(s))),
    message: Type.String(),
    created: Type.String({ format: 'date-time' }),
    started: Type.Optional(Type.String({ format: 'date-time' })),
    finished: Type.Optional(Type.String({ format: 'date-time' })),
    updated: Type.String({ format: 'date-time' }),
    progress: Type.Integer({ minimum: 0, maximum: 100 }),
    links: Type.Array(LinkSchema),
  },
  { description: 'statusInfo.yaml' },
);
const Open = (description: string) => Type.Object({}, { additionalProperties: true, description });
const ProcessParams = Type.Object({ processID: Type.String() });
const JobParams = Type.Object({ jobID: Type.String() });
const Limit = (items: string) =>
  Type.Integer({
    minimum: 1,
    maximum: LIST_LIMIT.maximum,
    default: LIST_LIMIT.default,
    description: `At most this many ${items} in a page (${LIST_LIMIT.default} when not given; at most ${LIST_LIMIT.maximum}). The response links the next page (rel next) when there are more, and the previous one (rel prev)`,
  });
/** A cursor of the job list: a position in the list, taken from a next or prev link. */
const Cursor = (description: string) => Type.Integer({ minimum: 0, description });
const ProcessListQuery = Type.Object({
  limit: Type.Optional(Limit('processes')),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'Skip this many processes (the next and prev links set it)' })),
});
const JobListQuerySchema = Type.Object({
  limit: Type.Optional(Limit('jobs')),
  type: Type.Optional(Type.Array(Type.Enum(['process'], { type: 'string' }), { description: 'Only jobs of this type: every job of this service is a process job' })),
  processID: Type.Optional(Type.Array(Type.String(), { description: 'Only jobs of these processes (sol, eemt); repeated or comma-separated' })),
  status: Type.Optional(Type.Array(Type.Enum([...OGC_STATUSES], { type: 'string' }), { description: 'Only jobs with one of these statuses; repeated or comma-separated' })),
  datetime: Type.Optional(
    Type.String({
      description:
        'Only jobs created at this instant or in this interval (RFC 3339 date-times, both ends inclusive): 2024-03-01T12:00:00Z, ' +
        '2024-03-01T00:00:00Z/2024-04-01T00:00:00Z, ../2024-04-01T00:00:00Z, 2024-03-01T00:00:00Z/..',
    }),
  ),
  minDuration: Type.Optional(
    Type.Integer({ minimum: 0, description: 'Only jobs that ran at least this many seconds (finished − started; now − started while running; jobs that never started are left out)' }),
  ),
  maxDuration: Type.Optional(Type.Integer({ minimum: 0, description: 'Only jobs that ran at most this many seconds (as minDuration)' })),
  before: Type.Optional(Cursor('Jobs older than this position (the next link sets it)')),
  after: Type.Optional(Cursor('Jobs newer than this position (the prev link sets it)')),
});
const ExecuteBody = Type.Object(
  {
    inputs: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    outputs: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    response: Type.Optional(Type.Union([Type.Literal('raw'), Type.Literal('document')])),
    subscriber: Type.Optional(Type.Unknown()),
  },
  { description: 'execute.yaml: inputs by id; for sol/eemt `dem` is {"value": "<base64 GeoTIFF>", "mediaType": "image/tiff; application=geotiff"}' },
);

const errors = { 400: Exception, 404: Exception, 500: Exception };

export default async function ogcRoutes(app: FastifyInstance, deps: OgcRoutesDeps) {
  const { store, scheduler, paths } = deps;
  installOgcErrorHandlers(app);
  queryLists(app);
  app.addSchema(Exception);
  const processes = processDescriptions(deps.version, deps.hrefAllow.length > 0);
  const baseOf = (request: FastifyRequest) => `${request.protocol}://${request.host}`;
  const processOr404 = (id: string): ProcessDescription => {
    if (!(PROCESS_IDS as readonly string[]).includes(id)) {
      throw new OgcError(404, OGC_EXCEPTION_TYPES.noSuchProcess, `No process "${echoed(id)}"; the processes are ${PROCESS_IDS.join(', ')}`);
    }
    return processes[id as ProcessId];
  };
  const jobOr404 = (id: string): JobRecord => {
    const job = store.get(id);
    if (!job) throw new OgcError(404, OGC_EXCEPTION_TYPES.noSuchJob, `No job "${echoed(id)}"`);
    return job;
  };
  const inlineLimit = Math.min(deps.maxInlineBytes, deps.maxUploadBytes);
  /** The place of an inline DEM: the upload folder of a new job id, busy (the orphan sweep leaves it) until it ends. */
  const stageDem = (): FileStaging => {
    const id = randomUUID();
    deps.uploads.begin(id);
    return {
      id,
      path: paths.demPath(id),
      async discard() {
        try {
          await rm(paths.uploadDir(id), { recursive: true, force: true });
        } finally {
          deps.uploads.end(id);
        }
      },
    };
  };
  const summary = (p: ProcessDescription, base: string) => {
    const { inputs: _inputs, outputs: _outputs, ...rest } = p;
    return {
      ...rest,
      links: [
        { href: `${base}/ogc/processes/${p.id}`, rel: 'self', type: 'application/json', title: 'Process description' },
        { href: `${base}/ogc/processes/${p.id}/execution`, rel: REL.execute, type: 'application/json', title: 'Execute' },
      ],
    };
  };

  app.get(
    '/',
    { schema: { operationId: 'getLandingPage', summary: 'Landing page', tags: ['ogc'], response: { 200: Open('landingPage.yaml') } } },
    async (request) => {
      const base = baseOf(request);
      const links: Link[] = [
        { href: `${base}/ogc/`, rel: 'self', type: 'application/json', title: 'This document' },
        { href: `${base}/openapi.json`, rel: 'service-desc', type: 'application/vnd.oai.openapi+json;version=3.0', title: 'OpenAPI document' },
        { href: `${base}/docs`, rel: 'service-doc', type: 'text/html', title: 'API documentation' },
        { href: `${base}/ogc/conformance`, rel: REL.conformance, type: 'application/json', title: 'Conformance classes' },
        { href: `${base}/ogc/processes`, rel: REL.processes, type: 'application/json', title: 'Processes' },
        { href: `${base}/ogc/jobs`, rel: REL.jobList, type: 'application/json', title: 'Jobs' },
      ];
      return {
        title: 'EEMT service – OGC API – Processes',
        description: 'Terrain solar radiation (sol) and EEMT (eemt) maps from a DEM GeoTIFF, as OGC API – Processes',
        links,
      };
    },
  );

  app.get(
    '/conformance',
    {
      schema: {
        operationId: 'getConformanceClasses',
        summary: 'Conformance classes',
        tags: ['ogc'],
        response: { 200: Type.Object({ conformsTo: Type.Array(Type.String()) }) },
      },
    },
    async () => ({ conformsTo: [...CONFORMANCE_CLASSES] }),
  );

  app.get(
    '/processes',
    {
      schema: {
        operationId: 'getProcesses',
        summary: 'Process list',
        tags: ['ogc'],
        querystring: ProcessListQuery,
        response: { 200: Open('processList.yaml'), 400: Exception },
      },
    },
    async (request) => {
      const { limit, offset } = request.query as { limit: number; offset: number };
      const base = baseOf(request);
      const page = PROCESS_IDS.slice(offset, offset + limit);
      const end = Math.min(offset, PROCESS_IDS.length);
      return {
        processes: page.map((id) => summary(processes[id], base)),
        links: pageLinks(base, request.url, 'Processes', {
          ...(offset + limit < PROCESS_IDS.length ? { next: { offset: offset + limit } } : {}),
          ...(offset > 0 ? { prev: { offset: Math.max(0, end - limit) } } : {}),
        }),
      };
    },
  );

  app.get(
    '/processes/:processID',
    {
      schema: {
        operationId: 'getProcessDescription',
        summary: 'Process description (inputs and outputs with their schemas)',
        tags: ['ogc'],
        params: ProcessParams,
        response: { 200: Open('process.yaml'), 404: Exception },
      },
    },
    async (request) => {
      const process = processOr404((request.params as { processID: string }).processID);
      return { ...summary(process, baseOf(request)), inputs: process.inputs, outputs: process.outputs };
    },
  );

  app.post(
    '/processes/:processID/execution',
    {
      schema: {
        operationId: 'execute',
        summary: 'Execute a process',
        description:
          'sol and eemt run as jobs: 201 with the job\'s statusInfo and its URL in Location (asynchronous execution, whether or ' +
          'not `Prefer: respond-async` is sent). echo answers immediately with 200: with `response: raw` (the default) its ' +
          'output as text/plain, or as a JSON string when the client prefers application/json (Accept, or the output\'s ' +
          'format.mediaType); with `response: document` a results document; 406 when Accept allows neither. An output or a ' +
          'transmissionMode the process does not offer (outputTransmission) is refused with 400. The DEM is inline base64 (at most ' +
          'EEMT_OGC_MAX_INLINE_MB and EEMT_MAX_UPLOAD_MB; line breaks allowed), decoded to disk while the body arrives, and ' +
          'checked like an upload; 507 when the job\'s outputs would not fit in the results folder. The rest of the body has ' +
          `the bounds of every JSON body (depth ${JSON_BOUNDS.maxDepth}, ${JSON_BOUNDS.maxKeys} keys per object, ${JSON_BOUNDS.maxItems} ` +
          `items per array, ${JSON_BOUNDS.maxStringLength} characters per string, ${JSON_BOUNDS.maxValues} values): 400 naming the bound.`,
        tags: ['ogc'],
        params: ProcessParams,
        body: ExecuteBody,
        response: { 200: Open('results of echo'), 201: StatusInfo, 406: Exception, 413: Exception, ...errors, 507: Exception },
      },
      bodyLimit: Math.ceil((inlineLimit * 4) / 3) + 1024 * 1024,
      // The inline DEM is decoded into its job's upload folder while the body arrives (never held in memory).
      config: {
        jsonBody: {
          inlineFiles: { at: INLINE_DEM_PATHS, maxBytes: inlineLimit, notBase64: NOT_BASE64, tooLarge: inlineDemTooLarge(inlineLimit), stage: stageDem },
        },
      },
    },
    async (request, reply) => {
      const process = processOr404((request.params as { processID: string }).processID);
      const body = (request.body ?? {}) as { inputs?: Record<string, unknown>; outputs?: Record<string, unknown>; response?: 'raw' | 'document' };
      const inputs = body.inputs ?? {};
      if (process.id === 'echo') {
        const result = executeEcho(process, body, request.headers);
        return reply.code(200).type(result.contentType).send(result.body);
      }
      requestedOutputs(process, body.outputs);

      const type = process.id;
      const { dem, parameters } = executeInputs(type, inputs, { hrefEnabled: deps.hrefAllow.length > 0 });
      // An inline DEM is already in the upload folder of the id staged for it; a reference is fetched there.
      const staged = 'file' in dem ? dem.file.claim() : null;
      const id = staged?.id ?? randomUUID();
      if (!staged) deps.uploads.begin(id);
      try {
        if ('href' in dem) {
          await mkdir(paths.uploadDir(id), { recursive: true });
          await downloadDem(dem.href, paths.demPath(id), { allow: deps.hrefAllow, maxBytes: deps.maxUploadBytes, timeoutMs: HREF_TIMEOUT_MS });
        }
        const job = await admitJob(
          { store, scheduler, runtime: deps.runtime, paths, demChecker: deps.demChecker, logError: (message) => request.log.error(message) },
          paths.demPath(id),
          { id, type, parameters, demFilename: 'href' in dem ? (dem.href.split('/').pop() || 'dem.tif') : 'dem.tif' },
        );
        const base = baseOf(request);
        const preferAsync = /\brespond-async\b/i.test(String(request.headers.prefer ?? ''));
        if (preferAsync) reply.header('Preference-Applied', 'respond-async');
        return reply.code(201).header('Location', `${base}/ogc/jobs/${id}`).send(statusInfo(job, base));
      } catch (error) {
        await rm(paths.uploadDir(id), { recursive: true, force: true });
        throw error;
      } finally {
        deps.uploads.end(id);
      }
    },
  );

  app.get(
    '/jobs',
    {
      schema: {
        operationId: 'getJobs',
        summary: 'Job list (every job of the service, newest first), filtered and in pages',
        description:
          'Filters of the Job list conformance class (type, processID, status, datetime, minDuration, maxDuration) and pages of ' +
          'limit jobs. Follow the next and prev links to page: they keep the filters, and jobs submitted or deleted meanwhile ' +
          'neither repeat nor skip a job on the following pages.',
        tags: ['ogc'],
        querystring: JobListQuerySchema,
        response: { 200: Type.Object({ jobs: Type.Array(StatusInfo), links: Type.Array(LinkSchema) }), 400: Exception },
      },
    },
    async (request) => {
      const query = request.query as JobListQuery & { limit: number; before?: number; after?: number };
      if (query.before !== undefined && query.after !== undefined) {
        throw new OgcError(400, OGC_EXCEPTION_TYPES.invalidQueryParameterValue, 'before and after cannot both be given');
      }
      const base = baseOf(request);
      const page = store.page(jobListFilter(query), {
        limit: query.limit,
        ...(query.before !== undefined ? { before: query.before } : {}),
        ...(query.after !== undefined ? { after: query.after } : {}),
      });
      return {
        jobs: page.jobs.map((job) => statusInfo(job, base)),
        links: pageLinks(base, request.url, 'Jobs', {
          ...(page.olderBefore !== undefined ? { next: { before: page.olderBefore } } : {}),
          ...(page.newerAfter !== undefined ? { prev: { after: page.newerAfter } } : {}),
        }),
      };
    },
  );

  app.get(
    '/jobs/:jobID',
    { schema: { operationId: 'getStatus', summary: 'Job status', tags: ['ogc'], params: JobParams, response: { 200: StatusInfo, 404: Exception } } },
    async (request) => statusInfo(jobOr404((request.params as { jobID: string }).jobID), baseOf(request)),
  );

  app.get(
    '/jobs/:jobID/results',
    {
      schema: {
        operationId: 'getResult',
        summary: 'Job results (the results archive, by reference)',
        tags: ['ogc'],
        params: JobParams,
        response: { 200: Open('results.yaml: {results: {href, type}}'), ...errors },
      },
    },
    async (request) => {
      const job = jobOr404((request.params as { jobID: string }).jobID);
      const status = ogcStatus(job);
      if (status === 'accepted' || status === 'running') {
        throw new OgcError(404, OGC_EXCEPTION_TYPES.resultNotReady, `The job is ${status}; its results are not ready`);
      }
      if (status !== 'successful') {
        throw new OgcError(400, OGC_EXCEPTION_TYPES.noApplicableCode, `The job ${status === 'dismissed' ? 'was dismissed' : 'failed'}: ${job.error_message ?? ''}`);
      }
      if (job.data_deleted_at || (await resultEntries(paths.outputDir(job.id))).length === 0) {
        throw new OgcError(404, OGC_EXCEPTION_TYPES.noSuchJob, 'The results of the job were deleted (retention cleanup)');
      }
      const base = baseOf(request);
      return { results: { href: `${base}/api/jobs/${job.id}/results`, type: 'application/zip', title: `eemt_results_${job.id}.zip` } };
    },
  );

  app.delete(
    '/jobs/:jobID',
    {
      schema: {
        operationId: 'dismiss',
        summary: 'Dismiss a job: cancel it if it runs, and remove it and its data',
        tags: ['ogc'],
        params: JobParams,
        response: { 200: StatusInfo, 404: Exception, 500: Exception },
      },
    },
    async (request) => {
      const job = jobOr404((request.params as { jobID: string }).jobID);
      if (job.status === 'pending' || job.status === 'running') scheduler.cancel(job.id);
      await removeJob({ store, paths, scheduler }, job.id);
      const info = statusInfo({ ...job, updated_at: new Date().toISOString() }, baseOf(request), 'dismissed');
      return { ...info, message: 'Job dismissed', links: info.links.filter((l) => l.type !== 'text/event-stream') };
    },
  );
}
