/**
 * The quadrant maxima of the near field (nearFieldMaxima.ts), on which the compiled kernel ends its traces early:
 * the kernel's running maxima (assembly/nearMaxima.ts) equal the boxes' maxima found cell by cell (nodata, tiles at
 * the grid's edges and corners, reaches of 0 and beyond the grid), and every near-field ray lies in the quadrant
 * its offsets' signs name, within the reach.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allocateNearFieldRay, nearFieldReach, nearFieldSteps } from '../../../src/science/solar/horizon.js';
import { sampleCapacity } from '../../../src/science/solar/dailyKernel.js';
import { WasmDailyKernel } from '../../../src/science/solar/dailyKernelWasm.js';
import { NEAR_QUADRANTS, nearQuadrantMaximum, quadrantOfSigns } from '../../../src/science/solar/nearFieldMaxima.js';
import { buildTerrainModel } from '../../../src/science/solar/terrainModel.js';
import { random } from '../../helpers/syntheticTerrain.js';

test("the kernel's quadrant maxima equal the maxima of each box", () => {
  const next = random(7);
  const width = 37;
  const height = 29;
  const elevation = new Float32Array(width * height).map(() => (next() < 0.08 ? NaN : Math.round(1000 * next()) / 4));
  // a column of nodata and a row of nodata: boxes along them hold no valid cell
  for (let r = 0; r < height; r++) elevation[r * width] = NaN;
  elevation.fill(NaN, 0, width);
  const model = buildTerrainModel(elevation, width, height, new Float64Array(height).fill(10), new Float64Array(height).fill(10));
  const kernel = new WasmDailyKernel({ directions: 32, nearSectors: 128, nearSteps: 8 }, sampleCapacity(15));
  let checked = 0;
  let empty = 0;
  for (const tile of [
    { rowStart: 5, rowEnd: 20, colStart: 7, colEnd: 30 },
    { rowStart: 0, rowEnd: height, colStart: 0, colEnd: width },
    { rowStart: 28, rowEnd: 29, colStart: 36, colEnd: 37 },
    { rowStart: 3, rowEnd: 9, colStart: 0, colEnd: 4 },
  ]) {
    for (const [reachRows, reachCols] of [
      [0, 0],
      [3, 5],
      [7, 2],
      [40, 60],
    ] as const) {
      const tileWidth = tile.colEnd - tile.colStart;
      kernel.reserve(tileWidth * (tile.rowEnd - tile.rowStart), width * height);
      kernel.nearMaxima!.fill(12345);
      kernel.loadElevationWindow(model, tile, reachRows, reachCols);
      const out = kernel.nearMaxima!;
      for (let row = tile.rowStart; row < tile.rowEnd; row++) {
        for (let col = tile.colStart; col < tile.colEnd; col++) {
          for (let q = 0; q < NEAR_QUADRANTS; q++) {
            const expected = nearQuadrantMaximum(model, row, col, q, reachRows, reachCols);
            const found = out[((row - tile.rowStart) * tileWidth + (col - tile.colStart)) * NEAR_QUADRANTS + q]!;
            assert.equal(found, expected, `tile ${JSON.stringify(tile)}, reach ${reachRows}/${reachCols}, cell ${row}/${col}, quadrant ${q}`);
            if (expected === -Infinity) empty++;
            checked++;
          }
        }
      }
    }
  }
  assert.ok(checked > 20_000 && empty > 0, `${checked} maxima checked, ${empty} of boxes without a valid cell`);
});

test('the box of a quadrant holds its own cell and the cells toward its two sides', () => {
  // 3 × 3 grid, values 1 … 9 row by row (north-west 1, south-east 9): the quadrants of the centre with reach 1
  const elevation = Float32Array.from({ length: 9 }, (_, i) => i + 1);
  const model = buildTerrainModel(elevation, 3, 3, new Float64Array(3).fill(1), new Float64Array(3).fill(1));
  assert.deepEqual(
    [0, 1, 2, 3].map((q) => nearQuadrantMaximum(model, 1, 1, q, 1, 1)),
    [5, 6, 8, 9],
  );
  const kernel = new WasmDailyKernel({ directions: 32, nearSectors: 128, nearSteps: 1 }, sampleCapacity(15));
  kernel.reserve(1, 9);
  kernel.loadElevationWindow(model, { rowStart: 1, rowEnd: 2, colStart: 1, colEnd: 2 }, 1, 1);
  assert.deepEqual([...kernel.nearMaxima!.subarray(0, 4)], [5, 6, 8, 9]);
});

test('every near-field ray lies in the quadrant of its offsets, within the reach', () => {
  const ray = allocateNearFieldRay(64);
  let axisRays = 0;
  for (const [dx, dy, steps] of [
    [10, 10, 16],
    [4, 10, 24],
    [20, 20, 48],
    [30.87, 18.5, 64],
  ] as const) {
    const reach = nearFieldReach(dx, dy, steps);
    for (let a = 0; a < 720; a++) {
      const azimuth = (a / 720) * 2 * Math.PI;
      const cells = nearFieldSteps(dx, dy, azimuth, steps, ray);
      let signs = 0;
      for (let j = 0; j < cells; j++) {
        const c = ray.colOffset[j]!;
        const r = ray.rowOffset[j]!;
        signs |= (c < 0 ? 1 : c > 0 ? 2 : 0) | (r < 0 ? 4 : r > 0 ? 8 : 0);
        assert.ok(Math.abs(c) <= reach.cols && Math.abs(r) <= reach.rows, `offset ${r}/${c} beyond the reach ${reach.rows}/${reach.cols}`);
      }
      const q = quadrantOfSigns(signs);
      assert.notEqual(q, -1, `azimuth ${a / 2}°: the ray's offsets change sign`);
      // the quadrant's box holds every cell of the ray
      for (let j = 0; j < cells; j++) {
        const c = ray.colOffset[j]!;
        const r = ray.rowOffset[j]!;
        assert.ok((q % 2 === 1 ? c >= 0 : c <= 0) && (q >= 2 ? r >= 0 : r <= 0), `azimuth ${a / 2}°: cell ${r}/${c} outside quadrant ${q}`);
      }
      // and lies toward the sun: rows grow southward, columns eastward (grid azimuth from grid north, clockwise)
      if (signs & 3) assert.equal((signs & 2) !== 0, Math.sin(azimuth) > 0, `azimuth ${a / 2}°: east/west`);
      else axisRays++;
      if (signs & 12) assert.equal((signs & 8) !== 0, Math.cos(azimuth) < 0, `azimuth ${a / 2}°: north/south`);
    }
  }
  assert.ok(axisRays > 0);
  assert.equal(quadrantOfSigns(1 | 2), -1);
  assert.equal(quadrantOfSigns(4 | 8 | 2), -1);
  assert.equal(quadrantOfSigns(0), 0);
});
