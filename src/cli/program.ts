/**
 * The `eemt` command line (see main.ts for the entry point):
 *   eemt sol <dem.tif> --out <dir> [--step <minutes>] [--linke <value>] [--albedo <value>] [--threads <n>] [--days 1-31,172]
 *            [--products monthly,daily:172] [--tile-size N]
 *   eemt eemt <dem.tif> --out <dir> [--start-year <year>] [--end-year <year>] [solar options] [--cache <dir>] [--daymet-url <url>]
 *             [--climate-file grids.zip] [--pet-method thornthwaite|hamon|hamon-linear] [--topo-npp regression|lieth]
 *             [--topo-radiation unshaded|shaded|realsky] [--lieth-npp-gate temperature|none]
 *   eemt climate points <dem.tif>                      the Daymet cells the DEM needs, as CSV (lat,lon,x,y)
 *   eemt climate prefetch <dem.tif> [--start-year <year>] [--end-year <year>] [--cache <dir>] [--daymet-url <url>]
 * The parameters' options, help, ranges and defaults come from the parameter contract, as the service's do
 * (workflows/parameters/contract.ts); a value outside its range is an error naming the flag (`--linke must be in
 * 1–8; got 9`), not a clamp. User errors (bad options, unreadable DEM, DEM outside Daymet coverage or over the
 * point limit, failed climate download) print one line and exit 2; a failed run removes the output folder it
 * created. `eemt --version` prints the version.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { parseDecimal } from '../util/decimal.js';
import { PACKAGE_VERSION } from '../util/version.js';
import { explainedByMessage } from '../workflows/failures.js';
import {
  CHOICE_PARAMETERS,
  DEFAULT_NUMERIC_VALUES,
  GRAMMAR_PARAMETERS,
  GRAMMAR_PARAMS,
  isGrammarParameter,
  isModelChoice,
  MODEL_CHOICE_PARAMS,
  NUMERIC_PARAMETERS,
  NUMERIC_PARAMS,
  parametersOf,
  rangeText,
} from '../workflows/parameters/contract.js';
import { ParameterRangeError, validateWorkflowParams } from '../workflows/params.js';
import { DaySpecError, parseDaySpec } from '../workflows/solarYear/days.js';
import { MAX_REQUESTED_TILE_SIZE, checkTileSize } from '../workflows/solarYear/tilePlan.js';
import { defaultCliThreads } from './earlyWorkers.js';
import type { NumericWorkflowParam, PhaseTimings, ProgressListener, WorkflowParams, WorkflowType } from '../workflows/types.js';
import { checkOutputSpace } from './outputSpace.js';
import { progressDisplay } from './progress.js';

/** A mistake on the command line, worded with the command's own flags. */
class UsageError extends Error {}

/** The command-line flag of each workflow parameter. */
const FLAGS = Object.fromEntries([
  ...NUMERIC_PARAMS.map((name) => [name, NUMERIC_PARAMETERS[name].cli.flag]),
  ...MODEL_CHOICE_PARAMS.map((name) => [name, CHOICE_PARAMETERS[name].cli.flag]),
  ...GRAMMAR_PARAMS.map((name) => [name, GRAMMAR_PARAMETERS[name].cli.flag]),
]) as Readonly<Record<keyof WorkflowParams, string>>;

/** The help of a numeric option: its help, range, unit and notes (`time step of the daily integration, <min>–<max> minutes`). */
function numericHelp(name: NumericWorkflowParam): string {
  const { cli, unit, notBefore } = NUMERIC_PARAMETERS[name];
  const unitWord = unit === undefined || unit === '-' ? '' : ` ${unit}`;
  return `${cli.help}, ${rangeText(name)}${unitWord}${notBefore === undefined ? '' : `, not before ${FLAGS[notBefore]}`}${cli.note ?? ''}`;
}

/** Adds the option of a numeric parameter; its default is the parameter's unless given. */
function numericOption(command: Command, name: NumericWorkflowParam, fallback = NUMERIC_PARAMETERS[name].default): Command {
  const { cli } = NUMERIC_PARAMETERS[name];
  return command.option(`${cli.flag} ${cli.valueName}`, numericHelp(name), number, fallback);
}

/** The eemt model-choice options: flag, help text (with the allowed values and the default). */
function withModelOptions(command: Command): Command {
  for (const field of MODEL_CHOICE_PARAMS) {
    const { cli, default: fallback } = CHOICE_PARAMETERS[field];
    command.option(`${cli.flag} ${cli.valueName}`, `${cli.help}; default ${fallback}`);
  }
  return command;
}

/** The grammar-parameter options of `type` (`--products`): flag, help with the grammar and the default. */
function withGrammarOptions(command: Command, type: WorkflowType): Command {
  for (const name of parametersOf(type).grammar) {
    const { cli, grammar, default: fallback } = GRAMMAR_PARAMETERS[name];
    command.option(`${cli.flag} ${cli.valueName}`, `${cli.help}: ${grammar}; default ${fallback}`);
  }
  return command;
}

/** A grammar parameter's message with its flag for its name (`--products: unknown item "x"; …`). */
function withFlag(name: keyof WorkflowParams, message: string): string {
  return message.startsWith(name) ? `${FLAGS[name]}${message.slice(name.length)}` : `${FLAGS[name]}: ${message}`;
}

/** The options of the climate years (`eemt`, `climate prefetch`). */
function withYearOptions(command: Command): Command {
  return numericOption(numericOption(command, 'start_year'), 'end_year');
}

function number(value: string): number {
  const parsed = parseDecimal(value.trim());
  if (parsed === null) throw new InvalidArgumentError(`"${value}" is not a number`);
  return parsed;
}

/** Checks the parameters before anything is read or written; a problem is a UsageError naming the flag. */
function checkParams(params: WorkflowParams): void {
  try {
    validateWorkflowParams(params);
  } catch (error) {
    if (!(error instanceof ParameterRangeError)) throw error;
    if (isGrammarParameter(error.field)) throw new UsageError(withFlag(error.field, error.message));
    if (isModelChoice(error.field)) {
      const field = error.field;
      throw new UsageError(`${FLAGS[field]} must be one of ${CHOICE_PARAMETERS[field].values.join(', ')}; got ${JSON.stringify(params[field])}`);
    }
    const field = error.field as NumericWorkflowParam;
    const range = NUMERIC_PARAMETERS[field];
    const value = params[field];
    const earliest = range.notBefore;
    if (earliest !== undefined && typeof value === 'number' && value >= range.minimum && value <= range.maximum) {
      throw new UsageError(`${FLAGS[field]} (${value}) must not be before ${FLAGS[earliest]} (${params[earliest]})`);
    }
    throw new UsageError(`${FLAGS[field]} must be ${range.type === 'integer' ? 'an integer ' : ''}in ${rangeText(field)}; got ${value}`);
  }
}

/** Runs `work`, which writes into `outDir`; if it fails, a folder it created is removed again. */
async function writingInto<T>(outDir: string, work: () => Promise<T>): Promise<T> {
  const existed = existsSync(outDir);
  try {
    return await work();
  } catch (error) {
    if (!existed) await rm(outDir, { recursive: true, force: true });
    throw error;
  }
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

function solParams(options: { step: number; linke: number; albedo: number; threads: number; products?: string }): WorkflowParams {
  return {
    step: options.step,
    linke_value: options.linke,
    albedo_value: options.albedo,
    num_threads: options.threads,
    ...(options.products !== undefined ? { products: options.products } : {}),
  };
}

/**
 * The parameters with `products` normalised, after checkParams; for `sol`, checked against the days `--days`
 * computes (a daily map of a day not computed, or nothing to write, is a UsageError).
 */
async function withNormalisedProducts(type: WorkflowType, params: WorkflowParams, days?: readonly number[]): Promise<WorkflowParams> {
  if (params.products === undefined) return params;
  const { daysToCompute, normalisedProducts, parseProductSelection } = await import('../workflows/solarYear/productSelection.js');
  if (type === 'sol') {
    try {
      daysToCompute(parseProductSelection(params.products), days);
    } catch (error) {
      if (error instanceof RangeError) throw new UsageError(withFlag('products', error.message));
      throw error;
    }
  }
  return { ...params, products: normalisedProducts(params.products) };
}

/** The options of the parameters of `sol`, shared by `eemt` (`type`: whose help the grammar options get). */
function withSolarOptions(command: Command, type: WorkflowType): Command {
  for (const name of parametersOf('sol').numeric) numericOption(command, name, name === 'num_threads' ? defaultCliThreads() : undefined);
  return withGrammarOptions(command, type);
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
    .version(PACKAGE_VERSION, '-V, --version', 'print the version')
    .showHelpAfterError();
  withSolarOptions(
    program
      .command('sol')
      .description('365 daily global-irradiation and sunshine-hour maps plus 12 monthly sums')
      .argument('<dem>', 'DEM GeoTIFF (single band, elevations in metres, projected or geographic CRS)')
      .requiredOption('-o, --out <dir>', 'output folder')
      .option('--days <list>', 'days of year to compute, e.g. 1-31,172,355 (default all 365; monthly sums for complete months only)', daySpec)
      .option('--tile-size <cells>', `side of the compute and GeoTIFF tiles, a multiple of 16 up to ${MAX_REQUESTED_TILE_SIZE} (default by DEM size)`, tileSize)
      .addOption(new Option('--kernel <implementation>', 'daily kernel: wasm (compiled) or typescript (the same outputs, slower; for comparison)').choices(['wasm', 'typescript']).default('wasm')),
    'sol',
  ).action(async (dem: string, options) => {
    checkParams(solParams(options));
    const params = await withNormalisedProducts('sol', solParams(options), options.days);
    const { runSolWorkflow } = await solModules();
    const outDir = resolve(options.out);
    await checkOutputSpaceOf('sol', params, dem, outDir, options.days);
    // (the workers started for this line, startSolWorkersEarly, are the run's; it starts any others it needs)
    const result = await writingInto(outDir, () =>
      withProgress((listener) =>
        runSolWorkflow({
          demPath: resolve(dem),
          outDir,
          params,
          ...(options.days ? { days: options.days } : {}),
          ...(options.tileSize !== undefined ? { tileSize: options.tileSize } : {}),
          kernel: options.kernel,
          onProgress: listener,
        }),
      ),
    );
    const cellDays = result.validCells * result.days;
    process.stdout.write(
      `sol: ${result.files.length} GeoTIFF${result.files.length === 1 ? '' : 's'} in ${options.out} — ${result.validCells} cells × ${result.days} day${result.days === 1 ? '' : 's'} ` +
        `in ${result.seconds.toFixed(1)} s (${(cellDays / result.seconds / 1e6).toFixed(2)} M cell-days/s)${phaseSummary(result.phases)}\n`,
    );
  });
  withModelOptions(withSolarOptions(
    withYearOptions(
      program
        .command('eemt')
        .description('everything sol writes, plus terrain indices, Daymet climate grids and monthly, annual and multi-year EEMT maps')
        .argument('<dem>', 'DEM GeoTIFF (inside Daymet coverage, North America, unless --climate-file is given)')
        .requiredOption('-o, --out <dir>', 'output folder'),
    )
      .option('--cache <dir>', 'Daymet download cache (default: $EEMT_CACHE_DIR, else ./cache)')
      .option('--daymet-url <url>', 'Daymet server (default: $EEMT_DAYMET_URL, else https://daymet.ornl.gov)')
      .option('--climate-file <zip>', 'ZIP of monthly climate grids used instead of Daymet (docs/climate-input.md)'),
    'eemt',
  )).action(async (dem: string, options) => {
    const choices = { pet_method: options.petMethod, topo_npp: options.topoNpp, topo_radiation: options.topoRadiation, lieth_npp_gate: options.liethNppGate };
    const given = {
      ...solParams(options),
      start_year: options.startYear,
      end_year: options.endYear,
      ...Object.fromEntries(Object.entries(choices).filter(([, value]) => value !== undefined)),
    } as WorkflowParams;
    checkParams(given);
    const params = await withNormalisedProducts('eemt', given);
    const { runEemtWorkflow } = await eemtModules();
    const outDir = resolve(options.out);
    await checkOutputSpaceOf('eemt', params, dem, outDir);
    const result = await writingInto(outDir, () =>
      withProgress((listener) =>
        runEemtWorkflow({
          demPath: resolve(dem),
          outDir,
          params,
          ...(options.cache ? { cacheDir: resolve(options.cache) } : {}),
          daymetBaseUrl: options.daymetUrl,
          ...(options.climateFile ? { climateFile: resolve(options.climateFile) } : {}),
          onProgress: listener,
        }),
      ),
    );
    const last = result.diagnostics.annual[result.diagnostics.annual.length - 1]!;
    const years = result.years.length > 1 ? `${result.years[0]}–${result.years[result.years.length - 1]}` : `${result.years[0]}`;
    process.stdout.write(
      `eemt: ${result.files.length} files in ${options.out} — ${result.validCells} cells, ${years}, in ${result.seconds.toFixed(1)} s; ` +
        `annual EEMT_Topo mean ${last.topo.mean.toFixed(1)}, EEMT_Trad mean ${last.trad.mean.toFixed(1)} MJ m-2 yr-1 (${last.year})\n`,
    );
    for (const warning of result.warnings) process.stderr.write(`eemt: warning: ${warning}\n`);
  });
  const climate = program.command('climate').description('Daymet for machines without internet: the cells a DEM needs, and their download into the cache');
  climate
    .command('points')
    .description('the Daymet 1 km cells an eemt job on the DEM downloads, as CSV: lat,lon (cell centre, WGS84) and Daymet x,y (LCC, m)')
    .argument('<dem>', 'DEM GeoTIFF inside Daymet coverage')
    .action(async (dem: string) => {
      const { daymetCellsForDem } = await eemtModules();
      const cells = daymetCellsForDem(await readGrid(resolve(dem)));
      const lines = ['lat,lon,x,y', ...cells.map((c) => `${c.lat.toFixed(6)},${c.lon.toFixed(6)},${Math.round(c.x)},${Math.round(c.y)}`)];
      process.stdout.write(lines.join('\n') + '\n');
    });
  withYearOptions(
    climate
      .command('prefetch')
      .description('download every Daymet cell-year the DEM needs into the cache (resumable: what is cached is not fetched again)')
      .argument('<dem>', 'DEM GeoTIFF inside Daymet coverage'),
  )
    .option('--cache <dir>', 'Daymet cache to fill (default: $EEMT_CACHE_DIR, else ./cache)')
    .option('--daymet-url <url>', 'Daymet server (default: $EEMT_DAYMET_URL, else https://daymet.ornl.gov)')
    .action(async (dem: string, options) => {
      checkParams({ ...DEFAULT_NUMERIC_VALUES, start_year: options.startYear, end_year: options.endYear });
      const { daymetCellsForDem, prefetchDaymet, resolveDaymetBaseUrl, DEFAULT_EEMT_CACHE_DIR } = await eemtModules();
      const cells = daymetCellsForDem(await readGrid(resolve(dem)));
      const years = Array.from({ length: options.endYear - options.startYear + 1 }, (_, i) => options.startYear + i);
      const cacheDir = resolve(options.cache ?? (process.env['EEMT_CACHE_DIR']?.trim() || DEFAULT_EEMT_CACHE_DIR));
      const baseUrl = resolveDaymetBaseUrl(options.daymetUrl);
      const summary = await withProgress((listener) =>
        prefetchDaymet(cells, years, {
          cacheDir,
          baseUrl,
          onPoint: (done, total, message) => listener({ fraction: done / total, message: `${done}/${total} points — ${message}` }),
        }),
      );
      const cellYears = summary.cells * years.length;
      process.stdout.write(
        `prefetch: ${summary.cells} Daymet cells × ${years.length} year${years.length === 1 ? '' : 's'} = ${cellYears} cell-years in ${cacheDir}: ` +
          `${summary.cellYearsFromCache} already cached, ${summary.cellYearsDownloaded} downloaded, ` +
          `${summary.failed.length * years.length} missing (${summary.failed.length} points failed)\n`,
      );
      for (const f of summary.failed) process.stderr.write(`prefetch: ${f.cell.lat.toFixed(6)},${f.cell.lon.toFixed(6)} (${Math.round(f.cell.x)}_${Math.round(f.cell.y)}): ${f.reason}\n`);
      if (summary.failed.length > 0) {
        throw new UsageError(`${summary.failed.length} of ${summary.cells} points could not be downloaded; run the same command again to fetch only what is missing`);
      }
    });
  program
    .command('serve')
    .description('the HTTP job service (as npm start): settings from the EEMT_* variables (README, Configuration); data folders relative to the current folder by default')
    .option('--host <address>', 'bind address (default: $EEMT_HOST, else 127.0.0.1)')
    .option('--port <port>', 'port (default: $EEMT_PORT, else 5000)')
    .action(async (options: { host?: string; port?: string }) => {
      if (options.host !== undefined) process.env.EEMT_HOST = options.host;
      if (options.port !== undefined) process.env.EEMT_PORT = options.port;
      // The service's entry module starts it, validating every setting (a bad one: one line, exit 2).
      await import('../server/main.js');
    });
  program
    .command('worker')
    .description('a worker of the distributed job queue: runs job parts from the Redis at $EEMT_REDIS_URL until SIGTERM (docs/scale-out.md)')
    .action(async () => {
      // Loaded only here: the other commands need neither BullMQ nor a job runtime.
      const { runWorker } = await import('../worker/run.js');
      const code = await runWorker();
      if (code !== 0) process.exit(code);
    });
  return program;
}

/** User errors (flags, the DEM, Daymet coverage, a failed download) print one line and exit 2; anything else is a fault (exit 1). */
export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof UsageError || explainedByMessage(error)) {
      process.stderr.write(`eemt: ${(error as Error).message}\n`);
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

/**
 * The `sol` workflow (with the DEM reader's GeoTIFF and projection libraries about 0.15 s to load), loaded by
 * `sol` only, after it has started its worker threads.
 */
async function solModules() {
  return { runSolWorkflow: (await import('../workflows/sol/index.js')).runSolWorkflow };
}

/**
 * The output estimate of a run on the DEM at `dem` (checkOutputSpace); a DEM that cannot be read is left to the
 * workflow, which says what is wrong with it.
 */
async function checkOutputSpaceOf(type: WorkflowType, params: WorkflowParams, dem: string, outDir: string, days?: readonly number[]): Promise<void> {
  const grid = await readGrid(resolve(dem)).catch(() => null);
  if (grid) await checkOutputSpace(type, params, grid, outDir, days);
}

/** The grid of the DEM at `path`, with the DEM reader loaded by the commands that read one only. */
async function readGrid(path: string) {
  return (await import('../raster/index.js')).readDemGrid(path);
}

/**
 * The EEMT workflow and the Daymet client, loaded by the commands that use them only (with proj4 and the climate
 * readers they add about 0.1 s to the start of every command, `sol` included).
 */
async function eemtModules() {
  const [climate, eemt] = await Promise.all([import('../climate/index.js'), import('../workflows/eemt/index.js')]);
  return { ...climate, DEFAULT_EEMT_CACHE_DIR: eemt.DEFAULT_EEMT_CACHE_DIR, runEemtWorkflow: eemt.runEemtWorkflow };
}
