/**
 * The job queue: runs pending jobs through the runtime, at most `maxConcurrent` at a time, in submission
 * order, and keeps their records up to date.
 *
 * Progress bands (an integer that never goes back): 0–10 queueing and runtime start-up, 10–90 the workflow's
 * own progress mapped linearly, 90–100 collecting the results; 100 only when the job has completed.
 */
import { constants, createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { ChildMessage } from '../runtime/protocol.js';
import type { JobExit, JobRuntime, RunningJob } from '../runtime/types.js';
import { resultFiles } from './results.js';
import type { JobPaths } from './paths.js';
import type { JobStore } from './store.js';
import type { JobRecord } from './types.js';

/** Open flags of job.log (numeric flags are accepted by fs.open; the typings only list strings). */
const LOG_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;

export const CANCELLED_MESSAGE = 'Cancelled by user';
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

export class JobScheduler {
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
   * Start-up: jobs left `running` by a previous service process fail with a clear message (and whatever of
   * them still runs in the runtime, such as a container, is removed); pending jobs are resumed. Returns the
   * ids of the interrupted jobs.
   */
  start(): string[] {
    const interrupted = this.store.failInterrupted(INTERRUPTED_MESSAGE);
    for (const id of interrupted) this.logger.info(`job ${id} was running when the service stopped; marked failed`);
    if (interrupted.length > 0) void this.runtime.discard?.(interrupted);
    this.pump();
    return interrupted;
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
    try {
      const params = {
        step: job.parameters.step,
        linke_value: job.parameters.linke_value,
        albedo_value: job.parameters.albedo_value,
        num_threads: job.parameters.num_threads,
        ...(job.workflow_type === 'eemt' ? { start_year: job.parameters.start_year, end_year: job.parameters.end_year } : {}),
      };
      active.handle = await this.runtime.start(
        {
          jobId: id,
          workflowType: job.workflow_type,
          params,
          demPath: this.paths.demPath(id),
          jobDir,
          tempDir: this.paths.tempDir(id),
          cacheDir: job.workflow_type === 'eemt' ? this.paths.dirs.cacheDir : null,
          network: job.workflow_type === 'eemt',
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

      if (active.cancelled) return;
      if (exit.code === 0 && done) {
        await this.collect(id, write);
        return;
      }
      this.store.fail(id, error ?? exit.lost ?? this.exitMessage(exit));
    } catch (failure) {
      const message = failure instanceof Error ? failure.message : String(failure);
      write(`failed to run: ${message}`);
      this.store.fail(id, `Container execution failed: ${message}`);
    } finally {
      await rm(this.paths.tempDir(id), { recursive: true, force: true }).catch(() => undefined);
      await new Promise<void>((resolve) => log.end(() => resolve()));
    }
  }

  private exitMessage({ code, signal, outOfMemory }: JobExit): string {
    const limit = `${Math.round(this.runtime.limits.memoryBytes / 1024 ** 2)} MiB`;
    if (outOfMemory) return `The job process ran out of memory (the limit is ${limit})`;
    if (signal === 'SIGKILL' || code === 137) return `The job process was killed (out of memory? the limit is ${limit})`;
    if (signal) return `The job process was stopped by signal ${signal}`;
    return `The job process exited with code ${code} without finishing`;
  }

  /** 90–100: checks the outputs are there, then completes the job. */
  private async collect(id: string, write: (line: string) => void): Promise<void> {
    this.store.setProgress(id, 90, 'collecting results');
    const files = await resultFiles(this.paths.outputDir(id));
    if (files.length === 0) {
      this.store.fail(id, 'The workflow finished without producing any output');
      return;
    }
    write(`${files.length} result files`);
    this.store.setProgress(id, 95, 'cleaning up');
    await rm(this.paths.tempDir(id), { recursive: true, force: true }).catch(() => undefined);
    if (this.store.complete(id)) write('completed');
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

  /** Shutdown: starts nothing more; running jobs are stopped and fail with the interruption message. */
  async close(): Promise<void> {
    this.closed = true;
    for (const active of this.active.values()) {
      if (this.store.fail(active.id, INTERRUPTED_MESSAGE)) {
        active.cancelled = true;
        active.handle?.kill();
      }
    }
    await this.idle();
  }
}
