/**
 * The bubblewrap runtime: the job child runs in a `bwrap` sandbox.
 *
 * - The whole system is visible read-only; the service's data folders (uploads, results, temp, the job
 *   database) are hidden. The job's folder is visible read-only (its `job.json`, and `job.log`, which only the
 *   service writes); only its `output/` folder, its scratch folder (and, for eemt, the climate cache) are
 *   writable; the job's DEM is mounted read-only. /tmp is an empty read-only folder (TMPDIR points at the
 *   job's scratch folder). Every path keeps its host name, so the job description needs no translation.
 * - New user, PID, IPC, UTS, cgroup and network namespaces; the network namespace is shared only for workflows
 *   that download data (eemt). No capabilities, no further user namespaces. A new session (no terminal
 *   injection).
 * - The job runs as uid/gid 65534 inside its user namespace; when the service runs as root, the sandbox is
 *   started as that unprivileged user on the host too (`jobUser.ts`), so the job has no root file access.
 * - A root service's data and code may lie under folders the job user cannot enter (root's home, a
 *   `mktemp -d` folder): the sandbox then starts inside a view of the host's folders in which each such
 *   folder is replaced by one holding only what the job needs (`folderView.ts`). What cannot work at all
 *   (root may not make that view; code the job user cannot read) is a setup problem, reported at start-up.
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
import { folderViewFor, type FolderView, type NeededPath } from './folderView.js';
import { asJobUser, handOverTree, JOB_GID, JOB_UID, makeReadable, runningAsRoot } from './jobUser.js';
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
  /** Folders of the code the child runs (default: Node.js's folder and this package's root). */
  readonly codeRoots?: readonly string[];
  /** Folders holding the jobs' files, checked at start-up (default: the hidden folders). */
  readonly jobFolders?: readonly string[];
  /** The bwrap executable (default `bwrap` on the PATH). */
  readonly bwrapPath?: string;
}

interface RunResult {
  readonly ok: boolean;
  readonly stdout: string;
  /** What went wrong, for a message: the error output, else the output, else the error. */
  readonly output: string;
}

function run(command: string, args: readonly string[]): Promise<RunResult> {
  return new Promise((resolvePromise) => {
    execFile(command, args, { timeout: 10_000 }, (error, stdout, stderr) => {
      resolvePromise({ ok: !error, stdout, output: (stderr || stdout || (error?.message ?? '')).trim() });
    });
  });
}

/** Namespaces of every sandbox: all of them, a user namespace that is mandatory and cannot nest, uid/gid 65534. */
const NAMESPACE_ARGS = ['--unshare-all', '--unshare-user', '--disable-userns', '--uid', String(JOB_UID), '--gid', String(JOB_GID)];

/** The host's folders as they are (a service that is not root, or nothing closed to the job user). */
const HOST_VIEW: FolderView = { closed: [], args: [], shows: () => true };

/** Folders the child must read to run at all: Node itself and this package's code. */
export function codeRootFolders(): string[] {
  return [dirname(process.execPath), resolve(fileURLToPath(new URL('../..', import.meta.url)))];
}

function isInside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

/**
 * Run by the job user in a sandbox at start-up: reads each path of its arguments (folders are listed,
 * files read, `stat:`-prefixed paths only looked up) and prints the first one it cannot, as JSON.
 */
const REACH_SCRIPT = `
const fs = require('node:fs');
for (const arg of process.argv.slice(1)) {
  const path = arg.replace(/^stat:/, '');
  try {
    if (arg.startsWith('stat:')) fs.statSync(path);
    else if (fs.statSync(path).isDirectory()) fs.readdirSync(path);
    else fs.readFileSync(path);
  } catch (e) {
    console.log(JSON.stringify({ path, code: e.code || String(e) }));
    process.exit(3);
  }
}`;

export class BubblewrapRuntime implements JobRuntime {
  readonly name = 'bubblewrap' as const;
  readonly isolated = true;
  readonly limits: RuntimeLimits;
  private readonly entry: URL;
  private readonly bwrap: string;
  private readonly hidden: readonly string[];
  private readonly codeRoots: readonly string[];
  private readonly jobFolders: readonly string[];
  private readonly jobs = new LocalJobs();
  private sandboxChecked: Promise<string | null> | null = null;
  private setupChecked: Promise<string | null> | null = null;

  constructor(options: BubblewrapRuntimeOptions) {
    this.limits = options.limits;
    this.entry = options.childEntry ?? defaultChildEntry();
    this.bwrap = options.bwrapPath ?? 'bwrap';
    this.hidden = (options.hiddenPaths ?? []).map((p) => resolve(p));
    this.codeRoots = (options.codeRoots ?? codeRootFolders()).map((p) => resolve(p));
    this.jobFolders = (options.jobFolders ?? this.hidden).map((p) => resolve(p));
  }

  /** Null when jobs can be started: a sandbox can be made here, and the job user reaches the code (checked once). */
  async check(): Promise<string | null> {
    return (await this.sandboxProblem()) ?? (await this.setupProblem());
  }

  /** Why bwrap cannot create a sandbox here as the job user, or null (a trivial sandbox is started once). */
  private sandboxProblem(): Promise<string | null> {
    this.sandboxChecked ??= (async () => {
      const [command, ...prefix] = this.launcher(HOST_VIEW);
      const r = await run(command!, [...prefix, '--ro-bind', '/', '/', ...NAMESPACE_ARGS, '--die-with-parent', '--', 'true']);
      return r.ok ? null : `bubblewrap not available: ${r.output || 'bwrap failed'}`;
    })();
    return this.sandboxChecked;
  }

  /**
   * Why no job can run with this machine's folders until the operator changes them, or null (checked once,
   * when a sandbox can be made at all): the job user must reach Node.js, this package's code and the data
   * folders — through a view of its own where a folder on the way is closed to it, which root must be able to
   * make — and read the code. The service refuses to start on such a problem.
   */
  setupProblem(): Promise<string | null> {
    this.setupChecked ??= (async () => {
      if (await this.sandboxProblem()) return null;
      const dataFolders = this.jobFolders.filter((p) => existsSync(p) && statSync(p).isDirectory());
      const view = runningAsRoot()
        ? await folderViewFor([...this.codeRoots.map((path) => ({ path, entries: true })), ...dataFolders.map((path) => ({ path }))])
        : HOST_VIEW;
      if (view.closed.length > 0) {
        const r = await run(this.bwrap, ['--dev-bind', '/', '/', ...view.args, '--', 'true']);
        const closed = view.closed[0]!;
        if (!r.ok) {
          return (
            `the job user (uid ${JOB_UID}) cannot enter ${closed}, and root may not make here the mount namespace that ` +
            `would show it the folders it needs inside (${r.output || 'bwrap failed'}); make it searchable (chmod o+x ${closed})`
          );
        }
      }
      const entryFile = fileURLToPath(this.entry);
      const [command, ...prefix] = this.launcher(view);
      const reach = [...this.codeRoots, entryFile, ...dataFolders.map((p) => `stat:${p}`)];
      const sandbox = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', ...NAMESPACE_ARGS, '--die-with-parent', '--'];
      const r = await run(command!, [...prefix, ...sandbox, process.execPath, '-e', REACH_SCRIPT, ...reach]);
      if (r.ok) return null;
      let failed: { path: string; code: string } | null = null;
      try {
        failed = JSON.parse(r.stdout) as { path: string; code: string };
      } catch {
        /* not the script's answer */
      }
      if (!failed) return `the job user (uid ${JOB_UID}) cannot run Node.js (${process.execPath}) in the sandbox: ${r.output}`;
      const root = this.codeRoots.find((folder) => isInside(failed.path, folder));
      const fix = root ? `make the code readable by others (chmod -R o+rX ${root})` : `make it readable by others (chmod o+rX ${failed.path})`;
      return `the job user (uid ${JOB_UID}) cannot read ${failed.path} (${failed.code}); ${fix}`;
    })();
    return this.setupChecked;
  }

  /**
   * What starts bwrap: the bwrap executable, as the unprivileged job user when the service runs as root —
   * inside `view` (a root bubblewrap with only a mount namespace) when some folder is closed to that user.
   */
  private launcher(view: FolderView): string[] {
    if (!runningAsRoot()) return [this.bwrap];
    const inView = view.closed.length > 0 ? [this.bwrap, '--dev-bind', '/', '/', ...view.args, '--die-with-parent', '--'] : [];
    return [...inView, ...asJobUser(), this.bwrap];
  }

  /** What the job of `launch` needs to reach: its folders and files, and the code. */
  private neededBy(launch: JobLaunch): NeededPath[] {
    const paths = [launch.jobDir, launch.tempDir, launch.demPath, launch.cacheDir, launch.climatePath];
    return [...paths.flatMap((path) => (path ? [{ path }] : [])), ...this.codeRoots.map((path) => ({ path, entries: true }))];
  }

  /** The `bwrap` arguments (up to and including `--`) that sandbox `launch`, in `view` of the host's folders. */
  sandboxArgs(launch: JobLaunch, view: FolderView = HOST_VIEW): string[] {
    const codeRoots = this.codeRoots;
    // Empty in-memory folders replace /tmp and the hidden folders; they are made read-only below.
    const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
    const emptied = ['/tmp'];
    // The code itself may live under /tmp (a checkout in a `mktemp -d` folder): shown again, read-only, before
    // the data folders it may hold (the default ./uploads, ./results, … of a service started there) are hidden.
    for (const root of codeRoots) {
      if (isInside(root, '/tmp')) args.push('--ro-bind', root, root);
    }
    for (const path of this.hidden) {
      // (a folder holding the code stays; what the view leaves out is hidden already)
      if (!existsSync(path) || !view.shows(path) || codeRoots.some((root) => isInside(root, path))) continue;
      if (statSync(path).isDirectory()) {
        args.push('--tmpfs', path);
        emptied.push(path);
      } else {
        args.push('--ro-bind', '/dev/null', path);
      }
    }
    const outputDir = join(launch.jobDir, 'output');
    args.push('--ro-bind', launch.jobDir, launch.jobDir);
    args.push('--bind', outputDir, outputDir);
    args.push('--bind', launch.tempDir, launch.tempDir);
    if (launch.cacheDir) args.push('--bind', launch.cacheDir, launch.cacheDir);
    args.push('--ro-bind', launch.demPath, launch.demPath);
    if (launch.climatePath) args.push('--ro-bind', launch.climatePath, launch.climatePath);
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
    let view = HOST_VIEW;
    if (runningAsRoot()) {
      await this.prepareForJobUser(launch, specPath);
      view = await folderViewFor(this.neededBy(launch));
    }
    const nodeCommand = [process.execPath, ...childNodeArgs(this.entry, specPath, this.limits)];
    const limited = [...(await dataLimitPrefix(this.limits.memoryBytes)), ...nodeCommand];
    const [command, ...prefix] = this.launcher(view);
    const job = spawnJobProcess(
      command!,
      [...prefix, ...this.sandboxArgs(launch, view), ...limited],
      { cwd: launch.jobDir, env: childEnv(launch, this.limits) },
      handlers,
    );
    return this.jobs.track(launch.jobId, job);
  }

  /** Root service: hands the job's writable folders to the job user and makes what it reads readable. */
  private async prepareForJobUser(launch: JobLaunch, specPath: string): Promise<void> {
    await handOverTree(join(launch.jobDir, 'output'));
    await handOverTree(launch.tempDir);
    if (launch.cacheDir) await handOverTree(launch.cacheDir);
    await makeReadable(launch.demPath);
    if (launch.climatePath) await makeReadable(launch.climatePath);
    await makeReadable(specPath);
  }

  async status(): Promise<RuntimeStatus> {
    return this.jobs.status(await this.check());
  }
}
