/**
 * Before a run: the size of its outputs, estimated as the service estimates a job's (workflows/outputSize.ts), is
 * said on stderr with the free space of the output folder, and a run whose outputs cannot fit is refused before it
 * starts, with the same message as the service's (it would otherwise fail hours later with a full disk).
 */
import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import { bytesNeeded, notEnoughSpaceMessage } from '../jobs/admission/diskSpace.js';
import { formatBytes } from '../util/bytes.js';
import { estimateOutputBytes } from '../workflows/outputSize.js';
import type { WorkflowParams, WorkflowType } from '../workflows/types.js';

/** The file system space of `path`, or of its nearest existing ancestor (the output folder may not exist yet). */
async function spaceOf(path: string): Promise<{ path: string; freeBytes: number; blockBytes: number } | null> {
  for (let folder = path; ; folder = dirname(folder)) {
    try {
      const fs = await statfs(folder);
      return { path: folder, freeBytes: fs.bavail * fs.bsize, blockBytes: fs.bsize };
    } catch {
      if (dirname(folder) === folder) return null;
    }
  }
}

/**
 * Says the estimated output size of a `type` run on a `width` × `height` DEM into `outDir` (`days`: a sol run of
 * chosen days) and throws when the output folder's file system has not that much free (with the service's margin).
 */
export async function checkOutputSpace(
  type: WorkflowType,
  params: WorkflowParams,
  grid: { readonly width: number; readonly height: number },
  outDir: string,
  days?: readonly number[],
): Promise<void> {
  const space = await spaceOf(outDir);
  const estimate = estimateOutputBytes(type, params, grid.width, grid.height, {
    ...(space ? { blockBytes: space.blockBytes } : {}),
    ...(days ? { days } : {}),
  });
  const free = space ? ` (${formatBytes(space.freeBytes)} free)` : '';
  process.stderr.write(`eemt: ${type} outputs of about ${formatBytes(estimate)} expected in ${outDir}${free}\n`);
  if (space && space.freeBytes < bytesNeeded(estimate)) throw new Error(notEnoughSpaceMessage({ path: outDir, freeBytes: space.freeBytes }, bytesNeeded(estimate)));
}
