/**
 * The plain-process runtime: the job child runs as an ordinary child process of the service, with no sandbox.
 * Only the heap size and the thread count are limited. For platforms without bubblewrap or Docker; the system
 * status reports it as `process` so nobody mistakes it for isolation.
 */
import { PARENT_PID_VARIABLE } from './protocol.js';
import { childEnv, childNodeArgs, defaultChildEntry, LocalJobs, spawnJobProcess, writeHostSpec } from './spawnChild.js';
import { type JobHandlers, type JobLaunch, type JobRuntime, type RunningJob, type RuntimeLimits, type RuntimeStatus } from './types.js';

export interface ProcessRuntimeOptions {
  readonly limits: RuntimeLimits;
  /** Module the child runs (default: the job child). */
  readonly childEntry?: URL;
}

export class ProcessRuntime implements JobRuntime {
  readonly name = 'process' as const;
  readonly isolated = false;
  readonly limits: RuntimeLimits;
  private readonly entry: URL;
  private readonly jobs = new LocalJobs();

  constructor(options: ProcessRuntimeOptions) {
    this.limits = options.limits;
    this.entry = options.childEntry ?? defaultChildEntry();
  }

  async check(): Promise<string | null> {
    return null;
  }

  async start(launch: JobLaunch, handlers: JobHandlers): Promise<RunningJob> {
    const specPath = await writeHostSpec(launch, this.limits);
    const job = spawnJobProcess(
      process.execPath,
      childNodeArgs(this.entry, specPath, this.limits),
      { cwd: launch.jobDir, env: { ...childEnv(launch, this.limits), [PARENT_PID_VARIABLE]: String(process.pid) } },
      handlers,
    );
    return this.jobs.track(launch.jobId, job);
  }

  async status(): Promise<RuntimeStatus> {
    return this.jobs.status(null);
  }
}
