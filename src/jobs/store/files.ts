/**
 * File-tree helpers of the job layer: listing outputs, sizes, tails of logs.
 *
 * A job can write into its own folder (its outputs, and with some runtimes its whole job folder), so every
 * file the service reads from there is opened without following symbolic links (O_NOFOLLOW), without
 * blocking on FIFOs (O_NONBLOCK), and only when it is a regular file.
 */
import { constants, type Stats } from 'node:fs';
import { lstat, open, readdir, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

/** A file in a job's folder that the service refuses to read: a link, FIFO, device or folder. */
export class NotRegularFileError extends Error {
  constructor(readonly path: string) {
    super(`${path} is not a regular file`);
    this.name = 'NotRegularFileError';
  }
}

/**
 * Opens `path` for reading if it is a regular file reached without following a link at its last component;
 * when `expected` is given, it must also be that very file (same device and inode), so a folder on the way
 * that was swapped for a link is noticed too.
 */
export async function openRegularFile(path: string, expected?: Pick<Stats, 'dev' | 'ino'>): Promise<{ handle: FileHandle; stats: Stats }> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new NotRegularFileError(path);
    throw error;
  }
  const stats = await handle.stat();
  if (!stats.isFile() || (expected && (stats.dev !== expected.dev || stats.ino !== expected.ino))) {
    await handle.close();
    throw new NotRegularFileError(path);
  }
  return { handle, stats };
}

/** A regular file under a folder, as `listRegularFiles` found it. */
export interface ListedFile {
  /** Path relative to the folder, with forward slashes. */
  readonly rel: string;
  readonly stats: Stats;
}

/** Regular files under `root` (links are neither followed nor listed), sorted by path; [] if `root` is missing. */
export async function listRegularFiles(root: string): Promise<ListedFile[]> {
  const out: ListedFile[] = [];
  async function walk(dir: string, prefix: string): Promise<void> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const entry of entries) {
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(join(dir, entry.name), rel);
      else if (entry.isFile()) {
        const stats = await lstat(join(dir, entry.name)).catch(() => null);
        if (stats?.isFile()) out.push({ rel, stats });
      }
    }
  }
  await walk(root, '');
  return out.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}

/** Regular files under `root`, as sorted paths relative to it with forward slashes ([] if `root` is missing). */
export async function listFiles(root: string): Promise<string[]> {
  return (await listRegularFiles(root)).map((file) => file.rel);
}

/** Total size of the regular files under `path` [bytes] (0 if missing). Symbolic links are not followed. */
export async function diskUsageBytes(path: string): Promise<number> {
  let info;
  try {
    info = await stat(path);
  } catch {
    return 0;
  }
  if (!info.isDirectory()) return info.size;
  let total = 0;
  let entries;
  try {
    entries = await readdir(path, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) total += await diskUsageBytes(child);
    else if (entry.isFile()) total += (await stat(child).catch(() => ({ size: 0 }))).size;
  }
  return total;
}

/**
 * The last `lines` lines of a text file (reads at most the last 4 MiB); [] if it does not exist. Throws
 * NotRegularFileError when it is a link or anything but a regular file.
 */
export async function tailLines(path: string, lines: number): Promise<string[]> {
  let opened;
  try {
    opened = await openRegularFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const { handle, stats } = opened;
  try {
    const { size } = stats;
    const length = Math.min(size, 4 * 1024 * 1024);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    const all = buffer.toString('utf8').split('\n');
    if (all.at(-1) === '') all.pop();
    return lines > 0 ? all.slice(-lines) : all;
  } finally {
    await handle.close();
  }
}
