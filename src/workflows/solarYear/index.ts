/**
 * The solar year: DEM → daily global-irradiation and sunshine-hour maps for the requested days (all 365 by default)
 * and the sums of every complete month, written tile by tile — the `sol` workflow's products and eemt's solar phase.
 *
 * The DEM stays resident in shared memory (Float32). A run is planned (plan.ts: terrain, horizon layout, compute
 * tiles = the output GeoTIFFs' tiles), its tiles computed by a pool of worker threads (computeTiles.ts: a tile's
 * surface terms and horizons once, then every day, accumulating the monthly sums; each product's tile compressed in
 * the worker), and the products written as the tiles arrive (writeProducts.ts). Memory: the DEM, the plan, and per
 * worker one tile's working set; the compressed tiles waiting to be written are bounded by the writer's budget.
 */
import type { Dem } from '../../raster/types.js';
import type { ClearSkyParams } from '../../science/solar/clearSky.js';
import type { PhaseTimings, WorkflowRun } from '../types.js';
import { checkedDays } from './days.js';
import { WorkerPool, abortError } from './workerPool.js';
import { computeTiles } from './computeTiles.js';
import { planSolarYear, type SolarYearOptions } from './plan.js';
import { ProductWriter } from './writeProducts.js';

export { solarHorizonDirections, type SolarYearOptions } from './plan.js';
export { solarYearProductPaths } from './writeProducts.js';

/** Share of the progress bar for completing the files at the end. */
const FINISH_PROGRESS_SHARE = 0.02;

export interface SolarYearResult {
  /** The products written (none for a slice: its tiles wait for assembly). */
  readonly files: string[];
  /** Valid cells of the DEM (of the slice's tiles for a slice). */
  readonly validCells: number;
  readonly threads: number;
  readonly directions: number;
  /** Days computed. */
  readonly days: number;
  readonly tileSize: number;
  readonly phases: PhaseTimings;
}

/** Kernel parameters from the service/CLI parameters. */
export function kernelParams(run: WorkflowRun): ClearSkyParams {
  return { stepMinutes: run.params.step, linkeTurbidity: run.params.linke_value, albedo: run.params.albedo_value };
}

/** Runs the requested days of the solar model on `dem` and writes the products into `options.outDir` (or the slice's tiles under it). */
export async function computeSolarYear(dem: Dem<Float32Array> | Dem<Float64Array>, options: SolarYearOptions): Promise<SolarYearResult> {
  const started = performance.now();
  checkedDays(options.days);
  const report = options.onProgress ?? (() => {});
  options.signal?.throwIfAborted();
  report({ fraction: 0, message: 'preparing terrain' });
  const plan = planSolarYear(dem, options);
  const pool = new WorkerPool(plan.threads, plan.setup, options.signal, plan.inThread);
  let writer: ProductWriter | null = null;
  try {
    const products = (writer = await ProductWriter.open(plan, pool));
    options.signal?.throwIfAborted();
    const totals = await products.whileComputing(() => computeTiles(plan, pool, products, 1 - FINISH_PROGRESS_SHARE, report));
    options.signal?.throwIfAborted();
    let files: string[] = [];
    if (plan.slice) await products.sealSlice();
    else files = await products.finish(finishProgress(report));
    const writes = products.stats();
    return {
      files,
      validCells: plan.validCells,
      threads: plan.threads,
      directions: plan.directions,
      days: plan.days.length,
      tileSize: plan.tileSize,
      phases: {
        horizonSeconds: totals.horizonSeconds,
        kernelSeconds: totals.kernelSeconds,
        encodeSeconds: totals.encodeSeconds,
        writeSeconds: writes.writeSeconds,
        wallSeconds: (performance.now() - started) / 1000,
        // (the workers' clock and this thread's are the same wall clock: timeOrigin + now)
        afterComputeSeconds: totals.lastTileEndedAtMs > 0 ? Math.max(0, performance.timeOrigin + performance.now() - totals.lastTileEndedAtMs) / 1000 : 0,
        encodedRawBytes: totals.rawBytes,
        writtenBytes: writes.bytesWritten,
      },
    };
  } catch (error) {
    await writer?.abort();
    throw options.signal?.aborted ? (options.signal.reason instanceof Error ? options.signal.reason : abortError()) : error;
  } finally {
    await pool.close();
  }
}

/** Progress of the files' completion: the last FINISH_PROGRESS_SHARE of the bar, reported about every 5 % of the files. */
function finishProgress(report: NonNullable<SolarYearOptions['onProgress']>): (done: number, total: number) => void {
  return (done, total) => {
    const step = Math.max(1, Math.ceil(total / 20));
    if (done % step === 0 || done === total) report({ fraction: 1 - FINISH_PROGRESS_SHARE * (1 - done / total), message: `writing: ${done}/${total} files complete` });
  };
}
