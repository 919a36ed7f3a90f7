/**
 * The plain-process runtime: the job child runs as an ordinary child process of the service, with no sandbox.
 * Only the heap size and the thread count are limited. For platforms without bubblewrap or Docker; the system
 * status reports it as `process` so nobody mistakes it for isolation.
 */
import { tmpdir } from 'node:os';
import { isTypeScriptSource } from '../util/modules.js';
import { JOB_TEMP_VARIABLE, PARENT_PID_VARIABLE } from './protocol.js';
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
      { cwd: launch.jobDir, env: { ...childEnv(launch, this.limits), ...this.sourcesTempDir(launch), [PARENT_PID_VARIABLE]: String(process.pid) } },
      handlers,
    );
    return this.jobs.track(launch.jobId, job);
  }

  /**
   * A child run from the TypeScript sources (tests, development) is loaded through tsx, which keeps the modules it
   * compiles in the temp folder: it starts with this process's temp folder and takes the job's scratch folder as its
   * TMPDIR before its workflow runs (`adoptJobTempDir`). Started in the job's new, empty folder, every job compiled
   * every module again (the test files that run jobs through a service took about a tenth longer).
   */
  private sourcesTempDir(launch: JobLaunch): Record<string, string> {
    return isTypeScriptSource(this.entry) ? { TMPDIR: tmpdir(), [JOB_TEMP_VARIABLE]: launch.tempDir } : {};
  }

  async status(): Promise<RuntimeStatus> {
    return this.jobs.status(null);
  }
}
