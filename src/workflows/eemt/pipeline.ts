/**
 * The `eemt` pipeline: DEM + years → every `sol` product, the flat-surface monthly sums, terrain indices,
 * Daymet climate on the DEM grid, monthly/annual/multi-year EEMT-TOPO and EEMT-TRAD maps and README.txt.
 *
 * Order of the phases, cheapest failure first:
 *   1. inputs  – parameters, DEM, Daymet coverage and point limit (no network; fails in seconds);
 *                with a user climate file (`climateFile`), no Daymet check;
 *   2. climate – Daymet download or cache, or the user's grids read and checked. Done BEFORE the solar
 *                year so that an unreachable or failing server or a bad grid ends the job at once, not
 *                after the hours of the solar phase. The download is bounded by the point limit and
 *                cached, so a retried job starts the solar phase at once;
 *   3. solar   – `computeSolarYear` with the flat-surface sums (most of the run time);
 *   3b. unshaded – with `topo_radiation=unshaded`, the monthly sums on the sloped surface without terrain shadows
 *                (the same engine with no horizons, monthly sums only: a few % of the solar phase);
 *   3c. realsky – when the climate has observed shortwave radiation, the monthly real-sky maps from the solar
 *                phase's sums and their beam parts (realSkyPhase.ts); otherwise skipped, and README.txt says why
 *                (a run with `topo_radiation=realsky` then fails right after the climate phase);
 *   4. terrain – slope, aspect, wetness index, α, northness;
 *   5. energy  – monthly climate grids and EEMT maps, annual sums, multi-year means;
 *   6. README.txt.
 *
 * A job split across workers runs the solar phase in parts (`runEemtSolarPhase` in mode `slice`, with the part's tile
 * slice: inputs and solar only), then everything else in one run in mode `assemble`, which assembles the solar year
 * from the slices and uses it instead of computing it (in mode `solar-written`: checks that the whole solar year is in
 * the output folder, written by `runEemtSolarPhase` runs for its days).
 */
import { access, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { basename, join } from 'node:path';
import { daymetClimateOnDem, type ClimateOnDem, type ClimateSource } from '../../climate/climateOnDem.js';
import { resolveDaymetBaseUrl } from '../../climate/daymetSettings.js';
import { ClimateInputError } from '../../climate/errors.js';
import { readDem } from '../../raster/geotiff/readGeoTiff.js';
import { demReadLimits } from '../demLimits.js';
import { resolveEemtOptions, type EemtOptionsInput } from '../../science/eemt/constants.js';
import { eemtOptionsOfParams } from '../params.js';
import { checkedDays } from '../solarYear/days.js';
import { computeSolarYear, kernelParams, solarHorizonDirections, solarYearProductPaths } from '../solarYear/index.js';
import { BEAM_PARTS_FOLDER, DAYS_PER_YEAR, MONTH_NAMES, monthlyGlobalPath } from '../solarYear/products.js';
import { MONTHLY_ONLY, productsMetadata, productsText, selectionOf, type ProductSelection } from '../solarYear/productSelection.js';
import { assembleSolarYear, readSliceManifests } from '../solarYear/slices.js';
import { WHOLE_RUN, type TileSlice, type WorkflowResult, type WorkflowRun } from '../types.js';
import { downloadClimate, loadUserClimate, type ClimateDownloadSettings } from './climatePhase.js';
import type { EemtDiagnostics } from './diagnostics.js';
import { computeEnergy } from './energyPhase.js';
import { checkEemtJobInputs, eemtYearRange } from './jobInputs.js';
import { monthlyUnshadedGlobalPath, README_PATH } from './products.js';
import { modelMetadata } from './modelChoices.js';
import { EemtProgress, eemtPhaseWeights, type PhaseReporter } from './progress.js';
import { eemtReadme } from './readme.js';
import { computeRealSky, realSkyNeedsRadiation, removeBeamParts, type RealSkyResult } from './realSkyPhase.js';
import { computeTerrain } from './terrainPhase.js';

/** Default Daymet cache folder when neither the run nor the service names one. */
export const DEFAULT_EEMT_CACHE_DIR = './cache';

/** An eemt run: the common run plus where climate data comes from and the model options. */
export interface EemtWorkflowRun extends WorkflowRun {
  /** Daymet cache folder; default env EEMT_CACHE_DIR (what the job runtimes set), else ./cache. */
  readonly cacheDir?: string;
  /** Daymet server; default env EEMT_DAYMET_URL, else https://daymet.ornl.gov. */
  readonly daymetBaseUrl?: string;
  /** Largest number of Daymet cells; default env EEMT_DAYMET_MAX_POINTS, else 400. */
  readonly daymetMaxPoints?: number;
  /**
   * EEMT model options beyond the parameters' model choices (eemt-model.md §0.1b defaults for everything left out);
   * where both name an option, these win.
   */
  readonly eemtOptions?: EemtOptionsInput;
  /** Retry/timeout settings of the Daymet client. */
  readonly climateDownload?: ClimateDownloadSettings;
}

export interface EemtWorkflowResult extends WorkflowResult {
  readonly years: readonly number[];
  readonly diagnostics: EemtDiagnostics;
  /** Things the user should know (also in README.txt), e.g. cells outside the NPP_TOPO elevation range. */
  readonly warnings: readonly string[];
  /** Where the climate came from (also in README.txt). */
  readonly climateSource: ClimateSource;
  /** The real-sky maps and their coefficients, or why there are none (also in README.txt). */
  readonly realSky: RealSkyResult;
}

/** Runs the eemt workflow (see the module doc). Rejects with ParameterRangeError, RasterFormatError,
 * ClimateCoverageError (before any download or solar work), ClimateDownloadError (before the solar
 * phase), or the signal's AbortError. */
export async function runEemtWorkflow(run: EemtWorkflowRun): Promise<EemtWorkflowResult> {
  const started = performance.now();
  const mode = run.mode ?? WHOLE_RUN;
  if (mode.kind === 'slice') throw new RangeError('runEemtWorkflow computes no tile slice; the solar phase alone is runEemtSolarPhase');
  const yearRange = eemtYearRange(run.params);
  const eemtOptions = resolveEemtOptions({ ...eemtOptionsOfParams(run.params), ...run.eemtOptions });
  const baseUrl = resolveDaymetBaseUrl(run.daymetBaseUrl);
  const cacheDir = run.cacheDir ?? (process.env['EEMT_CACHE_DIR']?.trim() || DEFAULT_EEMT_CACHE_DIR);
  const yearCount = yearRange.end - yearRange.start + 1;
  const progress = new EemtProgress(run.onProgress, eemtPhaseWeights(yearCount, mode.kind === 'whole' ? 'all' : 'after-solar', mode.kind === 'assemble'));
  const signal = run.signal;

  // 1. Inputs: everything that can fail without network or computation.
  const { dem, years } = await checkInputs(run, progress.phase('inputs'));
  // A run after the solar parts fails here, before any download, if one of them did not write its products.
  const solarWritten = mode.kind === 'solar-written' ? await solarYearWritten(run, dem) : null;
  if (mode.kind === 'assemble') await readSliceManifests(run.outDir, mode.slices);
  signal?.throwIfAborted();
  await mkdir(run.outDir, { recursive: true });

  // 2. Climate.
  let climate: ClimateOnDem;
  let climateFiles: string[] = [];
  let daymetSummary: { cells: number; downloaded: number } | null = null;
  let closeClimate = () => {};
  if (run.climateFile) {
    const user = await loadUserClimate(
      dem,
      years,
      run.climateFile,
      { ...(run.climateFileName ? { archiveName: run.climateFileName } : {}), readLimits: demReadLimits(run.maxDemCells), ...(signal ? { signal } : {}) },
      progress.phase('climate'),
    );
    climate = user;
    closeClimate = () => user.close();
  } else {
    const daymet = await downloadClimate(
      dem.grid,
      yearRange,
      run.outDir,
      { ...run.climateDownload, cacheDir, baseUrl, maxPoints: run.daymetMaxPoints, signal },
      progress.phase('climate'),
    );
    climate = daymetClimateOnDem(daymet.daymet, dem.elevation, baseUrl);
    climateFiles = daymet.files;
    daymetSummary = { cells: daymet.daymet.cells.length, downloaded: daymet.daymet.downloadedPoints };
  }
  try {
    signal?.throwIfAborted();
    // S_i from the real-sky sums needs the observed radiation: fail now, not after the solar phase
    if (eemtOptions.topoRadiation === 'realsky' && !climate.radiation.available) {
      throw new ClimateInputError('MISSING', realSkyNeedsRadiation(climate.radiation.reason));
    }

    // 3. Solar year with the flat-surface monthly sums (or the products of its parts, computed before).
    const solar =
      solarWritten ?? (mode.kind === 'assemble' ? await assembleSolarPhase(run, mode.slices, dem, progress.phase('solar')) : await computeSolarPhase(run, null, dem, progress.phase('solar')));
    signal?.throwIfAborted();
    const unshadedFiles = eemtOptions.topoRadiation === 'unshaded' ? await computeUnshadedMonthlySums(run, dem, progress.phase('unshaded')) : [];
    signal?.throwIfAborted();
    const metadata = { EEMT_YEARS: `${yearRange.start}-${yearRange.end}`, DEM: basename(run.demPath), ...modelMetadata(eemtOptions) };
    const realSky = await computeRealSky({ dem, climate, outDir: run.outDir, metadata, ...(signal ? { signal } : {}) }, progress.phase('realsky'));
    signal?.throwIfAborted();

    // 4. Terrain.
    const terrain = await computeTerrain(dem, run.outDir, progress.phase('terrain'), signal);
    signal?.throwIfAborted();

    // 5. Climate grids and EEMT maps.
    const energy = await computeEnergy(
      {
        dem,
        climate,
        terrain,
        options: eemtOptions,
        outDir: run.outDir,
        metadata,
        signal,
      },
      progress.phase('energy'),
    );
    signal?.throwIfAborted();

    // 6. README.txt.
    const warnings = runWarnings(energy.diagnostics);
    progress.phase('readme')(0, 'writing README.txt');
    // the beam parts of the monthly sums are not products: they go once the real-sky maps are made; so do the monthly
    // sums when `products` does not have them (the EEMT and real-sky maps needed them)
    const products = selectionOf(run.params.products);
    const unwantedSums = new Set(products.monthly ? [] : MONTH_NAMES.map((_, month) => monthlyGlobalPath(month)));
    const solarProducts = solar.files.filter((file) => !file.startsWith(`${BEAM_PARTS_FOLDER}/`) && !unwantedSums.has(file));
    const files = [...solarProducts, ...unshadedFiles, ...(realSky.made ? realSky.files : []), ...climateFiles, ...terrain.files, ...energy.files];
    const climateSource = climate.source;
    await writeFile(
      join(run.outDir, README_PATH),
      eemtReadme({
        demName: basename(run.demPath),
        width: dem.grid.width,
        height: dem.grid.height,
        crsName: dem.grid.crs.name,
        validCells: dem.validCount,
        years,
        solar: {
          step: run.params.step,
          linke: run.params.linke_value,
          albedo: run.params.albedo_value,
          threads: solar.threads,
          horizonDirections: solar.directions,
          products: productsText(products),
        },
        eemt: eemtOptions,
        realSky,
        climate: { source: climateSource, lapseAdjusted: climate.lapseAdjusted, gridFolder: climate.gridFolder, ...(daymetSummary ? { daymet: { ...daymetSummary, cacheDir } } : {}) },
        diagnostics: energy.diagnostics,
        warnings,
        files,
        finishedAt: new Date(),
      }),
    );
    files.push(README_PATH);
    files.sort();
    await removeBeamParts(run.outDir);
    for (const file of unwantedSums) await rm(join(run.outDir, file), { force: true });
    const last = energy.diagnostics.annual[energy.diagnostics.annual.length - 1]!;
    progress.done(`eemt products written: mean annual EEMT_Topo ${last.topo.mean.toFixed(1)}, EEMT_Trad ${last.trad.mean.toFixed(1)} MJ m-2 yr-1 (${last.year})`);
    return {
      files,
      cells: dem.grid.width * dem.grid.height,
      validCells: dem.validCount,
      days: DAYS_PER_YEAR,
      seconds: (performance.now() - started) / 1000,
      years,
      diagnostics: energy.diagnostics,
      warnings,
      climateSource,
      realSky,
    };
  } finally {
    closeClimate();
  }
}

/** Reads the DEM and checks the job's inputs (for Daymet: coverage and point limit, without network). */
async function checkInputs(run: EemtWorkflowRun, inputs: PhaseReporter) {
  const yearRange = eemtYearRange(run.params);
  inputs(0, `reading ${basename(run.demPath)}`);
  const dem = await readDem(run.demPath, demReadLimits(run.maxDemCells));
  const years = Array.from({ length: yearRange.end - yearRange.start + 1 }, (_, i) => yearRange.start + i);
  if (run.climateFile) {
    inputs(1, `${dem.grid.width}×${dem.grid.height} cells; climate from ${run.climateFileName ?? basename(run.climateFile)}, years ${yearRange.start}–${yearRange.end}`);
  } else {
    const { coverage } = await checkEemtJobInputs(dem, yearRange, { maxPoints: run.daymetMaxPoints });
    inputs(1, `${dem.grid.width}×${dem.grid.height} cells inside Daymet coverage; ${coverage.cells.length} Daymet cells, years ${yearRange.start}–${yearRange.end}`);
  }
  return { dem, years };
}

type EemtDem = Awaited<ReturnType<typeof readDem>>;

/**
 * The products of eemt's solar phase: the daily maps `products` selects, and the monthly sums whatever it says (the
 * EEMT and real-sky maps need them; the run removes them at its end when `products` does not have them).
 */
function solarPhaseProducts(run: EemtWorkflowRun): ProductSelection {
  return { ...selectionOf(run.params.products), monthly: true };
}

/** The solar phase: the run's days (default the whole year) with the flat-surface monthly sums; only `slice`'s tiles when given. */
function computeSolarPhase(run: EemtWorkflowRun, slice: TileSlice | null, dem: EemtDem, report: PhaseReporter) {
  return computeSolarYear(dem, {
    outDir: run.outDir,
    params: kernelParams(run),
    threads: run.params.num_threads,
    products: solarPhaseProducts(run),
    metadata: productsMetadata(run.params.products),
    flatMonthly: true,
    // (the real-sky maps need them; they stay outside the products and go at the end of the run)
    beamParts: true,
    ...(run.days ? { days: run.days } : {}),
    ...(slice ? { slice } : {}),
    onProgress: (update) => report(update.fraction, update.message),
    signal: run.signal,
  });
}

/** Folder (under the output folder) in which the sums without terrain shadows are computed before they are moved. */
const UNSHADED_WORK_DIR = '.unshaded';

/**
 * The monthly sums of global irradiation on the sloped surface without terrain shadows (EEMT-TOPO's S_topo with
 * `topo_radiation=unshaded`): the solar engine with no horizons (`directions: 0`, so no horizon is traced and no
 * shadow tested), monthly sums only, moved to `global/monthly_unshaded/`. The `sol` products are not touched.
 */
async function computeUnshadedMonthlySums(run: EemtWorkflowRun, dem: EemtDem, report: PhaseReporter): Promise<string[]> {
  const workDir = join(run.outDir, UNSHADED_WORK_DIR);
  await rm(workDir, { recursive: true, force: true });
  try {
    await computeSolarYear(dem, {
    outDir: workDir,
    params: kernelParams(run),
    threads: run.params.num_threads,
    directions: 0,
    products: MONTHLY_ONLY,
    metadata: { TERRAIN_SHADOWS: 'none (sloped surface, no horizons): S_topo of EEMT-Topo with topo_radiation=unshaded' },
    onProgress: (update) => report(update.fraction, update.message),
    signal: run.signal,
    });
    const files: string[] = [];
    await mkdir(join(run.outDir, 'global/monthly_unshaded'), { recursive: true });
    for (let month = 0; month < MONTH_NAMES.length; month++) {
      await rename(join(workDir, monthlyGlobalPath(month)), join(run.outDir, monthlyUnshadedGlobalPath(month)));
      files.push(monthlyUnshadedGlobalPath(month));
    }
    return files;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** The solar year assembled from the `slices` tile slices computed by earlier runs of the solar phase. */
async function assembleSolarPhase(run: EemtWorkflowRun, slices: number, dem: EemtDem, report: PhaseReporter) {
  const assembled = await assembleSolarYear(run.outDir, dem.grid, slices, {
    onProgress: (update) => report(update.fraction, update.message),
    ...(run.signal ? { signal: run.signal } : {}),
  });
  return { files: assembled.files, threads: Math.max(1, Math.min(run.params.num_threads, availableParallelism())), directions: assembled.directions };
}

/** The whole solar year as written into the output folder by earlier runs of the solar phase; fails if a file is missing. */
async function solarYearWritten(run: EemtWorkflowRun, dem: EemtDem): Promise<{ files: string[]; threads: number; directions: number }> {
  const files = solarYearProductPaths(true, true, solarPhaseProducts(run));
  for (const file of files) {
    await access(join(run.outDir, file)).catch(() => {
      throw new Error(`The solar phase did not write ${file}; the EEMT maps need the whole solar year`);
    });
  }
  return { files, threads: Math.max(1, Math.min(run.params.num_threads, availableParallelism())), directions: solarHorizonDirections(dem) };
}

/**
 * The solar phase alone, for `run.days`: a part of a job split across workers. Checks the inputs as the whole workflow
 * does, then computes the tiles of the slice of mode `slice` (left for the assembly), or writes the days' daily maps
 * and the sums of their complete months.
 */
export async function runEemtSolarPhase(run: EemtWorkflowRun): Promise<WorkflowResult> {
  const slice = run.mode?.kind === 'slice' ? run.mode.slice : null;
  const started = performance.now();
  checkedDays(run.days);
  const progress = new EemtProgress(run.onProgress, eemtPhaseWeights(1, 'solar'));
  const { dem } = await checkInputs(run, progress.phase('inputs'));
  run.signal?.throwIfAborted();
  await mkdir(run.outDir, { recursive: true });
  const solar = await computeSolarPhase(run, slice, dem, progress.phase('solar'));
  progress.done(slice ? `solar radiation: tile slice ${slice.index + 1} of ${slice.count} computed (${solar.days} days)` : `solar radiation: ${solar.days} days written`);
  return { files: solar.files, cells: dem.grid.width * dem.grid.height, validCells: dem.validCount, days: solar.days, seconds: (performance.now() - started) / 1000 };
}

function runWarnings(d: EemtDiagnostics): string[] {
  const warnings: string[] = [];
  if (d.nppElevationOutOfRangeCells > 0) {
    warnings.push(
      `${d.nppElevationOutOfRangeCells} cells lie outside 700–3000 m, the elevation range the NPP_TOPO regression ` +
        '(Rasmussen et al. 2015, Eq. 11, Santa Catalina Mountains) was fitted on; EEMT_Topo there is an extrapolation.',
    );
  }
  if (d.clampedSolarRatioCellMonths > 0) {
    warnings.push(`${d.clampedSolarRatioCellMonths} cell-months had S_topo/S_flat below the minimum solar ratio and were clamped (deep shade).`);
  }
  if (d.negativeEnergyCellMonths > 0 || d.aetOutOfBoundsCellMonths > 0) {
    warnings.push(
      `Invariant violations: ${d.negativeEnergyCellMonths} cell-months with negative energy terms, ` +
        `${d.aetOutOfBoundsCellMonths} with AET outside [0, min(P, PET)]. Please report this.`,
    );
  }
  return warnings;
}
