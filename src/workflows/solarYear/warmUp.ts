/**
 * A worker started ahead of its run (`prestartSolWorkers`) waits for the run's setup while the command reads the
 * DEM and plans the run. Meanwhile it computes one small made-up tile through the same code (`TileRun`), its replies
 * dropped, so that the run's first tile finds that code compiled and optimised: a run of a few days on a small
 * DEM is mostly code V8 has not optimised yet (docs/performance.md, "The `sol` benchmark").
 *
 * The made-up terrain: WARM_UP_CELLS × WARM_UP_CELLS cells of 10 m, hills of 120 m at 45° N, one winter day with
 * terrain shadows (the near field traced, as in a run of few days).
 */
import { buildTerrainModel } from '../../science/solar/terrainModel.js';
import { tileCompression } from '../../raster/geotiff/writeGeoTiff.js';
import type { RasterTiling } from '../../raster/rasterTiling.js';
import type { WorkerSetup } from './messages.js';
import { planComputeTiles, planSunTiles } from './tilePlan.js';
import { TileRun } from './tileRun.js';

/** Side of the made-up DEM [cells]: a tile of it takes a few tens of milliseconds before V8 has optimised anything. */
export const WARM_UP_CELLS = 48;
const CELL_SIZE_M = 10;
const SUN_TILE_CELLS = 16;
const LATITUDE_RAD = (45 * Math.PI) / 180;
const DAY_OF_YEAR = 350;

/** The setup of the made-up run (a layout and parameters as a small run's). */
export function warmUpSetup(): WorkerSetup {
  const size = WARM_UP_CELLS;
  const elevation = new Float32Array(size * size);
  for (let row = 0; row < size; row++) {
    for (let col = 0; col < size; col++) elevation[row * size + col] = 600 + 60 * Math.sin(col / 5) * Math.cos(row / 7) + 2 * row;
  }
  const cellSizes = new Float64Array(size).fill(CELL_SIZE_M);
  const terrain = buildTerrainModel(elevation, size, size, cellSizes, cellSizes);
  const sunTiles = planSunTiles(size, size, SUN_TILE_CELLS, { dx: cellSizes, dy: cellSizes }, elevation, () => ({ latitudeRad: LATITUDE_RAD, convergenceRad: 0 }));
  const tiling: RasterTiling = { width: size, height: size, tileWidth: size, tileHeight: size, across: 1, down: 1, count: 1 };
  return {
    terrain,
    layout: { directions: 32, nearSectors: 128, nearSteps: 16 },
    params: { stepMinutes: 15, linkeTurbidity: 3, albedo: 0.2 },
    sunTiles,
    tiles: planComputeTiles(tiling, SUN_TILE_CELLS, sunTiles, elevation),
    tileWidth: size,
    tileHeight: size,
    days: [DAY_OF_YEAR],
    months: [],
    flat: false,
    dailyGlobal: [DAY_OF_YEAR],
    dailyHours: [DAY_OF_YEAR],
    compression: tileCompression(),
    kernel: 'wasm',
    nearField: 'traced',
  };
}

/** Computes the made-up run's tile, its replies dropped. */
export function warmUp(): void {
  new TileRun(warmUpSetup(), () => {}).computeTile(0);
}
