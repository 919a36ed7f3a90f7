/**
 * The job queue: runs pending jobs through the runtime, at most `maxConcurrent` at a time, in submission
 * order, and keeps their records up to date.
 *
 * Progress bands (an integer that never goes back): 0–10 queueing and runtime start-up, 10–90 the workflow's
 * own progress mapped linearly, 90–100 collecting the results; 100 only when the job has completed.
 */
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { appendJobLog, JOB_LOG_FLAGS } from '../store/jobLog.js';
import { rm } from 'node:fs/promises';
import { formatBytes } from '../../util/bytes.js';
import type { ChildMessage } from '../../runtime/protocol.js';
import type { JobExit, JobRuntime, RunningJob } from '../../runtime/types.js';
import type { JobQueue, QueueStatus } from './queue.js';
import { collectResults } from './completion.js';
import { diskSpaceProblem, fullestFolder, isDiskFullCode, isDiskFullError, outOfDiskSpaceMessage } from '../admission/diskSpace.js';
import { removePartialOutputs } from '../cleanup/partialOutputs.js';
import type { JobPaths } from '../store/paths.js';
import type { JobStore } from '../store/store.js';
import { CANCELLED_MESSAGE, workflowParamsOf, type JobRecord } from '../types.js';

/** Numeric open flags are accepted by fs.open; the typings only list strings. */
const LOG_FLAGS = JOB_LOG_FLAGS;

export { CANCELLED_MESSAGE };
export const INTERRUPTED_MESSAGE = 'Interrupted: the service stopped while the job was running; please resubmit it';

export interface SchedulerLogger {
  info(message: string): void;
  error(message: string): void;
}

export interface JobSchedulerOptions {
  readonly store: JobStore;
  readonly runtime: JobRuntime;
  readonly paths: JobPaths;
  readonly maxConcurrent: number;
  readonly logger?: SchedulerLogger;
}

interface ActiveJob {
  readonly id: string;
  handle: RunningJob | null;
  cancelled: boolean;
  log: WriteStream;
}

/** Progress percentage for a workflow fraction (0–1): the 10–90 band. */
export function workflowProgress(fraction: number): number {
  return 10 + Math.floor(80 * Math.min(1, Math.max(0, fraction)));
}

function timestamp(): string {
  return new Date().toISOString();
}

/** The embedded queue: jobs run on the service's own host, through its runtime. */
export class JobScheduler implements JobQueue {
  private readonly store: JobStore;
  private readonly runtime: JobRuntime;
  private readonly paths: JobPaths;
  private readonly logger: SchedulerLogger;
  readonly maxConcurrent: number;
  private readonly active = new Map<string, ActiveJob>();
  private readonly finished = new Set<Promise<void>>();
  private closed = false;

  constructor(options: JobSchedulerOptions) {
    this.store = options.store;
    this.runtime = options.runtime;
    this.paths = options.paths;
    this.maxConcurrent = Math.max(1, Math.floor(options.maxConcurrent));
    this.logger = options.logger ?? { info: () => undefined, error: () => undefined };
  }

  /**
   * Start-up: jobs left `running` by a previous service process fail with a clear message, whatever of them still
   * runs in the runtime (such as a container) is removed, and so are their partial outputs (`partialOutputs.ts`);
   * then pending jobs are resumed. Resolves with the ids of the interrupted jobs.
   */
  async start(): Promise<string[]> {
    const interrupted = this.store.failInterrupted(INTERRUPTED_MESSAGE);
    for (const id of interrupted) this.logger.info(`job ${id} was running when the service stopped; marked failed`);
    if (interrupted.length > 0) await this.runtime.discard?.(interrupted);
    for (const id of interrupted) await this.dropPartialOutputs(id, 'interrupted');
    this.pump();
    return interrupted;
  }

  /** Removes the partial outputs of job `id`, which failed (`why`), and says so in its log. */
  private async dropPartialOutputs(id: string, why: string): Promise<void> {
    const freed = await removePartialOutputs(this.paths, id);
    const line = `${why}: partial outputs removed (${formatBytes(freed)})`;
    this.logger.info(`job ${id}: ${line}`);
    await appendJobLog(this.paths.logPath(id), [line]);
  }

  /** Ids of the jobs currently running. */
  runningIds(): string[] {
    return [...this.active.keys()];
  }

  isActive(id: string): boolean {
    return this.active.has(id);
  }

  /** A new pending job was stored: start it when a slot is free. */
  enqueue(): void {
    this.pump();
  }

  async runnableProblem(): Promise<string | null> {
    return this.runtime.check();
  }

  /** Nothing to drop: the queue is the job database itself. */
  async discard(): Promise<void> {}

  status(): Promise<QueueStatus> {
    return this.runtime.status();
  }

  /** Starts pending jobs while slots are free. */
  private pump(): void {
    if (this.closed) return;
    while (this.active.size < this.maxConcurrent) {
      const next = this.store.pending()[0];
      if (!next) return;
      if (!this.store.markRunning(next.id, this.runtime.name, 2, `starting ${this.runtime.name} runtime`)) continue;
      mkdirSync(this.paths.jobDir(next.id), { recursive: true });
      // Appended without following a link: a job must not point the service's writes elsewhere.
      const log = createWriteStream(this.paths.logPath(next.id), { flags: LOG_FLAGS as unknown as string });
      log.on('error', (error) => this.logger.error(`job ${next.id}: job.log: ${error.message}`));
      const active: ActiveJob = { id: next.id, handle: null, cancelled: false, log };
      this.active.set(next.id, active);
      const run = this.run(next, active).catch((error: unknown) => {
        this.logger.error(`job ${next.id}: ${error instanceof Error ? error.stack : String(error)}`);
        this.store.fail(next.id, `Internal error while running the job: ${error instanceof Error ? error.message : String(error)}`);
      });
      const tracked = run.finally(() => {
        this.finished.delete(tracked);
        this.active.delete(next.id);
        this.pump();
      });
      this.finished.add(tracked);
    }
  }

  private async run(job: JobRecord, active: ActiveJob): Promise<void> {
    const id = job.id;
    const jobDir = this.paths.jobDir(id);
    const log = active.log;
    const write = (line: string) => log.write(`${timestamp()} ${line}\n`);
    write(`job ${id}: ${job.workflow_type} on ${job.dem_filename}, parameters ${JSON.stringify(job.parameters)}`);
    write(`runtime ${this.runtime.name} (${this.runtime.isolated ? 'isolated' : 'not isolated'}), ${this.runtime.limits.cpus} CPUs, ${this.runtime.limits.memoryBytes} bytes memory`);

    let done: Extract<ChildMessage, { type: 'done' }> | null = null;
    let error: string | null = null;
    let diskFull = false;
    try {
      if (job.output_estimate_bytes !== null) {
        // the free space has changed since the submission (other jobs wrote their outputs)
        const noSpace = await diskSpaceProblem({ store: this.store, paths: this.paths }, { id, estimateBytes: job.output_estimate_bytes }, { queued: false });
        if (noSpace) {
          write(noSpace);
          this.store.fail(id, noSpace);
          return;
        }
      }
      const params = workflowParamsOf(job);
      const usesClimateFile = job.parameters.climate_source?.type === 'user';
      active.handle = await this.runtime.start(
        {
          jobId: id,
          workflowType: job.workflow_type,
          params,
          demPath: this.paths.demPath(id),
          ...(job.parameters.climate_source?.type === 'user'
            ? { climatePath: this.paths.climatePath(id), climateFileName: job.parameters.climate_source.archive.name }
            : {}),
          jobDir,
          tempDir: this.paths.tempDir(id),
          // eemt jobs with their own climate grids need neither the Daymet cache nor the network
          cacheDir: job.workflow_type === 'eemt' && !usesClimateFile ? this.paths.dirs.cacheDir : null,
          network: job.workflow_type === 'eemt' && !usesClimateFile,
        },
        {
          onLog: (line) => write(line),
          onMessage: (message) => {
            switch (message.type) {
              case 'started':
                this.store.setProgress(id, 10, 'workflow started');
                break;
              case 'progress':
                this.store.setProgress(id, workflowProgress(message.fraction), message.message);
                break;
              case 'done':
                done = message;
                break;
              case 'error':
                error = message.message;
                diskFull ||= isDiskFullCode(message.code);
                write(`error: ${message.message}`);
                break;
            }
          },
        },
      );
      if (active.cancelled) active.handle.kill();
      this.store.setProgress(id, 5, `${this.runtime.name} runtime started`);
      const exit = await active.handle.done;
      write(`job process exited (code ${exit.code}, signal ${exit.signal})`);

      if (active.cancelled) {
        // a cancelled job's outputs are never downloaded: its half-written files go at once
        const freed = await removePartialOutputs(this.paths, id);
        write(`partial outputs removed (${freed} bytes)`);
        return;
      }
      if (exit.code === 0 && done) {
        await collectResults(this.store, this.paths, id, write);
        return;
      }
      if (diskFull) {
        await this.failOutOfSpace(job);
        return;
      }
      this.store.fail(id, error ?? exit.lost ?? this.exitMessage(exit));
    } catch (failure) {
      const message = failure instanceof Error ? failure.message : String(failure);
      write(`failed to run: ${message}`);
      if (isDiskFullError(failure) && !active.cancelled) await this.failOutOfSpace(job);
      else this.store.fail(id, `Container execution failed: ${message}`);
    } finally {
      await rm(this.paths.tempDir(id), { recursive: true, force: true }).catch(() => undefined);
      await new Promise<void>((resolve) => log.end(() => resolve()));
    }
  }

  /**
   * A job whose writes found the disk full: the folder it filled (results or scratch, or the cache of an eemt job
   * that downloads) is named with its free space at that moment, its partial outputs are removed at once — so the
   * next job finds the space again — and then it fails with `Out of disk space in <folder> (<free> free)`.
   */
  private async failOutOfSpace(job: JobRecord): Promise<void> {
    const { dirs } = this.paths;
    const folders = [dirs.resultsDir, dirs.tempDir, ...(job.workflow_type === 'eemt' ? [dirs.cacheDir] : [])];
    const full = (await fullestFolder(folders)) ?? { path: dirs.resultsDir, freeBytes: 0 };
    const message = outOfDiskSpaceMessage(full);
    await this.dropPartialOutputs(job.id, message);
    this.store.fail(job.id, message);
  }

  private exitMessage({ code, signal, outOfMemory }: JobExit): string {
    const limit = `${Math.round(this.runtime.limits.memoryBytes / 1024 ** 2)} MiB`;
    if (outOfMemory) return `The job process ran out of memory (the limit is ${limit})`;
    if (signal === 'SIGKILL' || code === 137) return `The job process was killed (out of memory? the limit is ${limit})`;
    if (signal) return `The job process was stopped by signal ${signal}`;
    return `The job process exited with code ${code} without finishing`;
  }

  /**
   * Cancels a pending or running job: it fails with "Cancelled by user" at once and a running child is stopped.
   * False when the job is not pending or running.
   */
  cancel(id: string): boolean {
    if (!this.store.fail(id, CANCELLED_MESSAGE)) return false;
    const active = this.active.get(id);
    if (active) {
      active.cancelled = true;
      active.log.write(`${timestamp()} cancelled by user\n`);
      active.handle?.kill();
    }
    return true;
  }

  /** Waits until no job is running (for tests and shutdown). */
  async idle(): Promise<void> {
    while (this.finished.size > 0) await Promise.allSettled([...this.finished]);
  }

  /**
   * Shutdown: starts nothing more; running jobs are stopped and fail with the interruption message, and their
   * partial outputs are removed.
   */
  async close(): Promise<void> {
    this.closed = true;
    const interrupted: string[] = [];
    for (const active of this.active.values()) {
      if (this.store.fail(active.id, INTERRUPTED_MESSAGE)) {
        active.cancelled = true;
        active.handle?.kill();
        interrupted.push(active.id);
      }
    }
    await this.idle();
    for (const id of interrupted) await this.dropPartialOutputs(id, 'interrupted');
  }
}
