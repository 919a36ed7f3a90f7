/**
 * How large a DEM a job may be given: the cell limit (setting `EEMT_MAX_DEM_CELLS`), by default sized per
 * workflow from the memory limit of a job (`CONTAINER_MEMORY_LIMIT`):
 *
 *     max cells = (memory limit − JOB_BASE_BYTES) / JOB_BYTES_PER_DEM_CELL[workflow]
 *
 * The same limit is applied when a DEM is submitted and when the job reads it.
 */
import type { ReadLimits } from '../raster/geotiff/readGeoTiff.js';
import type { WorkflowType } from './types.js';

/**
 * Memory a job needs per DEM cell [bytes], by workflow.
 * - `sol`: the tiled engine keeps only the DEM (Float32, 4 bytes) and its maximum pyramid (1.3 bytes) resident;
 *   horizons, kernel and encoders work per compute tile. Measured peak RSS with 2 threads (CHANGELOG.md, "The ladder at scale"):
 *   4.8 M cells, full year: 665 MB; 99.4 M cells, day 172: 0.94 GB with 192 × 192 tiles, 1.39 GB with
 *   320 × 320 and 1.29 GB with 384 × 384 and one shared row of near-field bounds (docs/performance.md) — about 5 bytes per cell on a working set of 0.4–0.9 GB (a default tile's
 *   horizons take at most 192 MiB per thread, tilePlan.ts). 32 bytes per cell leaves room for more threads: the default 8 GB job
 *   limit admits 260 M cells.
 * - `eemt`: terrain indices, climate grids and monthly maps are whole-DEM Float64 arrays; about 730 bytes per
 *   cell were measured at 770 000 cells, rounded up.
 * Change them here when the pipelines need less.
 */
export const JOB_BYTES_PER_DEM_CELL: Readonly<Record<WorkflowType, number>> = { sol: 32, eemt: 1024 };

/** Memory of a job that does not grow with the DEM: Node.js, worker threads, per-tile buffers, code [bytes]. */
export const JOB_BASE_BYTES = 256 * 1024 ** 2;

/** The setting that overrides the default cell limits (one value for every workflow), named in every refusal. */
export const MAX_DEM_CELLS_SETTING = 'EEMT_MAX_DEM_CELLS';

/** Largest DEM [cells] of each workflow. */
export type DemCellLimits = Readonly<Record<WorkflowType, number>>;

/** The default cell limit of `workflow` for a job memory limit of `memoryBytes` (at least 3 × 3 cells). */
function defaultMaxDemCells(memoryBytes: number, workflow: WorkflowType): number {
  return Math.max(9, Math.floor((memoryBytes - JOB_BASE_BYTES) / JOB_BYTES_PER_DEM_CELL[workflow]));
}

/** The default cell limits of every workflow for a job memory limit of `memoryBytes`. */
function defaultDemCellLimits(memoryBytes: number): DemCellLimits {
  return { sol: defaultMaxDemCells(memoryBytes, 'sol'), eemt: defaultMaxDemCells(memoryBytes, 'eemt') };
}

/** The same limit for every workflow (an explicit `EEMT_MAX_DEM_CELLS`). */
function uniformDemCellLimits(maxCells: number): DemCellLimits {
  return { sol: maxCells, eemt: maxCells };
}

/** The limits of a job memory limit: `explicit` (an `EEMT_MAX_DEM_CELLS` that was set) for every workflow, else the defaults. */
export function demCellLimits(memoryBytes: number, explicit: number | null): DemCellLimits {
  return explicit === null ? defaultDemCellLimits(memoryBytes) : uniformDemCellLimits(explicit);
}

/** The largest of the limits: what any upload may be before its workflow is considered. */
export function largestDemCellLimit(limits: DemCellLimits): number {
  return Math.max(limits.sol, limits.eemt);
}

/** Read limits for a DEM of a job with cell limit `maxCells` (none when undefined, as for the CLI). */
export function demReadLimits(maxCells: number | undefined): ReadLimits {
  return maxCells === undefined ? {} : { maxCells, maxCellsSetting: MAX_DEM_CELLS_SETTING };
}

/** The refusal of a DEM over its workflow's limit (the structure walk's wording, naming the workflow). */
export function demCellLimitProblem(width: number, height: number, workflow: WorkflowType, limits: DemCellLimits): string | null {
  const limit = limits[workflow];
  if (width * height <= limit) return null;
  return `${width} × ${height} cells is more than the limit of ${limit} cells of ${workflow} jobs (${MAX_DEM_CELLS_SETTING})`;
}
