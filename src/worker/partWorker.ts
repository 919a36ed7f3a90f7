/**
 * A worker of the distributed queue (`eemt worker`): takes job parts from the `eemt-parts` queue and runs each in
 * the job child through its runtime (the same runtimes as the service), so its own event loop stays free to renew
 * the parts' locks; reports progress as BullMQ progress, appends to the job's `job.log` on the shared storage,
 * stops a part within seconds when its job is cancelled, and assembles finished jobs (`eemt-jobs` queue). A
 * heartbeat key in Redis tells the service it is alive. It never opens the service's database.
 */
import { Queue, UnrecoverableError, WaitingChildrenError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { rm } from 'node:fs/promises';
import { availableParallelism, hostname, totalmem } from 'node:os';
import { join } from 'node:path';
import {
  HEARTBEAT_INTERVAL_MS,
  HEARTBEAT_TTL_S,
  JOBS_QUEUE,
  MAX_STALLED_COUNT,
  PARTS_QUEUE,
  cancelledKey,
  partJobOptions,
  redisConnection,
  workerKey,
  type AssembleData,
  type PartData,
  type PartProgress,
  type PartSpec,
} from '../jobs/queue/distributed.js';
import { bytesNeeded, folderSpace, fullestFolder, isDiskFullCode, isDiskFullError, notEnoughSpaceMessage, outOfDiskSpaceMessage } from '../jobs/admission/diskSpace.js';
import { diskUsageBytes } from '../jobs/store/files.js';
import { appendJobLog } from '../jobs/store/jobLog.js';
import { removePartialOutputs } from '../jobs/cleanup/partialOutputs.js';
import type { JobPaths } from '../jobs/store/paths.js';
import type { WorkerInfo } from '../jobs/queue/queue.js';
import { resultFiles } from '../jobs/catalogue/results.js';
import { CANCELLED_MESSAGE } from '../jobs/queue/scheduler.js';
import type { ChildMessage } from '../runtime/protocol.js';
import { removeSolarSlices } from '../workflows/solarYear/slices.js';
import { containerName, type JobExit, type JobLaunch, type JobRuntime, type RunningJob } from '../runtime/types.js';
import { formatBytes } from '../util/bytes.js';

/** How often a running part checks whether its job was cancelled [ms]. */
const CANCEL_POLL_MS = 500;
/** Progress and log lines are sent at most this often [ms]. */
const REPORT_INTERVAL_MS = 500;

export interface PartWorkerOptions {
  readonly redisUrl: string;
  readonly paths: JobPaths;
  readonly runtime: JobRuntime;
  readonly concurrency: number;
  readonly lockMs: number;
  readonly log?: (line: string) => void;
}

interface ActivePart {
  readonly jobId: string;
  handle: RunningJob | null;
  stopReason: string | null;
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The user's message for a part's child that ended without finishing. */
function exitMessage(exit: JobExit, runtime: JobRuntime): string {
  if (exit.lost) return exit.lost;
  if (exit.outOfMemory || exit.signal === 'SIGKILL' || exit.code === 137) {
    return `The job process was killed (out of memory? the limit is ${Math.round(runtime.limits.memoryBytes / 1024 ** 2)} MiB)`;
  }
  if (exit.signal) return `The job process was stopped by signal ${exit.signal}`;
  return `The job process exited with code ${exit.code} without finishing`;
}

export class PartWorker {
  readonly id = `${hostname()}-${process.pid}`;
  private readonly options: PartWorkerOptions;
  private readonly redis: Redis;
  private readonly parts: Worker<PartData>;
  private readonly assembler: Worker<AssembleData>;
  private readonly jobsQueue: Queue;
  private readonly partsQueue: Queue<PartData>;
  /** Running parts by their BullMQ id. */
  private readonly active = new Map<string, ActivePart>();
  private heartbeat: NodeJS.Timeout | null = null;
  private runtimeProblem: string | null = null;
  /** Set when the worker stops without finishing its parts: they must stay active for the others to take over. */
  private abandoning = false;

  constructor(options: PartWorkerOptions) {
    this.options = options;
    this.redis = redisConnection(options.redisUrl, { failFast: false });
    const connection = this.redis;
    const settings = {
      connection,
      autorun: false,
      lockDuration: options.lockMs,
      stalledInterval: options.lockMs,
      maxStalledCount: MAX_STALLED_COUNT,
    };
    this.parts = new Worker<PartData>(PARTS_QUEUE, (job, token) => this.runPart(job, token), { ...settings, concurrency: options.concurrency });
    this.assembler = new Worker<AssembleData>(JOBS_QUEUE, (job) => this.assemble(job), { ...settings, concurrency: 1 });
    this.jobsQueue = new Queue(JOBS_QUEUE, { connection });
    this.partsQueue = new Queue<PartData>(PARTS_QUEUE, { connection });
    // Logged once per problem (ioredis reports every reconnection attempt while Redis is away).
    let lastError: string | null = null;
    const onError = (error: Error) => {
      if (error.message !== lastError) this.log(`Redis: ${error.message}`);
      lastError = error.message;
    };
    this.redis.on('ready', () => {
      if (lastError) this.log('Redis: reachable again');
      lastError = null;
    });
    this.parts.on('error', onError);
    this.assembler.on('error', onError);
    this.jobsQueue.on('error', onError);
    this.partsQueue.on('error', onError);
    this.redis.on('error', onError);
    // A part whose lock could not be renewed may already be another worker's: stop it here, never run it twice.
    this.parts.on('lockRenewalFailed', (ids: string[]) => {
      for (const id of ids) this.stop(id, 'its lock was lost (Redis unreachable); another worker will take it over');
    });
    this.parts.on('failed', (job) => {
      if (job && this.isCancellation(job.failedReason)) void this.removeCancelled(job.data.jobId);
    });
  }

  private log(line: string): void {
    (this.options.log ?? ((text: string) => process.stderr.write(`${new Date().toISOString()} ${text}\n`)))(line);
  }

  /** Starts taking parts and beating. */
  async start(): Promise<void> {
    this.runtimeProblem = await this.options.runtime.check();
    await this.beat();
    this.heartbeat = setInterval(() => void this.beat(), HEARTBEAT_INTERVAL_MS);
    void this.parts.run();
    void this.assembler.run();
    this.log(`worker ${this.id}: ${this.options.runtime.name} runtime, ${this.options.concurrency} part(s) at once, lock ${this.options.lockMs} ms`);
  }

  info(): WorkerInfo {
    return {
      id: this.id,
      host: hostname(),
      cpus: availableParallelism(),
      running: this.active.size,
      last_seen: new Date().toISOString(),
      runtime: this.options.runtime.name,
      runtime_available: this.runtimeProblem === null,
      running_jobs: [...new Set([...this.active.values()].map((a) => containerName(a.jobId)))].sort(),
      memory_bytes: totalmem(),
    };
  }

  private async beat(): Promise<void> {
    try {
      await this.redis.set(workerKey(this.id), JSON.stringify(this.info()), 'EX', HEARTBEAT_TTL_S);
    } catch (error) {
      this.log(`heartbeat: ${errorText(error)}`);
    }
  }

  private stop(bullId: string, reason: string): void {
    const part = this.active.get(bullId);
    if (!part || part.stopReason) return;
    part.stopReason = reason;
    this.log(`part ${bullId}: stopping: ${reason}`);
    part.handle?.kill();
  }

  private isCancellation(reason: string | undefined): boolean {
    return reason === CANCELLED_MESSAGE;
  }

  /** A cancelled job's flow leaves the queue once none of its parts is held by a worker. */
  private async removeCancelled(jobId: string): Promise<void> {
    await this.jobsQueue.remove(jobId, { removeChildren: true }).catch(() => 0);
  }

  private async cancelled(jobId: string): Promise<boolean> {
    try {
      return (await this.redis.exists(cancelledKey(jobId))) === 1;
    } catch {
      return false;
    }
  }

  /**
   * Adds the other shares of the assembly as children of `job` (the last part of a split sol job), so idle workers
   * assemble side by side with it. Their ids are fixed: adding them again (the part run again) changes nothing.
   */
  private async addHelpers(job: Job<PartData>, helpers: readonly PartSpec[]): Promise<void> {
    const parent = { id: job.id!, queue: job.queueQualifiedName };
    for (const helper of helpers) {
      // the job's data with the helper's part (this part has not finished its own share: no `ownShareDone`)
      await this.partsQueue.add(helper.name, { ...job.data, part: helper }, { ...partJobOptions(job.data.jobId, helper.name), parent });
    }
  }

  /** Once the last part's own share is done: completes when the other shares have, else waits for them (not holding this worker). */
  private async waitForHelpers(job: Job<PartData>, token: string | undefined): Promise<void> {
    if (!job.data.ownShareDone) await job.updateData({ ...job.data, ownShareDone: true });
    if (token !== undefined && (await job.moveToWaitingChildren(token))) throw new WaitingChildrenError();
  }

  /** Runs one part in the job child; resolves when it wrote its products, throws with the user's message otherwise. */
  private async runPart(job: Job<PartData>, token?: string): Promise<{ files: number }> {
    const { jobId, workflowType, params, part, climateFileName } = job.data;
    if (await this.cancelled(jobId)) throw new UnrecoverableError(CANCELLED_MESSAGE);
    const helpers = part.helpers ?? [];
    if (job.data.ownShareDone) {
      await this.waitForHelpers(job, token);
      return { files: 1 };
    }
    if (helpers.length > 0) await this.addHelpers(job, helpers);
    const { paths, runtime } = this.options;
    const bullId = job.id!;
    const active: ActivePart = { jobId, handle: null, stopReason: null };
    this.active.set(bullId, active);
    const tempDir = join(paths.tempDir(jobId), part.name);
    const prefix = `[part ${part.name} on ${this.id}]`;
    const noSpace = await this.diskSpaceProblem(job.data);
    if (noSpace) {
      this.active.delete(bullId);
      await appendJobLog(paths.logPath(jobId), [`${prefix} ${noSpace}`]);
      throw new UnrecoverableError(noSpace);
    }
    await appendJobLog(paths.logPath(jobId), [`${prefix} started (${runtime.name} runtime${job.attemptsStarted > 1 ? `, attempt ${job.attemptsStarted}` : ''})`]);
    let lines: string[] = [];
    let progress: PartProgress = { fraction: 0, message: 'starting', runtime: runtime.name, host: hostname() };
    let reported = -1;
    const report = async () => {
      const pending = lines;
      lines = [];
      if (pending.length > 0) await appendJobLog(paths.logPath(jobId), pending);
      if (progress.fraction !== reported) {
        reported = progress.fraction;
        await job.updateProgress({ ...progress }).catch((error: unknown) => this.log(`part ${bullId}: progress: ${errorText(error)}`));
      }
    };
    let done = false;
    let error: string | null = null;
    let diskFull = false;
    const onMessage = (message: ChildMessage) => {
      if (message.type === 'progress') progress = { ...progress, fraction: Math.max(progress.fraction, message.fraction), message: message.message };
      else if (message.type === 'done') done = true;
      else if (message.type === 'error') {
        error = message.message;
        diskFull ||= isDiskFullCode(message.code);
        lines.push(`${prefix} error: ${message.message}`);
      }
    };
    const needsDaymet = workflowType === 'eemt' && climateFileName === undefined && part.mode.kind !== 'slice';
    const launch: JobLaunch = {
      jobId,
      workflowType,
      params,
      demPath: paths.demPath(jobId),
      jobDir: paths.jobDir(jobId),
      tempDir,
      ...(climateFileName !== undefined ? { climatePath: paths.climatePath(jobId), climateFileName } : {}),
      // eemt jobs with their own climate grids, and the solar parts of eemt jobs, need neither the Daymet cache nor the network
      cacheDir: needsDaymet ? paths.dirs.cacheDir : null,
      network: needsDaymet,
      ...(part.mode.kind !== 'whole' ? { part: { name: part.name, mode: part.mode } } : {}),
    };
    const timer = setInterval(() => {
      void report();
      void this.cancelled(jobId).then((yes) => yes && this.stop(bullId, 'the job was cancelled'));
    }, Math.min(CANCEL_POLL_MS, REPORT_INTERVAL_MS));
    try {
      try {
        active.handle = await runtime.start(launch, { onMessage, onLog: (line) => lines.push(`${prefix} ${line}`) });
      } catch (failure) {
        if (isDiskFullError(failure)) diskFull = true;
        throw failure;
      }
      if (active.stopReason) active.handle.kill();
      const exit = await active.handle.done;
      lines.push(`${prefix} job process exited (code ${exit.code}, signal ${exit.signal})`);
      if (this.abandoning) await new Promise<never>(() => undefined);
      if (await this.cancelled(jobId)) throw new UnrecoverableError(CANCELLED_MESSAGE);
      if (active.stopReason) throw new Error(`The part ${part.name} was stopped: ${active.stopReason}`);
      if (exit.code === 0 && done) {
        progress = { ...progress, fraction: 1, message: helpers.length > 0 ? 'share assembled; the other shares follow' : 'part done' };
        if (helpers.length > 0) await this.waitForHelpers(job, token);
        return { files: 1 };
      }
      // The workflow's own errors (bad input) would fail again elsewhere: no retry.
      if (!diskFull) throw new UnrecoverableError(error ?? exitMessage(exit, runtime));
    } catch (failure) {
      // a part stopped (cancelled, or its lock lost) ends as it would have; a full disk is said as such
      if (!diskFull || failure instanceof UnrecoverableError || active.stopReason) throw failure;
    } finally {
      clearInterval(timer);
      this.active.delete(bullId);
      await report();
      await rm(tempDir, { recursive: true, force: true }).catch(() => undefined);
      void this.beat();
    }
    throw new UnrecoverableError(await this.outOfSpace(jobId, needsDaymet, prefix));
  }

  /**
   * Why the part of `data` cannot start for want of space in the results folder (what its job has still to write,
   * by its estimate, less what its output folder holds), or null.
   */
  private async diskSpaceProblem(data: PartData): Promise<string | null> {
    if (data.outputEstimateBytes === undefined) return null;
    const { paths } = this.options;
    const space = await folderSpace(paths.dirs.resultsDir).catch(() => null);
    if (!space) return null; // not judged: the part's own writes will say what is wrong
    const needed = Math.max(0, bytesNeeded(data.outputEstimateBytes) - (await diskUsageBytes(paths.outputDir(data.jobId))));
    return space.freeBytes >= needed ? null : notEnoughSpaceMessage(space, needed);
  }

  /**
   * A part whose writes found the disk full: the folder it filled is named with its free space, and the job's partial
   * outputs are removed at once (its other parts are stopped by the service); returns the job's failure message.
   */
  private async outOfSpace(jobId: string, usesCache: boolean, prefix: string): Promise<string> {
    const { dirs } = this.options.paths;
    const full = (await fullestFolder([dirs.resultsDir, dirs.tempDir, ...(usesCache ? [dirs.cacheDir] : [])])) ?? { path: dirs.resultsDir, freeBytes: 0 };
    const message = outOfDiskSpaceMessage(full);
    const freed = await removePartialOutputs(this.options.paths, jobId);
    await appendJobLog(this.options.paths.logPath(jobId), [`${prefix} ${message}: partial outputs removed (${formatBytes(freed)})`]);
    return message;
  }

  /** The parent of a job's parts: every part has finished; removes the tile slices and checks the job's outputs are there. */
  private async assemble(job: Job<AssembleData>): Promise<{ files: number }> {
    const { jobId, parts } = job.data;
    if (await this.cancelled(jobId)) throw new UnrecoverableError(CANCELLED_MESSAGE);
    await removeSolarSlices(this.options.paths.outputDir(jobId));
    const files = await resultFiles(this.options.paths.outputDir(jobId));
    if (files.length === 0) throw new UnrecoverableError('The workflow finished without producing any output');
    await appendJobLog(this.options.paths.logPath(jobId), [`[assemble on ${this.id}] ${parts.length} part(s) done, ${files.length} result files`]);
    await rm(this.options.paths.tempDir(jobId), { recursive: true, force: true }).catch(() => undefined);
    return { files: files.length };
  }

  /**
   * Stops taking parts. With `abandon`, running parts' children are killed and their parts left to the stalled-job
   * recovery of the other workers (a worker told to stop must not hold hours of work); else waits for them.
   */
  async close(abandon = false): Promise<void> {
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (abandon) {
      this.abandoning = true;
      for (const part of this.active.values()) part.handle?.kill();
      await Promise.allSettled([...this.active.values()].map((part) => part.handle?.done));
    }
    await this.redis.del(workerKey(this.id)).catch(() => 0);
    if (abandon) {
      // The parts stay active in Redis until their locks expire; the other workers take them over then.
      this.redis.disconnect();
      return;
    }
    await Promise.allSettled([this.parts.close(), this.assembler.close(), this.jobsQueue.close(), this.partsQueue.close()]);
    this.redis.disconnect();
  }
}
