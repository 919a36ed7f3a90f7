/**
 * The surface terms the compiled kernel takes from its elevation window and Horn gradient (assembly/surfaceTerms.ts,
 * through `WasmDailyKernel.surfaceTermsOfWindow`) are `surfaceTerms`'s to the bit: slopes from flat (r.sun's
 * horizontal case) to cliffs, nodata cells and their neighbours, tiles inside the grid and at its edges. One kernel
 * takes the tiles in turn, so each tile's terms also replace the last one's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WasmDailyKernel } from '../../../src/science/solar/dailyKernelWasm.js';
import { surfaceTerms, type SurfaceTerms } from '../../../src/science/solar/surface.js';
import { buildTerrainModel, copyElevations } from '../../../src/science/solar/terrainModel.js';

const WIDTH = 61;
const HEIGHT = 47;
const FIELDS = ['valid', 'inclined', 'normalEast', 'normalNorth', 'normalUp', 'skyView', 'muneerSlope', 'shadedDiffuseFactor', 'groundView', 'pressureRatio'] as const;

function terrain(): Float32Array {
  const z = new Float32Array(WIDTH * HEIGHT);
  for (let r = 0; r < HEIGHT; r++) {
    for (let c = 0; c < WIDTH; c++) {
      // a flat plateau (exactly horizontal cells), gentle slopes, and a cliff of 400 m over three columns
      const plateau = r < 12 && c < 15;
      z[r * WIDTH + c] = plateau ? 1250 : 900 + 35 * Math.sin(c / 4) * Math.cos(r / 6) + 2.5 * c - r + (c > 40 && c < 44 ? 130 * (c - 40) : c >= 44 ? 400 : 0);
    }
  }
  for (const [r, c] of [[20, 20], [21, 22], [30, 5], [0, 33], [HEIGHT - 1, 0], [25, WIDTH - 1]] as const) z[r * WIDTH + c] = NaN;
  return z;
}

test('the compiled surface terms of a tile are surfaceTerms’s to the bit', () => {
  const elevation = terrain();
  const dx = Float64Array.from({ length: HEIGHT }, (_, r) => 10 * Math.cos((60 + (HEIGHT - r) * 0.01) * (Math.PI / 180)));
  const dy = new Float64Array(HEIGHT).fill(10.1);
  const model = buildTerrainModel(elevation, WIDTH, HEIGHT, dx, dy);
  const kernel = new WasmDailyKernel({ directions: 32, nearSectors: 128, nearSteps: 16 }, 100, false, 'traced');
  const tiles = [
    { rowStart: 0, rowEnd: HEIGHT, colStart: 0, colEnd: WIDTH },
    { rowStart: 16, rowEnd: 32, colStart: 16, colEnd: 48 },
    { rowStart: 0, rowEnd: 16, colStart: 0, colEnd: 32 },
    { rowStart: 32, rowEnd: HEIGHT, colStart: 32, colEnd: WIDTH },
  ];
  const seen = { invalid: 0, flat: 0, steep: 0 };
  for (const tile of tiles) {
    const cells = (tile.rowEnd - tile.rowStart) * (tile.colEnd - tile.colStart);
    kernel.reserve(cells, (tile.rowEnd - tile.rowStart + 4) * (tile.colEnd - tile.colStart + 4));
    kernel.loadElevationWindow(model, tile, 2, 2);
    const gradient = kernel.hornGradientOfWindow(model);
    assert.ok(gradient);
    const tileElevation = new Float64Array(cells);
    copyElevations(model, tile, tileElevation);
    const expected: SurfaceTerms = surfaceTerms(tileElevation, Float64Array.from(gradient.fallEast), Float64Array.from(gradient.fallNorth));
    const compiled = kernel.surfaceTermsOfWindow(gradient);
    assert.equal(compiled.cellCount, cells);
    for (const field of FIELDS) assert.deepEqual(Array.from(compiled[field]), Array.from(expected[field]), `${field} of ${JSON.stringify(tile)}`);
    seen.invalid += expected.valid.filter((v) => v === 0).length;
    seen.flat += expected.valid.filter((v, i) => v === 1 && expected.inclined[i] === 0).length;
    seen.steep += expected.normalUp.filter((u) => u > 0 && u < Math.cos((70 * Math.PI) / 180)).length;
  }
  assert.ok(seen.invalid > 0 && seen.flat > 0 && seen.steep > 0, `nodata, flat and steep cells among them: ${JSON.stringify(seen)}`);
});

test('surface terms need the gradient of the loaded window', () => {
  const model = buildTerrainModel(terrain(), WIDTH, HEIGHT, new Float64Array(HEIGHT).fill(10), new Float64Array(HEIGHT).fill(10));
  const kernel = new WasmDailyKernel({ directions: 32, nearSectors: 128, nearSteps: 16 }, 100, false, 'traced');
  kernel.reserve(256, 400);
  kernel.loadElevationWindow(model, { rowStart: 16, rowEnd: 32, colStart: 16, colEnd: 32 }, 2, 2);
  assert.throws(() => kernel.surfaceTermsOfWindow({ fallEast: new Float64Array(256), fallNorth: new Float64Array(256) }), /hornGradientOfWindow/);
});
