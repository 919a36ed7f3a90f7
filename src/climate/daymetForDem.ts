/**
 * Daymet climate inputs for one DEM (eemt-model.md §3): which Daymet cells are needed, their monthly
 * tmax, tmin, prcp and vp (and observed radiation: srad × dayl and its diffuse part) for a range of years, and the
 * downscaling of those values to the DEM grid.
 *
 * Typical use by the eemt pipeline:
 *
 *     checkDaymetCoverage(grid, years);                        // at submission: fails fast
 *     const daymet = await prepareDaymetForDem(grid, years, { cacheDir, onProgress, signal });
 *     for (const f of daymet.csvFiles) save(`daymet/${f.name}`, f.text);
 *     for each year, month: downscaleDaymetMonthToDem(daymet, year, month, dem.elevation)
 *
 * Cell selection: by default only the Daymet cells that contain at least one DEM cell centre are
 * downloaded (nearest-neighbour resampling needs no others). `cellSelection: 'buffered'` downloads
 * the whole block covering the footprint plus `bufferM` (default 2 km, as metget.sh; §3.1), e.g.
 * for a later bilinear option. Either way the count is limited by `maxPoints` / env
 * `EEMT_DAYMET_MAX_POINTS` (default 400).
 */
import type { GridSpec } from '../raster/types.js';
import {
  assertFootprintInsideDaymet,
  daymetBlockCoveringFootprint,
  daymetCellOfEachDemCell,
  daymetCellsOfBlock,
  demFootprint,
  distinctDaymetCells,
  indexIntoCells,
  DEFAULT_DAYMET_BUFFER_M,
  type DaymetCell,
  type DaymetCellBlock,
  type DemFootprint,
  type LccLatticeOptions,
} from './daymetGrid.js';
import { ClimateCoverageError } from './errors.js';
import { fetchDaymetPoints, type DaymetClientOptions } from './daymetClient.js';
import { daymetCellYearFileName } from './daymetCache.js';
import { resolveDaymetMaxPoints, DAYMET_FIRST_YEAR } from './daymetSettings.js';
import { MONTHS_PER_YEAR } from '../science/climate/calendar.js';
import {
  aggregateDailyToMonthly,
  aggregateDaymetRadiationToMonthly,
  DAYMET_EEMT_VARIABLES,
  MONTHLY_AGGREGATION,
  DEFAULT_MIN_PRESENT_FRACTION,
  type DaymetEemtVariable,
} from '../science/climate/monthlyAggregation.js';
import { monthlyLapseRatesKPerKm, type LapseRateSpecKPerKm } from '../science/climate/lapseRate.js';
import { lapseAdjustedTemperatureToDem, resampleNearestToDem } from '../science/climate/downscale.js';

/** First and last Daymet year, inclusive. */
export interface DaymetYearRange {
  readonly start: number;
  readonly end: number;
}

/** A Daymet cell with the elevation Daymet assigns to it. */
export interface DaymetCellWithElevation extends DaymetCell {
  /** Daymet cell elevation z_ref [m] (the `Elevation` line of the API; eemt-model.md §3.2 step 1). */
  readonly zRef: number;
}

/** Monthly values of one month over the Daymet cells (index = position in `cells`). */
export interface DaymetMonthFields {
  /** Mean daily maximum temperature [°C]. */
  readonly tmax: Float64Array;
  /** Mean daily minimum temperature [°C]. */
  readonly tmin: Float64Array;
  /** Total precipitation [mm month⁻¹]. */
  readonly prcp: Float64Array;
  /** Mean vapour pressure [Pa]. */
  readonly vp: Float64Array;
  /**
   * Monthly sum of the observed global irradiation on a horizontal surface, srad × dayl [Wh m⁻² month⁻¹], and its
   * diffuse part (Erbs et al. 1982, day by day); present when every cell has srad and dayl (`DaymetForDem.radiation`).
   */
  readonly globalWhM2?: Float64Array;
  readonly diffuseWhM2?: Float64Array;
}

/** The 12 months (January first) of one year. */
export interface DaymetYearMonthly {
  readonly year: number;
  readonly months: readonly DaymetMonthFields[];
}

/** Everything the pipeline needs from Daymet for one DEM. */
export interface DaymetForDem {
  readonly years: readonly number[];
  /** The downloaded Daymet cells. */
  readonly cells: readonly DaymetCellWithElevation[];
  /** Per DEM cell (row-major), the index into `cells` of its nearest Daymet cell. */
  readonly nearestCellIndex: Int32Array;
  /** Monthly aggregates per year (ascending), per month, per variable over `cells`. */
  readonly monthly: readonly DaymetYearMonthly[];
  /** The raw API CSV per cell-year, to be saved in the job's `daymet/` folder: name `<x>_<y>/<year>.csv`. */
  readonly csvFiles: ReadonlyArray<{ readonly name: string; readonly text: string }>;
  /** Points that needed a download (the others came entirely from the cache). */
  readonly downloadedPoints: number;
  /**
   * Whether every cell-year has srad and dayl, so the months carry the observed radiation; false only for a cache
   * filled without them and read with downloads switched off.
   */
  readonly radiation: boolean;
}

/** Options of `checkDaymetCoverage` and `prepareDaymetForDem`. */
export interface DaymetCoverageOptions {
  /** Largest number of Daymet cells; default env `EEMT_DAYMET_MAX_POINTS`, else 400. */
  readonly maxPoints?: number;
  /** Which cells to download; default `nearest` (see the module doc). */
  readonly cellSelection?: 'nearest' | 'buffered';
  /** Buffer around the footprint for the covering block [m]; default 2000. */
  readonly bufferM?: number;
  /** Accuracy settings of the DEM → LCC transform. */
  readonly lattice?: LccLatticeOptions;
}

export interface PrepareDaymetOptions extends DaymetCoverageOptions, DaymetClientOptions {
  /** Minimum fraction of a month's days that must be present; default 0.8 (see monthlyAggregation.ts). */
  readonly minPresentFraction?: number;
}

/** Result of the coverage check. */
export interface DaymetCoverage {
  readonly years: readonly number[];
  readonly footprint: DemFootprint;
  /** Daymet cells covering the footprint plus the buffer. */
  readonly block: DaymetCellBlock;
  /** The cells that would be downloaded. */
  readonly cells: readonly DaymetCell[];
  /** Per DEM cell, the index into `cells`. */
  readonly nearestCellIndex: Int32Array;
}

/** The years of a range; throws ClimateCoverageError (`BAD_YEARS`) when Daymet cannot have them. */
export function daymetYearsOf(range: DaymetYearRange, now: Date = new Date()): number[] {
  const { start, end } = range;
  const lastPossible = now.getUTCFullYear() - 1;
  if (!Number.isInteger(start) || !Number.isInteger(end) || start > end) {
    throw new ClimateCoverageError('BAD_YEARS', `The Daymet years must be whole numbers with start ≤ end, got ${start}–${end}.`);
  }
  if (start < DAYMET_FIRST_YEAR || end > lastPossible) {
    throw new ClimateCoverageError(
      'BAD_YEARS',
      `Daymet covers ${DAYMET_FIRST_YEAR} to at most ${lastPossible} (a year is published after it ends); ${start}–${end} was requested.`,
    );
  }
  return Array.from({ length: end - start + 1 }, (_, i) => start + i);
}

/**
 * Cheap check for the submission of an eemt job: the DEM lies inside Daymet NA, the years exist and
 * the number of Daymet cells is within the limit. Throws ClimateCoverageError otherwise. No network.
 * Cost: one transform of the DEM footprint and of a coarse lattice (~70 ms for 1000×1000 cells).
 */
export function checkDaymetCoverage(grid: GridSpec, years: DaymetYearRange, options: DaymetCoverageOptions = {}): DaymetCoverage {
  const yearList = daymetYearsOf(years);
  const maxPoints = resolveDaymetMaxPoints(options.maxPoints);
  const footprint = demFootprint(grid);
  assertFootprintInsideDaymet(footprint);
  const block = daymetBlockCoveringFootprint(footprint, options.bufferM ?? DEFAULT_DAYMET_BUFFER_M);
  const selection = options.cellSelection ?? 'nearest';
  // Refuse a huge DEM before mapping its cells: the buffered block is known, and the cells holding
  // DEM cell centres cover the footprint's LCC area but for a half-DEM-cell rim (0.9: a safety margin).
  const blockCells = block.cols * block.rows;
  if (selection === 'buffered' && blockCells > maxPoints) throw tooManyPoints(blockCells, maxPoints);
  const leastCells = Math.floor((0.9 * footprint.lccAreaM2) / 1e6);
  if (selection === 'nearest' && leastCells > maxPoints) throw tooManyPoints(leastCells, maxPoints, 'at least ');
  const demCells = daymetCellOfEachDemCell(grid, options.lattice);
  const cells = selection === 'buffered' ? daymetCellsOfBlock(block) : distinctDaymetCells(demCells);
  if (cells.length > maxPoints) throw tooManyPoints(cells.length, maxPoints);
  return { years: yearList, footprint, block, cells, nearestCellIndex: indexIntoCells(demCells, cells) };
}

function tooManyPoints(count: number, maxPoints: number, qualifier = ''): ClimateCoverageError {
  return new ClimateCoverageError(
    'TOO_MANY_POINTS',
    `The DEM needs Daymet data for ${qualifier}${count} 1 km cells, more than the limit of ${maxPoints} per-point downloads ` +
      `(setting EEMT_DAYMET_MAX_POINTS). Use a smaller DEM or raise the limit.`,
  );
}

/**
 * Downloads (or reads from the cache) the Daymet cells of a DEM and aggregates them to months.
 * Throws ClimateCoverageError before any download when `checkDaymetCoverage` would, and
 * ClimateDownloadError when a download fails.
 */
export async function prepareDaymetForDem(grid: GridSpec, years: DaymetYearRange, options: PrepareDaymetOptions = {}): Promise<DaymetForDem> {
  const coverage = checkDaymetCoverage(grid, years, options);
  const points = await fetchDaymetPoints(coverage.cells, coverage.years, options);
  const cells: DaymetCellWithElevation[] = points.map((p) => ({ ...p.cell, zRef: p.elevationM }));
  const minPresent = options.minPresentFraction ?? DEFAULT_MIN_PRESENT_FRACTION;
  const radiation = points.every((point) => coverage.years.every((year) => point.daily.get(year)!.srad !== undefined && point.daily.get(year)!.dayl !== undefined));

  const monthly: DaymetYearMonthly[] = coverage.years.map((year) => {
    const months: DaymetMonthFields[] = Array.from({ length: MONTHS_PER_YEAR }, () => ({
      tmax: new Float64Array(cells.length),
      tmin: new Float64Array(cells.length),
      prcp: new Float64Array(cells.length),
      vp: new Float64Array(cells.length),
      ...(radiation ? { globalWhM2: new Float64Array(cells.length), diffuseWhM2: new Float64Array(cells.length) } : {}),
    }));
    points.forEach((point, k) => {
      const series = point.daily.get(year)!;
      for (const v of DAYMET_EEMT_VARIABLES) {
        const values = aggregateDailyToMonthly(series[v], MONTHLY_AGGREGATION[v], minPresent);
        for (let m = 0; m < MONTHS_PER_YEAR; m++) months[m]![v][k] = values[m]!;
      }
      if (radiation) {
        const observed = aggregateDaymetRadiationToMonthly(series.srad!, series.dayl!, (point.cell.lat * Math.PI) / 180, minPresent);
        for (let m = 0; m < MONTHS_PER_YEAR; m++) {
          months[m]!.globalWhM2![k] = observed.globalWhM2[m]!;
          months[m]!.diffuseWhM2![k] = observed.diffuseWhM2[m]!;
        }
      }
    });
    return { year, months };
  });

  const csvFiles = points.flatMap((p) =>
    coverage.years.map((year) => ({ name: daymetCellYearFileName(p.cell, year), text: p.csvByYear.get(year)! })),
  );
  return {
    years: coverage.years,
    cells,
    nearestCellIndex: coverage.nearestCellIndex,
    monthly,
    csvFiles,
    downloadedPoints: points.filter((p) => p.downloadedYears.length > 0).length,
    radiation,
  };
}

/** Lapse rates for the temperature downscaling. */
export interface DownscaleOptions {
  /** Γ for tmax [K km⁻¹]: one value or 12 monthly values; default 6.49. */
  readonly lapseRateTmaxKPerKm?: LapseRateSpecKPerKm;
  /** Γ for tmin [K km⁻¹]: one value or 12 monthly values; default 6.49. */
  readonly lapseRateTminKPerKm?: LapseRateSpecKPerKm;
}

/** Monthly climate on the DEM grid (Float32, row-major, NaN at DEM nodata). */
export interface DemMonthClimate {
  /** Lapse-adjusted mean daily maximum temperature [°C]. */
  readonly tmax: Float32Array;
  /** Lapse-adjusted mean daily minimum temperature [°C]. */
  readonly tmin: Float32Array;
  /** Total precipitation of the nearest Daymet cell [mm month⁻¹]. */
  readonly prcp: Float32Array;
  /** Mean vapour pressure of the nearest Daymet cell [Pa]. */
  readonly vp: Float32Array;
}

/**
 * Monthly tmax, tmin, prcp, vp of one year and month on the DEM grid (eemt-model.md §3.2):
 * nearest Daymet cell; temperatures lapse-adjusted from the cell's z_ref to the DEM elevation.
 * @param month 0 = January … 11 = December
 * @param demElevationM DEM elevation per cell [m], NaN = nodata; length = grid cells
 */
export function downscaleDaymetMonthToDem(
  daymet: Pick<DaymetForDem, 'cells' | 'nearestCellIndex' | 'monthly'>,
  year: number,
  month: number,
  demElevationM: ArrayLike<number>,
  options: DownscaleOptions = {},
): DemMonthClimate {
  const yearData = daymet.monthly.find((y) => y.year === year);
  if (!yearData) throw new RangeError(`no Daymet data for year ${year} (have ${daymet.monthly.map((y) => y.year).join(', ')})`);
  if (!Number.isInteger(month) || month < 0 || month >= MONTHS_PER_YEAR) throw new RangeError(`month must be 0..11, got ${month}`);
  const fields = yearData.months[month]!;
  const zRef = Float64Array.from(daymet.cells, (c) => c.zRef);
  const gammaMax = monthlyLapseRatesKPerKm(options.lapseRateTmaxKPerKm)[month]!;
  const gammaMin = monthlyLapseRatesKPerKm(options.lapseRateTminKPerKm)[month]!;
  const idx = daymet.nearestCellIndex;
  return {
    tmax: lapseAdjustedTemperatureToDem(fields.tmax, zRef, idx, demElevationM, gammaMax),
    tmin: lapseAdjustedTemperatureToDem(fields.tmin, zRef, idx, demElevationM, gammaMin),
    prcp: resampleNearestToDem(fields.prcp, idx, demElevationM),
    vp: resampleNearestToDem(fields.vp, idx, demElevationM),
  };
}

/**
 * All years and months on the DEM grid: `result[y].months[m]`. Memory: 4 variables × 12 months ×
 * 4 bytes per DEM cell and year (192 MB per year for 1000×1000 cells) — for large DEMs call
 * `downscaleDaymetMonthToDem` month by month instead.
 */
export function downscaleDaymetToDem(
  daymet: Pick<DaymetForDem, 'cells' | 'nearestCellIndex' | 'monthly'>,
  demElevationM: ArrayLike<number>,
  options: DownscaleOptions = {},
): Array<{ year: number; months: DemMonthClimate[] }> {
  return daymet.monthly.map(({ year }) => ({
    year,
    months: Array.from({ length: MONTHS_PER_YEAR }, (_, m) => downscaleDaymetMonthToDem(daymet, year, m, demElevationM, options)),
  }));
}

export type { DaymetEemtVariable };
