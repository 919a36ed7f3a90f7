/**
 * Client of the Daymet single-pixel API with an on-disk cache.
 *
 * `GET {base}/single-pixel/api/data?lat=…&lon=…&vars=tmax,tmin,prcp,vp,srad,dayl&years=2018,2019` answers a CSV
 * (format: `daymetCsv.ts`) with the daily series of the 1 km cell containing the point: the four variables of the
 * EEMT models and the shortwave radiation and day length of eemt's real-sky maps. `base` is
 * https://daymet.ornl.gov unless `baseUrl` or env `EEMT_DAYMET_URL` says otherwise.
 *
 * Every point is snapped to the centre of its Daymet cell before the request, so the cache
 * (`daymetCache.ts`) is keyed by cell and shared between jobs. Only the years missing from the
 * cache are requested, in one request per point. A cached year without srad or dayl (written before they were
 * requested, or downloaded with `vars=tmax,tmin,prcp,vp`) counts as missing, unless downloads are switched off:
 * then it is used as it is, without the observed radiation. Requests run with bounded concurrency (default 4),
 * each attempt has a timeout (default 60 s, body included), and network errors, timeouts, HTTP 5xx,
 * 408 and 429 are retried with exponential backoff (default 3 attempts, 2 s then 4 s, ±25 % jitter).
 * Other 4xx answers are not retried: Daymet answers 400 for a point outside its coverage.
 * Failures become a `ClimateDownloadError` whose message starts with `Climate download failed: `.
 * Aborting `signal` stops all requests and rejects with the signal's reason.
 */
import { describePoint, ClimateDownloadError, PRESEEDED_CACHE_HINT } from './errors.js';
import {
  daymetCellAt,
  daymetCellContaining,
  daymetCellKey,
  isDaymetCellInGrid,
  DAYMET_NA_GRID,
  type DaymetCell,
} from './daymetGrid.js';
import { parseDaymetCsv, daymetCsvForYear, DaymetCsvFormatError, type DaymetDailySeries } from './daymetCsv.js';
import { daymetCacheFilePath, readCachedDaymetYear, writeCachedDaymetYear } from './daymetCache.js';
import { resolveDaymetBaseUrl, DAYMET_SINGLE_PIXEL_PATH, DAYMET_FIRST_YEAR } from './daymetSettings.js';
import { mapWithConcurrency } from './concurrency.js';
import { DAYMET_EEMT_VARIABLES, DAYMET_RADIATION_VARIABLES } from '../science/climate/monthlyAggregation.js';

/** Progress of a Daymet download, reported after every point, retry and received chunk. */
export interface DaymetDownloadProgress {
  /** Points finished (from the cache or downloaded). */
  readonly pointsDone: number;
  readonly pointsTotal: number;
  /** Of `pointsDone`, how many came entirely from the cache. */
  readonly pointsFromCache: number;
  /** Bytes received from the server so far (all points). */
  readonly bytesReceived: number;
  /** The point this report is about, e.g. `35.81N 106.63W`, or null. */
  readonly currentPoint: string | null;
  /** One line for a log or progress bar. */
  readonly message: string;
}

/** Options of the Daymet client. */
export interface DaymetClientOptions {
  /** Server base URL; default env `EEMT_DAYMET_URL`, else https://daymet.ornl.gov. */
  readonly baseUrl?: string;
  /** Cache directory (the service's `EEMT_CACHE_DIR`); without it nothing is cached. */
  readonly cacheDir?: string;
  /** Use the cache only; a missing entry is an error instead of a download. Default false. */
  readonly offline?: boolean;
  /** Time limit of one request attempt, body included [ms]; default 60 000. */
  readonly timeoutMs?: number;
  /** Attempts per point (first try + retries); default 3. */
  readonly attempts?: number;
  /** Backoff before the first retry [ms], doubled for each further retry; default 2000. */
  readonly retryDelayMs?: number;
  /** Requests in flight at once; default 4. */
  readonly concurrency?: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: DaymetDownloadProgress) => void;
  /** fetch implementation; default the global fetch. */
  readonly fetch?: typeof fetch;
}

/** Daily Daymet data of one cell. */
export interface DaymetPointData {
  /** The Daymet cell the point was snapped to. */
  readonly cell: DaymetCell;
  /** Elevation Daymet assigns to the cell [m] (the `Elevation` line) — z_ref for the lapse rate. */
  readonly elevationM: number;
  /** The years, ascending. */
  readonly years: readonly number[];
  /**
   * Daily tmax, tmin [°C], prcp [mm day⁻¹], vp [Pa], and srad [W m⁻²] and dayl [s] where the data has them, per year
   * (365 values each, −9999 = missing).
   */
  readonly daily: ReadonlyMap<number, DaymetDailySeries>;
  /** The API's CSV per year (what the cache holds), keyed by year. */
  readonly csvByYear: ReadonlyMap<number, string>;
  /** Years that were downloaded now (the rest came from the cache). */
  readonly downloadedYears: readonly number[];
}

const DEFAULTS = { timeoutMs: 60_000, attempts: 3, retryDelayMs: 2000, concurrency: 4 } as const;

/** Sorted, de-duplicated years; throws ClimateDownloadError on a year Daymet cannot have. */
export function normaliseDaymetYears(years: readonly number[]): number[] {
  const out = [...new Set(years)].sort((a, b) => a - b);
  if (out.length === 0) throw new ClimateDownloadError('no years were requested');
  for (const y of out) {
    if (!Number.isInteger(y) || y < DAYMET_FIRST_YEAR) {
      throw new ClimateDownloadError(`year ${y} is not a Daymet year (the record starts in ${DAYMET_FIRST_YEAR})`);
    }
  }
  return out;
}

/** The request URL for one point (the cell centre) and a set of years. */
export function daymetRequestUrl(baseUrl: string, cell: Pick<DaymetCell, 'lat' | 'lon'>, years: readonly number[]): string {
  const q = new URLSearchParams({
    lat: cell.lat.toFixed(6),
    lon: cell.lon.toFixed(6),
    vars: [...DAYMET_EEMT_VARIABLES, ...DAYMET_RADIATION_VARIABLES].join(','),
    years: years.join(','),
  });
  // URLSearchParams encodes "," as %2C; the API documents plain commas.
  return `${baseUrl}${DAYMET_SINGLE_PIXEL_PATH}?${q.toString().replace(/%2C/g, ',')}`;
}

/** Shared progress counters of one download run. */
class ProgressTracker {
  pointsDone = 0;
  pointsFromCache = 0;
  bytesReceived = 0;
  constructor(readonly pointsTotal: number, private readonly listener?: (p: DaymetDownloadProgress) => void) {}

  report(currentPoint: string | null, message: string): void {
    if (!this.listener) return;
    this.listener({
      pointsDone: this.pointsDone,
      pointsTotal: this.pointsTotal,
      pointsFromCache: this.pointsFromCache,
      bytesReceived: this.bytesReceived,
      currentPoint,
      message,
    });
  }
}

interface RequestContext {
  readonly host: string;
  readonly pointLabel: string;
  readonly timeoutMs: number;
  readonly attempts: number;
  readonly retryDelayMs: number;
  readonly signal: AbortSignal | undefined;
  readonly fetch: typeof fetch;
  readonly progress: ProgressTracker;
}

type AttemptFailure =
  | { kind: 'timeout' }
  | { kind: 'status'; status: number; statusText: string }
  | { kind: 'network'; detail: string };

function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return Number.isInteger(s) ? String(s) : String(Number(s.toPrecision(3)));
}

function networkDetail(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code) return cause.code;
  if (cause?.message) return cause.message;
  return err instanceof Error ? err.message : String(err);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

async function readBody(response: Response, ctx: RequestContext): Promise<string> {
  if (!response.body) return '';
  const decoder = new TextDecoder('utf-8');
  const reader = response.body.getReader();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    ctx.progress.bytesReceived += value.byteLength;
    text += decoder.decode(value, { stream: true });
    ctx.progress.report(ctx.pointLabel, `Daymet ${ctx.pointLabel}: ${(ctx.progress.bytesReceived / 1024).toFixed(0)} KiB received`);
  }
  return text + decoder.decode();
}

function failureReason(f: AttemptFailure, ctx: RequestContext): string {
  const tries = `${ctx.attempts} attempt${ctx.attempts === 1 ? '' : 's'}`;
  switch (f.kind) {
    case 'timeout':
      return `${ctx.host} did not answer within ${formatSeconds(ctx.timeoutMs)} s (${tries}) for point ${ctx.pointLabel}`;
    case 'status':
      return `${ctx.host} answered HTTP ${f.status}${f.statusText ? ` ${f.statusText}` : ''} (${tries}) for point ${ctx.pointLabel}`;
    case 'network':
      return `${ctx.host} could not be reached (${f.detail}; ${tries}) for point ${ctx.pointLabel}`;
  }
}

function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/** GET with timeout, retries and backoff; resolves with the body of a 2xx answer. */
async function getWithRetries(url: string, ctx: RequestContext): Promise<string> {
  let last: AttemptFailure = { kind: 'timeout' };
  for (let attempt = 1; attempt <= ctx.attempts; attempt++) {
    ctx.signal?.throwIfAborted();
    const timeout = AbortSignal.timeout(ctx.timeoutMs);
    const signal = ctx.signal ? AbortSignal.any([ctx.signal, timeout]) : timeout;
    try {
      ctx.progress.report(ctx.pointLabel, `Daymet ${ctx.pointLabel}: request${attempt > 1 ? ` (attempt ${attempt} of ${ctx.attempts})` : ''}`);
      const response = await ctx.fetch(url, { signal, headers: { accept: 'text/csv, text/plain;q=0.9, */*;q=0.1' } });
      if (response.ok) return await readBody(response, ctx);
      const body = await response.text().catch(() => '');
      if (!isRetryableStatus(response.status)) {
        const said = body.trim().replace(/\s+/g, ' ').slice(0, 200);
        const hint = response.status === 400 ? ' (Daymet answers 400 for points outside its North American coverage)' : '';
        throw new ClimateDownloadError(
          `${ctx.host} refused the request for point ${ctx.pointLabel} with HTTP ${response.status}${said ? `: ${said}` : ''}${hint}${PRESEEDED_CACHE_HINT}`,
          { status: response.status, attempts: attempt },
        );
      }
      last = { kind: 'status', status: response.status, statusText: response.statusText };
    } catch (err) {
      if (err instanceof ClimateDownloadError) throw err;
      if (ctx.signal?.aborted) throw ctx.signal.reason;
      last = timeout.aborted ? { kind: 'timeout' } : { kind: 'network', detail: networkDetail(err) };
    }
    if (attempt < ctx.attempts) {
      const delay = ctx.retryDelayMs * 2 ** (attempt - 1) * (0.75 + 0.5 * Math.random());
      ctx.progress.report(
        ctx.pointLabel,
        `Daymet ${ctx.pointLabel}: ${failureReason(last, { ...ctx, attempts: attempt })}; retrying in ${formatSeconds(Math.round(delay))} s`,
      );
      await sleep(delay, ctx.signal);
    }
  }
  throw new ClimateDownloadError(failureReason(last, ctx) + PRESEEDED_CACHE_HINT, {
    attempts: ctx.attempts,
    ...(last.kind === 'status' ? { status: last.status } : {}),
  });
}

/** A point to fetch: any WGS84 position (snapped to its cell), or a Daymet cell. */
export type DaymetPointInput = { readonly lat: number; readonly lon: number } | DaymetCell;

function toCell(point: DaymetPointInput): DaymetCell {
  if ('col' in point && 'row' in point) return daymetCellAt(point.col, point.row);
  return daymetCellContaining(point.lon, point.lat);
}

async function fetchOnePoint(
  point: DaymetPointInput,
  years: readonly number[],
  options: DaymetClientOptions,
  progress: ProgressTracker,
  signal: AbortSignal | undefined,
): Promise<DaymetPointData> {
  const cell = toCell(point);
  const pointLabel = describePoint(cell.lat, cell.lon);
  if (!isDaymetCellInGrid(cell.col, cell.row)) {
    throw new ClimateDownloadError(
      `point ${describePoint(point.lat, point.lon)} is outside the Daymet North America grid (${DAYMET_NA_GRID.columns}×${DAYMET_NA_GRID.rows} cells of 1 km)`,
    );
  }
  const csvByYear = new Map<number, string>();
  const daily = new Map<number, DaymetDailySeries>();
  let elevation: number | null = null;
  let elevationSource = '';
  const takeElevation = (value: number, source: string) => {
    if (elevation === null) {
      elevation = value;
      elevationSource = source;
    } else if (value !== elevation) {
      throw new ClimateDownloadError(
        `Daymet cell ${daymetCellKey(cell)} (point ${pointLabel}) has two different elevations: ${elevation} m in ${elevationSource} and ${value} m in ${source}`,
      );
    }
  };

  // 1. The cache.
  const missing: number[] = [];
  for (const year of years) {
    const text = options.cacheDir ? await readCachedDaymetYear(options.cacheDir, cell, year) : null;
    if (text === null) {
      missing.push(year);
      continue;
    }
    const path = daymetCacheFilePath(options.cacheDir!, cell, year);
    let parsed;
    try {
      parsed = parseDaymetCsv(text, { source: path, expectedYears: [year] });
    } catch (err) {
      if (!(err instanceof DaymetCsvFormatError)) throw err;
      throw new ClimateDownloadError(`the cached file ${path} is not usable: ${err.problem}. Delete it to download it again.`, { cause: err });
    }
    const series = parsed.daily.get(year)!;
    // a year cached without the observed radiation is downloaded again, unless downloads are switched off
    if (!options.offline && DAYMET_RADIATION_VARIABLES.some((v) => series[v] === undefined)) {
      missing.push(year);
      continue;
    }
    takeElevation(parsed.preamble.elevationM, path);
    daily.set(year, series);
    csvByYear.set(year, text);
  }

  // 2. The server, for the years the cache lacks.
  if (missing.length > 0) {
    if (options.offline) {
      throw new ClimateDownloadError(
        `no cached Daymet data for point ${pointLabel} (cell ${daymetCellKey(cell)}), year${missing.length > 1 ? 's' : ''} ${missing.join(', ')}` +
          `${options.cacheDir ? ` in ${options.cacheDir}` : ''}, and downloads are switched off`,
      );
    }
    const baseUrl = resolveDaymetBaseUrl(options.baseUrl);
    const ctx: RequestContext = {
      host: new URL(baseUrl).host,
      pointLabel,
      timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
      attempts: Math.max(1, options.attempts ?? DEFAULTS.attempts),
      retryDelayMs: options.retryDelayMs ?? DEFAULTS.retryDelayMs,
      signal,
      fetch: options.fetch ?? globalThis.fetch,
      progress,
    };
    const text = await getWithRetries(daymetRequestUrl(baseUrl, cell, missing), ctx);
    let parsed;
    try {
      parsed = parseDaymetCsv(text, { source: `point ${pointLabel}`, expectedYears: missing });
    } catch (err) {
      if (!(err instanceof DaymetCsvFormatError)) throw err;
      throw new ClimateDownloadError(`the answer of ${ctx.host} for point ${pointLabel} is not usable: ${err.problem}`, { cause: err });
    }
    const { lccXM, lccYM } = parsed.preamble;
    const half = DAYMET_NA_GRID.cellSizeM / 2;
    if (lccXM !== null && lccYM !== null && (Math.abs(lccXM - cell.x) > half || Math.abs(lccYM - cell.y) > half)) {
      throw new ClimateDownloadError(
        `the answer of ${ctx.host} for point ${pointLabel} is for Lambert Conformal Conic position (${lccXM}, ${lccYM}), ` +
          `outside the requested Daymet cell centred at (${cell.x}, ${cell.y})`,
      );
    }
    takeElevation(parsed.preamble.elevationM, `the answer of ${ctx.host}`);
    for (const year of missing) {
      const yearText = daymetCsvForYear(parsed, year);
      daily.set(year, parsed.daily.get(year)!);
      csvByYear.set(year, yearText);
      if (options.cacheDir) await writeCachedDaymetYear(options.cacheDir, cell, year, yearText);
    }
  }

  return {
    cell,
    elevationM: elevation!,
    years,
    daily,
    csvByYear,
    downloadedYears: missing,
  };
}

/**
 * Daily tmax, tmin, prcp and vp of the Daymet cell containing `point`, for `years`, from the cache
 * or the server (see the module doc). Resolves with the parsed series, the cell's elevation (z_ref)
 * and the CSV text per year.
 */
export async function fetchDaymetPoint(
  point: DaymetPointInput,
  years: readonly number[],
  options: DaymetClientOptions = {},
): Promise<DaymetPointData> {
  const ys = normaliseDaymetYears(years);
  const progress = new ProgressTracker(1, options.onProgress);
  const data = await fetchOnePoint(point, ys, options, progress, options.signal);
  progress.pointsDone = 1;
  if (data.downloadedYears.length === 0) progress.pointsFromCache = 1;
  progress.report(describePoint(data.cell.lat, data.cell.lon), `Daymet: 1 of 1 points ready`);
  return data;
}

/**
 * `fetchDaymetPoint` for many points, at most `concurrency` requests at a time, results in input
 * order. The first failure aborts the others and rejects with that failure.
 */
export async function fetchDaymetPoints(
  points: readonly DaymetPointInput[],
  years: readonly number[],
  options: DaymetClientOptions = {},
): Promise<DaymetPointData[]> {
  const ys = normaliseDaymetYears(years);
  const progress = new ProgressTracker(points.length, options.onProgress);
  progress.report(null, `Daymet: ${points.length} point${points.length === 1 ? '' : 's'}, ${ys.length} year${ys.length === 1 ? '' : 's'}`);
  return mapWithConcurrency(
    points,
    Math.max(1, options.concurrency ?? DEFAULTS.concurrency),
    async (point, _index, signal) => {
      const data = await fetchOnePoint(point, ys, options, progress, signal);
      progress.pointsDone++;
      if (data.downloadedYears.length === 0) progress.pointsFromCache++;
      const label = describePoint(data.cell.lat, data.cell.lon);
      progress.report(label, `Daymet: ${progress.pointsDone} of ${progress.pointsTotal} points ready (${label})`);
      return data;
    },
    options.signal,
  );
}
