/**
 * What the service and the workers of the distributed queue agree on: BullMQ queue names, the data of queued
 * jobs, Redis keys of heartbeats and cancellations, and the Redis connection. Redis carries work and events only;
 * files stay on the shared data folders and the job record in the service's SQLite database.
 *
 * A job is a BullMQ flow: a parent `assemble` job in the `eemt-jobs` queue (BullMQ id = the job id) whose
 * children are the job's parts in the `eemt-parts` queue (BullMQ id `<job id>_<part name>`). Workers run the
 * parts, then the parent, which checks that the parts together wrote every product. A split eemt job nests one
 * level deeper: the parent's child is its `after-solar` part, whose children are the solar parts.
 */
import { Redis, type RedisOptions } from 'ioredis';
import type { RunMode, WorkflowParams, WorkflowType } from '../../workflows/types.js';
import type { WorkerInfo } from './queue.js';

export const JOBS_QUEUE = 'eemt-jobs';
export const PARTS_QUEUE = 'eemt-parts';
const CANCELLED_KEY_PREFIX = 'eemt:cancelled:';
const WORKER_KEY_PREFIX = 'eemt:worker:';

/** A worker's heartbeat is refreshed this often [ms] and expires after three missed beats. */
export const HEARTBEAT_INTERVAL_MS = 5000;
export const HEARTBEAT_TTL_S = 15;

/** Default of `EEMT_WORKER_LOCK_MS`: a part's lock; a worker that dies loses its parts to others after this [ms]. */
export const DEFAULT_LOCK_MS = 60_000;
/** Times a part may be recovered after its worker stopped renewing its lock before it fails. */
export const MAX_STALLED_COUNT = 2;

/** A part's name and what it computes. */
export interface PartSpec {
  readonly name: string;
  readonly mode: RunMode;
}

export interface PartData {
  readonly jobId: string;
  readonly workflowType: WorkflowType;
  readonly params: WorkflowParams;
  readonly part: PartSpec & {
    /** The last part of a split sol job: the other shares of the assembly, added to the queue as its children when it starts. */
    readonly helpers?: readonly PartSpec[];
  };
  /** Name of the user's climate ZIP (an eemt job with its own grids, stored beside the DEM); absent for Daymet. */
  readonly climateFileName?: string;
  /** Set by the last part once its own share is assembled: run again, it only waits for the other shares. */
  readonly ownShareDone?: boolean;
  /** The job's output estimate [bytes] (`workflows/outputSize.ts`), checked against the free space when a part starts. */
  readonly outputEstimateBytes?: number;
}

export interface AssembleData {
  readonly jobId: string;
  readonly workflowType: WorkflowType;
  readonly parts: readonly { readonly name: string; readonly weight: number }[];
}

/** What a part reports as its BullMQ progress. */
export interface PartProgress {
  readonly fraction: number;
  readonly message: string;
  readonly runtime: string;
  readonly host: string;
}

export const partJobId = (jobId: string, part: string) => `${jobId}_${part}`;

/** Finished flows stay this long in Redis (the database keeps the record) [s]. */
export const KEEP_FINISHED_S = 7 * 24 * 3600;

/** BullMQ removal settings of finished jobs. */
export function finishedJobsKept() {
  return { removeOnComplete: { age: KEEP_FINISHED_S }, removeOnFail: { age: KEEP_FINISHED_S } };
}

/** BullMQ options of part `part` of job `jobId`: its id, one attempt (stalled parts are recovered apart), failing the job with it. */
export function partJobOptions(jobId: string, part: string) {
  return { jobId: partJobId(jobId, part), failParentOnFailure: true, attempts: 1, ...finishedJobsKept() };
}
export const cancelledKey = (jobId: string) => `${CANCELLED_KEY_PREFIX}${jobId}`;
export const workerKey = (workerId: string) => `${WORKER_KEY_PREFIX}${workerId}`;

/**
 * A Redis connection for `url` (redis://host:port/db). `failFast` connections (the service's) refuse commands at
 * once while Redis is unreachable instead of queueing them, so a submission gets its 503 without waiting.
 */
export function redisConnection(url: string, options: { failFast: boolean }): Redis {
  const settings: RedisOptions = {
    maxRetriesPerRequest: options.failFast ? 1 : null,
    enableOfflineQueue: !options.failFast,
    connectTimeout: 5000,
    // Reconnect forever, at most every 2 s: Redis may be restarted under running jobs.
    retryStrategy: (times) => Math.min(times * 200, 2000),
  };
  return new Redis(url, settings);
}

/** The host and port of a Redis URL, for messages (never the password). */
export function redisAddress(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '6379'}`;
  } catch {
    return 'the configured address';
  }
}

/** The live workers (heartbeats not yet expired). */
export async function liveWorkers(redis: Redis): Promise<WorkerInfo[]> {
  const keys: string[] = [];
  let cursor = '0';
  for (let round = 0; round < 1000; round++) {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${WORKER_KEY_PREFIX}*`, 'COUNT', 200);
    keys.push(...batch);
    cursor = next;
    if (cursor === '0') break;
  }
  if (keys.length === 0) return [];
  const values = await redis.mget(...keys);
  return values
    .filter((value): value is string => typeof value === 'string')
    .map((value) => JSON.parse(value) as WorkerInfo)
    .sort((a, b) => a.id.localeCompare(b.id));
}
