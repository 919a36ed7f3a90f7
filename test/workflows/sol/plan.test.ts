import { test } from 'node:test';
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { rasterTiling } from '../../../src/raster/geotiff/writeGeoTiff.js';
import { checkedDays, parseDaySpec } from '../../../src/workflows/solarYear/days.js';
import { MIN_SHARED_COMPUTE_TILES, defaultComputeTileSize, planComputeTiles, planSunTiles, sunTileSize } from '../../../src/workflows/solarYear/tilePlan.js';
import { SINGLE_THREAD_CELL_DAYS, computesInThread, runThreads, runWorkerThreads } from '../../../src/workflows/solarYear/runThreads.js';
import { planSolarYear } from '../../../src/workflows/solarYear/plan.js';
import { readDem } from '../../../src/raster/index.js';
import { RAY_CELL_SIZE_ROWS, allocateTileHorizons, horizonBytesPerCell } from '../../../src/science/solar/tileHorizons.js';
import { nearSectorsFor } from '../../../src/science/solar/horizonBudget.js';
import { completeMonths } from '../../../src/workflows/solarYear/products.js';
import { utm13Grid } from '../../helpers/grids.js';

test('day lists: days and ranges, ascending without repeats; bad parts are named', () => {
  assert.deepEqual(parseDaySpec('1-3,2,10'), [1, 2, 3, 10]);
  assert.deepEqual(parseDaySpec(' 355 , 7 - 8 '), [7, 8, 355]);
  assert.equal(parseDaySpec('1-365').length, 365);
  assert.throws(() => parseDaySpec(''), /no days given/);
  assert.throws(() => parseDaySpec('366'), /day 366 in "366" is outside 1–365/);
  assert.throws(() => parseDaySpec('10-5'), /"10-5" runs backwards; write 5-10/);
  assert.throws(() => parseDaySpec('1;2'), /"1;2" is not a day or a range/);
  assert.throws(() => checkedDays([0]), /day of year 0 is outside 1–365/);
  assert.throws(() => checkedDays([1.5]), /1\.5/);
  assert.deepEqual(completeMonths(parseDaySpec('1-31,32-58,60-90')), [0, 2]);
});

test('sun tiles span at most 0.005° of latitude and come from a fixed set of sizes', () => {
  assert.equal(sunTileSize(10), 48);
  assert.equal(sunTileSize(2.5), 64);
  assert.equal(sunTileSize(30), 16);
  assert.equal(sunTileSize(90), 4);
  for (const cell of [0.2, 1, 5, 10, 20, 30, 90, 500]) assert.ok((sunTileSize(cell) * cell) / 111_320 <= 0.005 || sunTileSize(cell) === 4);
  // a cell's near-field rays take its sun tile's middle row's cell size: the candidates allow RAY_CELL_SIZE_ROWS rows
  for (const cell of [0.01, 0.2, 1, 10, 90]) assert.ok(sunTileSize(cell) / 2 <= RAY_CELL_SIZE_ROWS, `${cell} m`);
});

test('default compute tiles: multiples of the sun tile and of 16, at least 8 of them when the DEM allows; larger on large DEMs', () => {
  // mcn_10m: 3 × 3 tiles of 96 (two fifths of them padding) rather than 5 × 5 of 48; north62_20m: 3 × 3 of 96, not
  // of 128 with slivers of 14 cells at the edges (tilePlan.ts, PADDING_WEIGHT)
  assert.equal(defaultComputeTileSize(228, 211, 48), 96);
  assert.equal(defaultComputeTileSize(270, 270, 16), 96);
  assert.equal(defaultComputeTileSize(400, 400, 64), 192);
  // the far sweep's approach per tile weighs more on larger DEMs: fewer, larger tiles
  assert.equal(defaultComputeTileSize(912, 844, 64), 320);
  assert.equal(defaultComputeTileSize(10364, 9591, 64), 384);
  // ... while a tile's horizon arrays (as allocated) stay within 192 MiB per thread
  for (const directions of [128, 192, 256]) {
    const layout = { directions, nearSectors: nearSectorsFor(directions), nearSteps: 16 };
    const perCell = horizonBytesPerCell(layout);
    const arrays = allocateTileHorizons(layout, 10);
    assert.equal(Object.values(arrays).reduce((n: number, a) => n + (ArrayBuffer.isView(a) ? a.byteLength : 0), 0), 10 * perCell);
    const size = defaultComputeTileSize(10364, 9591, 64, perCell);
    assert.equal(size, directions === 256 ? 320 : 384, `N ${directions}`);
    assert.ok(size * size * perCell <= 192 * 1024 ** 2, `N ${directions}: ${size}`);
  }
  for (const [w, h, s] of [[228, 211, 48], [912, 844, 64], [5000, 300, 16], [40, 40, 48], [10364, 9591, 64]] as const) {
    const size = defaultComputeTileSize(w, h, s);
    assert.ok(size % 16 === 0 && size % s === 0 && size <= 384, `${w}×${h}: ${size}`);
    const count = Math.ceil(w / size) * Math.ceil(h / size);
    assert.ok(count >= 8 || (w === 40 && size === 48), `${w}×${h}: ${count} tiles of ${size}`);
  }
});

test('one thread on a whole run takes the fewest compute tiles; threads and the slices of a split job share at least 8', async () => {
  // a 270 × 270 DEM: one tile of 272 for one thread (no far-sweep approach to repeat), 3 × 3 of 96 when shared
  assert.equal(defaultComputeTileSize(270, 270, 16, 0, 1), 272);
  assert.equal(defaultComputeTileSize(270, 270, 16, 0, MIN_SHARED_COMPUTE_TILES), 96);
  // larger DEMs: the cost model's choice, whatever the minimum (tiles stay within 384 cells)
  assert.equal(defaultComputeTileSize(912, 844, 64, 0, 1), defaultComputeTileSize(912, 844, 64));
  assert.equal(defaultComputeTileSize(10364, 9591, 64, 0, 1), 384);
  const dem = await readDem(new URL('../../fixtures/oracle/fine/north62_20m.tif', import.meta.url).pathname, { precision: 'float32', shared: true });
  const params = { stepMinutes: 15, linkeTurbidity: 3, albedo: 0.2 };
  const plan = (threads: number, slice?: { index: number; count: number }) =>
    planSolarYear(dem, { days: [30], params, threads, outDir: '/nonexistent', ...(slice ? { slice } : {}) });
  const alone = plan(1);
  assert.equal(alone.tiles.length, 1);
  assert.equal(alone.tileSize, 272);
  assert.equal(alone.threads, 1);
  // (two threads only where the machine has two cores)
  if (availableParallelism() >= 2) assert.equal(plan(2).tiles.length, 9);
  // the slices of a split job deal the same tiles whatever each part's threads
  const sliced = plan(1, { index: 0, count: 4 });
  assert.equal(sliced.tiles.length, 9);
  assert.equal(sliced.tileSize, 96);
});

test('a run of few days traces its near field in every tile, whose horizons keep no near-field bounds per cell; a year is bounded', async () => {
  const dem = await readDem(new URL('../../fixtures/oracle/fine/north62_20m.tif', import.meta.url).pathname, { precision: 'float32', shared: true });
  const params = { stepMinutes: 15, linkeTurbidity: 3, albedo: 0.2 };
  const few = planSolarYear(dem, { days: [30, 80, 330], params, threads: 2, outDir: '/nonexistent' });
  assert.equal(few.setup.nearField, 'traced');
  const year = planSolarYear(dem, { params, threads: 2, outDir: '/nonexistent' });
  assert.equal(year.setup.nearField, 'bounded');
  const layout = few.setup.layout!;
  assert.deepEqual(year.setup.layout, layout);
  // a traced run's horizons take 2·K·2 bytes less per cell
  assert.equal(horizonBytesPerCell(layout, 'bounded') - horizonBytesPerCell(layout, 'traced'), 4 * layout.nearSectors);
  const traced = allocateTileHorizons(layout, 10, undefined, 'traced');
  assert.equal(Object.values(traced).reduce((n: number, a) => n + (ArrayBuffer.isView(a) ? a.byteLength : 0), 0), 10 * horizonBytesPerCell(layout, 'traced') + 4 * layout.nearSectors);
  // so with 256 far directions a few days' tiles of a large DEM are larger than a year's
  const perCell = (nearField: 'traced' | 'bounded') => horizonBytesPerCell({ directions: 256, nearSectors: 256, nearSteps: 16 }, nearField);
  assert.ok(defaultComputeTileSize(10364, 9591, 64, perCell('traced')) > defaultComputeTileSize(10364, 9591, 64, perCell('bounded')));
});

test('the sun-tile parts of every compute tile cover its cells exactly once; all-nodata sun tiles are skipped', () => {
  const width = 100;
  const height = 70;
  const elevation = new Float32Array(width * height).map((_, i) => 2000 + (i % 37));
  for (let r = 48; r < 70; r++) for (let c = 0; c < 48; c++) elevation[r * width + c] = NaN; // sun tile (1, 0) is empty
  const sizes = { dx: new Float64Array(height).fill(10), dy: new Float64Array(height).fill(10) };
  const sun = planSunTiles(width, height, 48, sizes, elevation, (col, row) => ({ latitudeRad: row / 1e4, convergenceRad: col / 1e5 }));
  assert.equal(sun.length, 3 * 2);
  assert.equal(sun[3], null);
  const first = sun[0]!;
  assert.equal(first.latitudeRad, 24 / 1e4);
  assert.ok(first.pressureRatioHalfRange > 0 && Math.abs(first.pressureRatioCentre - (Math.exp(-2000 / 8434.5) + Math.exp(-2036 / 8434.5)) / 2) < 1e-12);
  for (const tileSize of [16, 48, 80, 512]) {
    const tiling = rasterTiling({ ...utm13Grid(width, height), geoKeys: [] }, tileSize);
    const tiles = planComputeTiles(tiling, 48, sun, elevation);
    assert.equal(tiles.length, tiling.count);
    const covered = new Uint8Array(width * height);
    for (const tile of tiles) {
      let valid = 0;
      for (const part of tile.parts) {
        const s = sun[part.sun]!;
        assert.ok(part.rowStart >= Math.max(tile.rowStart, s.rowStart) && part.rowEnd <= Math.min(tile.rowEnd, s.rowEnd));
        assert.ok(part.colStart >= Math.max(tile.colStart, s.colStart) && part.colEnd <= Math.min(tile.colEnd, s.colEnd));
        for (let r = part.rowStart; r < part.rowEnd; r++) for (let c = part.colStart; c < part.colEnd; c++) covered[r * width + c]++;
      }
      for (let r = tile.rowStart; r < tile.rowEnd; r++) for (let c = tile.colStart; c < tile.colEnd; c++) if (!Number.isNaN(elevation[r * width + c]!)) valid++;
      assert.equal(tile.validCells, valid);
    }
    for (let i = 0; i < covered.length; i++) assert.equal(covered[i], Number.isNaN(elevation[i]!) ? 0 : 1, `cell ${i}, tiles of ${tileSize}`);
    // largest amount of work first
    for (let k = 1; k < tiles.length; k++) assert.ok(tiles[k - 1]!.validCells >= tiles[k]!.validCells);
  }
});

test('a small run takes one thread, whatever it asks for; a larger one, or one of more days, the threads it asks for', () => {
  // days 30, 80, 330 (the runs the limit was measured on): 100 × 100 and 130 × 130 cells on one thread (140 × 140
  // was even), 200 × 200 on all
  assert.equal(runThreads(2, 100 * 100, 3), 1);
  assert.equal(runThreads(8, 130 * 130, 3), 1);
  assert.equal(runThreads(2, 140 * 140, 3), 2);
  assert.equal(runThreads(2, 200 * 200, 3), 2);
  // the same 100 × 100 cells with 20 days, and a year, are shared
  assert.equal(runThreads(2, 100 * 100, 20), 2);
  assert.equal(runThreads(4, 100 * 100, 365), 4);
  // the limit is on the cells with data (a DEM mostly nodata is small), and one thread asked for stays one
  assert.equal(runThreads(2, Math.floor(SINGLE_THREAD_CELL_DAYS / 8) - 1, 3), 1);
  assert.equal(runThreads(1, 1000 * 1000, 365), 1);
  // a small run computes in the thread that runs it: no worker thread to start; a larger one on one thread starts one
  assert.equal(computesInThread(100 * 100, 3), true);
  assert.equal(computesInThread(140 * 140, 3), false);
  assert.equal(runWorkerThreads(2, 100 * 100, 3), 0);
  assert.equal(runWorkerThreads(1, 100 * 100, 3), 0);
  assert.equal(runWorkerThreads(2, 200 * 200, 3), 2);
  assert.equal(runWorkerThreads(1, 100 * 100, 365), 1);
});
