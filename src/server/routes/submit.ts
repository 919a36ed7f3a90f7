/** POST /api/submit-job: a multipart upload streamed straight to disk, validated, then queued. */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance } from 'fastify';
import type { MultipartFile } from '@fastify/multipart';
import { Type } from 'typebox';
import { admitJob, NOT_GEOTIFF } from '../../jobs/admission/admission.js';
import type { DemChecker } from '../../jobs/admission/demCheck.js';
import type { UploadsInProgress } from '../../jobs/queue/orphans.js';
import type { JobPaths } from '../../jobs/store/paths.js';
import type { JobQueue } from '../../jobs/queue/queue.js';
import type { JobStore } from '../../jobs/store/store.js';
import type { JobRuntime } from '../../runtime/types.js';
import { WORKFLOW_TYPES, type WorkflowType } from '../../workflows/index.js';
import { badRequest, HttpError } from '../errors.js';
import { parseParameters, SubmitGrammarParameters, SubmitModelChoices, SubmitParameters } from '../parameters.js';
import { ErrorDetail } from '../schemas.js';
import { closedAsTooSlow } from '../requestBodies.js';
import { echoed } from '../../util/echoed.js';

export const SubmitForm = Type.Object({
  workflow_type: Type.Union([Type.Literal('sol'), Type.Literal('eemt')], { description: 'Workflow to run' }),
  dem_file: Type.String({ format: 'binary', description: 'DEM: a georeferenced single-band GeoTIFF (.tif or .tiff)' }),
  climate_file: Type.Optional(
    Type.String({
      format: 'binary',
      description:
        'eemt only, optional: a ZIP of monthly climate GeoTIFFs used instead of Daymet (any CRS, covering the DEM) — ' +
        'a time series {tmin,tmax,prcp,vp}_{YYYY}_{MM}.tif (°C, °C, mm/month, Pa) for every month of start_year–end_year, ' +
        'or a 12-month climatology {tmin,tmax,prcp,vp}_{MM}.tif or WorldClim 2.1 wc2.1_{res}_{tmin,tmax,prec,vapr}_{MM}.tif ' +
        '(vapr in kPa); optional elevation.tif for the lapse-rate adjustment; optional srad grids in the same layout ' +
        '(srad_{YYYY}_{MM}.tif or srad_{MM}.tif in W m⁻² averaged over the daylight period, or WorldClim srad in kJ m⁻² day⁻¹) ' +
        'for the real-sky maps. See docs/climate-input.md.',
    }),
  ),
  ...Object.fromEntries(Object.entries(SubmitParameters).map(([k, v]) => [k, Type.Optional(v)])),
  ...Object.fromEntries(Object.entries(SubmitModelChoices).map(([k, v]) => [k, Type.Optional(v)])),
  ...Object.fromEntries(Object.entries(SubmitGrammarParameters).map(([k, v]) => [k, Type.Optional(v)])),
});

export const SubmitAck = Type.Object({
  job_id: Type.String({ description: 'Identifier of the new job' }),
  status: Type.Literal('submitted'),
});

export function parseWorkflowType(raw: string | undefined): WorkflowType {
  if (raw === undefined || raw.trim() === '') badRequest('workflow_type is required');
  const type = raw.trim();
  if (!(WORKFLOW_TYPES as readonly string[]).includes(type)) {
    badRequest(`Unknown workflow_type "${echoed(type)}"; expected one of: ${WORKFLOW_TYPES.join(', ')}`);
  }
  return type as WorkflowType;
}

const GEOTIFF_NAME = /\.tiff?$/i;
const ZIP_NAME = /\.zip$/i;
export const NOT_ZIP = 'climate_file must be a ZIP archive (.zip) of monthly GeoTIFFs';

export interface SubmitDeps {
  readonly store: JobStore;
  readonly scheduler: JobQueue;
  readonly runtime: JobRuntime;
  readonly paths: JobPaths;
  /** Upload size limit of the DEM file [bytes] (setting EEMT_MAX_UPLOAD_MB). */
  readonly maxUploadBytes: number;
  readonly demChecker: DemChecker;
  readonly uploads: UploadsInProgress;
}

/** 413 for a DEM (or climate file) over the upload limit, naming the limit and its setting. */
export function uploadTooLarge(maxUploadBytes: number, what = 'DEM file'): HttpError {
  const limit = maxUploadBytes % (1024 * 1024) === 0 ? `${maxUploadBytes / (1024 * 1024)} MB` : `${maxUploadBytes} bytes`;
  return new HttpError(413, `${what} is larger than the upload limit of ${limit} (EEMT_MAX_UPLOAD_MB)`);
}

/** Streams an uploaded file part to `path`; 413 as soon as it passes the limit (the rest is not worth reading). */
async function saveUpload(file: MultipartFile['file'], path: string, maxUploadBytes: number, what: string): Promise<void> {
  const overLimit = new AbortController();
  file.once('limit', () => overLimit.abort());
  try {
    await pipeline(file, createWriteStream(path), { signal: overLimit.signal });
  } catch (error) {
    throw overLimit.signal.aborted ? uploadTooLarge(maxUploadBytes, what) : error;
  }
  if (file.truncated) throw uploadTooLarge(maxUploadBytes, what);
}

/** Whether an error comes from the file system (writing the upload), not from the client's request. */
function isFileSystemError(error: unknown): boolean {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === 'string';
}

/**
 * The client's share of an error raised while the multipart body is read: a file over the limit is 413; the
 * multipart plugin's own errors (limits, a closed connection) keep their codes for the error mapper; anything
 * else the parser throws (no boundary, no closing boundary, a truncated part) is a malformed request (400).
 * Our own errors and disk errors pass unchanged.
 */
function uploadError(error: unknown, maxUploadBytes: number): unknown {
  if (error instanceof HttpError || isFileSystemError(error)) return error;
  const code = (error as { code?: unknown }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return uploadTooLarge(maxUploadBytes);
  if (typeof code === 'string' && code.startsWith('FST_')) return error;
  const reason = (error instanceof Error ? error.message : String(error)).replace(/^Multipart: /, '');
  return new HttpError(400, `Malformed multipart request: ${reason.charAt(0).toLowerCase()}${reason.slice(1)}`);
}

export default async function submitRoutes(app: FastifyInstance, { store, scheduler, runtime, paths, maxUploadBytes, demChecker, uploads }: SubmitDeps) {
  app.post(
    '/submit-job',
    {
      schema: {
        summary: 'Submit a workflow job',
        description:
          'Uploads a DEM GeoTIFF (multipart/form-data) and queues a job. The DEM is checked by content: it must be a ' +
          'readable, georeferenced, single-band GeoTIFF. An eemt job may bring its own monthly climate grids ' +
          '(climate_file, a ZIP), checked with the same bounds: every grid present, a GeoTIFF, covering the DEM, in ' +
          'the expected units; without one, the DEM must lie inside Daymet (North America). A job whose outputs ' +
          '(estimated from the DEM\'s size) would not fit in the free space of the results folder is refused with 507. ' +
          'Rejected submissions leave no job and no file behind.',
        tags: ['jobs'],
        consumes: ['multipart/form-data'],
        body: SubmitForm,
        response: { 200: SubmitAck, 400: ErrorDetail, 408: ErrorDetail, 413: ErrorDetail, 422: ErrorDetail, 500: ErrorDetail, 503: ErrorDetail, 507: ErrorDetail },
      },
      // The multipart body is streamed and checked field by field below, against the same schemas.
      validatorCompiler: () => () => true,
    },
    async (request) => {
      const jobId = randomUUID();
      const uploadDir = paths.uploadDir(jobId);
      const demPath = paths.demPath(jobId);
      const fields: Record<string, string> = {};
      const climatePath = paths.climatePath(jobId);
      // The file fields: the name each must have, the refusal otherwise, where it is stored.
      const uploadFields = new Map([
        ['dem_file', { pattern: GEOTIFF_NAME, refusal: NOT_GEOTIFF, path: demPath, label: 'DEM file' }],
        ['climate_file', { pattern: ZIP_NAME, refusal: NOT_ZIP, path: climatePath, label: 'climate_file' }],
      ]);
      const received = new Map<string, string>();
      let fileError: HttpError | null = null;
      uploads.begin(jobId);
      try {
        try {
          for await (const part of request.parts()) {
            if (part.type === 'file') {
              const upload = uploadFields.get(part.fieldname);
              if (!upload || received.has(part.fieldname) || fileError) {
                part.file.resume();
                continue;
              }
              const name = part.filename ?? '';
              if (!upload.pattern.test(name)) {
                fileError = new HttpError(400, upload.refusal);
                part.file.resume();
                continue;
              }
              await mkdir(uploadDir, { recursive: true });
              await saveUpload(part.file, upload.path, maxUploadBytes, upload.label);
              received.set(part.fieldname, name);
            } else if (typeof part.value === 'string') {
              fields[part.fieldname] = part.value;
            }
          }
        } catch (error) {
          throw uploadError(error, maxUploadBytes);
        }

        const demFilename = received.get('dem_file') ?? null;
        const climateFilename = received.get('climate_file') ?? null;
        const type = parseWorkflowType(fields.workflow_type);
        if (fileError) throw fileError;
        if (demFilename === null) badRequest('dem_file is required');
        const parameters = parseParameters(type, fields);
        await admitJob(
          { store, scheduler, runtime, paths, demChecker, logError: (message) => request.log.error(message) },
          demPath,
          { id: jobId, type, parameters, demFilename, climate: climateFilename === null ? null : { path: climatePath, filename: climateFilename } },
        );
        return { job_id: jobId, status: 'submitted' as const };
      } catch (error) {
        await rm(uploadDir, { recursive: true, force: true });
        if (!request.raw.complete && request.raw.socket.destroyed && !closedAsTooSlow(request)) {
          request.log.info('upload closed by the client before it was complete; its file was removed');
        }
        throw error;
      } finally {
        uploads.end(jobId);
      }
    },
  );
}
