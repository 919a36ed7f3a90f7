/**
 * The Horn gradient the compiled kernel takes from its elevation window (assembly/hornGradient.ts, through
 * `WasmDailyKernel.hornGradientOfWindow`) is `hornGradientOfBlock`'s to the bit: tiles inside the grid, at its
 * edges and corners, with nodata cells alone, in pairs across a cell (both of a cardinal or a diagonal pair missing)
 * and along the grid's edge, on cells whose size changes from row to row. One kernel takes the tiles in turn.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WasmDailyKernel } from '../../../src/science/solar/dailyKernelWasm.js';
import { buildTerrainModel } from '../../../src/science/solar/terrainModel.js';
import { hornGradientOfBlock } from '../../../src/science/terrain/slopeAspect.js';

const WIDTH = 70;
const HEIGHT = 53;

function terrain(): Float32Array {
  const z = new Float32Array(WIDTH * HEIGHT);
  for (let r = 0; r < HEIGHT; r++) {
    for (let c = 0; c < WIDTH; c++) z[r * WIDTH + c] = 900 + 40 * Math.sin(c / 5) * Math.cos(r / 7) + 3 * c - 1.5 * r + ((r * 31 + c * 17) % 11) / 7;
  }
  const holes: [number, number][] = [
    [10, 10], // alone
    [20, 29], [20, 31], // both of a cell's west and east neighbours
    [30, 40], [32, 40], // north and south
    [40, 8], [42, 10], // a diagonal pair
    [5, 50], [7, 48], // the other diagonal
    [0, 20], [0, 21], [1, 0], [HEIGHT - 1, WIDTH - 1], [HEIGHT - 2, WIDTH - 1], // along the edges
  ];
  for (const [r, c] of holes) z[r * WIDTH + c] = NaN;
  return z;
}

test('the compiled Horn gradient of a tile is hornGradientOfBlock’s to the bit', () => {
  const elevation = terrain();
  // cells that narrow toward the north, as on a geographic grid
  const dx = Float64Array.from({ length: HEIGHT }, (_, r) => 20 * Math.cos((45 + (HEIGHT - r) * 0.01) * (Math.PI / 180)));
  const dy = new Float64Array(HEIGHT).fill(20.3);
  const model = buildTerrainModel(elevation, WIDTH, HEIGHT, dx, dy);
  const layout = { directions: 32, nearSectors: 128, nearSteps: 16 };
  const kernel = new WasmDailyKernel(layout, 100, false, 'traced');
  const tiles = [
    { rowStart: 16, rowEnd: 36, colStart: 16, colEnd: 48 },
    { rowStart: 0, rowEnd: 16, colStart: 0, colEnd: 32 },
    { rowStart: 32, rowEnd: HEIGHT, colStart: 48, colEnd: WIDTH },
    { rowStart: 0, rowEnd: 24, colStart: 32, colEnd: WIDTH },
    { rowStart: 0, rowEnd: HEIGHT, colStart: 0, colEnd: WIDTH },
  ];
  let nanCells = 0;
  for (const [margin, tile] of tiles.flatMap((t) => [1, 3].map((m) => [m, t] as const))) {
    const cells = (tile.rowEnd - tile.rowStart) * (tile.colEnd - tile.colStart);
    kernel.reserve(cells, (tile.rowEnd - tile.rowStart + 2 * margin) * (tile.colEnd - tile.colStart + 2 * margin));
    kernel.loadElevationWindow(model, tile, margin, margin);
    const compiled = kernel.hornGradientOfWindow(model);
    assert.ok(compiled, `a window with margins of ${margin} covers the neighbours`);
    const expected = { fallEast: new Float64Array(cells), fallNorth: new Float64Array(cells) };
    hornGradientOfBlock(elevation, WIDTH, HEIGHT, tile, dx, dy, expected);
    assert.deepEqual(Array.from(compiled.fallEast), Array.from(expected.fallEast), `fall east of ${JSON.stringify(tile)}`);
    assert.deepEqual(Array.from(compiled.fallNorth), Array.from(expected.fallNorth), `fall north of ${JSON.stringify(tile)}`);
    nanCells += expected.fallEast.filter(Number.isNaN).length;
  }
  assert.ok(nanCells > 0, 'nodata cells were among them');
});

test('a window without a cell of margin gives no compiled gradient', () => {
  const model = buildTerrainModel(terrain(), WIDTH, HEIGHT, new Float64Array(HEIGHT).fill(10), new Float64Array(HEIGHT).fill(10));
  const kernel = new WasmDailyKernel({ directions: 32, nearSectors: 128, nearSteps: 16 }, 100, false, 'traced');
  const tile = { rowStart: 16, rowEnd: 32, colStart: 16, colEnd: 32 };
  kernel.reserve(256, 256);
  kernel.loadElevationWindow(model, tile, 0, 0);
  assert.equal(kernel.hornGradientOfWindow(model), null);
});
