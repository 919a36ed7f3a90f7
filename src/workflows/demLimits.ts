/**
 * How large a DEM a job may be given: the cell limit (setting `EEMT_MAX_DEM_CELLS`), by default sized from
 * the memory limit of a job (`CONTAINER_MEMORY_LIMIT`):
 *
 *     max cells = (memory limit − JOB_BASE_BYTES) / JOB_BYTES_PER_DEM_CELL
 *
 * The same limit is applied when a DEM is submitted and when the job reads it.
 */
import type { ReadLimits } from '../raster/index.js';

/**
 * Memory the `sol`/`eemt` pipelines need per DEM cell [bytes]: horizon and near-field tables, surface
 * terms, monthly sums and the output encoders. Measured on the sol pipeline: about 730 bytes per cell at
 * 770 000 cells (README, Benchmarks), rounded up. Change it here when the pipelines need less.
 */
export const JOB_BYTES_PER_DEM_CELL = 1024;

/** Memory of a job that does not grow with the DEM: Node.js, worker threads, code [bytes]. */
export const JOB_BASE_BYTES = 256 * 1024 ** 2;

/** The setting that overrides the default cell limit, named in every refusal. */
export const MAX_DEM_CELLS_SETTING = 'EEMT_MAX_DEM_CELLS';

/** The default cell limit for a job memory limit of `memoryBytes` (at least 3 × 3 cells). */
export function defaultMaxDemCells(memoryBytes: number): number {
  return Math.max(9, Math.floor((memoryBytes - JOB_BASE_BYTES) / JOB_BYTES_PER_DEM_CELL));
}

/** Read limits for a DEM of a job with cell limit `maxCells` (none when undefined, as for the CLI). */
export function demReadLimits(maxCells: number | undefined): ReadLimits {
  return maxCells === undefined ? {} : { maxCells, maxCellsSetting: MAX_DEM_CELLS_SETTING };
}
