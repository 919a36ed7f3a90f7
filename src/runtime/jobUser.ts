/**
 * The unprivileged user sandboxed jobs run as. When the service runs as root, the bubblewrap sandbox is
 * started through `setpriv` as this user (uid/gid 65534, "nobody"), so that a job has none of root's file
 * permissions on the host — not even those of the owner of root's files, which a user namespace mapping
 * the job to uid 0 outside would give it. Inside its user namespace the job is uid 65534 as well.
 *
 * Running as that user, the job must be able to reach its folders: the service hands it its writable
 * folders (chown) and makes the DEM and the job description readable. The folders above them need not be
 * open to it: a folder it cannot search is replaced in the sandbox's view (`folderView.ts`).
 */
import type { Stats } from 'node:fs';
import { chmod, lchown, lstat, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';

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

/**
 * Whether the job user (uid/gid 65534, no other group) may `search` (a folder) or `read` what `info`
 * describes, by its mode bits: the owner's when it owns it, the group's when in its group, else the others'.
 */
export function jobUserMay(info: Stats, access: 'search' | 'read'): boolean {
  const shift = info.uid === JOB_UID ? 6 : info.gid === JOB_GID ? 3 : 0;
  return ((info.mode >> shift) & (access === 'search' ? 0o1 : 0o4)) !== 0;
}
