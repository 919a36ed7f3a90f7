/**
 * The plan of a solar-year run: the resident terrain the worker threads share, the horizon layout, the compute tiles
 * (the output GeoTIFFs' own tiles, `sol/plan.ts`) and the slice of them this run computes, the setup sent to the
 * workers and the products' metadata. Nothing is computed or written here beyond the terrain model.
 */
import { availableParallelism } from 'node:os';
import { createGeodesy } from '../../raster/geo/geodesy.js';
import type { Dem, GridSpec } from '../../raster/types.js';
import { rasterTiling, tileCompression, type RasterTiling } from '../../raster/geotiff/writeGeoTiff.js';
import type { ClearSkyParams } from '../../science/solar/clearSky.js';
import { horizonLayoutFor, type BudgetSite } from '../../science/solar/horizonBudget.js';
import { horizonBytesPerCell } from '../../science/solar/tileHorizons.js';
import { buildTerrainModel, type TerrainModel } from '../../science/solar/terrainModel.js';
import type { ProgressListener, TileSlice } from '../types.js';
import type { WorkerSetup } from './messages.js';
import { checkedDays } from './days.js';
import { MIN_SHARED_COMPUTE_TILES, checkTileSize, defaultComputeTileSize, planComputeTiles, planSunTiles, runNearField, sunTileSize, type ComputeTile } from './tilePlan.js';
import { completeMonths } from './products.js';
import { ALL_PRODUCTS, selectionForDays, type ProductSelection } from './productSelection.js';
import { checkTileSlice, sliceFolder, sliceTiles } from './slices.js';
import { computesInThread } from './runThreads.js';
import type { DailyKernelChoice } from './tileEngine.js';

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
  /**
   * The products written (default every one): the monthly sums (with the flat-surface sums and the beam parts when
   * asked for) or not, and the days of the daily global and sunshine-hour maps — among `days`; the other days are
   * computed (for the monthly sums) but not encoded.
   */
  readonly products?: ProductSelection;
  /** Metadata items added to every product (default none). */
  readonly metadata?: Readonly<Record<string, string>>;
  /** zlib level of the GeoTIFF tiles (default: the writer's). */
  readonly deflateLevel?: number;
  /**
   * Compute only this slice of the tiles and leave them in the slice's folder under `outDir` for
   * `assembleSolarYear` (sol/slices.ts), instead of writing the products (a job split across workers).
   */
  readonly slice?: TileSlice;
  readonly onProgress?: ProgressListener;
  readonly signal?: AbortSignal;
}

/** What a solar-year run computes and writes, decided before any worker starts. */
export interface SolarYearPlan {
  readonly grid: GridSpec;
  /** Days computed, ascending, and the months (0–11) whose sums are written (all of whose days are among them). */
  readonly days: readonly number[];
  readonly months: readonly number[];
  readonly tileSize: number;
  readonly tiling: RasterTiling;
  /** Every compute tile of the DEM (a worker task names one by its position here), and those this run computes. */
  readonly tiles: readonly ComputeTile[];
  readonly runTiles: readonly ComputeTile[];
  /** The slice of the tiles this run computes, or null for every tile (the products are then written). */
  readonly slice: TileSlice | null;
  /** Where the products' files go: the output folder, or the slice's folder under it. */
  readonly writeDir: string;
  /** Horizon directions (0: no terrain shadows). */
  readonly directions: number;
  /** Valid cells of the DEM (of the slice's tiles for a slice). */
  readonly validCells: number;
  /** Worker threads: the requested count capped at the CPU count and at the tiles to compute. */
  readonly threads: number;
  /** Whether the run's one thread is the one that plans it (a small run: `computesInThread`), not a worker thread. */
  readonly inThread: boolean;
  readonly setup: WorkerSetup;
  /** Metadata items of every product. */
  readonly metadata: Readonly<Record<string, string>>;
}

/** Plans the solar year of `options` on `dem` (see SolarYearPlan); builds the resident terrain the workers share. */
export function planSolarYear(dem: Dem<Float32Array> | Dem<Float64Array>, options: SolarYearOptions): SolarYearPlan {
  const { grid } = dem;
  const { width, height } = grid;
  const days = checkedDays(options.days);
  // (a daily map of a day not computed is refused)
  const products = selectionForDays(options.products ?? ALL_PRODUCTS, days);
  const months = products.monthly ? completeMonths(days) : [];
  const { geodesy, cellSizeX, cellSizeY, site, terrain } = solarTerrain(dem);
  const layout = options.directions === 0 ? null : horizonLayoutFor(terrain, site);
  const midRow = Math.floor(height / 2);
  const sunSize = sunTileSize(Math.min(cellSizeX[midRow]!, cellSizeY[midRow]!));
  // one thread on a whole run takes the fewest tiles (each costs its far sweep's approach); threads, or the
  // slices of a split job, share at least MIN_SHARED_COMPUTE_TILES
  const threads = Math.max(1, Math.min(options.threads, availableParallelism()));
  const minTiles = threads === 1 && !options.slice ? 1 : MIN_SHARED_COMPUTE_TILES;
  const sunTiles = planSunTiles(width, height, sunSize, { dx: cellSizeX, dy: cellSizeY }, terrain.elevation, (col, row) => ({
    latitudeRad: (geodesy.latLon(col, row).latDeg * Math.PI) / 180,
    convergenceRad: options.azimuthReference === 'grid-north' ? 0 : geodesy.convergenceRad(col, row),
  }));
  // a run of few days keeps no near-field bounds per cell: larger tiles in the same memory
  const nearField = layout ? runNearField(layout, days, sunTiles, options.params.stepMinutes) : 'bounded';
  const tileSize =
    options.tileSize !== undefined
      ? checkTileSize(options.tileSize)
      : defaultComputeTileSize(width, height, sunSize, layout ? horizonBytesPerCell(layout, nearField) : 0, minTiles);
  const tiling = rasterTiling(grid, tileSize);
  const tiles = planComputeTiles(tiling, sunSize, sunTiles, terrain.elevation);
  const slice = options.slice ? checkTileSlice(options.slice) : null;
  const runTiles = slice ? sliceTiles(tiles, slice) : tiles;
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
    dailyGlobal: products.dailyGlobal,
    dailyHours: products.dailyHours,
    compression: tileCompression({ level: options.deflateLevel }),
    kernel: options.kernel ?? 'wasm',
    nearField,
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
  const runValidCells = slice ? runTiles.reduce((n, tile) => n + tile.validCells, 0) : dem.validCount;
  const runThreadCount = Math.max(1, Math.min(threads, runTiles.length));
  return {
    grid,
    days,
    months,
    tileSize,
    tiling,
    tiles,
    runTiles,
    slice,
    writeDir: slice ? sliceFolder(options.outDir, slice) : options.outDir,
    directions: layout?.directions ?? 0,
    validCells: runValidCells,
    threads: runThreadCount,
    inThread: runThreadCount === 1 && computesInThread(runValidCells, days.length),
    setup,
    metadata,
  };
}

/** Horizon directions the solar year uses on `dem` (to report a solar year whose days were computed elsewhere). */
export function solarHorizonDirections(dem: Dem<Float32Array> | Dem<Float64Array>): number {
  const { terrain, site } = solarTerrain(dem);
  return horizonLayoutFor(terrain, site).directions;
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
