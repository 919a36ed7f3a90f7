/** Settings of the Daymet download, from options or the environment. */

/** Default server of the Daymet single-pixel API. */
export const DEFAULT_DAYMET_BASE_URL = 'https://daymet.ornl.gov';

/** Path of the single-pixel data endpoint below the base URL. */
export const DAYMET_SINGLE_PIXEL_PATH = '/single-pixel/api/data';

/** Default largest number of Daymet cells (= per-point requests) one DEM may need. */
export const DEFAULT_DAYMET_MAX_POINTS = 400;

/** First year of the Daymet record. */
export const DAYMET_FIRST_YEAR = 1980;

type Env = Readonly<Record<string, string | undefined>>;

/** Base URL of the Daymet server: `explicit`, else env `EEMT_DAYMET_URL`, else https://daymet.ornl.gov (no trailing slash). */
export function resolveDaymetBaseUrl(explicit?: string, env: Env = process.env): string {
  const raw = (explicit ?? env['EEMT_DAYMET_URL'] ?? '').trim() || DEFAULT_DAYMET_BASE_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`EEMT_DAYMET_URL must be an http(s) URL such as ${DEFAULT_DAYMET_BASE_URL}, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new Error(`EEMT_DAYMET_URL must be an http(s) URL such as ${DEFAULT_DAYMET_BASE_URL}, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

/** Largest number of Daymet points per DEM: `explicit`, else env `EEMT_DAYMET_MAX_POINTS`, else 400. */
export function resolveDaymetMaxPoints(explicit?: number, env: Env = process.env): number {
  if (explicit !== undefined) {
    if (!Number.isInteger(explicit) || explicit < 1) throw new RangeError(`maxPoints must be a positive integer, got ${explicit}`);
    return explicit;
  }
  const raw = env['EEMT_DAYMET_MAX_POINTS']?.trim();
  if (!raw) return DEFAULT_DAYMET_MAX_POINTS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`EEMT_DAYMET_MAX_POINTS must be a positive integer, got "${raw}"`);
  return n;
}
