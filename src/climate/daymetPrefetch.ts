/**
 * Offline Daymet: the Daymet cells a DEM needs (`daymetCellsForDem`, listed by `eemt climate points`) and
 * their download into the cache ahead of time (`prefetchDaymet`, `eemt climate prefetch`), so that an eemt job
 * on a machine without internet reads everything from the cache.
 *
 * The prefetch is resumable: cell-years already in the cache are not downloaded again, and one failing point
 * does not stop the others, so a second run fetches only what is still missing. The summary counts what
 * came from the cache, what was downloaded and what failed (with the reason).
 */
import type { GridSpec } from '../raster/types.js';
import { mapWithConcurrency } from './concurrency.js';
import { fetchDaymetPoint, type DaymetClientOptions } from './daymetClient.js';
import { assertFootprintInsideDaymet, daymetCellOfEachDemCell, demFootprint, distinctDaymetCells, type DaymetCell } from './daymetGrid.js';
import { ClimateDownloadError, PRESEEDED_CACHE_HINT, describePoint } from './errors.js';

/** The Daymet cells containing the DEM's cell centres (what an eemt job downloads); ClimateCoverageError outside Daymet. */
export function daymetCellsForDem(grid: GridSpec): DaymetCell[] {
  assertFootprintInsideDaymet(demFootprint(grid));
  return distinctDaymetCells(daymetCellOfEachDemCell(grid));
}

/** What a prefetch did. */
export interface PrefetchSummary {
  readonly cells: number;
  readonly years: readonly number[];
  /** Cell-years that were in the cache already. */
  readonly cellYearsFromCache: number;
  /** Cell-years downloaded now. */
  readonly cellYearsDownloaded: number;
  /** Points that failed, with the reason (their years are still missing from the cache). */
  readonly failed: ReadonlyArray<{ readonly cell: DaymetCell; readonly reason: string }>;
}

export interface PrefetchOptions extends Omit<DaymetClientOptions, 'onProgress' | 'offline'> {
  readonly cacheDir: string;
  /** After every point: points done, of total, and a line about it. */
  readonly onPoint?: (done: number, total: number, message: string) => void;
}

/** Downloads every cell-year not yet in the cache (see the module doc); never rejects for a download failure. */
export async function prefetchDaymet(cells: readonly DaymetCell[], years: readonly number[], options: PrefetchOptions): Promise<PrefetchSummary> {
  let done = 0, fromCache = 0, downloaded = 0;
  const failed: Array<{ cell: DaymetCell; reason: string }> = [];
  const { onPoint, concurrency, ...client } = options;
  await mapWithConcurrency(
    cells,
    Math.max(1, concurrency ?? 4),
    async (cell, _i, signal) => {
      const label = describePoint(cell.lat, cell.lon);
      let message: string;
      try {
        const data = await fetchDaymetPoint(cell, years, { ...client, signal });
        downloaded += data.downloadedYears.length;
        fromCache += data.years.length - data.downloadedYears.length;
        message = data.downloadedYears.length ? `${label}: downloaded ${data.downloadedYears.join(', ')}` : `${label}: in the cache`;
      } catch (error) {
        if (!(error instanceof ClimateDownloadError)) throw error;
        const reason = error.message.slice(ClimateDownloadError.PREFIX.length).replace(PRESEEDED_CACHE_HINT, '');
        failed.push({ cell, reason });
        message = `${label}: failed (${reason})`;
      }
      onPoint?.(++done, cells.length, message);
    },
    options.signal,
  );
  return { cells: cells.length, years, cellYearsFromCache: fromCache, cellYearsDownloaded: downloaded, failed };
}
