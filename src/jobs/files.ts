/** File-tree helpers of the job layer: listing outputs, sizes, tails of logs. */
import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** Regular files under `root`, as sorted paths relative to it with forward slashes ([] if `root` is missing). */
export async function listFiles(root: string): Promise<string[]> {
  const out: string[] = [];
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
      else if (entry.isFile()) out.push(rel);
    }
  }
  await walk(root, '');
  return out.sort();
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

/** The last `lines` lines of a text file (reads at most the last 4 MiB); [] if it does not exist. */
export async function tailLines(path: string, lines: number): Promise<string[]> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return [];
  }
  try {
    const { size } = await handle.stat();
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
