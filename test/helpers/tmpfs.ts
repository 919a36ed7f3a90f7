/** Small full disks for tests: a tmpfs of a given size mounted on a folder (root and the right to mount needed), and what the tests read of it. */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURE_DEM } from '../raster/gdal.js';

/** A `size` × `size` window of the test DEM mcn_10m, written under `dir` and returned as bytes. */
export function demWindow(dir: string, size: number): Buffer {
  const path = join(dir, `dem_${size}.tif`);
  execFileSync('gdal_translate', ['-q', '-srcwin', '20', '20', String(size), String(size), FIXTURE_DEM, path]);
  return readFileSync(path);
}

/** Mounts a tmpfs of `bytes` at `dir`; fails with the reason when it cannot. */
export function mountTmpfs(dir: string, bytes: number): void {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0755`, 'tmpfs', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    throw new Error(`cannot mount a ${bytes}-byte tmpfs at ${dir} (the test needs root and the right to mount): ${stderr || (error as Error).message}`);
  }
}

/** Unmounts `dir`, lazily when it is still busy. */
export function unmount(dir: string): void {
  try {
    execFileSync('umount', [dir], { stdio: 'ignore' });
  } catch {
    execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
  }
}

/** Bytes free for an unprivileged writer on the file system of `dir`. */
export function freeBytes(dir: string): number {
  const fs = statfsSync(dir);
  return fs.bavail * fs.bsize;
}

/** Paths of the files under `root` (relative), or [] when it does not exist. */
export function filesUnder(root: string): string[] {
  if (!existsSync(root)) return [];
  return (readdirSync(root, { recursive: true, withFileTypes: true }) as { name: string; parentPath: string; isFile(): boolean }[])
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(root.length + 1));
}
