/**
 * Admitting a job whose DEM has been stored at its upload path: the checks every way of submitting shares (the
 * multipart upload of /api and the inline or linked DEM of /ogc), then the job record and the queue.
 * Refusals are JobErrors with the status and `detail` the API answers; the caller removes the stored DEM then.
 */
import { rm } from 'node:fs/promises';
import type { ClimateSource } from '../../climate/climateOnDem.js';
import type { JobRuntime } from '../../runtime/types.js';
import { checkWorkflowInputs, WorkflowInputError, type WorkflowType } from '../../workflows/index.js';
import { estimateOutputBytes } from '../../workflows/outputSize.js';
import type { DemChecker } from './demCheck.js';
import { diskSpaceProblem, folderSpace } from './diskSpace.js';
import type { JobPaths } from '../store/paths.js';
import type { JobQueue } from '../queue/queue.js';
import type { JobStore } from '../store/store.js';
import { JobError, type JobParameters, type JobRecord } from '../types.js';

export const NOT_GEOTIFF = 'DEM file must be a GeoTIFF (.tif)';

export interface AdmissionDeps {
  readonly store: JobStore;
  readonly scheduler: Pick<JobQueue, 'enqueue' | 'runnableProblem' | 'splitsIntoSlices'>;
  readonly runtime: JobRuntime;
  /** Where the job's files go (its outputs must fit in the results folder). */
  readonly paths: JobPaths;
  readonly demChecker: DemChecker;
  /** Told why the runtime cannot run jobs (the client only hears that it is not available). */
  readonly logError?: (message: string) => void;
}

export interface JobRequest {
  readonly id: string;
  readonly type: WorkflowType;
  readonly parameters: JobParameters;
  /** The client's name of the DEM (kept only as `dem_filename`). */
  readonly demFilename: string;
  /** The user's climate ZIP stored beside the DEM (eemt only), with the client's name of it. */
  readonly climate?: { readonly path: string; readonly filename: string } | null;
}

/**
 * Checks the stored DEM of `request` (the bounded check process: structure, size and DEM rules), the user's climate
 * grids when given (the same bounded process), the workflow's own conditions (Daymet coverage of an eemt DEM without
 * climate grids), the runtime and the disk space its outputs need (507 when they do not fit in the results folder
 * beside what the jobs before it need), then stores the job as pending, with its output estimate, and queues it. A
 * job the queue cannot take is not kept (QueueUnavailableError: the client submits again).
 */
export async function admitJob(deps: AdmissionDeps, demPath: string, request: JobRequest): Promise<JobRecord> {
  const climateFile = request.climate ?? null;
  if (climateFile !== null && request.type !== 'eemt') throw new JobError(400, 'climate_file is used by eemt jobs only');
  const verdict = await deps.demChecker.check(demPath, request.type);
  if (!verdict.ok) throw new JobError(400, `${NOT_GEOTIFF}: ${verdict.problem}`);
  const { parameters } = request;
  let climateSource: ClimateSource | null = null;
  if (climateFile !== null) {
    const years = Array.from({ length: parameters.end_year! - parameters.start_year! + 1 }, (_, i) => parameters.start_year! + i);
    const climate = await deps.demChecker.checkClimate(climateFile.path, demPath, years);
    if (!climate.ok) throw new JobError(400, climate.problem.startsWith('climate_file') ? climate.problem : `climate_file: ${climate.problem}`);
    if (climate.source.type === 'user') {
      climateSource = { ...climate.source, archive: { ...climate.source.archive, name: climateFile.filename.slice(0, 255) } };
    }
  }
  try {
    const daymetSource = await checkWorkflowInputs(request.type, verdict.grid, parameters, { hasClimateFile: climateFile !== null, climateSource });
    climateSource ??= daymetSource;
  } catch (error) {
    if (error instanceof WorkflowInputError) throw new JobError(400, error.message);
    throw error;
  }
  const runtimeProblem = await deps.scheduler.runnableProblem();
  if (runtimeProblem) {
    deps.logError?.(`runtime ${deps.runtime.name} unavailable: ${runtimeProblem}`);
    throw new JobError(500, `Container execution failed: ${deps.runtime.name} not available`);
  }
  const { width, height } = verdict.grid;
  const space = await folderSpace(deps.paths.dirs.resultsDir).catch(() => undefined);
  const estimateBytes = estimateOutputBytes(request.type, parameters, width, height, {
    daymetCells: climateSource?.type === 'daymet' ? climateSource.cells.length : 0,
    // a climate file without srad grids makes no real-sky maps
    realSky: climateSource?.type !== 'user' || climateSource.radiation === true,
    ...(space ? { blockBytes: space.blockBytes } : {}),
    tileSlices: deps.scheduler.splitsIntoSlices?.(request.type, width * height, parameters) ?? false,
  });
  const noSpace = await diskSpaceProblem(deps, { id: request.id, estimateBytes }, { queued: true, ...(space ? { space } : {}) });
  if (noSpace) throw new JobError(507, noSpace);
  const job = deps.store.create({
    id: request.id,
    workflow_type: request.type,
    parameters: climateSource ? { ...parameters, climate_source: climateSource } : parameters,
    dem_filename: request.demFilename.slice(0, 255),
    output_estimate_bytes: estimateBytes,
  });
  try {
    await deps.scheduler.enqueue({ id: request.id, cells: width * height });
  } catch (error) {
    deps.store.delete(request.id);
    throw error;
  }
  return job;
}

/**
 * Removes a job that is not running: its record, then its upload, results and scratch folders. A job that is
 * still stopping (just cancelled) is waited for, at most `waitMs`.
 */
export async function removeJob(
  deps: { store: JobStore; paths: JobPaths; scheduler: Pick<JobQueue, 'isActive' | 'discard'> },
  id: string,
  waitMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + waitMs;
  while (deps.scheduler.isActive(id) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  await deps.scheduler.discard(id);
  deps.store.delete(id);
  for (const dir of deps.paths.allDirs(id)) await rm(dir, { recursive: true, force: true });
}
