/**
 * The `sol` pipeline: DEM → daily global-irradiation and sunshine-hour maps for the requested days (all
 * 365 by default) and the sums of every complete month, written tile by tile.
 *
 * The DEM stays resident in shared memory (Float32). The work is cut into compute tiles, which are the
 * output GeoTIFFs' own tiles (plan.ts). A worker thread takes a tile, computes its surface terms and
 * horizons once, then every day, accumulating the monthly sums; each product's tile is compressed in the
 * worker as soon as it is done and sent here, where GeoTiffStreams appends it to its file (all product
 * files are open for writing at once, as `.part` files of tiles in arrival order; at the end each is
 * assembled as a Cloud Optimized GeoTIFF with its overviews by the worker threads, and renamed). Memory: the
 * DEM, the plan, and per worker one tile's working set; the compressed tiles waiting to be written are
 * bounded by the writer's budget (workers wait for it).
 */
import { availableParallelism } from 'node:os';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createGeodesy } from '../../raster/geodesy.js';
import { GeoTiffStreams, assembleCog, type CogAssemblyJob } from '../../raster/geoTiffStreams.js';
import { readDem, readDemGrid } from '../../raster/readGeoTiff.js';
import { demReadLimits } from '../demLimits.js';
import type { Dem, GridSpec } from '../../raster/types.js';
import { rasterTiling, tileCompression, type RasterTiling } from '../../raster/writeGeoTiff.js';
import type { ClearSkyParams } from '../../science/solar/clearSky.js';
import { horizonLayoutFor, type BudgetSite } from '../../science/solar/horizonBudget.js';
import { buildTerrainModel, type TerrainModel } from '../../science/solar/terrainModel.js';
import { validateWorkflowParams } from '../params.js';
import type { PhaseTimings, ProgressListener, WorkflowResult, WorkflowRun } from '../types.js';
import type { EncodedTile, TileTimings, WorkerSetup, WorkerTask } from './messages.js';
import { checkedDays } from './days.js';
import { checkTileSize, defaultComputeTileSize, planComputeTiles, planSunTiles, sunTileSize } from './plan.js';
import {
  completeMonths,
  DAYS_PER_YEAR,
  dailyGlobalPath,
  dailyHoursPath,
  monthlyBeamPartPath,
  monthlyFlatBeamPath,
  monthlyFlatGlobalPath,
  monthlyGlobalPath,
  monthOfDay,
} from './products.js';
import { TileProgress } from './progress.js';
import type { DailyKernelChoice } from './tileEngine.js';
import { assembleSolarYear, checkTileSlice, sliceFolder, sliceTiles, writeSliceManifest, type SliceProduct, type TileSlice } from './slices.js';

import { WorkerPool, abortError, prestartSolWorkers, releaseSpareWorkers } from './workerPool.js';


/** Share of the progress bar for completing the files at the end. */
const FINISH_PROGRESS_SHARE = 0.02;

/**
 * A run whose whole compressed output is estimated below this keeps every tile in memory until its file is
 * finished, so each tile is written once, into its COG (GeoTiffStreams); larger runs flush through the default
 * 32 MiB buffer. The estimate: 3/4 of the raw bytes (the daily maps compress to 0.72, the hours to 0.22).
 */
const WHOLE_OUTPUT_BUFFER_BYTES = 192 * 2 ** 20;

/** The tile buffer of the run's GeoTiffStreams: its whole output when that is small, else the default. */
function outputBufferBytes(files: number, tiling: RasterTiling): number | undefined {
  const estimate = 0.75 * files * tiling.count * tiling.tileWidth * tiling.tileHeight * 4;
  return estimate <= WHOLE_OUTPUT_BUFFER_BYTES ? WHOLE_OUTPUT_BUFFER_BYTES : undefined;
}

export interface SolarYearOptions {
  readonly outDir: string;
  readonly params: ClearSkyParams;
  /** Worker threads; capped at the CPU count and at the number of tiles. */
  readonly threads: number;
  /** 0: no terrain shadowing (default: terrain shadows, horizons laid out by the error budget). */
  readonly directions?: number;
  /**
   * Days of year to compute (default all 365). Monthly sums are written only for months whose days are
   * all included.
   */
  readonly days?: readonly number[];
  /** Side of the compute tiles = the GeoTIFF tiles [cells], a multiple of 16 in 16–512 (default: by DEM size). */
  readonly tileSize?: number;
  /** The daily kernel's implementation: 'wasm' (default, compiled) or 'typescript' (the same outputs, slower). */
  readonly kernel?: DailyKernelChoice;
  /**
   * Azimuth reference of sun and aspect: 'true-north' (default, correct) or 'grid-north' (r.sun's
   * simplification on projected grids, for comparisons with GRASS).
   */
  readonly azimuthReference?: 'true-north' | 'grid-north';
  /** Also write monthly sums for a horizontal, unshaded surface (`flat_total_sun_{mon}_sum.tif`, for EEMT). */
  readonly flatMonthly?: boolean;
  /**
   * Also write the beam parts of the monthly sums (of the global and, with `flatMonthly`, of the horizontal-surface
   * irradiation: `monthlyBeamPartPath`, `monthlyFlatBeamPath`), for EEMT's real-sky radiation. Default false.
   */
  readonly beamParts?: boolean;
  /** Write the monthly sums only, no daily maps (EEMT's sums without terrain shadows). Default false. */
  readonly monthlyOnly?: boolean;
  /** Metadata items added to every product (default none). */
  readonly metadata?: Readonly<Record<string, string>>;
  /** zlib level of the GeoTIFF tiles (default: the writer's). */
  readonly deflateLevel?: number;
  /**
   * Compute only this slice of the tiles and leave them in the slice's folder under `outDir` for
   * `assembleSolarYear` (slices.ts), instead of writing the products (a job split across workers).
   */
  readonly slice?: TileSlice;
  readonly onProgress?: ProgressListener;
  readonly signal?: AbortSignal;
}

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

/** The geodesy, cell sizes by row [m] and resident terrain of `dem` that the solar year starts from, and where it lies. */
function solarTerrain(dem: Dem<Float32Array> | Dem<Float64Array>) {
  const { width, height } = dem.grid;
  const geodesy = createGeodesy(dem.grid);
  const cellSizeX = new Float64Array(new SharedArrayBuffer(height * 8));
  const cellSizeY = new Float64Array(new SharedArrayBuffer(height * 8));
  for (let row = 0; row < height; row++) {
    const size = geodesy.cellSizeM(row);
    cellSizeX[row] = size.dx;
    cellSizeY[row] = size.dy;
  }
  // the largest |latitude| of a cell centre is at a corner cell or an edge's middle one (rows and columns are
  // nearly straight lines); latLon takes pixel positions, a cell's centre at + 0.5
  let largestAbsLatitudeDeg = 0;
  for (const row of [0.5, height / 2, height - 0.5]) {
    for (const col of [0.5, width / 2, width - 0.5]) largestAbsLatitudeDeg = Math.max(largestAbsLatitudeDeg, Math.abs(geodesy.latLon(col, row).latDeg));
  }
  const site: BudgetSite = { largestAbsLatitudeRad: (largestAbsLatitudeDeg * Math.PI) / 180 };
  return { geodesy, cellSizeX, cellSizeY, site, terrain: residentTerrain(dem, cellSizeX, cellSizeY) };
}

/** Horizon directions the solar year uses on `dem` (to report a solar year whose days were computed elsewhere). */
export function solarHorizonDirections(dem: Dem<Float32Array> | Dem<Float64Array>): number {
  const { terrain, site } = solarTerrain(dem);
  return horizonLayoutFor(terrain, site).directions;
}

/**
 * Paths of every product of a whole solar year, relative to the output folder, sorted (with the flat-surface sums for
 * eemt), and after them the beam parts of the monthly sums when asked for (eemt's working files).
 */
export function solarYearProductPaths(flatMonthly: boolean, beamParts = false): string[] {
  const paths: string[] = [];
  const parts: string[] = [];
  for (let day = 1; day <= DAYS_PER_YEAR; day++) paths.push(dailyGlobalPath(day), dailyHoursPath(day));
  for (let month = 0; month < 12; month++) {
    paths.push(monthlyGlobalPath(month), ...(flatMonthly ? [monthlyFlatGlobalPath(month)] : []));
    if (beamParts) parts.push(monthlyBeamPartPath(month), ...(flatMonthly ? [monthlyFlatBeamPath(month)] : []));
  }
  return [...paths.sort(), ...parts.sort()];
}

/** Runs the requested days of the solar model on `dem` and writes the `sol` products into `options.outDir`. */
export async function computeSolarYear(dem: Dem<Float32Array> | Dem<Float64Array>, options: SolarYearOptions): Promise<SolarYearResult> {
  const started = performance.now();
  const { grid } = dem;
  const { width, height } = grid;
  const days = checkedDays(options.days);
  const months = completeMonths(days);
  const report = options.onProgress ?? (() => {});
  options.signal?.throwIfAborted();
  report({ fraction: 0, message: 'preparing terrain' });

  const { geodesy, cellSizeX, cellSizeY, site, terrain } = solarTerrain(dem);
  const layout = options.directions === 0 ? null : horizonLayoutFor(terrain, site);
  const midRow = Math.floor(height / 2);
  const sunSize = sunTileSize(Math.min(cellSizeX[midRow]!, cellSizeY[midRow]!));
  const tileSize = options.tileSize !== undefined ? checkTileSize(options.tileSize) : defaultComputeTileSize(width, height, sunSize);
  const tiling = rasterTiling(grid, tileSize);
  const sunTiles = planSunTiles(width, height, sunSize, { dx: cellSizeX, dy: cellSizeY }, terrain.elevation, (col, row) => ({
    latitudeRad: (geodesy.latLon(col, row).latDeg * Math.PI) / 180,
    convergenceRad: options.azimuthReference === 'grid-north' ? 0 : geodesy.convergenceRad(col, row),
  }));
  const tiles = planComputeTiles(tiling, sunSize, sunTiles, terrain.elevation);
  const slice = options.slice ? checkTileSlice(options.slice) : null;
  const runTiles = slice ? sliceTiles(tiles, slice) : tiles;
  const positionOf = new Map(tiles.map((tile, k) => [tile, k]));
  const writeDir = slice ? sliceFolder(options.outDir, slice) : options.outDir;
  const compression = tileCompression({ level: options.deflateLevel });
  const setup: WorkerSetup = {
    terrain,
    layout,
    params: options.params,
    sunTiles,
    tiles,
    tileWidth: tiling.tileWidth,
    tileHeight: tiling.tileHeight,
    days,
    months,
    flat: options.flatMonthly ?? false,
    ...(options.beamParts ? { beamParts: true } : {}),
    daily: !(options.monthlyOnly ?? false),
    compression,
    kernel: options.kernel ?? 'wasm',
  };
  const metadata = {
    MODEL: 'r.sun clear-sky daily model, bugs fixed (eemt-service)',
    STEP_MINUTES: String(options.params.stepMinutes),
    LINKE_TURBIDITY: String(options.params.linkeTurbidity),
    ALBEDO: String(options.params.albedo),
    HORIZON_DIRECTIONS: String(layout?.directions ?? 0),
    NEAR_FIELD_STEPS: String(layout?.nearSteps ?? 0),
    ...options.metadata,
  };

  const threads = Math.max(1, Math.min(options.threads, availableParallelism(), runTiles.length));
  const pool = new WorkerPool(threads, setup, options.signal);
  // the products' COGs are assembled by the worker threads once the tiles are done
  const productCount = (setup.daily ? days.length * 2 : 0) + months.length * (setup.flat ? 2 : 1) * (setup.beamParts ? 2 : 1);
  const bufferBytes = outputBufferBytes(productCount, tiling);
  // The workers assemble the COGs of files of tiles once the tiles are done. A file whose tiles are in memory is
  // written here (a few hundred µs, less than a round trip to a worker) — and when the whole output is kept in
  // memory, as soon as its last tile arrives, while the last tiles are computed; as is any file finished then.
  let computing = false;
  const finishEarly = bufferBytes !== undefined && !slice;
  const assembler = (job: CogAssemblyJob) => (job.source.tiles || computing ? assembleCog(job) : pool.assemble(job));
  const streams = new GeoTiffStreams({ assembler, ...(bufferBytes ? { bufferBytes } : {}) });
  const add = (id: number, tile: number, { bytes, statistics }: EncodedTile) => {
    streams.add(id, tile, bytes, statistics);
    // a file that cannot be written fails the run at once (finishProducts would meet the same promise)
    if (finishEarly && streams.isComplete(id)) streams.finish(id).catch((error: unknown) => pool.fail(error instanceof Error ? error : new Error(String(error))));
  };
  const totals = { horizonSeconds: 0, kernelSeconds: 0, encodeSeconds: 0, rawBytes: 0 };
  try {
    // a slice run again (its worker was lost) starts from nothing
    if (slice) await rm(writeDir, { recursive: true, force: true });
    const files = await createProducts(streams, writeDir, grid, tileSize, setup.daily ? days : [], months, { flat: setup.flat, beamParts: setup.beamParts === true }, metadata);
    options.signal?.throwIfAborted();
    const progress = new TileProgress(runTiles, days.length, 1 - FINISH_PROGRESS_SHARE, report);
    computing = true;
    // the files written from memory get their assembly file while the tiles are computed (see createAssemblyFiles)
    const creating = finishEarly ? createAssemblyFiles(streams, files.ids, () => computing) : null;
    try {
      await pool.run(
        runTiles.map((tile): WorkerTask => ({ type: 'tile', tile: positionOf.get(tile)! })),
        (reply) => {
          const tile = 'tile' in reply ? tiles[reply.tile]! : null;
          if (reply.type === 'horizons') progress.horizons(tile!, reply.fraction);
          else if (reply.type === 'products') {
            for (const product of reply.products) {
              if (product.type === 'day') {
                add(files.daily.get(product.day)!.global, tile!.index, product.global);
                add(files.daily.get(product.day)!.hours, tile!.index, product.hours);
                progress.dayDone(tile!, product.day);
              } else {
                const ids = files.monthly.get(product.month)!;
                add(ids.global, tile!.index, product.global);
                if (ids.flat !== null && product.flat) add(ids.flat, tile!.index, product.flat);
                if (ids.beamPart !== null && product.beamPart) add(ids.beamPart, tile!.index, product.beamPart);
                if (ids.flatBeam !== null && product.flatBeam) add(ids.flatBeam, tile!.index, product.flatBeam);
                // without daily maps, a month's sum stands for its days' progress
                if (!setup.daily) for (const day of days) if (monthOfDay(day) === product.month) progress.dayDone(tile!, day);
              }
            }
          } else if (reply.type === 'tileDone') {
            addTimings(totals, reply.timings);
            progress.tileDone(reply.timings);
          }
        },
        () => streams.ready(),
      );
    } finally {
      computing = false;
      await creating;
    }
    options.signal?.throwIfAborted();
    const validCells = slice ? runTiles.reduce((n, tile) => n + tile.validCells, 0) : dem.validCount;
    if (slice) {
      const products = await sealProducts(streams, files);
      await writeSliceManifest(writeDir, { slice, width, height, tileSize, days: days.length, directions: layout?.directions ?? 0, validCells, products });
    } else {
      await finishProducts(streams, files.ids, report);
    }
    const writes = streams.stats();
    return {
      files: slice ? [] : files.paths.sort(),
      validCells,
      threads,
      directions: layout?.directions ?? 0,
      days: days.length,
      tileSize,
      phases: {
        horizonSeconds: totals.horizonSeconds,
        kernelSeconds: totals.kernelSeconds,
        encodeSeconds: totals.encodeSeconds,
        writeSeconds: writes.writeSeconds,
        wallSeconds: (performance.now() - started) / 1000,
        encodedRawBytes: totals.rawBytes,
        writtenBytes: writes.bytesWritten,
      },
    };
  } catch (error) {
    await streams.abort();
    throw options.signal?.aborted ? (options.signal.reason instanceof Error ? options.signal.reason : abortError()) : error;
  } finally {
    await pool.close();
  }
}

/**
 * The resident terrain model the workers share: the elevations as Float32 on a SharedArrayBuffer (the
 * DEM's own array when it already is one) and its maximum pyramid, shared too.
 */
function residentTerrain(dem: Dem<Float32Array> | Dem<Float64Array>, cellSizeX: Float64Array, cellSizeY: Float64Array): TerrainModel {
  let elevation: Float32Array;
  if (dem.elevation instanceof Float32Array && dem.elevation.buffer instanceof SharedArrayBuffer) {
    elevation = dem.elevation;
  } else {
    elevation = sharedFloat32(dem.elevation.length);
    elevation.set(dem.elevation);
  }
  return buildTerrainModel(elevation, dem.grid.width, dem.grid.height, cellSizeX, cellSizeY, sharedFloat32);
}

function sharedFloat32(length: number): Float32Array {
  return new Float32Array(new SharedArrayBuffer(length * 4));
}

/** Stream ids of the product files, by day and by month, and their paths relative to the output folder. */
interface ProductFiles {
  readonly daily: Map<number, { global: number; hours: number }>;
  readonly monthly: Map<number, { global: number; flat: number | null; beamPart: number | null; flatBeam: number | null }>;
  readonly ids: number[];
  readonly paths: string[];
  /** Band description and metadata by id. */
  readonly tags: { description: string; metadata: Record<string, string> }[];
}

/** Creates every product file (as an empty `.part` that collects its tiles). */
async function createProducts(
  streams: GeoTiffStreams,
  outDir: string,
  grid: GridSpec,
  tileSize: number,
  days: readonly number[],
  months: readonly number[],
  monthly: { readonly flat: boolean; readonly beamParts: boolean },
  metadata: Readonly<Record<string, string>>,
): Promise<ProductFiles> {
  const { flat, beamParts } = monthly;
  const specs: { path: string; description: string; metadata: Record<string, string> }[] = [];
  for (const day of days) {
    const dayMeta = { ...metadata, DAY_OF_YEAR: String(day) };
    specs.push({
      path: dailyGlobalPath(day),
      description: `Daily global irradiation, day ${day}`,
      metadata: { ...dayMeta, QUANTITY: 'daily global irradiation (beam + diffuse + reflected)', UNITS: 'Wh m-2 day-1' },
    });
    specs.push({
      path: dailyHoursPath(day),
      description: `Daily sunshine hours, day ${day}`,
      metadata: { ...dayMeta, QUANTITY: 'sunshine hours (direct sun on the surface)', UNITS: 'h' },
    });
  }
  for (const month of months) {
    const monthMeta = { ...metadata, MONTH: String(month + 1) };
    specs.push({
      path: monthlyGlobalPath(month),
      description: `Monthly sum of daily global irradiation, month ${month + 1}`,
      metadata: { ...monthMeta, QUANTITY: 'monthly sum of daily global irradiation', UNITS: 'Wh m-2 month-1' },
    });
    if (flat) {
      specs.push({
        path: monthlyFlatGlobalPath(month),
        description: `Monthly sum of daily global irradiation on a horizontal unshaded surface, month ${month + 1}`,
        metadata: { ...monthMeta, QUANTITY: 'monthly sum of daily global irradiation, horizontal surface, no terrain shadow', UNITS: 'Wh m-2 month-1' },
      });
    }
    if (beamParts) {
      specs.push({
        path: monthlyBeamPartPath(month),
        description: `Beam part of the monthly sum of daily global irradiation, month ${month + 1}`,
        metadata: { ...monthMeta, QUANTITY: 'monthly sum of the beam on the surface and the ground reflection of the horizontal beam', UNITS: 'Wh m-2 month-1' },
      });
      if (flat) {
        specs.push({
          path: monthlyFlatBeamPath(month),
          description: `Beam part of the monthly sum of daily global irradiation on a horizontal unshaded surface, month ${month + 1}`,
          metadata: { ...monthMeta, QUANTITY: 'monthly sum of daily beam irradiation, horizontal surface, no terrain shadow', UNITS: 'Wh m-2 month-1' },
        });
      }
    }
  }
  const ids = await streams.createAll(
    grid,
    specs.map((spec) => ({ path: join(outDir, spec.path), options: { tileSize, description: spec.description, metadata: spec.metadata } })),
  );
  const files: ProductFiles = { daily: new Map(), monthly: new Map(), ids, paths: specs.map((spec) => spec.path), tags: specs };
  let k = 0;
  for (const day of days) {
    files.daily.set(day, { global: ids[k]!, hours: ids[k + 1]! });
    k += 2;
  }
  for (const month of months) {
    const global = ids[k++]!;
    const flatId = flat ? ids[k++]! : null;
    const beamPart = beamParts ? ids[k++]! : null;
    const flatBeam = beamParts && flat ? ids[k++]! : null;
    files.monthly.set(month, { global, flat: flatId, beamPart, flatBeam });
  }
  return files;
}

/** Completes every file (remaining tiles, COG assembly, final name), reporting progress by files done. */
async function finishProducts(streams: GeoTiffStreams, ids: readonly number[], report: ProgressListener): Promise<void> {
  let done = 0;
  const step = Math.max(1, Math.ceil(ids.length / 20));
  await streams.finishAll(ids, () => {
    done++;
    if (done % step === 0 || done === ids.length) {
      report({ fraction: 1 - FINISH_PROGRESS_SHARE * (1 - done / ids.length), message: `writing: ${done}/${ids.length} files complete` });
    }
  });
}

/**
 * Creates the files in which the products' COGs will be assembled, a few per turn of the event loop while
 * `going()` (the main thread is idle while the workers compute): creating a file can cost 30 times what opening
 * one does, and done after the last tile it is time the workers wait. A file that cannot be created now is left
 * to its finishing, which reports the error.
 */
async function createAssemblyFiles(streams: GeoTiffStreams, ids: readonly number[], going: () => boolean): Promise<void> {
  for (let k = 0; k < ids.length && going(); k++) {
    try {
      streams.createAssemblyFile(ids[k]!);
    } catch {
      return;
    }
    if (k % 8 === 7) await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Keeps every product's tiles in its part file (a slice's products), listing where they are for the assembly. */
async function sealProducts(streams: GeoTiffStreams, files: ProductFiles): Promise<SliceProduct[]> {
  const products: SliceProduct[] = [];
  for (let k = 0; k < files.ids.length; k++) {
    const sealed = await streams.seal(files.ids[k]!);
    products.push({ path: files.paths[k]!, description: files.tags[k]!.description, metadata: files.tags[k]!.metadata, tiles: sealed.tiles, statistics: sealed.statistics });
  }
  return products;
}

function addTimings(totals: { horizonSeconds: number; kernelSeconds: number; encodeSeconds: number; rawBytes: number }, t: TileTimings): void {
  totals.horizonSeconds += t.horizonSeconds;
  totals.kernelSeconds += t.kernelSeconds;
  totals.encodeSeconds += t.encodeSeconds;
  totals.rawBytes += t.rawBytes;
}

/**
 * Assembles the products of a solar year (of `sol`, or eemt's solar phase) from `run.assembleSlices` tile slices
 * computed before, or `run.assemblyShare` of them. The slices computed everything: only the DEM's grid is read.
 */
export async function runSolarAssembly(run: WorkflowRun): Promise<WorkflowResult> {
  const started = performance.now();
  if (run.assembleSlices === undefined) throw new RangeError('runSolarAssembly needs assembleSlices');
  const grid = await readDemGrid(run.demPath, demReadLimits(run.maxDemCells));
  const assembled = await assembleSolarYear(run.outDir, grid, run.assembleSlices, {
    ...(run.onProgress ? { onProgress: run.onProgress } : {}),
    ...(run.signal ? { signal: run.signal } : {}),
    ...(run.assemblyShare ? { share: run.assemblyShare } : {}),
  });
  run.onProgress?.({ fraction: 1, message: `${assembled.files.length} solar products assembled` });
  return { files: assembled.files, cells: grid.width * grid.height, validCells: assembled.validCells, days: assembled.days, seconds: (performance.now() - started) / 1000 };
}

/** Kernel parameters from the service/CLI parameters. */
export function kernelParams(run: WorkflowRun): ClearSkyParams {
  return { stepMinutes: run.params.step, linkeTurbidity: run.params.linke_value, albedo: run.params.albedo_value };
}

/** Reads the run's DEM and computes its solar year. */
async function solarYearOfRun(run: WorkflowRun): Promise<{ dem: Dem<Float32Array>; result: SolarYearResult }> {
  const dem = await readDem(run.demPath, { precision: 'float32', shared: true, ...demReadLimits(run.maxDemCells) });
  const result = await computeSolarYear(dem, {
    outDir: run.outDir,
    params: kernelParams(run),
    threads: run.params.num_threads,
    ...(run.days ? { days: run.days } : {}),
    ...(run.tileSize !== undefined ? { tileSize: run.tileSize } : {}),
    ...(run.kernel ? { kernel: run.kernel } : {}),
    ...(run.tileSlice ? { slice: run.tileSlice } : {}),
    onProgress: run.onProgress,
    signal: run.signal,
  });
  return { dem, result };
}

/** The `sol` workflow: validates the parameters, reads the DEM and writes the `sol` products. */
export async function runSolWorkflow(run: WorkflowRun): Promise<WorkflowResult> {
  const started = performance.now();
  validateWorkflowParams(run.params);
  checkedDays(run.days);
  if (run.tileSize !== undefined) checkTileSize(run.tileSize);
  if (run.assembleSlices !== undefined) return runSolarAssembly(run);
  // the worker threads load their modules while the DEM is read and the run planned
  prestartSolWorkers(Math.min(run.params.num_threads, availableParallelism()));
  const { dem, result } = await solarYearOfRun(run).finally(releaseSpareWorkers);
  run.onProgress?.({ fraction: 1, message: run.tileSlice ? `tile slice ${run.tileSlice.index + 1} of ${run.tileSlice.count} computed` : 'sol products written' });
  return {
    files: result.files,
    cells: dem.grid.width * dem.grid.height,
    validCells: result.validCells,
    days: result.days,
    seconds: (performance.now() - started) / 1000,
    phases: result.phases,
  };
}
