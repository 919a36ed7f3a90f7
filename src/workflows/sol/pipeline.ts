/**
 * The `sol` workflow: DEM → daily global-irradiation and sunshine-hour maps for the requested days (all 365 by
 * default) and the sums of every complete month — the solar year (workflows/solarYear), run whole, as a slice of
 * its tiles, or assembled from the slices computed before (a job split across workers).
 */
import { availableParallelism } from 'node:os';
import { readDem, readDemGrid, type RasterSize } from '../../raster/geotiff/readGeoTiff.js';
import { demReadLimits } from '../demLimits.js';
import type { Dem } from '../../raster/types.js';
import { ParameterRangeError, validateWorkflowParams } from '../params.js';
import { daysToCompute, ProductSelectionError, productsMetadata, selectionOf } from '../solarYear/productSelection.js';
import { computeSolarYear, kernelParams, type SolarYearResult } from '../solarYear/index.js';
import type { AssembleMode, ComputingMode, TileSlice, WorkflowResult, WorkflowRun } from '../types.js';
import { checkedDays } from '../solarYear/days.js';
import { checkTileSize } from '../solarYear/tilePlan.js';
import { runThreads, runWorkerThreads } from '../solarYear/runThreads.js';
import { assembleSolarYear } from '../solarYear/slices.js';
import { prestartSolWorkers, releaseSpareWorkers } from '../solarYear/workerPool.js';

/**
 * Assembles the products of a `sol` solar year from the `mode.slices` tile slices computed before, or `mode.share` of
 * them. The slices computed everything: only the DEM's grid is read.
 */
export async function runSolarAssembly(run: WorkflowRun, mode: AssembleMode): Promise<WorkflowResult> {
  const started = performance.now();
  const grid = await readDemGrid(run.demPath, demReadLimits(run.maxDemCells));
  const assembled = await assembleSolarYear(run.outDir, grid, mode.slices, {
    ...(run.onProgress ? { onProgress: run.onProgress } : {}),
    ...(run.signal ? { signal: run.signal } : {}),
    ...(mode.share ? { share: mode.share } : {}),
  });
  run.onProgress?.({ fraction: 1, message: `${assembled.files.length} solar products assembled` });
  return { files: assembled.files, cells: grid.width * grid.height, validCells: assembled.validCells, days: assembled.days, seconds: (performance.now() - started) / 1000 };
}

/** A `sol` run that computes: the whole solar year, or a slice of its tiles. */
export type SolRun = WorkflowRun & { readonly mode?: ComputingMode };

/** Reads the run's DEM and computes its solar year (the slice of its tiles that `slice` names, when given). */
async function solarYearOfRun(run: SolRun, slice: TileSlice | null): Promise<{ dem: Dem<Float32Array>; result: SolarYearResult }> {
  const products = selectionOf(run.params.products);
  // only the days the chosen files need: every day of the months summed, the days of the daily maps
  const days = daysToCompute(products, run.days);
  const threadsAsked = Math.min(run.params.num_threads, availableParallelism());
  const dem = await readDem(run.demPath, {
    precision: 'float32',
    shared: true,
    ...demReadLimits(run.maxDemCells),
    // the run's workers load their modules while the DEM is decoded and the run planned: none for a small run, which
    // computes in this thread, one for a run on one thread (runWorkerThreads; its valid cells, fewer, never take more)
    onSize: ({ width, height }: RasterSize) => prestartSolWorkers(runWorkerThreads(threadsAsked, width * height, days.length)),
  });
  const threads = runThreads(threadsAsked, dem.validCount, days.length);
  const result = await computeSolarYear(dem, {
    outDir: run.outDir,
    params: kernelParams(run),
    threads,
    days,
    products,
    metadata: productsMetadata(run.params.products),
    ...(run.tileSize !== undefined ? { tileSize: run.tileSize } : {}),
    ...(run.kernel ? { kernel: run.kernel } : {}),
    ...(slice ? { slice } : {}),
    onProgress: run.onProgress,
    signal: run.signal,
  });
  return { dem, result };
}

/** The `sol` workflow: validates the parameters, reads the DEM and writes the `sol` products (or a slice's tiles). */
export async function runSolWorkflow(run: SolRun): Promise<WorkflowResult> {
  const started = performance.now();
  validateWorkflowParams(run.params);
  checkedDays(run.days);
  try {
    daysToCompute(selectionOf(run.params.products), run.days);
  } catch (error) {
    // a day chosen that the run does not compute, or nothing to write
    if (error instanceof ProductSelectionError) throw new ParameterRangeError('products', error.message);
    throw error;
  }
  if (run.tileSize !== undefined) checkTileSize(run.tileSize);
  const slice = run.mode?.kind === 'slice' ? run.mode.slice : null;
  // (the worker threads start once the DEM's size shows what the run needs: solarYearOfRun)
  const { dem, result } = await solarYearOfRun(run, slice).finally(releaseSpareWorkers);
  run.onProgress?.({ fraction: 1, message: slice ? `tile slice ${slice.index + 1} of ${slice.count} computed` : 'sol products written' });
  return {
    files: result.files,
    cells: dem.grid.width * dem.grid.height,
    validCells: result.validCells,
    days: result.days,
    seconds: (performance.now() - started) / 1000,
    phases: result.phases,
  };
}
