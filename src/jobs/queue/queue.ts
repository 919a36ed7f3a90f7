/**
 * What the HTTP layer needs of a job queue. Two implementations: the embedded scheduler (`scheduler.ts`, jobs run
 * on the service's own host; the default) and the distributed queue on BullMQ and Redis (`redisQueue.ts`, jobs
 * and job parts run on `eemt worker` processes; chosen by `EEMT_REDIS_URL`). Either way the service's SQLite
 * database is the only record of a job; the queue keeps it up to date.
 */
import type { RuntimeStatus } from '../../runtime/types.js';
import type { WorkflowParams, WorkflowType } from '../../workflows/types.js';

/** A job that was just stored as pending. */
export interface QueuedJob {
  readonly id: string;
  /** Cells of its DEM (width × height), as the submission check measured them. */
  readonly cells: number;
}

/** A worker of the distributed queue, as its last heartbeat described it. */
export interface WorkerInfo {
  readonly id: string;
  readonly host: string;
  readonly cpus: number;
  /** Job parts it is running now. */
  readonly running: number;
  /** Time of its last heartbeat, UTC ISO 8601. */
  readonly last_seen: string;
  /** Its job runtime (docker, bubblewrap or process) and whether that can start jobs. */
  readonly runtime: string;
  readonly runtime_available: boolean;
  /** Names of the jobs it runs parts of, `eemt-job-<job id>`. */
  readonly running_jobs: readonly string[];
  readonly memory_bytes: number;
}

/** Where jobs run: the runtime status of the host (embedded) or of the workers together (distributed). */
export interface QueueStatus extends RuntimeStatus {
  /** The distributed queue's live workers; absent for the embedded queue. */
  readonly workers?: readonly WorkerInfo[];
}

/** Thrown by `enqueue` when the queue cannot take the job (Redis unreachable); the job must not be stored. */
export class QueueUnavailableError extends Error {
  constructor(reason: string) {
    super(`Job queue unavailable: ${reason}`);
    this.name = 'QueueUnavailableError';
  }
}

export interface JobQueue {
  /** Start-up: recovers jobs a previous service process left behind, then starts running queued work (awaited). */
  start(): unknown;
  /**
   * Whether a job of `type` on a DEM of `cells` cells is computed in tile slices, whose tiles stay beside its products
   * until it is complete (the distributed queue's split jobs); absent: never.
   */
  splitsIntoSlices?(type: WorkflowType, cells: number, params: Pick<WorkflowParams, 'start_year' | 'end_year'>): boolean;
  /** Null when jobs can be run now, else why not (the runtime of the embedded queue is unavailable). */
  runnableProblem(): Promise<string | null>;
  /** A pending job was stored: queue it. Rejects with QueueUnavailableError when it cannot be queued. */
  enqueue(job?: QueuedJob): void | Promise<void>;
  /** Cancels a pending or running job (it fails with "Cancelled by user"); false when it had already ended. */
  cancel(id: string): boolean;
  /** A job that is not running is being deleted: drop any work still queued for it. */
  discard(id: string): Promise<void>;
  /** Whether the job is running (on this host or on a worker). */
  isActive(id: string): boolean;
  runningIds(): string[];
  status(): Promise<QueueStatus>;
  /** Waits until no job is running (tests and shutdown). */
  idle(): Promise<void>;
  close(): Promise<void>;
}
