/** Errors of the climate (Daymet) input stage. Both carry a message meant for the end user. */

/** A geographic description of a Daymet point for messages, e.g. `35.80N 106.62W`. */
export function describePoint(latDeg: number, lonDeg: number): string {
  const ns = latDeg >= 0 ? 'N' : 'S';
  const ew = lonDeg >= 0 ? 'E' : 'W';
  return `${Math.abs(latDeg).toFixed(2)}${ns} ${Math.abs(lonDeg).toFixed(2)}${ew}`;
}

/**
 * The Daymet data could not be obtained or read. The message always starts with
 * `Climate download failed: ` followed by the reason, e.g.
 * `Climate download failed: daymet.ornl.gov did not answer within 60 s (3 attempts) for point 35.80N 106.62W`.
 */
export class ClimateDownloadError extends Error {
  static readonly PREFIX = 'Climate download failed: ';
  /** HTTP status of the last answer, when there was one. */
  readonly status: number | undefined;
  /** Number of requests made for this point (0 when the failure was not a request). */
  readonly attempts: number;

  constructor(reason: string, details: { status?: number; attempts?: number; cause?: unknown } = {}) {
    super(ClimateDownloadError.PREFIX + reason, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'ClimateDownloadError';
    this.status = details.status;
    this.attempts = details.attempts ?? 0;
  }
}

/** Appended to a failed download: how to do without the network. */
export const PRESEEDED_CACHE_HINT =
  '. A cache pre-seeded with `eemt climate prefetch` (EEMT_CACHE_DIR; docs/daymet-cache.md) avoids the download.';

/**
 * The DEM cannot be served from Daymet: it lies (partly) outside Daymet's North American grid,
 * or it needs more Daymet cells than the per-point download limit allows. Raised before any download.
 */
export class ClimateCoverageError extends Error {
  readonly code: 'OUTSIDE_COVERAGE' | 'TOO_MANY_POINTS' | 'BAD_YEARS';

  constructor(code: ClimateCoverageError['code'], message: string) {
    super(message);
    this.name = 'ClimateCoverageError';
    this.code = code;
  }
}

/**
 * A user climate file (`climate_file`, CLI `--climate-file`) cannot be used: the archive breaks a bound, a
 * member is missing or unknown, not a GeoTIFF, in the wrong units, or does not cover the DEM. The message
 * names the file, month or area.
 */
export class ClimateInputError extends Error {
  readonly code: 'ARCHIVE' | 'LAYOUT' | 'MISSING' | 'NOT_GEOTIFF' | 'UNITS' | 'COVERAGE';

  constructor(code: ClimateInputError['code'], message: string) {
    super(message);
    this.name = 'ClimateInputError';
    this.code = code;
  }
}
