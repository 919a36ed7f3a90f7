/**
 * How a job is isolated. Every runtime runs the same job child (`jobChild.ts`) — in a Docker container,
 * a bubblewrap sandbox or a plain process — and reports the child's messages and log lines back.
 */
import type { DemCellLimits } from '../workflows/demLimits.js';
import type { RunMode, WorkflowParams, WorkflowType } from '../workflows/types.js';
import type { ChildMessage } from './protocol.js';

export type RuntimeName = 'docker' | 'bubblewrap' | 'process';

/** Resource limits applied to every job. */
export interface RuntimeLimits {
  /** CPUs a job may use; also the cap on its worker threads. */
  readonly cpus: number;
  /** Memory a job may use [bytes]. */
  readonly memoryBytes: number;
  /** Largest DEM a job may read [cells], per workflow (`EEMT_MAX_DEM_CELLS`); no limit when absent. */
  readonly maxDemCells?: DemCellLimits;
}

/** One job to launch. All paths are host paths; the runtime maps them into the sandbox. */
export interface JobLaunch {
  readonly jobId: string;
  readonly workflowType: WorkflowType;
  readonly params: WorkflowParams;
  /** The uploaded DEM (read-only inside the sandbox). */
  readonly demPath: string;
  /** eemt: the uploaded climate ZIP beside the DEM (read-only inside the sandbox), or absent. */
  readonly climatePath?: string;
  /** eemt: the climate file's name as the client gave it (recorded in README.txt). */
  readonly climateFileName?: string;
  /** The job folder: the only writable place besides `tempDir`. Outputs go to `<jobDir>/output`. */
  readonly jobDir: string;
  /** Scratch space for the job (TMPDIR). */
  readonly tempDir: string;
  /** Extra folder the job may write (e.g. the climate-data cache for eemt), or null. */
  readonly cacheDir: string | null;
  /** Whether the job may use the network (eemt downloads climate data; sol never needs it). */
  readonly network: boolean;
  /** One part of a job split across workers (the distributed queue); absent for a whole job. */
  readonly part?: JobPart;
}

/** A part of a job: a name unique within the job and what it computes. */
export interface JobPart {
  readonly name: string;
  readonly mode: RunMode;
}

/** The job description file of `launch` in its job folder: `job.json`, or `part-<name>.json` for a part. */
export function specFileName(launch: JobLaunch): string {
  return launch.part ? `part-${launch.part.name}.json` : 'job.json';
}

export interface JobHandlers {
  onMessage(message: ChildMessage): void;
  /** A line of log output (the child's stderr, or stdout lines that are not protocol messages). */
  onLog(line: string): void;
}

export interface JobExit {
  /** Exit code of the child, or null when it was ended by a signal. */
  readonly code: number | null;
  readonly signal: string | null;
  /** The runtime knows the child ran out of memory (the engine's OOM kill, or V8's heap limit). */
  readonly outOfMemory?: boolean;
  /** Why the runtime lost track of the child, for the user (e.g. the container engine went away). */
  readonly lost?: string;
}

export interface RunningJob {
  /** Resolves when the child has exited (never rejects). */
  readonly done: Promise<JobExit>;
  /** Stops the child (terminate, then kill after a grace period). */
  kill(): void;
}

export interface RuntimeStatus {
  readonly available: boolean;
  /** Why the runtime is unavailable (only when `available` is false). */
  readonly error?: string;
  /** Job sandboxes/containers that currently exist (running or not yet removed). */
  readonly totalContainers: number;
  /** Names of the sandboxes/containers running jobs, `eemt-job-<job id>`. */
  readonly runningJobs: readonly string[];
  readonly cpus: number;
  /** Total memory of the machine (or Docker host) [bytes]. */
  readonly memoryBytes: number;
  readonly containersRunning: number;
}

export interface JobRuntime {
  readonly name: RuntimeName;
  /** Whether jobs are sandboxed (false for the plain-process runtime). */
  readonly isolated: boolean;
  readonly limits: RuntimeLimits;
  /** Null when jobs can be started, else the reason they cannot. */
  check(): Promise<string | null>;
  /**
   * Null, or why no job can ever run with this machine's setup until the operator changes it (a folder the
   * job user cannot reach, code it cannot read); part of `check`. The service refuses to start on it.
   */
  setupProblem?(): Promise<string | null>;
  start(launch: JobLaunch, handlers: JobHandlers): Promise<RunningJob>;
  status(): Promise<RuntimeStatus>;
  /**
   * Stops and removes what an earlier service process left running for these jobs (runtimes whose jobs can
   * outlive the service, such as containers). Never rejects.
   */
  discard?(jobIds: readonly string[]): Promise<void>;
}

export function containerName(jobId: string): string {
  return `eemt-job-${jobId}`;
}

/** Name of the container of `launch`: the job's, with the part's name appended for a part. */
export function launchContainerName(launch: JobLaunch): string {
  return launch.part ? `${containerName(launch.jobId)}-${launch.part.name}` : containerName(launch.jobId);
}

/** Thrown by `start` when the runtime cannot run jobs right now. */
export class RuntimeUnavailableError extends Error {
  constructor(
    readonly runtime: RuntimeName,
    reason: string,
  ) {
    super(reason);
    this.name = 'RuntimeUnavailableError';
  }
}

/** The chosen runtime cannot run any job with this machine's setup (`JobRuntime.setupProblem`). */
export class RuntimeSetupError extends Error {
  constructor(
    readonly runtime: RuntimeName,
    reason: string,
  ) {
    super(`${runtime} runtime: ${reason}`);
    this.name = 'RuntimeSetupError';
  }
}
