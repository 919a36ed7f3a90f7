/**
 * The bubblewrap runtime: the job child runs in a `bwrap` sandbox.
 *
 * - The whole system is visible read-only; the service's data folders (uploads, results, temp, the job
 *   database) are hidden, and only the job's own folder, its scratch folder (and, for eemt, the climate cache)
 *   are mounted writable; the job's DEM is mounted read-only. /tmp is an empty read-only folder (TMPDIR
 *   points at the job's scratch folder).
 * - New user, PID, IPC, UTS, cgroup and network namespaces; the network namespace is shared only for workflows
 *   that download data (eemt). No capabilities. A new session (no terminal injection).
 * - `--die-with-parent`: the sandbox dies with the service.
 * - CPU limit: the worker-thread count is capped at `CONTAINER_CPU_LIMIT`.
 * - Memory limit: the V8 heap flag, plus `prlimit --data` (RLIMIT_DATA, which bounds the heap, typed arrays
 *   and every other private writable mapping) when `prlimit` is installed.
 */
import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dataLimitPrefix } from '../util/processLimits.js';
import { childEnv, childNodeArgs, defaultChildEntry, LocalJobs, spawnJobProcess, writeHostSpec } from './spawnChild.js';
import {
  RuntimeUnavailableError,
  type JobHandlers,
  type JobLaunch,
  type JobRuntime,
  type RunningJob,
  type RuntimeLimits,
  type RuntimeStatus,
} from './types.js';

export interface BubblewrapRuntimeOptions {
  readonly limits: RuntimeLimits;
  /** Folders and files the sandbox must not see (the service's data folders and job database). */
  readonly hiddenPaths?: readonly string[];
  /** Module the child runs (default: the job child). */
  readonly childEntry?: URL;
  /** The bwrap executable (default `bwrap` on the PATH). */
  readonly bwrapPath?: string;
}

function run(command: string, args: readonly string[]): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolvePromise) => {
    execFile(command, args, { timeout: 10_000 }, (error, stdout, stderr) => {
      resolvePromise({ ok: !error, output: (stderr || stdout || (error?.message ?? '')).trim() });
    });
  });
}

function isInside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

export class BubblewrapRuntime implements JobRuntime {
  readonly name = 'bubblewrap' as const;
  readonly isolated = true;
  readonly limits: RuntimeLimits;
  private readonly entry: URL;
  private readonly bwrap: string;
  private readonly hidden: readonly string[];
  private readonly jobs = new LocalJobs();
  private checked: Promise<string | null> | null = null;

  constructor(options: BubblewrapRuntimeOptions) {
    this.limits = options.limits;
    this.entry = options.childEntry ?? defaultChildEntry();
    this.bwrap = options.bwrapPath ?? 'bwrap';
    this.hidden = (options.hiddenPaths ?? []).map((p) => resolve(p));
  }

  /** Whether bwrap can create a sandbox here (checked once: a trivial sandbox is started). */
  check(): Promise<string | null> {
    this.checked ??= run(this.bwrap, ['--ro-bind', '/', '/', '--unshare-all', '--die-with-parent', '--', 'true']).then(
      (r) => (r.ok ? null : `bubblewrap not available: ${r.output || 'bwrap failed'}`),
    );
    return this.checked;
  }

  /** The `bwrap` arguments (up to and including `--`) that sandbox `launch`. */
  sandboxArgs(launch: JobLaunch): string[] {
    // Folders the child must read to run at all: Node itself and this package's code.
    const codeRoots = [dirname(process.execPath), resolve(fileURLToPath(new URL('../..', import.meta.url)))];
    const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
    // Empty in-memory folders replace /tmp and the hidden folders; they are made read-only below.
    const emptied = ['/tmp'];
    for (const path of this.hidden) {
      if (!existsSync(path) || codeRoots.some((root) => isInside(root, path))) continue;
      if (statSync(path).isDirectory()) {
        args.push('--tmpfs', path);
        emptied.push(path);
      } else {
        args.push('--ro-bind', '/dev/null', path);
      }
    }
    // the code itself may live in an emptied folder (a checkout under /tmp): show it again, read-only
    for (const root of codeRoots) {
      if (emptied.some((dir) => isInside(root, dir))) args.push('--ro-bind', root, root);
    }
    args.push('--bind', launch.jobDir, launch.jobDir);
    args.push('--bind', launch.tempDir, launch.tempDir);
    if (launch.cacheDir) args.push('--bind', launch.cacheDir, launch.cacheDir);
    args.push('--ro-bind', launch.demPath, launch.demPath);
    for (const path of emptied) args.push('--remount-ro', path);
    args.push('--unshare-all');
    if (launch.network) args.push('--share-net');
    args.push('--cap-drop', 'ALL', '--die-with-parent', '--new-session', '--hostname', 'eemt-job');
    args.push('--chdir', launch.jobDir, '--');
    return args;
  }

  async start(launch: JobLaunch, handlers: JobHandlers): Promise<RunningJob> {
    const reason = await this.check();
    if (reason) throw new RuntimeUnavailableError('bubblewrap', reason);
    const specPath = await writeHostSpec(launch, this.limits);
    const nodeCommand = [process.execPath, ...childNodeArgs(this.entry, specPath, this.limits)];
    const limited = [...(await dataLimitPrefix(this.limits.memoryBytes)), ...nodeCommand];
    const job = spawnJobProcess(
      this.bwrap,
      [...this.sandboxArgs(launch), ...limited],
      { cwd: launch.jobDir, env: childEnv(launch, this.limits) },
      handlers,
    );
    return this.jobs.track(launch.jobId, job);
  }

  async status(): Promise<RuntimeStatus> {
    return this.jobs.status(await this.check());
  }
}
