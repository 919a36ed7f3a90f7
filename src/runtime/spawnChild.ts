/** Spawning the job child as a local process (shared by the bubblewrap and plain-process runtimes). */
import { spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { nodeArgsFor, siblingModuleUrl } from '../util/modules.js';
import { heapMegabytesFor, threadsFor } from './limits.js';
import { lineSplitter, parseMessage, type ChildJobSpec } from './protocol.js';
import { availableParallelism, totalmem } from 'node:os';
import { containerName, specFileName, type JobExit, type JobHandlers, type JobLaunch, type RunningJob, type RuntimeLimits, type RuntimeStatus } from './types.js';
import { forwardedWorkflowSettings } from './workflowSettings.js';

/** The module the child process runs: the job child, or (in tests) another script speaking the same protocol. */
export function defaultChildEntry(): URL {
  return siblingModuleUrl(import.meta.url, 'jobChild');
}

/** Seconds between asking a child to stop (SIGTERM) and killing it (SIGKILL). */
const KILL_GRACE_MS = 3000;

/** Where the job child sees its inputs and output folder (host paths for a local child, mount points in a container). */
export interface ChildPaths {
  readonly demPath: string;
  /** The climate ZIP as the child sees it; ignored when the job brings none. */
  readonly climatePath?: string | undefined;
  readonly outDir: string;
}

/** The job description of `launch` for its child, with the paths as the child sees them (`seen`). */
function childJobSpec(launch: JobLaunch, limits: RuntimeLimits, seen: ChildPaths): ChildJobSpec {
  return {
    jobId: launch.jobId,
    workflowType: launch.workflowType,
    demPath: seen.demPath,
    ...(launch.climatePath && seen.climatePath ? { climatePath: seen.climatePath, ...(launch.climateFileName ? { climateFileName: launch.climateFileName } : {}) } : {}),
    outDir: seen.outDir,
    params: { ...launch.params, num_threads: threadsFor(launch.params.num_threads, limits.cpus) },
    ...(limits.maxDemCells !== undefined ? { maxDemCells: limits.maxDemCells[launch.workflowType] } : {}),
    ...(launch.part ? { mode: launch.part.mode } : {}),
  };
}

/**
 * Creates the job's output folder (`<jobDir>/output`) and scratch folder, and writes the child's job description
 * (`specFileName`) into the job folder; returns its path.
 */
export async function writeChildSpec(launch: JobLaunch, limits: RuntimeLimits, seen: ChildPaths): Promise<string> {
  await mkdir(join(launch.jobDir, 'output'), { recursive: true });
  await mkdir(launch.tempDir, { recursive: true });
  const specPath = join(launch.jobDir, specFileName(launch));
  await writeFile(specPath, JSON.stringify(childJobSpec(launch, limits, seen), null, 2) + '\n');
  return specPath;
}

/** Writes the job description for a child that sees the host paths unchanged; returns its path. */
export function writeHostSpec(launch: JobLaunch, limits: RuntimeLimits): Promise<string> {
  return writeChildSpec(launch, limits, { demPath: launch.demPath, climatePath: launch.climatePath, outDir: join(launch.jobDir, 'output') });
}

/** `node` arguments running `entry` with `specPath`, its heap capped for the memory limit. */
export function childNodeArgs(entry: URL, specPath: string, limits: RuntimeLimits): string[] {
  const args = nodeArgsFor(entry);
  // The child starts in the job folder: loader packages (`--import tsx`) must not be resolved from there.
  for (let i = 0; i < args.length - 1; i++) {
    if (args[i] === '--import' && !/^(file:|\.|\/)/.test(args[i + 1]!)) args[i + 1] = import.meta.resolve(args[i + 1]!);
  }
  return [`--max-old-space-size=${heapMegabytesFor(limits.memoryBytes)}`, ...args, specPath];
}

/** Environment of a job child: nothing of the service's own environment beyond what Node needs. */
export function childEnv(launch: JobLaunch, limits: RuntimeLimits): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: launch.jobDir,
    TMPDIR: launch.tempDir,
    LANG: 'C.UTF-8',
    NODE_ENV: 'production',
    UV_THREADPOOL_SIZE: String(threadsFor(launch.params.num_threads, limits.cpus)),
    EEMT_JOB_ID: launch.jobId,
  };
  if (launch.cacheDir) env.EEMT_CACHE_DIR = launch.cacheDir;
  return { ...env, ...forwardedWorkflowSettings() };
}

const liveChildren = new Set<() => void>();
let exitHookInstalled = false;
function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const kill of liveChildren) kill();
  });
}

/**
 * Runs `command args`, feeding protocol lines of its stdout to `onMessage` and everything else (stdout noise,
 * stderr) to `onLog`. The child gets its own process group so that stopping it also stops its helpers.
 */
export function spawnJobProcess(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: Record<string, string> },
  handlers: JobHandlers,
): RunningJob {
  installExitHook();
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const out = lineSplitter((line) => {
    const message = parseMessage(line);
    if (message) handlers.onMessage(message);
    else if (line.length > 0) handlers.onLog(line);
  });
  const err = lineSplitter((line) => handlers.onLog(line));
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));

  let exited = false;
  const done = new Promise<JobExit>((resolve) => {
    child.on('error', (error) => {
      handlers.onLog(`failed to start ${command}: ${error.message}`);
      exited = true;
      resolve({ code: 127, signal: null });
    });
    child.on('close', (code, signal) => {
      exited = true;
      out.flush();
      err.flush();
      resolve({ code, signal });
    });
  });

  const signalGroup = (signal: NodeJS.Signals) => {
    if (exited || child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      try {
        child.kill(signal);
      } catch {
        /* already gone */
      }
    }
  };
  // A child that outlives the service would run unattended: stop it when the service exits.
  const onServiceExit = () => signalGroup('SIGKILL');
  liveChildren.add(onServiceExit);
  void done.then(() => liveChildren.delete(onServiceExit));

  return {
    done,
    kill() {
      signalGroup('SIGTERM');
      const timer = setTimeout(() => signalGroup('SIGKILL'), KILL_GRACE_MS);
      timer.unref();
      void done.then(() => clearTimeout(timer));
    },
  };
}

/**
 * The jobs a local runtime (bubblewrap, plain process) runs as child processes of this service, and the
 * host's status report for it.
 */
export class LocalJobs {
  /** Running children per job id (a worker may run several parts of one job). */
  private readonly running = new Map<string, number>();

  /** Counts `job` as running until it ends. */
  track(jobId: string, job: RunningJob): RunningJob {
    this.running.set(jobId, (this.running.get(jobId) ?? 0) + 1);
    void job.done.then(() => {
      const left = (this.running.get(jobId) ?? 1) - 1;
      if (left > 0) this.running.set(jobId, left);
      else this.running.delete(jobId);
    });
    return job;
  }

  /** Status of the host running the jobs; `unavailable` says why the runtime cannot start jobs, or null. */
  status(unavailable: string | null): RuntimeStatus {
    const names = [...this.running.keys()].map(containerName);
    return {
      available: unavailable === null,
      ...(unavailable ? { error: unavailable } : {}),
      totalContainers: names.length,
      runningJobs: names,
      cpus: availableParallelism(),
      memoryBytes: totalmem(),
      containersRunning: names.length,
    };
  }
}
