/**
 * The cheap checks of an `eemt` job that must pass before any expensive work: the years, and that the
 * DEM lies inside Daymet's coverage and needs no more Daymet cells than the per-point download limit
 * (setting `EEMT_DAYMET_MAX_POINTS`). The HTTP service calls `checkEemtJobInputs` at submission; the
 * pipeline calls it again at the start of the job, before the climate download and the solar phase.
 */
import { checkDaymetCoverage, type DaymetCoverage, type DaymetYearRange } from '../../climate/daymetForDem.js';
import { readDem } from '../../raster/geotiff/readGeoTiff.js';
import type { Dem, GridSpec } from '../../raster/types.js';
import { ParameterRangeError, validateWorkflowParams } from '../params.js';
import type { WorkflowParams } from '../types.js';

/** Options of the job-input check. */
export interface EemtInputCheckOptions {
  /** Largest number of Daymet cells; default env `EEMT_DAYMET_MAX_POINTS`, else 400. */
  readonly maxPoints?: number;
}

/** What the check found: the years and the Daymet cells the job will download. */
export interface EemtJobInputs {
  readonly years: readonly number[];
  readonly coverage: DaymetCoverage;
}

/**
 * The Daymet years of an eemt job from its parameters. Validates every parameter
 * (ParameterRangeError): both years are required for eemt, each in its range, end ≥ start.
 */
export function eemtYearRange(params: WorkflowParams): DaymetYearRange {
  validateWorkflowParams(params);
  if (params.start_year === undefined) throw new ParameterRangeError('start_year', 'start_year (first Daymet year) is required for eemt jobs');
  if (params.end_year === undefined) throw new ParameterRangeError('end_year', 'end_year (last Daymet year) is required for eemt jobs');
  return { start: params.start_year, end: params.end_year };
}

function isGrid(value: Dem | GridSpec): value is GridSpec {
  return 'geoTransform' in value;
}

/**
 * Fails fast for an eemt job: throws ClimateCoverageError when the DEM lies (partly) outside Daymet's
 * North American coverage, when it needs more Daymet cells than the point limit, or when Daymet cannot
 * have the years. No network access; costs one read of the DEM (when given a path) plus ~70 ms per
 * million cells.
 * @param dem path of the DEM GeoTIFF, a DEM already read, or its grid
 * @param years first and last Daymet year, inclusive
 */
export async function checkEemtJobInputs(
  dem: string | Dem | GridSpec,
  years: DaymetYearRange,
  options: EemtInputCheckOptions = {},
): Promise<EemtJobInputs> {
  const grid = typeof dem === 'string' ? (await readDem(dem)).grid : isGrid(dem) ? dem : dem.grid;
  const coverage = checkDaymetCoverage(grid, years, options.maxPoints === undefined ? {} : { maxPoints: options.maxPoints });
  return { years: coverage.years, coverage };
}
