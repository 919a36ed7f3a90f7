/**
 * The unprivileged user sandboxed jobs run as. When the service runs as root, the bubblewrap sandbox is
 * started through `setpriv` as this user (uid/gid 65534, "nobody"), so that a job has none of root's file
 * permissions on the host — not even those of the owner of root's files, which a user namespace mapping
 * the job to uid 0 outside would give it. Inside its user namespace the job is uid 65534 as well.
 *
 * Running as that user, the job must be able to reach its folders: the service hands it its writable
 * folders (chown) and makes the DEM readable; the folders above them must be searchable by others.
 */
import { chmod, chown, lchown, lstat, readdir, stat } from 'node:fs/promises';
import { dirname, join, parse } from 'node:path';

export const JOB_UID = 65534;
export const JOB_GID = 65534;

/** True when this process runs as root (jobs are then started as `JOB_UID`). */
export function runningAsRoot(): boolean {
  return process.getuid?.() === 0;
}

/** The command prefix that runs a command as the job user (`setpriv`, util-linux). */
export function asJobUser(): string[] {
  return ['setpriv', `--reuid=${JOB_UID}`, `--regid=${JOB_GID}`, '--clear-groups', '--'];
}

/** `path` and its writable contents handed to the job user (links are changed, not followed). */
export async function handOverTree(path: string): Promise<void> {
  const info = await lstat(path);
  await lchown(path, JOB_UID, JOB_GID);
  if (!info.isDirectory()) return;
  for (const entry of await readdir(path, { withFileTypes: true })) await handOverTree(join(path, entry.name));
}

/** Makes a file the service wrote readable by others, and its folder searchable. */
export async function makeReadable(file: string): Promise<void> {
  await chmod(dirname(file), 0o755);
  await chmod(file, 0o644);
}

/** Whether a user who is neither owner nor in the group may search (directory) or read (file) `path`. */
function othersMay(mode: number, isDirectory: boolean): boolean {
  return isDirectory ? (mode & 0o001) !== 0 : (mode & 0o004) !== 0;
}

/**
 * Why the job user cannot reach `paths`, or null: every folder on the way must be searchable by others
 * (or belong to the job user), and each path itself readable.
 */
export async function unreachableForJobUser(paths: readonly string[]): Promise<string | null> {
  const checked = new Set<string>();
  for (const path of paths) {
    const chain: string[] = [];
    for (let p = path; ; p = dirname(p)) {
      chain.push(p);
      if (p === parse(p).root) break;
    }
    for (const p of chain.reverse()) {
      if (checked.has(p)) continue;
      checked.add(p);
      let info;
      try {
        info = await stat(p);
      } catch {
        continue; // created later by the service or the job
      }
      if (info.uid === JOB_UID) continue;
      const leaf = p === path;
      if (!othersMay(info.mode, info.isDirectory() || !leaf)) {
        return `the job user (uid ${JOB_UID}) cannot ${info.isDirectory() ? 'enter' : 'read'} ${p}; make it ${info.isDirectory() ? 'searchable (chmod o+x)' : 'readable (chmod o+r)'}`;
      }
    }
  }
  return null;
}
