/**
 * The `eemt` command line (see main.ts for the entry point):
 *   eemt sol <dem.tif> --out <dir> [--step 15] [--linke 3] [--albedo 0.2] [--threads N] [--days 1-31,172] [--tile-size N]
 *   eemt eemt <dem.tif> --out <dir> --start-year 2020 --end-year 2020 [solar options] [--cache <dir>] [--daymet-url <url>]
 * Parameter ranges are those of the service (step 3–60 min, linke 1–8, albedo 0–1, threads 1–32); a value
 * outside its range is an error, not a clamp. User errors (bad parameters, unreadable DEM, DEM outside Daymet
 * coverage or over the point limit, failed climate download) print one line and exit 2.
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { ClimateCoverageError, ClimateDownloadError } from '../climate/errors.js';
import { RasterFormatError } from '../raster/types.js';
import { runEemtWorkflow } from '../workflows/eemt/index.js';
import { ParameterRangeError, DEFAULT_PARAMS } from '../workflows/params.js';
import { DaySpecError, MAX_REQUESTED_TILE_SIZE, checkTileSize, parseDaySpec, runSolWorkflow } from '../workflows/sol/index.js';
import type { PhaseTimings, ProgressListener, WorkflowParams } from '../workflows/types.js';
import { progressDisplay } from './progress.js';

function number(value: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed)) throw new InvalidArgumentError(`"${value}" is not a number`);
  return parsed;
}

function daySpec(value: string): number[] {
  try {
    return parseDaySpec(value);
  } catch (error) {
    if (error instanceof DaySpecError) throw new InvalidArgumentError(error.message);
    throw error;
  }
}

function tileSize(value: string): number {
  const size = number(value);
  try {
    return checkTileSize(size);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
}

/** " — horizons 1.2 s, kernel 3.4 s, encoding 0.5 s (thread-seconds), writing 0.2 s" from the phase timings. */
function phaseSummary(phases: PhaseTimings | undefined): string {
  if (!phases) return '';
  const s = (seconds: number) => `${seconds.toFixed(1)} s`;
  return (
    `; horizons ${s(phases.horizonSeconds)}, kernel ${s(phases.kernelSeconds)}, encoding ${s(phases.encodeSeconds)} (thread-seconds), ` +
    `writing ${s(phases.writeSeconds)}`
  );
}

function solParams(options: { step: number; linke: number; albedo: number; threads: number }): WorkflowParams {
  return { step: options.step, linke_value: options.linke, albedo_value: options.albedo, num_threads: options.threads };
}

/** The solar options shared by `sol` and `eemt`. */
function withSolarOptions(command: Command): Command {
  return command
    .option('--step <minutes>', 'time step of the daily integration, 3–60 minutes', number, DEFAULT_PARAMS.step)
    .option('--linke <value>', 'Linke turbidity, 1–8', number, DEFAULT_PARAMS.linke_value)
    .option('--albedo <value>', 'ground albedo, 0–1', number, DEFAULT_PARAMS.albedo_value)
    .option('--threads <n>', 'worker threads, 1–32 (capped at the CPU count)', number, Math.min(availableParallelism(), 32));
}

/** Runs `work` with the progress display, stopping the display whatever happens. */
async function withProgress<T>(work: (listener: ProgressListener) => Promise<T>): Promise<T> {
  const display = progressDisplay();
  try {
    return await work(display.listener);
  } finally {
    display.stop();
  }
}

export function buildProgram(): Command {
  const program = new Command('eemt')
    .description('Terrain solar radiation (r.sun model, bugs fixed) and EEMT maps from a DEM GeoTIFF')
    .showHelpAfterError();
  withSolarOptions(
    program
      .command('sol')
      .description('365 daily global-irradiation and sunshine-hour maps plus 12 monthly sums')
      .argument('<dem>', 'DEM GeoTIFF (single band, elevations in metres, projected or geographic CRS)')
      .requiredOption('-o, --out <dir>', 'output folder')
      .option('--days <list>', 'days of year to compute, e.g. 1-31,172,355 (default all 365; monthly sums for complete months only)', daySpec)
      .option('--tile-size <cells>', `side of the compute and GeoTIFF tiles, a multiple of 16 up to ${MAX_REQUESTED_TILE_SIZE} (default by DEM size)`, tileSize),
  ).action(async (dem: string, options) => {
    const result = await withProgress((listener) =>
      runSolWorkflow({
        demPath: resolve(dem),
        outDir: resolve(options.out),
        params: solParams(options),
        ...(options.days ? { days: options.days } : {}),
        ...(options.tileSize !== undefined ? { tileSize: options.tileSize } : {}),
        onProgress: listener,
      }),
    );
    const cellDays = result.validCells * result.days;
    process.stdout.write(
      `sol: ${result.files.length} GeoTIFFs in ${options.out} — ${result.validCells} cells × ${result.days} days ` +
        `in ${result.seconds.toFixed(1)} s (${(cellDays / result.seconds / 1e6).toFixed(2)} M cell-days/s)${phaseSummary(result.phases)}\n`,
    );
  });
  withSolarOptions(
    program
      .command('eemt')
      .description('everything sol writes, plus terrain indices, Daymet climate grids and monthly, annual and multi-year EEMT maps')
      .argument('<dem>', 'DEM GeoTIFF inside Daymet coverage (North America)')
      .requiredOption('-o, --out <dir>', 'output folder')
      .option('--start-year <year>', 'first Daymet year, 1980–2024', number, DEFAULT_PARAMS.start_year)
      .option('--end-year <year>', 'last Daymet year, 1980–2024, not before --start-year', number, DEFAULT_PARAMS.end_year)
      .option('--cache <dir>', 'Daymet download cache (default: $EEMT_CACHE_DIR, else ./cache)')
      .option('--daymet-url <url>', 'Daymet server (default: $EEMT_DAYMET_URL, else https://daymet.ornl.gov)'),
  ).action(async (dem: string, options) => {
    const result = await withProgress((listener) =>
      runEemtWorkflow({
        demPath: resolve(dem),
        outDir: resolve(options.out),
        params: { ...solParams(options), start_year: options.startYear, end_year: options.endYear },
        ...(options.cache ? { cacheDir: resolve(options.cache) } : {}),
        daymetBaseUrl: options.daymetUrl,
        onProgress: listener,
      }),
    );
    const last = result.diagnostics.annual[result.diagnostics.annual.length - 1]!;
    const years = result.years.length > 1 ? `${result.years[0]}–${result.years[result.years.length - 1]}` : `${result.years[0]}`;
    process.stdout.write(
      `eemt: ${result.files.length} files in ${options.out} — ${result.validCells} cells, ${years}, in ${result.seconds.toFixed(1)} s; ` +
        `annual EEMT_Topo mean ${last.topo.mean.toFixed(1)}, EEMT_Trad mean ${last.trad.mean.toFixed(1)} MJ m-2 yr-1 (${last.year})\n`,
    );
    for (const warning of result.warnings) process.stderr.write(`eemt: warning: ${warning}\n`);
  });
  return program;
}

/** User errors print one line and exit 2; anything else is a fault (exit 1). */
export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return 0;
  } catch (error) {
    if (
      error instanceof ParameterRangeError ||
      error instanceof RasterFormatError ||
      error instanceof ClimateCoverageError ||
      error instanceof ClimateDownloadError
    ) {
      process.stderr.write(`eemt: ${error.message}\n`);
      return 2;
    }
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') {
      process.stderr.write(`eemt: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(`eemt: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

