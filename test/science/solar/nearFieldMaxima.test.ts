/**
 * The quadrant maxima of the near field (nearFieldMaxima.ts), on which the compiled kernel ends its traces early:
 * the running maxima equal the boxes' maxima found cell by cell (nodata, the window's edges, reaches of 0 and
 * beyond the window), and every near-field ray lies in the quadrant its offsets' signs name, within the reach.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allocateNearFieldRay, nearFieldReach, nearFieldSteps } from '../../../src/science/solar/horizon.js';
import { NEAR_QUADRANTS, nearMaximaScratch, nearQuadrantMaxima, nearQuadrantMaximum, quadrantOfSigns } from '../../../src/science/solar/nearFieldMaxima.js';
import { random } from '../../helpers/syntheticTerrain.js';

test('the running quadrant maxima equal the maxima of each box', () => {
  const next = random(7);
  const width = 37;
  const rows = 29;
  const elevation = new Float32Array(width * rows).map(() => (next() < 0.08 ? NaN : Math.round(1000 * next()) / 4));
  // a column of nodata and a row of nodata: boxes along them hold no valid cell
  for (let r = 0; r < rows; r++) elevation[r * width] = NaN;
  elevation.fill(NaN, 0, width);
  const window = { elevation, rowStart: 100, colStart: 200, width, rows };
  const scratch = nearMaximaScratch();
  let checked = 0;
  let empty = 0;
  for (const tile of [
    { rowStart: 105, rowEnd: 120, colStart: 207, colEnd: 230 },
    { rowStart: 100, rowEnd: 129, colStart: 200, colEnd: 237 },
    { rowStart: 128, rowEnd: 129, colStart: 236, colEnd: 237 },
  ]) {
    for (const [reachRows, reachCols] of [
      [0, 0],
      [3, 5],
      [7, 2],
      [40, 60],
    ] as const) {
      const tileWidth = tile.colEnd - tile.colStart;
      const out = new Float32Array(tileWidth * (tile.rowEnd - tile.rowStart) * NEAR_QUADRANTS).fill(12345);
      nearQuadrantMaxima(window, tile, reachRows, reachCols, out, scratch);
      for (let row = tile.rowStart; row < tile.rowEnd; row++) {
        for (let col = tile.colStart; col < tile.colEnd; col++) {
          for (let q = 0; q < NEAR_QUADRANTS; q++) {
            const expected = nearQuadrantMaximum(window, row, col, q, reachRows, reachCols);
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
  assert.throws(() => nearQuadrantMaxima(window, { rowStart: 99, rowEnd: 110, colStart: 200, colEnd: 210 }, 1, 1, new Float32Array(4000)), /outside the elevation window/);
});

test('the box of a quadrant holds its own cell and the cells toward its two sides', () => {
  // 3 × 3 window, values 1 … 9 row by row (north-west 1, south-east 9): the quadrants of the centre with reach 1
  const window = { elevation: Float32Array.from({ length: 9 }, (_, i) => i + 1), rowStart: 0, colStart: 0, width: 3, rows: 3 };
  assert.deepEqual(
    [0, 1, 2, 3].map((q) => nearQuadrantMaximum(window, 1, 1, q, 1, 1)),
    [5, 6, 8, 9],
  );
  const out = new Float32Array(4);
  nearQuadrantMaxima(window, { rowStart: 1, rowEnd: 2, colStart: 1, colEnd: 2 }, 1, 1, out);
  assert.deepEqual([...out], [5, 6, 8, 9]);
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
