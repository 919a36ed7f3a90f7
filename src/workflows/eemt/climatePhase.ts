/**
 * Climate phase of the `eemt` workflow: the Daymet cells of the DEM, from the cache or the server, with
 * progress reports after every point, retry and received chunk, and a heartbeat while nothing arrives
 * (so a stalled server shows as a growing wait, not a frozen bar). The raw CSVs are copied into the
 * job's `daymet/` folder. Or, with a user climate file, its grids opened and checked (`loadUserClimate`).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { prepareDaymetForDem, type DaymetForDem, type DaymetYearRange, type PrepareDaymetOptions } from '../../climate/daymetForDem.js';
import { openUserClimate, type UserClimateOnDem } from '../../climate/userClimate.js';
import type { ReadLimits } from '../../raster/geotiff/readGeoTiff.js';
import type { Dem, GridSpec } from '../../raster/types.js';
import type { PhaseReporter } from './progress.js';
import { daymetCsvPath } from './products.js';

/** Settings of the Daymet client an eemt run may override (tests shorten the retries). */
export type ClimateDownloadSettings = Pick<PrepareDaymetOptions, 'timeoutMs' | 'attempts' | 'retryDelayMs' | 'concurrency' | 'offline' | 'fetch'> & {
  /** Seconds without any report after which a "waiting" message is repeated; default 5. */
  readonly heartbeatSeconds?: number;
};

export interface ClimatePhaseOptions extends ClimateDownloadSettings {
  readonly cacheDir: string;
  readonly baseUrl: string;
  readonly maxPoints?: number;
  readonly signal?: AbortSignal;
}

/** Downloads (or reads from the cache) the Daymet data of the DEM and writes the CSVs under `outDir/daymet/`. */
export async function downloadClimate(
  grid: GridSpec,
  years: DaymetYearRange,
  outDir: string,
  options: ClimatePhaseOptions,
  report: PhaseReporter,
): Promise<{ daymet: DaymetForDem; files: string[] }> {
  const host = new URL(options.baseUrl).host;
  let fraction = 0;
  let lastMessage = `contacting ${host}`;
  let lastReportAt = Date.now();
  let pointsDone = 0;
  let pointsTotal = 0;
  const say = (message: string) => {
    lastMessage = message;
    lastReportAt = Date.now();
    report(fraction, message);
  };
  say(`Daymet ${years.start}–${years.end}, cache ${options.cacheDir}`);
  const heartbeatMs = (options.heartbeatSeconds ?? 5) * 1000;
  const heartbeat = setInterval(() => {
    const waited = Math.round((Date.now() - lastReportAt) / 1000);
    if (waited * 1000 < heartbeatMs) return;
    report(fraction, `waiting for ${host}: no data for ${waited} s (${pointsDone} of ${pointsTotal} points ready; last: ${lastMessage})`);
  }, Math.max(250, heartbeatMs / 2));
  heartbeat.unref();

  let daymet: DaymetForDem;
  try {
    daymet = await prepareDaymetForDem(grid, years, {
      timeoutMs: options.timeoutMs,
      attempts: options.attempts,
      retryDelayMs: options.retryDelayMs,
      concurrency: options.concurrency,
      offline: options.offline,
      fetch: options.fetch,
      baseUrl: options.baseUrl,
      cacheDir: options.cacheDir,
      maxPoints: options.maxPoints,
      signal: options.signal,
      onProgress: (p) => {
        pointsDone = p.pointsDone;
        pointsTotal = p.pointsTotal;
        // Keep 10 % for copying the CSVs into the job folder.
        fraction = p.pointsTotal > 0 ? (0.9 * p.pointsDone) / p.pointsTotal : 0;
        say(p.message);
      },
    });
  } finally {
    clearInterval(heartbeat);
  }

  const files: string[] = [];
  for (const csv of daymet.csvFiles) {
    options.signal?.throwIfAborted();
    const path = daymetCsvPath(csv.name);
    await mkdir(dirname(join(outDir, path)), { recursive: true });
    await writeFile(join(outDir, path), csv.text);
    files.push(path);
  }
  fraction = 1;
  const fromCache = daymet.cells.length - daymet.downloadedPoints;
  say(`${daymet.cells.length} Daymet cells ready (${daymet.downloadedPoints} downloaded, ${fromCache} from the cache)`);
  return { daymet, files };
}

/**
 * Opens the user's climate ZIP for the DEM and reads every grid the years need once (bounds, layout, missing
 * members, GeoTIFF rules, coverage, units), so a bad grid ends the job before the solar phase.
 */
export async function loadUserClimate(
  dem: Dem,
  years: readonly number[],
  zipPath: string,
  options: { readonly archiveName?: string; readonly readLimits?: ReadLimits; readonly signal?: AbortSignal },
  report: PhaseReporter,
): Promise<UserClimateOnDem> {
  report(0, `opening ${options.archiveName ?? basename(zipPath)}`);
  const climate = await openUserClimate(zipPath, dem, years, {
    ...(options.archiveName ? { archiveName: options.archiveName } : {}),
    ...(options.readLimits ? { readLimits: options.readLimits } : {}),
  });
  try {
    const yearsToCheck = climate.layout.kind === 'time-series' ? years : years.slice(0, 1);
    const steps = yearsToCheck.length * 12;
    for (const [y, year] of yearsToCheck.entries()) {
      for (let month = 0; month < 12; month++) {
        options.signal?.throwIfAborted();
        await climate.monthAt(year, month);
        report((y * 12 + month + 1) / steps, `checked the grids of ${climate.layout.kind === 'time-series' ? `${year}-` : 'month '}${String(month + 1).padStart(2, '0')}`);
      }
    }
    report(1, `${climate.source.type === 'user' ? climate.source.files.length : 0} climate grids cover the DEM (${climate.layout.kind}${climate.lapseAdjusted ? ', with a reference elevation' : ', no reference elevation: no lapse-rate adjustment'})`);
    return climate;
  } catch (error) {
    climate.close();
    throw error;
  }
}
