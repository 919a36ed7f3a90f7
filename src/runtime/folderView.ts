/**
 * The host's folders as the job user finds them, when a service running as root starts a sandbox.
 *
 * The sandbox is started as the unprivileged job user (`jobUser.ts`), and bubblewrap, running as that user,
 * reaches every bind source by its path: each folder above the job's folders, the DEM and the code must be
 * searchable by that user. A service whose data or code lie under a folder others cannot enter — a clone
 * in root's home (mode 0700), any `mktemp -d` folder — would need that folder's permissions loosened.
 * Instead, the view built here replaces each such closed folder by an empty in-memory folder (mode 0755)
 * holding only the paths the job needs, bound back at their own paths: the paths in the job description
 * stay the same, Node.js finds its modules at their real paths, and the closed folder's other contents stay
 * out of sight. A needed folder that is closed itself (a code checkout made in a 0700 folder) is shown the
 * same way, its entries bound back one by one.
 *
 * The view is a mount namespace of its own, made by a bubblewrap run as root with no other namespace
 * (`--dev-bind / /`, then `--tmpfs` over each closed folder, `--dir` for the folders on the way, `--bind`
 * for each needed path; bubblewrap reads the sources from the original root, so a covered folder's
 * contents can still be bound back). Within it, the job user's sandbox starts exactly as it would without
 * (`bubblewrap.ts`). The host's mounts are untouched, and the view ends with the job.
 *
 * Rejected:
 * - `--bind-fd FD DEST` (bubblewrap 0.8): bubblewrap turns the descriptor back into a path (the real path
 *   of `/proc/self/fd/FD`) and mounts that, so the job user must still traverse to it: EACCES under a 0700
 *   folder. (The kernel does not let a new user namespace bind a descriptor of another mount namespace.)
 * - bubblewrap as root with the job user set inside: a root bubblewrap maps the sandbox's uid to root
 *   outside (uid 0 owns root's files), and without a user namespace `--disable-userns` is not available.
 */
import { readdir, readlink, realpath, stat } from 'node:fs/promises';
import { realpathSync } from 'node:fs';
import { dirname, join, parse, resolve, sep } from 'node:path';
import { jobUserMay } from './jobUser.js';

/** A path the job needs in its sandbox. */
export interface NeededPath {
  readonly path: string;
  /**
   * The job reads this folder's entries (code): when the folder itself is closed to the job user, its
   * entries are shown in an open in-memory folder. Otherwise only the path must be reachable; the service
   * makes a job's own folders and files accessible to the job user itself.
   */
  readonly entries?: boolean;
}

export interface FolderView {
  /** The folders closed to the job user that the view replaces (empty: the host's folders will do). */
  readonly closed: readonly string[];
  /** The `bwrap` arguments (before `--`) that build the view; empty when nothing is closed. */
  readonly args: readonly string[];
  /** Whether `path` exists in the view (false for what a replaced folder hides). */
  shows(path: string): boolean;
}

/** Whether the job user may search the folder `path` (false when it cannot be read). */
export async function jobUserCanSearch(path: string): Promise<boolean> {
  try {
    const info = await stat(path);
    return !info.isDirectory() || jobUserMay(info, 'search');
  } catch {
    return true; // does not exist (yet): nothing to cover
  }
}

async function realOrResolved(path: string): Promise<string> {
  return realpath(path).catch(() => resolve(path));
}

function depth(path: string): number {
  return path === parse(path).root ? 0 : path.split(sep).length - 1;
}

/** The folders above `path`, from the root down to its parent. */
export function foldersAbove(path: string): string[] {
  const folders: string[] = [];
  for (let p = dirname(path); ; p = dirname(p)) {
    folders.unshift(p);
    if (p === parse(p).root) return folders;
  }
}

type Mount = 'cover' | 'bind';
type Step = { readonly kind: 'tmpfs' | 'dir' | 'bind'; readonly path: string } | { readonly kind: 'symlink'; readonly path: string; readonly target: string };

class ViewBuilder {
  private readonly mounts = new Map<string, Mount>();
  /** Paths that exist only in the view: folders on the way inside a cover, symbolic links. */
  private readonly made = new Set<string>();
  private readonly steps: Step[] = [];

  constructor(private readonly canSearch: (path: string) => Promise<boolean>) {}

  /** The mount that decides what `path` is in the view: the deepest one at or above it. */
  private mountOver(path: string): { path: string; mount: Mount } | null {
    for (let p = path; ; p = dirname(p)) {
      const mount = this.mounts.get(p);
      if (mount) return { path: p, mount };
      if (p === parse(p).root) return null;
    }
  }

  /** Whether `path` is a made folder inside an in-memory cover (not the host's folder). */
  private isMade(path: string): boolean {
    const over = this.mountOver(path);
    return over?.mount === 'cover';
  }

  private cover(path: string): void {
    this.mounts.set(path, 'cover');
    this.steps.push({ kind: 'tmpfs', path });
  }

  private makeFolder(path: string): void {
    if (this.mounts.has(path) || this.made.has(path)) return;
    this.made.add(path);
    this.steps.push({ kind: 'dir', path });
  }

  private bind(path: string): void {
    this.mounts.set(path, 'bind');
    this.steps.push({ kind: 'bind', path });
  }

  async add(needed: NeededPath): Promise<void> {
    const path = needed.path;
    if (this.mounts.has(path)) return;
    for (const folder of foldersAbove(path)) {
      if (this.isMade(folder)) {
        if (this.mounts.get(folder) !== 'cover') this.makeFolder(folder);
      } else if (!(await this.canSearch(folder))) {
        this.cover(folder);
      }
    }
    const info = await stat(path).catch(() => null);
    if (!info) return;
    const inCover = this.isMade(path);
    if (needed.entries && info.isDirectory() && !(await this.canSearch(path))) {
      if (inCover) this.makeFolder(path);
      else this.cover(path);
      for (const entry of await readdir(path, { withFileTypes: true })) {
        const entryPath = join(path, entry.name);
        if (entry.isSymbolicLink()) {
          this.made.add(entryPath);
          this.steps.push({ kind: 'symlink', path: entryPath, target: await readlink(entryPath) });
        } else {
          this.bind(entryPath);
        }
      }
    } else if (inCover) {
      this.bind(path);
    }
  }

  view(): FolderView {
    const closed = this.steps.filter((s) => s.kind === 'tmpfs').map((s) => s.path);
    // Each mount after those above it: sorted by depth (stable, so a cover comes before what it holds).
    const ordered = this.steps.map((step, i) => ({ step, i })).sort((a, b) => depth(a.step.path) - depth(b.step.path) || a.i - b.i);
    const args: string[] = [];
    for (const { step } of ordered) {
      if (step.kind === 'tmpfs') args.push('--tmpfs', step.path);
      else if (step.kind === 'dir') args.push('--dir', step.path);
      else if (step.kind === 'symlink') args.push('--symlink', step.target, step.path);
      else args.push('--bind', step.path, step.path);
    }
    const shows = (path: string): boolean => {
      let real: string;
      try {
        real = realpathSync(path);
      } catch {
        real = resolve(path);
      }
      const over = this.mountOver(real);
      return !over || over.mount === 'bind' || over.path === real || this.made.has(real);
    };
    return { closed, args, shows };
  }
}

/**
 * The view in which the job user reaches every path of `needed` (by their real paths), replacing each
 * folder on the way that it may not search. `canSearch` decides which folders are closed (tests).
 */
export async function folderViewFor(needed: readonly NeededPath[], canSearch: (path: string) => Promise<boolean> = jobUserCanSearch): Promise<FolderView> {
  const real = await Promise.all(needed.map(async (n) => ({ ...n, path: await realOrResolved(n.path) })));
  // Shallow paths first: a folder is covered before anything below it is placed.
  real.sort((a, b) => depth(a.path) - depth(b.path));
  const builder = new ViewBuilder(canSearch);
  for (const n of real) await builder.add(n);
  return builder.view();
}
