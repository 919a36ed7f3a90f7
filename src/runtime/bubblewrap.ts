/**
 * The bubblewrap runtime: the job child runs in a `bwrap` sandbox.
 *
 * - The whole system is visible read-only; the service's data folders (uploads, results, temp, the job
 *   database) are hidden. The job's folder is visible read-only (its `job.json`, and `job.log`, which only the
 *   service writes); only its `output/` folder, its scratch folder (and, for eemt, the climate cache) are
 *   writable; the job's DEM is mounted read-only. /tmp is an empty read-only folder (TMPDIR points at the
 *   job's scratch folder).
 * - New user, PID, IPC, UTS, cgroup and network namespaces; the network namespace is shared only for workflows
 *   that download data (eemt). No capabilities, no further user namespaces. A new session (no terminal
 *   injection).
 * - The job runs as uid/gid 65534 inside its user namespace; when the service runs as root, the sandbox is
 *   started as that unprivileged user on the host too (`jobUser.ts`), so the job has no root file access.
 * - `--die-with-parent`: the sandbox dies with the service.
 * - CPU limit: the worker-thread count is capped at `CONTAINER_CPU_LIMIT`.
 * - Memory limit: the V8 heap flag, plus `prlimit --data` (RLIMIT_DATA, which bounds the heap, typed arrays
 *   and every other private writable mapping) when `prlimit` is installed.
 */
import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dataLimitPrefix } from '../util/processLimits.js';
import { asJobUser, handOverTree, JOB_GID, JOB_UID, makeReadable, runningAsRoot, unreachableForJobUser } from './jobUser.js';
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

/** Namespaces of every sandbox: all of them, a user namespace that is mandatory and cannot nest, uid/gid 65534. */
const NAMESPACE_ARGS = ['--unshare-all', '--unshare-user', '--disable-userns', '--uid', String(JOB_UID), '--gid', String(JOB_GID)];

/** Folders the child must read to run at all: Node itself and this package's code. */
function codeRootFolders(): string[] {
  return [dirname(process.execPath), resolve(fileURLToPath(new URL('../..', import.meta.url)))];
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

  /**
   * Whether bwrap can create a sandbox here, as the job user (checked once: a trivial sandbox is started),
   * and whether the job user can reach Node.js and this package's code.
   */
  check(): Promise<string | null> {
    this.checked ??= (async () => {
      const [command, ...prefix] = [...this.launcher(), this.bwrap];
      const r = await run(command!, [...prefix, '--ro-bind', '/', '/', ...NAMESPACE_ARGS, '--die-with-parent', '--', 'true']);
      if (!r.ok) return `bubblewrap not available: ${r.output || 'bwrap failed'}`;
      const unreachable = runningAsRoot() ? await unreachableForJobUser(codeRootFolders()) : null;
      return unreachable ? `bubblewrap not available: ${unreachable}` : null;
    })();
    return this.checked;
  }

  /** What starts bwrap: as the unprivileged job user when the service runs as root. */
  private launcher(): string[] {
    return runningAsRoot() ? asJobUser() : [];
  }

  /** The `bwrap` arguments (up to and including `--`) that sandbox `launch`. */
  sandboxArgs(launch: JobLaunch): string[] {
    const codeRoots = codeRootFolders();
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
    const outputDir = join(launch.jobDir, 'output');
    args.push('--ro-bind', launch.jobDir, launch.jobDir);
    args.push('--bind', outputDir, outputDir);
    args.push('--bind', launch.tempDir, launch.tempDir);
    if (launch.cacheDir) args.push('--bind', launch.cacheDir, launch.cacheDir);
    args.push('--ro-bind', launch.demPath, launch.demPath);
    for (const path of emptied) args.push('--remount-ro', path);
    args.push(...NAMESPACE_ARGS);
    if (launch.network) args.push('--share-net');
    args.push('--cap-drop', 'ALL', '--die-with-parent', '--new-session', '--hostname', 'eemt-job');
    args.push('--chdir', launch.jobDir, '--');
    return args;
  }

  async start(launch: JobLaunch, handlers: JobHandlers): Promise<RunningJob> {
    const reason = await this.check();
    if (reason) throw new RuntimeUnavailableError('bubblewrap', reason);
    const specPath = await writeHostSpec(launch, this.limits);
    if (runningAsRoot()) await this.prepareForJobUser(launch, specPath);
    const nodeCommand = [process.execPath, ...childNodeArgs(this.entry, specPath, this.limits)];
    const limited = [...(await dataLimitPrefix(this.limits.memoryBytes)), ...nodeCommand];
    const [command, ...prefix] = [...this.launcher(), this.bwrap];
    const job = spawnJobProcess(
      command!,
      [...prefix, ...this.sandboxArgs(launch), ...limited],
      { cwd: launch.jobDir, env: childEnv(launch, this.limits) },
      handlers,
    );
    return this.jobs.track(launch.jobId, job);
  }

  /**
   * Root service: hands the job's writable folders to the job user, makes what it reads readable, and
   * refuses to start when a folder on the way is closed to it (bwrap would fail less clearly).
   */
  private async prepareForJobUser(launch: JobLaunch, specPath: string): Promise<void> {
    await handOverTree(join(launch.jobDir, 'output'));
    await handOverTree(launch.tempDir);
    if (launch.cacheDir) await handOverTree(launch.cacheDir);
    await makeReadable(launch.demPath);
    await makeReadable(specPath);
    const unreachable = await unreachableForJobUser([launch.jobDir, launch.tempDir, launch.demPath, ...(launch.cacheDir ? [launch.cacheDir] : [])]);
    if (unreachable) throw new Error(unreachable);
  }

  async status(): Promise<RuntimeStatus> {
    return this.jobs.status(await this.check());
  }
}
