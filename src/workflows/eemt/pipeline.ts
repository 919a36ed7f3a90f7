/**
 * The `eemt` pipeline: DEM + years → every `sol` product, the flat-surface monthly sums, terrain indices,
 * Daymet climate on the DEM grid, monthly/annual/multi-year EEMT-TOPO and EEMT-TRAD maps and README.txt.
 *
 * Order of the phases, cheapest failure first:
 *   1. inputs  – parameters, DEM, Daymet coverage and point limit (no network; fails in seconds);
 *   2. climate – Daymet download or cache. Done BEFORE the solar year so that an unreachable or failing
 *                server ends the job at once, not after the hours of the solar phase. The download is
 *                bounded by the point limit and cached, so a retried job starts the solar phase at once;
 *   3. solar   – `computeSolarYear` with the flat-surface sums (most of the run time);
 *   4. terrain – slope, aspect, wetness index, α, northness;
 *   5. energy  – monthly climate grids and EEMT maps, annual sums, multi-year means;
 *   6. README.txt.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { resolveDaymetBaseUrl } from '../../climate/index.js';
import { readDem } from '../../raster/index.js';
import { demReadLimits } from '../demLimits.js';
import { resolveEemtOptions, type EemtOptionsInput } from '../../science/eemt/index.js';
import { computeSolarYear, kernelParams } from '../sol/pipeline.js';
import { DAYS_PER_YEAR } from '../sol/products.js';
import type { WorkflowResult, WorkflowRun } from '../types.js';
import { downloadClimate, type ClimateDownloadSettings } from './climatePhase.js';
import type { EemtDiagnostics } from './diagnostics.js';
import { computeEnergy } from './energyPhase.js';
import { checkEemtJobInputs, eemtYearRange } from './jobInputs.js';
import { README_PATH } from './products.js';
import { EemtProgress, eemtPhaseWeights } from './progress.js';
import { eemtReadme } from './readme.js';
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
  /** EEMT model options (eemt-model.md §0.1b defaults for everything left out). */
  readonly eemtOptions?: EemtOptionsInput;
  /** Retry/timeout settings of the Daymet client. */
  readonly climateDownload?: ClimateDownloadSettings;
}

export interface EemtWorkflowResult extends WorkflowResult {
  readonly years: readonly number[];
  readonly diagnostics: EemtDiagnostics;
  /** Things the user should know (also in README.txt), e.g. cells outside the NPP_TOPO elevation range. */
  readonly warnings: readonly string[];
}

/** Runs the eemt workflow (see the module doc). Rejects with ParameterRangeError, RasterFormatError,
 * ClimateCoverageError (before any download or solar work), ClimateDownloadError (before the solar
 * phase), or the signal's AbortError. */
export async function runEemtWorkflow(run: EemtWorkflowRun): Promise<EemtWorkflowResult> {
  const started = performance.now();
  const yearRange = eemtYearRange(run.params);
  const eemtOptions = resolveEemtOptions(run.eemtOptions);
  const baseUrl = resolveDaymetBaseUrl(run.daymetBaseUrl);
  const cacheDir = run.cacheDir ?? (process.env['EEMT_CACHE_DIR']?.trim() || DEFAULT_EEMT_CACHE_DIR);
  const yearCount = yearRange.end - yearRange.start + 1;
  const progress = new EemtProgress(run.onProgress, eemtPhaseWeights(yearCount));
  const signal = run.signal;

  // 1. Inputs: everything that can fail without network or computation.
  const inputs = progress.phase('inputs');
  inputs(0, `reading ${basename(run.demPath)}`);
  const dem = await readDem(run.demPath, demReadLimits(run.maxDemCells));
  const { coverage } = await checkEemtJobInputs(dem, yearRange, { maxPoints: run.daymetMaxPoints });
  inputs(1, `${dem.grid.width}×${dem.grid.height} cells inside Daymet coverage; ${coverage.cells.length} Daymet cells, years ${yearRange.start}–${yearRange.end}`);
  signal?.throwIfAborted();
  await mkdir(run.outDir, { recursive: true });

  // 2. Climate.
  const climate = await downloadClimate(
    dem.grid,
    yearRange,
    run.outDir,
    { ...run.climateDownload, cacheDir, baseUrl, maxPoints: run.daymetMaxPoints, signal },
    progress.phase('climate'),
  );
  signal?.throwIfAborted();

  // 3. Solar year with the flat-surface monthly sums.
  const solarReport = progress.phase('solar');
  const solar = await computeSolarYear(dem, {
    outDir: run.outDir,
    params: kernelParams(run),
    threads: run.params.num_threads,
    flatMonthly: true,
    onProgress: (update) => solarReport(update.fraction, update.message),
    signal,
  });
  signal?.throwIfAborted();

  // 4. Terrain.
  const terrain = await computeTerrain(dem, run.outDir, progress.phase('terrain'), signal);
  signal?.throwIfAborted();

  // 5. Climate grids and EEMT maps.
  const energy = await computeEnergy(
    {
      dem,
      daymet: climate.daymet,
      terrain,
      options: eemtOptions,
      outDir: run.outDir,
      metadata: { EEMT_YEARS: `${yearRange.start}-${yearRange.end}`, DEM: basename(run.demPath) },
      signal,
    },
    progress.phase('energy'),
  );
  signal?.throwIfAborted();

  // 6. README.txt.
  const warnings = runWarnings(energy.diagnostics);
  progress.phase('readme')(0, 'writing README.txt');
  const files = [...solar.files, ...climate.files, ...terrain.files, ...energy.files];
  await writeFile(
    join(run.outDir, README_PATH),
    eemtReadme({
      demName: basename(run.demPath),
      width: dem.grid.width,
      height: dem.grid.height,
      crsName: dem.grid.crs.name,
      validCells: dem.validCount,
      years: climate.daymet.years,
      solar: {
        step: run.params.step,
        linke: run.params.linke_value,
        albedo: run.params.albedo_value,
        threads: solar.threads,
        horizonDirections: solar.directions,
      },
      eemt: eemtOptions,
      daymet: { baseUrl, cacheDir, cells: climate.daymet.cells.length, downloaded: climate.daymet.downloadedPoints },
      diagnostics: energy.diagnostics,
      warnings,
      files,
      finishedAt: new Date(),
    }),
  );
  files.push(README_PATH);
  files.sort();
  const last = energy.diagnostics.annual[energy.diagnostics.annual.length - 1]!;
  progress.done(`eemt products written: mean annual EEMT_Topo ${last.topo.mean.toFixed(1)}, EEMT_Trad ${last.trad.mean.toFixed(1)} MJ m-2 yr-1 (${last.year})`);
  return {
    files,
    cells: dem.grid.width * dem.grid.height,
    validCells: dem.validCount,
    days: DAYS_PER_YEAR,
    seconds: (performance.now() - started) / 1000,
    years: climate.daymet.years,
    diagnostics: energy.diagnostics,
    warnings,
  };
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
