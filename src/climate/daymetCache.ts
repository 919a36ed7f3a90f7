/**
 * On-disk cache of Daymet single-pixel answers, which doubles as an offline mirror.
 *
 * Layout (below the service's cache directory, `EEMT_CACHE_DIR`):
 *
 *     <cacheDir>/daymet/v4/<x>_<y>/<year>.csv
 *
 * `<x>_<y>` is the centre of the Daymet 1 km cell in Daymet's Lambert Conformal Conic projection,
 * in whole metres (e.g. `-576250_-687000`; see `daymetGrid.ts`). Every query point is snapped to
 * its cell centre, so jobs whose DEMs share a Daymet cell share its entries, and one file per year
 * lets a later job with a different year range reuse the years already present.
 *
 * Each file holds exactly what the single-pixel API returns for that cell and a single year, e.g.
 * `GET https://daymet.ornl.gov/single-pixel/api/data?lat=<cell lat>&lon=<cell lon>&vars=tmax,tmin,prcp,vp,srad,dayl&years=<year>`
 * — preamble (including the `Elevation` line), column header and the year's 365 rows. Extra columns
 * (a download without `vars=`) are fine; a file without srad and dayl is downloaded again by the client when
 * downloads are allowed (daymetClient.ts). Files are written atomically (temporary file + rename), so
 * a reader never sees a partial file. An entry, once present, is used without any network access.
 * See docs/daymet-cache.md for pre-seeding.
 */
import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { daymetCellKey, type DaymetCell } from './daymetGrid.js';

/** Folder of the Daymet cache below the cache directory. */
export const DAYMET_CACHE_SUBDIR = join('daymet', 'v4');

/** Relative path of one cached cell-year, `<x>_<y>/<year>.csv` (also used for the job's `daymet/` folder). */
export function daymetCellYearFileName(cell: Pick<DaymetCell, 'x' | 'y'>, year: number): string {
  return `${daymetCellKey(cell)}/${year}.csv`;
}

/** Absolute path of one cached cell-year. */
export function daymetCacheFilePath(cacheDir: string, cell: Pick<DaymetCell, 'x' | 'y'>, year: number): string {
  return join(cacheDir, DAYMET_CACHE_SUBDIR, daymetCellKey(cell), `${year}.csv`);
}

/** The cached CSV text of a cell-year, or null when there is none. */
export async function readCachedDaymetYear(cacheDir: string, cell: Pick<DaymetCell, 'x' | 'y'>, year: number): Promise<string | null> {
  try {
    return await readFile(daymetCacheFilePath(cacheDir, cell, year), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Stores the CSV text of a cell-year atomically (write a temporary file in the same folder, then rename). */
export async function writeCachedDaymetYear(cacheDir: string, cell: Pick<DaymetCell, 'x' | 'y'>, year: number, text: string): Promise<void> {
  const path = daymetCacheFilePath(cacheDir, cell, year);
  await mkdir(join(cacheDir, DAYMET_CACHE_SUBDIR, daymetCellKey(cell)), { recursive: true });
  const tmp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, text, 'utf8');
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}
