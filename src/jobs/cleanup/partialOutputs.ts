/**
 * What a job that ended without finishing leaves of its outputs — the products it had finished, its `.part` files
 * of tiles and COGs being assembled, the tile slices of a split job (all under `output/`) and its scratch folder —
 * is of no use (the results of a failed job cannot be downloaded) and may be what filled the disk. It is removed as
 * soon as the job has failed for want of space or was interrupted; the job's record, `job.json`, `job.log` and its
 * upload stay until the retention cleanup.
 */
import { rm } from 'node:fs/promises';
import { diskUsageBytes } from '../store/files.js';
import type { JobPaths } from '../store/paths.js';

/** Removes the partial outputs of job `id` (its output folder and scratch folder); returns the bytes freed. Never rejects. */
export async function removePartialOutputs(paths: JobPaths, id: string): Promise<number> {
  let freed = 0;
  for (const folder of [paths.outputDir(id), paths.tempDir(id)]) {
    const size = await diskUsageBytes(folder).catch(() => 0);
    try {
      await rm(folder, { recursive: true, force: true });
      freed += size;
    } catch {
      // what could not be removed is left to the retention cleanup
    }
  }
  return freed;
}
