/**
 * The `sol` pipeline: DEM → 365 daily global-irradiation maps, 365 daily sunshine-hour maps and 12 monthly
 * sums, computed by worker threads that share the DEM-wide arrays through shared memory.
 *
 * Phases: surface terms (main thread) → horizon angles (workers, by bands of rows) → days (workers, one
 * day per task; each worker writes that day's two GeoTIFFs and hands the global map back for the monthly
 * sums) → monthly sums (main thread, written as soon as a month is complete, so at most a few monthly
 * accumulators are alive at once).
 */
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { createGeodesy } from '../../raster/geodesy.js';
import { readDem } from '../../raster/readGeoTiff.js';
import { demReadLimits } from '../demLimits.js';
import type { Dem } from '../../raster/types.js';
import { writeFloat32GeoTiffSync } from '../../raster/writeGeoTiff.js';
import type { KernelParams } from '../../science/solar/dailyKernel.js';
import { surfaceTerms, type ArrayAllocator } from '../../science/solar/surface.js';
import { hornGradient } from '../../science/terrain/slopeAspect.js';
import { siblingModuleUrl, startModuleWorker } from '../../util/modules.js';
import { validateWorkflowParams } from '../params.js';
import type { ProgressListener, WorkflowResult, WorkflowRun } from '../types.js';
import type { WorkerReply, WorkerSetup, WorkerTask } from './messages.js';
import { planSunTiles } from './plan.js';
import {
  DAYS_PER_YEAR,
  MONTH_LENGTHS,
  dailyGlobalPath,
  dailyHoursPath,
  monthOfDay,
  monthlyFlatGlobalPath,
  monthlyGlobalPath,
} from './products.js';

/** Far-field horizon directions stored per cell (every 360/32 = 11.25°), interpolated in between. */
export const DEFAULT_HORIZON_DIRECTIONS = 32;

/** Ray steps of the near field, traced exactly at the sun azimuth at every sample. */
export const DEFAULT_NEAR_FIELD_STEPS = 16;

/** Near-field bounds are kept per quarter of a far direction sector while they fit in this budget. */
const NEAR_SECTORS_PER_DIRECTION = 4;
const NEAR_BOUND_BUDGET_BYTES = 512 * 2 ** 20;

/** Share of the progress bar given to the horizon phase (measured: about this share of the run time). */
const HORIZON_PROGRESS_SHARE = 0.15;

export interface SolarYearOptions {
  readonly outDir: string;
  readonly params: KernelParams;
  /** Worker threads; capped at the CPU count. */
  readonly threads: number;
  /** Horizon directions (0 = no terrain shadowing). */
  readonly directions?: number;
  /** Near-field ray steps traced at the exact sun azimuth (default DEFAULT_NEAR_FIELD_STEPS). */
  readonly nearSteps?: number;
  /**
   * Days of year to compute (default all 365). Monthly sums are written only for months whose days are
   * all included.
   */
  readonly days?: readonly number[];
  /**
   * Azimuth reference of sun and aspect: 'true-north' (default, correct) or 'grid-north' (r.sun's
   * simplification on projected grids, for comparisons with GRASS).
   */
  readonly azimuthReference?: 'true-north' | 'grid-north';
  /** Also write monthly sums for a horizontal, unshaded surface (`flat_total_sun_{mon}_sum.tif`, for EEMT). */
  readonly flatMonthly?: boolean;
  readonly onProgress?: ProgressListener;
  readonly signal?: AbortSignal;
}

export interface SolarYearResult {
  readonly files: string[];
  readonly validCells: number;
  readonly threads: number;
  readonly directions: number;
}

const sharedAllocator: ArrayAllocator = <T extends Float64Array | Uint8Array>(kind: 'f64' | 'u8', length: number) =>
  (kind === 'f64' ? new Float64Array(new SharedArrayBuffer(length * 8)) : new Uint8Array(new SharedArrayBuffer(length))) as T;

function sharedCopy(values: Float64Array): Float64Array {
  const copy = new Float64Array(new SharedArrayBuffer(values.length * 8));
  copy.set(values);
  return copy;
}

/** Runs the year of daily solar computations on `dem` and writes the `sol` products into `options.outDir`. */
export async function computeSolarYear(dem: Dem, options: SolarYearOptions): Promise<SolarYearResult> {
  const { grid } = dem;
  const { width, height } = grid;
  const cellCount = width * height;
  const directions = options.directions ?? DEFAULT_HORIZON_DIRECTIONS;
  const days = options.days ? [...new Set(options.days)].sort((a, b) => a - b) : Array.from({ length: DAYS_PER_YEAR }, (_, i) => i + 1);
  for (const day of days) {
    if (!Number.isInteger(day) || day < 1 || day > DAYS_PER_YEAR) throw new RangeError(`day of year ${day} is outside 1–${DAYS_PER_YEAR}`);
  }
  const report = options.onProgress ?? (() => {});
  options.signal?.throwIfAborted();
  report({ fraction: 0, message: 'preparing terrain' });

  const geodesy = createGeodesy(grid);
  const cellSizeX = new Float64Array(new SharedArrayBuffer(height * 8));
  const cellSizeY = new Float64Array(new SharedArrayBuffer(height * 8));
  for (let row = 0; row < height; row++) {
    const size = geodesy.cellSizeM(row);
    cellSizeX[row] = size.dx;
    cellSizeY[row] = size.dy;
  }
  const gradient = hornGradient(dem.elevation, width, height, cellSizeX, cellSizeY);
  const surface = surfaceTerms(dem.elevation, gradient.fallEast, gradient.fallNorth, sharedAllocator);
  let zMaxM = -Infinity;
  for (const z of dem.elevation) if (z > zMaxM) zMaxM = z;
  const nearSteps = directions > 0 ? (options.nearSteps ?? DEFAULT_NEAR_FIELD_STEPS) : 0;
  const fineNear = cellCount * directions * NEAR_SECTORS_PER_DIRECTION * 2 <= NEAR_BOUND_BUDGET_BYTES;
  const nearDirections = nearSteps > 0 ? directions * (fineNear ? NEAR_SECTORS_PER_DIRECTION : 1) : 0;
  const tiles = planSunTiles(width, height, { dx: cellSizeX, dy: cellSizeY }, surface.valid, surface.pressureRatio, (col, row) => ({
    latitudeRad: (geodesy.latLon(col, row).latDeg * Math.PI) / 180,
    convergenceRad: options.azimuthReference === 'grid-north' ? 0 : geodesy.convergenceRad(col, row),
  }));

  const setup: WorkerSetup = {
    grid,
    outDir: options.outDir,
    elevation: sharedCopy(dem.elevation),
    zMaxM,
    cellSizeX,
    cellSizeY,
    surface,
    horizonAngles: new Int16Array(new SharedArrayBuffer(cellCount * directions * 2)),
    horizonNear: new Int16Array(new SharedArrayBuffer(cellCount * nearDirections * 2)),
    horizonNearLower: new Int16Array(new SharedArrayBuffer(cellCount * nearDirections * 2)),
    horizonLitBound: new Int16Array(new SharedArrayBuffer(cellCount * directions * 2)),
    directions,
    nearDirections,
    nearSteps,
    tiles,
    params: options.params,
    flat: options.flatMonthly ?? false,
    metadata: {
      MODEL: 'r.sun clear-sky daily model, bugs fixed (eemt-service)',
      STEP_MINUTES: String(options.params.stepMinutes),
      LINKE_TURBIDITY: String(options.params.linkeTurbidity),
      ALBEDO: String(options.params.albedo),
      HORIZON_DIRECTIONS: String(directions),
      NEAR_FIELD_STEPS: String(nearSteps),
    },
  };
  const threads = Math.max(1, Math.min(options.threads, availableParallelism(), DAYS_PER_YEAR));
  const files: string[] = [];
  const monthly = new MonthlySums(cellCount, (month, sum, flatSum) => {
    const meta = { ...setup.metadata, MONTH: String(month + 1) };
    const globalPath = monthlyGlobalPath(month);
    writeFloat32GeoTiffSync(join(options.outDir, globalPath), grid, sum, {
      description: `Monthly sum of daily global irradiation, month ${month + 1}`,
      metadata: { ...meta, QUANTITY: 'monthly sum of daily global irradiation', UNITS: 'Wh m-2 month-1' },
    });
    files.push(globalPath);
    if (flatSum) {
      const flatPath = monthlyFlatGlobalPath(month);
      writeFloat32GeoTiffSync(join(options.outDir, flatPath), grid, flatSum, {
        description: `Monthly sum of daily global irradiation on a horizontal unshaded surface, month ${month + 1}`,
        metadata: { ...meta, QUANTITY: 'monthly sum of daily global irradiation, horizontal surface, no terrain shadow', UNITS: 'Wh m-2 month-1' },
      });
      files.push(flatPath);
    }
  });

  const pool = new WorkerPool(threads, setup, options.signal);
  try {
    if (directions > 0) {
      const rowsPerTask = Math.max(1, Math.ceil(height / (threads * 16)));
      const tasks: WorkerTask[] = [];
      for (let r = 0; r < height; r += rowsPerTask) tasks.push({ type: 'horizon', rowStart: r, rowEnd: Math.min(height, r + rowsPerTask) });
      let rowsDone = 0;
      await pool.run(tasks, (reply) => {
        if (reply.type !== 'horizonDone') return;
        rowsDone += reply.rows;
        report({ fraction: (HORIZON_PROGRESS_SHARE * rowsDone) / height, message: `terrain horizons: ${rowsDone}/${height} rows` });
      });
    }
    const dayTasks: WorkerTask[] = days.map((day) => ({ type: 'day', day }));
    let daysDone = 0;
    const horizonShare = directions > 0 ? HORIZON_PROGRESS_SHARE : 0;
    await pool.run(dayTasks, (reply) => {
      if (reply.type !== 'dayDone') return;
      files.push(dailyGlobalPath(reply.day), dailyHoursPath(reply.day));
      monthly.add(reply.day, reply.global, reply.flatGlobal);
      daysDone++;
      report({
        fraction: horizonShare + ((1 - horizonShare) * daysDone) / days.length,
        message: `day ${reply.day} done (${daysDone}/${days.length})`,
      });
    });
  } finally {
    await pool.close();
  }
  files.sort();
  return { files, validCells: dem.validCount, threads, directions };
}

/** Monthly sums of daily maps, written and released as soon as a month has all its days. */
class MonthlySums {
  private readonly sums = new Map<number, { global: Float64Array; flat: Float64Array | null; days: number }>();

  constructor(
    private readonly cellCount: number,
    private readonly write: (month: number, global: Float64Array, flat: Float64Array | null) => void,
  ) {}

  add(day: number, global: Float32Array, flat: Float32Array | null): void {
    const month = monthOfDay(day);
    let entry = this.sums.get(month);
    if (!entry) {
      entry = { global: new Float64Array(this.cellCount), flat: flat ? new Float64Array(this.cellCount) : null, days: 0 };
      this.sums.set(month, entry);
    }
    for (let i = 0; i < this.cellCount; i++) entry.global[i]! += global[i]!;
    if (flat && entry.flat) for (let i = 0; i < this.cellCount; i++) entry.flat[i]! += flat[i]!;
    entry.days++;
    if (entry.days === MONTH_LENGTHS[month]) {
      this.write(month, entry.global, entry.flat);
      this.sums.delete(month);
    }
  }
}

/** A fixed set of worker threads fed from a task list, one task per idle worker. */
class WorkerPool {
  private readonly workers: Worker[];
  private failure: Error | null = null;
  private readonly failed: Promise<never>;
  private rejectFailed!: (error: Error) => void;

  constructor(count: number, setup: WorkerSetup, signal?: AbortSignal) {
    this.failed = new Promise<never>((_, reject) => (this.rejectFailed = reject));
    this.failed.catch(() => {});
    const url = siblingModuleUrl(import.meta.url, 'solWorker');
    this.workers = Array.from({ length: count }, () => {
      const worker = startModuleWorker(url, { workerData: setup });
      worker.on('error', (error) => this.fail(error));
      worker.on('exit', (code) => {
        if (code !== 0) this.fail(new Error(`solar worker thread exited with code ${code}`));
      });
      return worker;
    });
    const onAbort = () => this.fail(signal!.reason instanceof Error ? signal!.reason : abortError());
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  }

  private fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    this.rejectFailed(error);
  }

  /** Runs every task; `onReply` sees each successful reply. Rejects on the first error or abort. */
  async run(tasks: readonly WorkerTask[], onReply: (reply: WorkerReply) => void): Promise<void> {
    if (this.failure) throw this.failure;
    let next = 0;
    let pending = 0;
    const done = new Promise<void>((resolve, reject) => {
      const feed = (worker: Worker) => {
        if (this.failure) return;
        if (next >= tasks.length) {
          if (pending === 0) resolve();
          return;
        }
        pending++;
        worker.postMessage(tasks[next++]);
      };
      for (const worker of this.workers) {
        worker.removeAllListeners('message');
        worker.on('message', (reply: WorkerReply) => {
          pending--;
          if (reply.type === 'error') {
            this.fail(new Error(reply.message));
            reject(this.failure);
            return;
          }
          try {
            onReply(reply);
          } catch (error) {
            this.fail(error instanceof Error ? error : new Error(String(error)));
            reject(this.failure);
            return;
          }
          feed(worker);
        });
      }
      for (const worker of this.workers) feed(worker);
    });
    await Promise.race([done, this.failed]);
  }

  async close(): Promise<void> {
    for (const worker of this.workers) worker.removeAllListeners('exit');
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }
}

function abortError(): Error {
  const error = new Error('The operation was aborted');
  error.name = 'AbortError';
  return error;
}

/** Kernel parameters from the service/CLI parameters. */
export function kernelParams(run: WorkflowRun): KernelParams {
  return { stepMinutes: run.params.step, linkeTurbidity: run.params.linke_value, albedo: run.params.albedo_value };
}

/** The `sol` workflow: validates the parameters, reads the DEM and writes every `sol` product. */
export async function runSolWorkflow(run: WorkflowRun): Promise<WorkflowResult> {
  const started = performance.now();
  validateWorkflowParams(run.params);
  const dem = await readDem(run.demPath, demReadLimits(run.maxDemCells));
  const result = await computeSolarYear(dem, {
    outDir: run.outDir,
    params: kernelParams(run),
    threads: run.params.num_threads,
    ...(run.days ? { days: run.days } : {}),
    onProgress: run.onProgress,
    signal: run.signal,
  });
  run.onProgress?.({ fraction: 1, message: 'sol products written' });
  return {
    files: result.files,
    cells: dem.grid.width * dem.grid.height,
    validCells: result.validCells,
    days: run.days ? new Set(run.days).size : DAYS_PER_YEAR,
    seconds: (performance.now() - started) / 1000,
  };
}
