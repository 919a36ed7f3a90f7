/**
 * Admitting a job whose DEM has been stored at its upload path: the checks every way of submitting shares (the
 * multipart upload of /api and the inline or linked DEM of /ogc), then the job record and the queue.
 * Refusals are JobErrors with the status and `detail` the API answers; the caller removes the stored DEM then.
 */
import { rm } from 'node:fs/promises';
import type { JobRuntime } from '../runtime/types.js';
import { checkWorkflowInputs, WorkflowInputError, workflowUnavailableReason, type WorkflowType } from '../workflows/index.js';
import type { DemChecker } from './demCheck.js';
import type { JobPaths } from './paths.js';
import type { JobScheduler } from './scheduler.js';
import type { JobStore } from './store.js';
import { JobError, type JobParameters, type JobRecord } from './types.js';

export const NOT_GEOTIFF = 'DEM file must be a GeoTIFF (.tif)';

export interface AdmissionDeps {
  readonly store: JobStore;
  readonly scheduler: Pick<JobScheduler, 'enqueue'>;
  readonly runtime: JobRuntime;
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
}

/**
 * Checks the stored DEM of `request` (the bounded check process: structure, size and DEM rules), the workflow's own
 * conditions (Daymet coverage of an eemt DEM) and the runtime, then stores the job as pending and queues it.
 */
export async function admitJob(deps: AdmissionDeps, demPath: string, request: JobRequest): Promise<JobRecord> {
  const unavailable = workflowUnavailableReason(request.type);
  if (unavailable) throw new JobError(400, unavailable);
  const verdict = await deps.demChecker.check(demPath);
  if (!verdict.ok) throw new JobError(400, `${NOT_GEOTIFF}: ${verdict.problem}`);
  try {
    await checkWorkflowInputs(request.type, verdict.grid, request.parameters);
  } catch (error) {
    if (error instanceof WorkflowInputError) throw new JobError(400, error.message);
    throw error;
  }
  const runtimeProblem = await deps.runtime.check();
  if (runtimeProblem) {
    deps.logError?.(`runtime ${deps.runtime.name} unavailable: ${runtimeProblem}`);
    throw new JobError(500, `Container execution failed: ${deps.runtime.name} not available`);
  }
  const job = deps.store.create({
    id: request.id,
    workflow_type: request.type,
    parameters: request.parameters,
    dem_filename: request.demFilename.slice(0, 255),
  });
  deps.scheduler.enqueue();
  return job;
}

/**
 * Removes a job that is not running: its record, then its upload, results and scratch folders. A job that is
 * still stopping (just cancelled) is waited for, at most `waitMs`.
 */
export async function removeJob(
  deps: { store: JobStore; paths: JobPaths; scheduler: Pick<JobScheduler, 'isActive'> },
  id: string,
  waitMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + waitMs;
  while (deps.scheduler.isActive(id) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  deps.store.delete(id);
  for (const dir of deps.paths.allDirs(id)) await rm(dir, { recursive: true, force: true });
}
