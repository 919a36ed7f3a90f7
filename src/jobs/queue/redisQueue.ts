/**
 * The distributed queue (`EEMT_REDIS_URL`): jobs run as BullMQ flows on `eemt worker` processes (see
 * `distributed.ts`). The service stores every job in its SQLite database as before and queues its flow at
 * submission; a reconciliation loop reads the flows' state and their parts' progress from Redis and writes them
 * into the database (status, combined progress, completion), so nothing depends on catching an event at the
 * right moment: after a Redis restart or a service restart the next round brings every record up to date.
 */
import { FlowProducer, Queue, type FlowJob, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { formatBytes } from '../../util/bytes.js';
import { collectResults } from './completion.js';
import {
  JOBS_QUEUE,
  MAX_STALLED_COUNT,
  PARTS_QUEUE,
  cancelledKey,
  liveWorkers,
  KEEP_FINISHED_S,
  finishedJobsKept,
  partJobId,
  partJobOptions,
  redisAddress,
  redisConnection,
  type AssembleData,
  type PartData,
  type PartProgress,
} from './distributed.js';
import { isOutOfDiskSpaceMessage } from '../admission/diskSpace.js';
import { appendJobLog } from '../store/jobLog.js';
import { removePartialOutputs } from '../cleanup/partialOutputs.js';
import { planParts, runsLast, type PartPlan, type SplitSettings } from './partPlan.js';
import type { JobPaths } from '../store/paths.js';
import { QueueUnavailableError, type JobQueue, type QueuedJob, type QueueStatus } from './queue.js';
import { CANCELLED_MESSAGE, workflowProgress, type SchedulerLogger } from './scheduler.js';
import type { JobStore } from '../store/store.js';
import { workflowParamsOf, type JobRecord } from '../types.js';
import type { WorkflowParams, WorkflowType } from '../../workflows/types.js';

/** Interval of the reconciliation rounds [ms]. */
const RECONCILE_INTERVAL_MS = 1000;
/** Longest wait for Redis to take a new flow before the submission is refused [ms]. */
const ENQUEUE_TIMEOUT_MS = 5000;

export interface RedisJobQueueOptions {
  readonly store: JobStore;
  readonly paths: JobPaths;
  readonly redisUrl: string;
  readonly split: SplitSettings;
  readonly logger?: SchedulerLogger;
}

/** The parts of a job of `type` with `params` on a DEM of `cells` cells. */
function planOf(type: WorkflowType, params: Pick<WorkflowParams, 'start_year' | 'end_year'>, cells: number, split: SplitSettings): PartPlan[] {
  const { start_year: start, end_year: end } = params;
  const years = type === 'eemt' && start !== undefined && end !== undefined ? end - start + 1 : 1;
  return planParts(type, cells, split, years);
}

/** The parts of `job` on a DEM of `cells` cells. */
function partsOf(job: JobRecord, cells: number, split: SplitSettings): PartPlan[] {
  return planOf(job.workflow_type, workflowParamsOf(job), cells, split);
}

/**
 * The BullMQ flow of `job`: the parent completes the job, the children are the parts. The last part of a split job
 * (`assemble-products`, or eemt's `after-solar`) is the parent's only child and has the tile slices as its own children, so
 * it starts once they have all finished; `assemble-products` adds the other shares of the assembly as its own
 * children when it starts (the worker, `partJobOptions`).
 */
function flowOf(job: JobRecord, parts: readonly PartPlan[]): FlowJob {
  const keep = finishedJobsKept();
  const parent: AssembleData = { jobId: job.id, workflowType: job.workflow_type, parts: parts.map((p) => ({ name: p.name, weight: p.weight })) };
  const climate = job.parameters.climate_source;
  const helpers = parts.filter((part) => part.addedByLastPart).map((part) => ({ name: part.name, mode: part.mode }));
  const partFlow = (part: PartPlan, children?: FlowJob[]): FlowJob => {
    const data: PartData = {
      jobId: job.id,
      workflowType: job.workflow_type,
      params: workflowParamsOf(job),
      part: { name: part.name, mode: part.mode, ...(children && helpers.length > 0 ? { helpers } : {}) },
      ...(climate?.type === 'user' ? { climateFileName: climate.archive.name } : {}),
      ...(job.output_estimate_bytes !== null ? { outputEstimateBytes: job.output_estimate_bytes } : {}),
    };
    return { name: part.name, queueName: PARTS_QUEUE, data, opts: partJobOptions(job.id, part.name), ...(children ? { children } : {}) };
  };
  const after = parts.find(runsLast);
  const slices = parts.filter((part) => part !== after && !part.addedByLastPart);
  const children = after ? [partFlow(after, slices.map((part) => partFlow(part)))] : parts.map((part) => partFlow(part));
  return { name: 'assemble', queueName: JOBS_QUEUE, data: parent, opts: { jobId: job.id, ...keep }, children };
}

/** A job whose part's workers stopped too often: it was interrupted. */
const STALLED_MESSAGE = `The workers running a part of the job stopped (killed or restarted) ${MAX_STALLED_COUNT + 1} times; please resubmit it`;
/** A running job Redis no longer has. */
const LOST_MESSAGE = 'The job was lost by the job queue (Redis restarted without its data); please resubmit it';

/** The user's message for a part that failed. */
function failureMessage(reason: string | undefined): string {
  if (!reason) return 'A part of the job failed on its worker';
  if (/stalled more than allowable limit/i.test(reason)) return STALLED_MESSAGE;
  return reason;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** How often, and at most how many times, a cancelled job's flow is removed while a worker still holds a part. */
const WITHDRAW_RETRY_MS = 500;
const WITHDRAW_ATTEMPTS = 120;

export class RedisJobQueue implements JobQueue {
  private readonly store: JobStore;
  private readonly paths: JobPaths;
  private readonly split: SplitSettings;
  private readonly logger: SchedulerLogger;
  private readonly address: string;
  private readonly redis: Redis;
  private readonly flows: FlowProducer;
  private readonly jobsQueue: Queue;
  private readonly partsQueue: Queue;
  /** Jobs with a part running on a worker, as of the last round. */
  private active = new Set<string>();
  /** Jobs being queued right now (stored, their flow not yet in Redis). */
  private readonly enqueuing = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private round: Promise<void> = Promise.resolve();
  private lastProblem: string | null = null;
  private closed = false;

  constructor(options: RedisJobQueueOptions) {
    this.store = options.store;
    this.paths = options.paths;
    this.split = options.split;
    this.logger = options.logger ?? { info: () => undefined, error: () => undefined };
    this.address = redisAddress(options.redisUrl);
    this.redis = redisConnection(options.redisUrl, { failFast: true });
    const connection = this.redis;
    this.flows = new FlowProducer({ connection });
    this.jobsQueue = new Queue(JOBS_QUEUE, { connection });
    this.partsQueue = new Queue(PARTS_QUEUE, { connection });
    const onError = (error: Error) => this.problem(error.message);
    this.redis.on('error', onError);
    this.flows.on('error', onError);
    this.jobsQueue.on('error', onError);
    this.partsQueue.on('error', onError);
  }

  /** Logs a Redis problem once (until it changes or goes away). */
  private problem(message: string | null): void {
    if (message === this.lastProblem) return;
    this.lastProblem = message;
    if (message) this.logger.error(`job queue: Redis at ${this.address}: ${message}`);
    else this.logger.info(`job queue: Redis at ${this.address} reachable`);
  }

  /** Jobs keep running on the workers while the service is away: nothing is failed, the loop picks them up. */
  start(): string[] {
    const tick = () => {
      this.round = this.round.then(() => this.reconcile()).catch((error: unknown) => this.problem(errorText(error)));
    };
    tick();
    this.timer = setInterval(tick, RECONCILE_INTERVAL_MS);
    return [];
  }

  async runnableProblem(): Promise<string | null> {
    return null;
  }

  /** A job split into tile slices keeps their tiles beside its products until it is complete. */
  splitsIntoSlices(type: WorkflowType, cells: number, params: Pick<WorkflowParams, 'start_year' | 'end_year'>): boolean {
    return planOf(type, params, cells, this.split).some((part) => part.mode.kind === 'slice');
  }

  async enqueue(queued?: QueuedJob): Promise<void> {
    const job = queued ? this.store.get(queued.id) : undefined;
    if (!job || !queued) return;
    if (this.redis.status !== 'ready') {
      throw new QueueUnavailableError(`Redis at ${this.address} is not reachable (${this.lastProblem ?? `connection ${this.redis.status}`})`);
    }
    this.enqueuing.add(job.id);
    try {
      await withTimeout(this.flows.add(flowOf(job, partsOf(job, queued.cells, this.split))), ENQUEUE_TIMEOUT_MS, 'queueing the job');
    } catch (error) {
      throw new QueueUnavailableError(`Redis at ${this.address}: ${errorText(error)}`);
    } finally {
      this.enqueuing.delete(job.id);
    }
  }

  cancel(id: string): boolean {
    if (!this.store.fail(id, CANCELLED_MESSAGE)) return false;
    void appendJobLog(this.paths.logPath(id), ['cancelled by user']);
    this.withdraw(id, WITHDRAW_ATTEMPTS).catch((error: unknown) => this.logger.error(`job ${id}: cancelling on the workers: ${errorText(error)}`));
    return true;
  }

  async discard(id: string): Promise<void> {
    // one pass: a deletion does not wait for workers (a cancel before it keeps removing the flow in the background)
    await this.withdraw(id, 1).catch((error: unknown) => this.logger.error(`job ${id}: removing its queued parts: ${errorText(error)}`));
  }

  /**
   * Tells the workers to stop the job's parts (they poll the key) and removes the job's flow from the queues. A
   * part a worker holds cannot be removed until its worker has stopped it and failed it, so the removal is tried
   * again every WITHDRAW_RETRY_MS until nothing of the job is left, at most `attempts` times (a cancel: the workers
   * remove a cancelled flow too, but only when their own part fails last, which a loaded machine may reorder).
   */
  private async withdraw(id: string, attempts: number): Promise<void> {
    await this.redis.set(cancelledKey(id), '1', 'EX', KEEP_FINISHED_S);
    const parent = await this.jobsQueue.getJob(id);
    const partIds = ((parent?.data as AssembleData | undefined)?.parts ?? []).map((part) => partJobId(id, part.name));
    for (let attempt = 0; attempt < attempts && !this.closed; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, WITHDRAW_RETRY_MS));
      for (const partId of partIds) await this.partsQueue.remove(partId).catch(() => 0);
      await this.jobsQueue.remove(id, { removeChildren: true }).catch(() => 0);
      const left = await Promise.all([this.jobsQueue.getJob(id), ...partIds.map((partId) => this.partsQueue.getJob(partId))]);
      if (left.every((job) => !job)) return;
    }
  }

  /**
   * Whether a part of the job runs on a worker, as of the last round; a job recorded as running counts too, since
   * its parts go on while this service is away (start-up must not take their scratch space for an orphan's).
   */
  isActive(id: string): boolean {
    return this.active.has(id) || this.store.get(id)?.status === 'running';
  }

  runningIds(): string[] {
    return [...this.active];
  }

  async status(): Promise<QueueStatus> {
    const empty = { totalContainers: 0, runningJobs: [], cpus: 0, memoryBytes: 0, containersRunning: 0 };
    let workers;
    try {
      workers = await withTimeout(liveWorkers(this.redis), ENQUEUE_TIMEOUT_MS, 'reading the workers');
    } catch (error) {
      return { available: false, error: `Redis at ${this.address}: ${errorText(error)}`, ...empty, workers: [] };
    }
    const running = workers.reduce((n, w) => n + w.running, 0);
    const available = workers.some((w) => w.runtime_available);
    return {
      available,
      ...(available ? {} : { error: workers.length === 0 ? 'no worker is running (start one with `eemt worker`)' : 'no worker can start jobs (their runtimes are unavailable)' }),
      totalContainers: running,
      runningJobs: [...new Set(workers.flatMap((w) => w.running_jobs))].sort(),
      cpus: workers.reduce((n, w) => n + w.cpus, 0),
      memoryBytes: workers.reduce((n, w) => n + w.memory_bytes, 0),
      containersRunning: running,
      workers,
    };
  }

  /** One round: every pending or running job's record brought up to date with its flow. */
  private async reconcile(): Promise<void> {
    if (this.closed) return;
    const jobs = [...this.store.list({ status: 'running' }), ...this.store.pending()];
    const active = new Set<string>();
    for (const job of jobs) {
      if (this.closed || this.enqueuing.has(job.id)) continue;
      if (await this.reconcileJob(job)) active.add(job.id);
    }
    this.active = active;
    this.problem(null);
  }

  /** Updates one job from Redis; true when a part of it is running. */
  private async reconcileJob(job: JobRecord): Promise<boolean> {
    const parent = (await this.jobsQueue.getJob(job.id)) as Job<AssembleData> | undefined;
    if (!parent) {
      await this.lost(job);
      return false;
    }
    const state = await parent.getState();
    if (state === 'completed') {
      await collectResults(this.store, this.paths, job.id, (line) => void appendJobLog(this.paths.logPath(job.id), [line]));
      return false;
    }
    if (state === 'failed') {
      const reason = await this.failedPartReason(parent);
      if (this.store.fail(job.id, reason) && (isOutOfDiskSpaceMessage(reason) || reason === STALLED_MESSAGE)) this.dropPartialOutputs(job.id, reason);
      return false;
    }
    let fraction = 0;
    let running = state === 'active';
    let done = 0;
    let latest: PartProgress | null = null;
    for (const part of parent.data.parts) {
      const child = await this.partsQueue.getJob(partJobId(job.id, part.name));
      // a share of the assembly is added when the assembly starts: not there yet means not started
      const childState = child ? await child.getState() : 'waiting';
      const progress = typeof child?.progress === 'object' ? (child.progress as unknown as PartProgress) : null;
      if (childState === 'completed') {
        fraction += part.weight;
        done++;
      } else if (progress) {
        fraction += part.weight * Math.min(1, Math.max(0, progress.fraction));
      }
      if (childState === 'active') {
        running = true;
        if (progress) latest = progress;
      }
    }
    if (!running && done === 0) return false;
    const where = latest ? `${latest.runtime} on ${latest.host}` : 'worker';
    if (job.status === 'pending') this.store.markRunning(job.id, latest?.runtime ?? 'worker', 5, `running on ${where}`);
    const parts = parent.data.parts.length;
    const message = state === 'active' ? 'assembling the parts' : parts > 1 ? `${done}/${parts} parts done${latest ? `; ${latest.message}` : ''}` : (latest?.message ?? null);
    this.store.setProgress(job.id, workflowProgress(fraction), message);
    return running;
  }

  /** A job the database has and Redis has not: queued again when it had not started, else failed honestly. */
  private async lost(job: JobRecord): Promise<void> {
    if (job.status === 'pending') {
      // Its DEM's size is unknown here: it runs as one part, with the same results.
      this.logger.info(`job ${job.id}: not in the job queue (lost by Redis, or stored by a service that stopped); queueing it again`);
      await this.flows.add(flowOf(job, partsOf(job, 0, this.split)));
      return;
    }
    if (this.store.fail(job.id, LOST_MESSAGE)) this.dropPartialOutputs(job.id, LOST_MESSAGE);
  }

  /**
   * A job that failed for want of disk space, or was interrupted (its workers stopped, or Redis lost it): its other
   * parts are stopped (as for a cancel) and its partial outputs removed once none of them runs any more (at once
   * when none does), so that the space is free for the next job.
   */
  private dropPartialOutputs(id: string, why: string): void {
    void (async () => {
      await this.withdraw(id, WITHDRAW_ATTEMPTS).catch((error: unknown) => this.logger.error(`job ${id}: stopping its parts: ${errorText(error)}`));
      const freed = await removePartialOutputs(this.paths, id);
      await appendJobLog(this.paths.logPath(id), [`${why}: partial outputs removed (${formatBytes(freed)})`]);
    })();
  }

  private async failedPartReason(parent: Job<AssembleData>): Promise<string> {
    for (const part of parent.data.parts) {
      const child = await this.partsQueue.getJob(partJobId(parent.data.jobId, part.name));
      if (child?.failedReason) return failureMessage(child.failedReason);
    }
    return failureMessage(parent.failedReason);
  }

  /** For tests: waits until no job has a running part (as of the reconciliation rounds). */
  async idle(): Promise<void> {
    for (let round = 0; round < 36_000 && this.active.size > 0 && !this.closed; round++) {
      await new Promise((resolve) => setTimeout(resolve, RECONCILE_INTERVAL_MS));
    }
  }

  /** Stops reconciling and disconnects; jobs go on running on the workers (the next service picks them up). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.round.catch(() => undefined);
    await Promise.allSettled([this.flows.close(), this.jobsQueue.close(), this.partsQueue.close()]);
    this.redis.disconnect();
  }
}
