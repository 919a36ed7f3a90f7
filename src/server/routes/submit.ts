/** POST /api/submit-job: a multipart upload streamed straight to disk, validated, then queued. */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { FastifyInstance } from 'fastify';
import type { MultipartFile } from '@fastify/multipart';
import { Type, type TSchema } from 'typebox';
import { admitJob, NOT_GEOTIFF } from '../../jobs/admission.js';
import type { DemChecker } from '../../jobs/demCheck.js';
import type { UploadsInProgress } from '../../jobs/orphans.js';
import type { JobPaths } from '../../jobs/paths.js';
import type { JobQueue } from '../../jobs/queue.js';
import type { JobStore } from '../../jobs/store.js';
import type { JobParameters } from '../../jobs/types.js';
import type { JobRuntime } from '../../runtime/types.js';
import { WORKFLOW_TYPES, type WorkflowType } from '../../workflows/index.js';
import { MODEL_CHOICES, MODEL_CHOICE_PARAMS, modelChoiceMessage } from '../../workflows/params.js';
import type { ModelChoiceParam } from '../../workflows/types.js';
import { parseDecimal } from '../../util/decimal.js';
import { badRequest, HttpError, unprocessable } from '../errors.js';
import { ErrorDetail } from '../schemas.js';
import { closedAsTooSlow } from '../requestBodies.js';
import { echoed } from '../../util/echoed.js';

/** The numeric form fields: their bounds and defaults are the validation rules and the documentation. */
export const SubmitParameters = {
  step: Type.Number({ minimum: 3, maximum: 60, default: 15, description: 'Time step of the daily integration [minutes], 3–60' }),
  linke_value: Type.Number({ minimum: 1, maximum: 8, default: 3, description: 'Linke atmospheric turbidity [-], 1.0–8.0' }),
  albedo_value: Type.Number({ minimum: 0, maximum: 1, default: 0.2, description: 'Surface albedo (reflectance) [-], 0.0–1.0' }),
  num_threads: Type.Integer({ minimum: 1, maximum: 32, default: 4, description: 'CPU threads, 1–32 (capped at CONTAINER_CPU_LIMIT)' }),
  start_year: Type.Integer({ minimum: 1980, maximum: 2024, default: 2020, description: 'First climate year, 1980–2024 (eemt only)' }),
  end_year: Type.Integer({ minimum: 1980, maximum: 2024, default: 2020, description: 'Last climate year, 1980–2024, not before start_year (eemt only)' }),
} as const;
type ParameterName = keyof typeof SubmitParameters;

/** What each EEMT model choice means, with its values' sources (docs/eemt-model.md §0.1c). */
const MODEL_CHOICE_DESCRIPTIONS: Readonly<Record<ModelChoiceParam, string>> = {
  pet_method:
    'eemt only: PET of EEMT-Trad — thornthwaite (Thornthwaite 1948, heat index and day-length correction; as in Rasmussen et al. 2005 and ' +
    'Zapata-Rios et al. 2016), hamon (Hamon in the form of Haith & Shoemaker 1987, 0.021 H² e_s/(T+273) cm/day; as cited by Rasmussen et al. 2015), ' +
    'hamon-linear (29.8 D e_s/(T+273.2) mm/day)',
  topo_npp:
    'eemt only: NPP of EEMT-Topo — regression (Rasmussen et al. 2015 Eq. 11, max(0.39 z + 346 n − 187, 100) g m⁻² yr⁻¹) or ' +
    "lieth (Lieth 1975 Miami temperature model on the month's topographic temperature)",
  topo_radiation:
    'eemt only: S_topo of the solar ratio of EEMT-Topo — unshaded (sloped surface without terrain shadows, as the radiation of ' +
    'Rasmussen et al. 2015), shaded (with terrain shadows, the sol monthly sums) or realsky (the real-sky sums of the sloped, shaded ' +
    "surface over those of a horizontal one, from the climate's observed shortwave radiation: Daymet srad, or srad grids in climate_file; " +
    'a climate_file without them is refused)',
  lieth_npp_gate:
    "eemt only: months in which Lieth's NPP counts (EEMT-Trad, and EEMT-Topo with topo_npp=lieth) — temperature (mean temperature above 0 °C) or none (every month)",
};

/** The EEMT model-choice form fields: enums with their defaults. */
export const SubmitModelChoices = Object.fromEntries(
  MODEL_CHOICE_PARAMS.map((name) => [
    name,
    Type.Union(
      MODEL_CHOICES[name].values.map((value) => Type.Literal(value)),
      { default: MODEL_CHOICES[name].default, description: MODEL_CHOICE_DESCRIPTIONS[name] },
    ),
  ]),
) as unknown as Record<ModelChoiceParam, TSchema>;

/** The model choices as recorded in a job's parameters: the same enums without defaults (a response schema's default would be filled in for sol jobs). */
export const RecordedModelChoices = Object.fromEntries(
  MODEL_CHOICE_PARAMS.map((name) => [
    name,
    Type.Union(
      MODEL_CHOICES[name].values.map((value) => Type.Literal(value)),
      { description: `${MODEL_CHOICE_DESCRIPTIONS[name]} (eemt jobs only)` },
    ),
  ]),
) as unknown as Record<ModelChoiceParam, TSchema>;

/** The JSON schema of a model choice as a plain enum (OGC process inputs). */
export function modelChoiceSchema(name: ModelChoiceParam): { type: 'string'; enum: readonly string[]; default: string; description: string } {
  return { type: 'string', enum: MODEL_CHOICES[name].values, default: MODEL_CHOICES[name].default, description: MODEL_CHOICE_DESCRIPTIONS[name] };
}

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
});

export const SubmitAck = Type.Object({
  job_id: Type.String({ description: 'Identifier of the new job' }),
  status: Type.Literal('submitted'),
});

/** Parses one numeric form field (decimal notation only) against its schema; 422 with the field and its range when it does not fit. */
function parseNumber(name: ParameterName, raw: string | undefined): number {
  const schema = SubmitParameters[name] as unknown as TSchema & { minimum: number; maximum: number; default: number; type: string };
  if (raw === undefined || raw.trim() === '') return schema.default;
  const integer = schema.type === 'integer';
  const expected = `${integer ? 'an integer' : 'a number'} from ${schema.minimum} to ${schema.maximum}`;
  const value = parseDecimal(raw.trim());
  if (value === null || (integer && !Number.isInteger(value))) {
    unprocessable(`${name} must be ${expected}, got "${echoed(raw)}"`);
  }
  if (value < schema.minimum || value > schema.maximum) unprocessable(`${name} must be ${expected}, got ${value}`);
  return value;
}

/** One model-choice field (eemt): its default when absent or blank; 422 naming the field and the allowed values otherwise. */
function parseModelChoice(name: ModelChoiceParam, raw: string | undefined): string {
  if (raw === undefined || raw.trim() === '') return MODEL_CHOICES[name].default;
  const value = raw.trim();
  if (!MODEL_CHOICES[name].values.includes(value)) unprocessable(modelChoiceMessage(name, value.slice(0, 40)));
  return value;
}

/** The job parameters of a submission (422 for bad values); the years and the model choices recorded for eemt only. */
export function parseParameters(type: WorkflowType, fields: Record<string, string>): JobParameters {
  const common = {
    step: parseNumber('step', fields.step),
    linke_value: parseNumber('linke_value', fields.linke_value),
    albedo_value: parseNumber('albedo_value', fields.albedo_value),
    num_threads: parseNumber('num_threads', fields.num_threads),
  };
  const start_year = parseNumber('start_year', fields.start_year);
  const end_year = parseNumber('end_year', fields.end_year);
  // checked whatever the workflow, like the years; recorded (with their defaults) for eemt jobs only
  const choices = Object.fromEntries(MODEL_CHOICE_PARAMS.map((name) => [name, parseModelChoice(name, fields[name])]));
  if (type !== 'eemt') return common;
  if (end_year < start_year) unprocessable(`end_year (${end_year}) must not be before start_year (${start_year})`);
  return { ...common, start_year, end_year, ...choices } as JobParameters;
}

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
