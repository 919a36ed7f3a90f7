/**
 * Disk space of the data folders: what is free (statfs), whether a job's outputs fit before it is accepted and again
 * when it starts, and the messages of a job that does not fit or ran out of space.
 *
 * A job needs its output estimate (`workflows/outputSize.ts`) plus a safety margin, DISK_MARGIN_FRACTION of it and
 * DISK_MARGIN_BYTES, for what the estimate leaves out (job.json, job.log, a COG being assembled beside its file of
 * tiles). The jobs already queued or running need theirs too: what each of them has still to write (its estimate and
 * margin less what its output folder already holds) is set aside from the free space first.
 */
import { stat, statfs } from 'node:fs/promises';
import { formatBytes } from '../../util/bytes.js';
import { diskUsageBytes } from '../store/files.js';
import type { JobPaths } from '../store/paths.js';
import type { JobStore } from '../store/store.js';

/** Free and total space of the file system holding `path`. */
export interface FolderSpace {
  readonly path: string;
  /** Bytes an unprivileged process may still write (statfs `bavail`; root may have a little more on ext4). */
  readonly freeBytes: number;
  readonly totalBytes: number;
  /** The file system's block size [bytes]. */
  readonly blockBytes: number;
}

/** Free and total space of the file system holding `path` (rejects when it cannot be read, e.g. a missing folder). */
export async function folderSpace(path: string): Promise<FolderSpace> {
  const fs = await statfs(path);
  return { path, freeBytes: fs.bavail * fs.bsize, totalBytes: fs.blocks * fs.bsize, blockBytes: fs.bsize };
}

/** Share of a job's estimate added to it as a safety margin. */
const DISK_MARGIN_FRACTION = 0.05;
/** Bytes added to every job's estimate as a safety margin (job.json, job.log, folders). */
const DISK_MARGIN_BYTES = 1024 ** 2;

/** What a job with output estimate `estimateBytes` needs free: the estimate and the safety margin. */
export function bytesNeeded(estimateBytes: number): number {
  return Math.ceil(estimateBytes * (1 + DISK_MARGIN_FRACTION)) + DISK_MARGIN_BYTES;
}

/** Error codes of a write that failed for want of space: the device is full, or the user's quota is used up. */
const DISK_FULL_CODES: ReadonlySet<string> = new Set(['ENOSPC', 'EDQUOT']);

/** Whether `code` (an errno code) means the disk or quota is full. */
export function isDiskFullCode(code: string | null | undefined): boolean {
  return code !== null && code !== undefined && DISK_FULL_CODES.has(code);
}

/** Whether `error` is a file-system error of a full disk or quota. */
export function isDiskFullError(error: unknown): boolean {
  return isDiskFullCode((error as { code?: unknown } | null)?.code as string | undefined);
}

const OUT_OF_SPACE_PREFIX = 'Out of disk space in ';

/** The failure of a job whose writes found the disk full: `Out of disk space in <folder> (<free> free)`. */
export function outOfDiskSpaceMessage(space: Pick<FolderSpace, 'path' | 'freeBytes'>): string {
  return `${OUT_OF_SPACE_PREFIX}${space.path} (${formatBytes(space.freeBytes)} free)`;
}

/** Whether a job's `error_message` says it ran out of disk space. */
export function isOutOfDiskSpaceMessage(message: string | null | undefined): boolean {
  return message?.startsWith(OUT_OF_SPACE_PREFIX) ?? false;
}

/**
 * The refusal of a job that does not fit: `Not enough disk space in <folder>: <free> free, the job needs about <need>`,
 * naming what the jobs before it still need when that is part of the reason.
 */
export function notEnoughSpaceMessage(space: Pick<FolderSpace, 'path' | 'freeBytes'>, neededBytes: number, reservedBytes = 0): string {
  const others = reservedBytes > 0 ? `, of which the jobs queued or running before it need about ${formatBytes(reservedBytes)}` : '';
  return `Not enough disk space in ${space.path}: ${formatBytes(space.freeBytes)} free${others}, the job needs about ${formatBytes(neededBytes)}`;
}

/** A job whose output estimate is known, as the job store keeps it. */
interface EstimatedJob {
  readonly id: string;
  readonly output_estimate_bytes: number | null;
}

/** What `job` has still to write at most: its estimate and margin, less what its output folder holds now. */
async function stillNeeded(paths: JobPaths, job: EstimatedJob): Promise<number> {
  if (job.output_estimate_bytes === null) return 0;
  return Math.max(0, bytesNeeded(job.output_estimate_bytes) - (await diskUsageBytes(paths.outputDir(job.id))));
}

/**
 * Why a job whose outputs are estimated at `estimateBytes` cannot run now for want of space in the results folder, or
 * null when it fits. What the other jobs still need is set aside first: those running, and with `queued` those
 * pending too (a submission waits behind every pending job; a job being started only beside the running ones). A
 * results folder whose space cannot be read is not judged (null): the job's own writes will say what is wrong.
 */
export async function diskSpaceProblem(
  deps: { readonly store: JobStore; readonly paths: JobPaths },
  job: { readonly id: string; readonly estimateBytes: number },
  options: { readonly queued: boolean; readonly space?: FolderSpace },
): Promise<string | null> {
  const space = options.space ?? (await folderSpace(deps.paths.dirs.resultsDir).catch(() => null));
  if (!space) return null;
  const others = [...deps.store.list({ status: 'running' }), ...(options.queued ? deps.store.pending() : [])].filter((other) => other.id !== job.id);
  let reserved = 0;
  for (const other of others) reserved += await stillNeeded(deps.paths, other);
  const needed = bytesNeeded(job.estimateBytes);
  return space.freeBytes - reserved >= needed ? null : notEnoughSpaceMessage(space, needed, reserved);
}

/**
 * The folder a job's failed write most likely filled, with its space now: of the service's folders the job writes
 * (`folders`, the results folder first), those on distinct file systems, the one with the least free space (the
 * first of them when several are as full). A folder whose space cannot be read is passed over.
 */
export async function fullestFolder(folders: readonly string[]): Promise<FolderSpace | null> {
  const seen = new Set<number>();
  let fullest: FolderSpace | null = null;
  for (const folder of folders) {
    try {
      const device = (await stat(folder)).dev;
      if (seen.has(device)) continue;
      seen.add(device);
      const space = await folderSpace(folder);
      if (!fullest || space.freeBytes < fullest.freeBytes) fullest = space;
    } catch {
      // missing or unreadable: not the one that filled up
    }
  }
  return fullest;
}
