/** Job records as the job layer stores and returns them (field names as in the service's API). */
import type { ClimateSource } from '../climate/climateOnDem.js';
import type { WorkflowParams, WorkflowType } from '../workflows/types.js';

export type JobStatus = 'pending' | 'running' | 'completed' | 'failed';

/** The error message of a job its user cancelled (a failed job with this message was cancelled, not failed). */
export const CANCELLED_MESSAGE = 'Cancelled by user';

/**
 * Parameters of a job as submitted (the workflow's own parameters); `start_year`/`end_year` and the model choices
 * (`pet_method`, `topo_npp`, `topo_radiation`, `lieth_npp_gate`, each with its value or default) only for eemt jobs;
 * `products` (normalised) for the jobs submitted since it exists.
 */
export type JobParameters = WorkflowParams & {
  /** eemt jobs: where the climate comes from (Daymet cells, or the uploaded climate file's grids and checksums). */
  readonly climate_source?: ClimateSource;
};

export interface JobRecord {
  readonly id: string;
  readonly workflow_type: WorkflowType;
  readonly status: JobStatus;
  /** ISO 8601 UTC with a trailing Z. */
  readonly created_at: string;
  readonly started_at: string | null;
  readonly completed_at: string | null;
  readonly parameters: JobParameters;
  readonly dem_filename: string;
  readonly error_message: string | null;
  /** 0–100, never decreasing; 100 only when completed. */
  readonly progress: number;
  /** Last progress message of the workflow (e.g. "day 153/365"). */
  readonly progress_message: string | null;
  /** Runtime that ran (or runs) the job: docker, bubblewrap or process. */
  readonly runtime: string | null;
  /** When retention cleanup deleted the job's files (the record is kept), else null. */
  readonly data_deleted_at: string | null;
  /** Number of changes of the record so far: rises with every change of status, progress or message. */
  readonly revision: number;
  /** When the record last changed (ISO 8601 UTC); the latest of its timestamps for records from before it was kept. */
  readonly updated_at: string;
  /** Estimate of the job's outputs made at submission [bytes] (`workflows/outputSize.ts`); null for jobs from before it was kept. */
  readonly output_estimate_bytes: number | null;
}

/**
 * The workflow parameters of `job` (the years and the model choices only for eemt jobs; absent choices stay absent, and
 * so does `products` of a job from before it was recorded: every product).
 */
export function workflowParamsOf(job: Pick<JobRecord, 'workflow_type' | 'parameters'>): WorkflowParams {
  const p = job.parameters;
  const choices = { pet_method: p.pet_method, topo_npp: p.topo_npp, topo_radiation: p.topo_radiation, lieth_npp_gate: p.lieth_npp_gate };
  return {
    step: p.step,
    linke_value: p.linke_value,
    albedo_value: p.albedo_value,
    num_threads: p.num_threads,
    ...(p.products !== undefined ? { products: p.products } : {}),
    ...(job.workflow_type === 'eemt'
      ? { start_year: p.start_year, end_year: p.end_year, ...Object.fromEntries(Object.entries(choices).filter(([, v]) => v !== undefined)) }
      : {}),
  };
}

export interface NewJob {
  readonly id: string;
  readonly workflow_type: WorkflowType;
  readonly parameters: JobParameters;
  readonly dem_filename: string;
  /** Estimate of its outputs [bytes], when known. */
  readonly output_estimate_bytes?: number | null;
}

/** Error meant for the API client: `status` is the HTTP status, `detail` the message. */
export class JobError extends Error {
  constructor(
    readonly status: 400 | 404 | 422 | 500 | 507,
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'JobError';
  }
}
