/**
 * Climate phase of the `eemt` workflow: the Daymet cells of the DEM, from the cache or the server, with
 * progress reports after every point, retry and received chunk, and a heartbeat while nothing arrives
 * (so a stalled server shows as a growing wait, not a frozen bar). The raw CSVs are copied into the
 * job's `daymet/` folder.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { prepareDaymetForDem, type DaymetForDem, type DaymetYearRange, type PrepareDaymetOptions } from '../../climate/index.js';
import type { GridSpec } from '../../raster/index.js';
import type { PhaseReporter } from './progress.js';
import { daymetCsvPath } from './products.js';

/** Settings of the Daymet client an eemt run may override (tests shorten the retries). */
export type ClimateDownloadSettings = Pick<PrepareDaymetOptions, 'timeout_ms' | 'attempts' | 'retryDelay_ms' | 'concurrency' | 'offline' | 'fetch'> & {
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
      timeout_ms: options.timeout_ms,
      attempts: options.attempts,
      retryDelay_ms: options.retryDelay_ms,
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
