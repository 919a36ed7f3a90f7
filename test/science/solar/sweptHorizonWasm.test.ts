/**
 * The far-field sweep compiled to WebAssembly (assembly/farSweep.ts via sweptHorizonWasm.ts) equals the TypeScript
 * sweep to the bit: on blocks inside grids, at their edges and corners and covering a whole grid, with nodata
 * inside, at the edge and in blocks; square and elongated cells; rows of different cell sizes (a geographic grid,
 * swept band by band); every number of directions and a selection of them; near fields of 0 to 32 steps; the
 * distant terrain simplified from the engine's distance, from a few cells (every pyramid level in use, the last one
 * capping the spans) and never. The compiled sweep's minima of each group of directions equal those of the
 * TypeScript horizons. One instance does everything in turn, so its memory is laid out again and its windows
 * replaced as blocks, grids and layouts change.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_HORIZON_UNITS } from '../../../src/science/solar/horizon.js';
import { sweepScratch, sweptFarHorizons, type SweepOptions } from '../../../src/science/solar/sweptHorizon.js';
import { WasmFarSweep } from '../../../src/science/solar/sweptHorizonWasm.js';
import { buildTerrainModel, type CellBlock, type TerrainModel } from '../../../src/science/solar/terrainModel.js';
import { random } from '../../helpers/syntheticTerrain.js';

/** Rough terrain with ridges, noise and nodata; `cellSizeY(row)` lets rows differ (a geographic grid). */
function rough(width: number, height: number, seed: number, dx: number, cellSizeY: (row: number) => number): TerrainModel {
  const next = random(seed);
  const z = new Float32Array(width * height);
  for (let r = 0; r < height; r++) {
    for (let c = 0; c < width; c++) z[r * width + c] = 900 + 120 * Math.sin(c / 11) * Math.cos(r / 17) + 0.8 * c - 0.5 * r + 30 * next() ** 3;
  }
  for (const cell of [0, width - 1, 5 * width + 7, Math.floor(height / 2) * width + Math.floor(width / 3), height * width - 1]) z[cell] = NaN;
  for (let r = 12; r < 17; r++) for (let c = 20; c < 26; c++) z[r * width + c] = NaN;
  const cellSizeX = new Float64Array(height).fill(dx);
  const rowSizes = Float64Array.from({ length: height }, (_, row) => cellSizeY(row));
  return buildTerrainModel(z, width, height, cellSizeX, rowSizes);
}

/** Each cell's least horizon over the needed directions g·r … (g + 1)·r (the last one N ≡ 0) of each group g, from `far`. */
function groupMinima(far: Int16Array, directions: number, r: number, needed: Uint8Array | null | undefined): Int16Array {
  const groups = directions / r;
  const cells = far.length / directions;
  const minima = new Int16Array(cells * groups).fill(MAX_HORIZON_UNITS);
  for (let cell = 0; cell < cells; cell++) {
    for (let g = 0; g < groups; g++) {
      for (let k = g * r; k <= (g + 1) * r; k++) {
        const d = k % directions;
        if (!needed || needed[d] === 1) minima[cell * groups + g] = Math.min(minima[cell * groups + g]!, far[cell * directions + d]!);
      }
    }
  }
  return minima;
}

/** The TypeScript and the compiled sweep of `block`; the compiled one also keeps its group minima (groups of r directions). */
function bothSweeps(model: TerrainModel, block: CellBlock, directions: number, nearSteps: number, options: SweepOptions, compiled: WasmFarSweep, r = 1) {
  const values = (block.rowEnd - block.rowStart) * (block.colEnd - block.colStart) * directions;
  const expected = new Int16Array(values).fill(11);
  const actual = new Int16Array(values).fill(13);
  const minima = new Int16Array(values / r).fill(17);
  sweptFarHorizons(model, block, directions, nearSteps, expected, sweepScratch(), options);
  sweptFarHorizons(model, block, directions, nearSteps, actual, sweepScratch(), { ...options, compiled, groupDark: { perGroup: r, out: minima } });
  return { expected, actual, minima, expectedMinima: groupMinima(expected, directions, r, options.needed) };
}

test('the compiled far-field sweep equals the TypeScript sweep to the bit, and keeps each group\'s least horizon, one instance across grids, blocks, layouts and simplifications', () => {
  const compiled = new WasmFarSweep();
  const square = rough(150, 120, 3, 10, () => 10);
  const elongated = rough(90, 140, 5, 30, () => 12);
  // cell sizes shrinking northward as on a geographic grid: several bands of rows
  const geographic = rough(100, 110, 7, 25, (row) => 25 * (1 + 0.004 * (110 - row)));
  const blocks = (model: TerrainModel): CellBlock[] => [
    { rowStart: 40, rowEnd: 72, colStart: 50, colEnd: 90 },
    { rowStart: 0, rowEnd: 16, colStart: 0, colEnd: 16 },
    { rowStart: model.height - 20, rowEnd: model.height, colStart: model.width - 33, colEnd: model.width },
    { rowStart: 0, rowEnd: model.height, colStart: 0, colEnd: model.width },
    { rowStart: 9, rowEnd: 30, colStart: model.width - 5, colEnd: model.width },
  ];
  const selection = (directions: number) => Uint8Array.from({ length: directions }, (_, k) => (k % 5 === 2 || k % 7 === 0 ? 0 : 1));
  const cases: { model: TerrainModel; directions: number; nearSteps: number; options: SweepOptions }[] = [
    { model: square, directions: 64, nearSteps: 16, options: {} },
    { model: square, directions: 37, nearSteps: 0, options: { needed: selection(37) } },
    { model: square, directions: 48, nearSteps: 8, options: { simplifiedFromCells: 4 } },
    { model: elongated, directions: 32, nearSteps: 32, options: { simplifiedFromCells: 2 } },
    { model: elongated, directions: 96, nearSteps: 4, options: { simplifiedFromCells: Infinity, needed: selection(96) } },
    { model: geographic, directions: 64, nearSteps: 16, options: { simplifiedFromCells: 3 } },
    { model: geographic, directions: 40, nearSteps: 6, options: {} },
  ];
  let compared = 0;
  let sweeps = 0;
  for (const { model, directions, nearSteps, options } of cases) {
    // groups of one direction, and of the most that divide N (as the engine takes them)
    const r = [8, 4, 2, 1].find((size) => directions % size === 0)!;
    for (const block of blocks(model)) {
      const { expected, actual, minima, expectedMinima } = bothSweeps(model, block, directions, nearSteps, options, compiled, sweeps++ % 2 === 0 ? r : 1);
      const what = `${model.width} × ${model.height}, block ${JSON.stringify(block)}, N ${directions}, n ${nearSteps}, ${JSON.stringify(options)}`;
      assert.deepEqual(actual, expected, what);
      assert.deepEqual(minima, expectedMinima, `group minima, ${what}`);
      compared += expected.length;
    }
  }
  assert.ok(compared > 3_000_000, `${compared} horizons compared`);
});

test('with distant terrain simplified from a few cells the compiled sweep reads every pyramid level, and still equals the TypeScript sweep', () => {
  // a long grid: spans of 2^ℓ cells up to the last level, which caps them
  const model = rough(700, 40, 9, 5, () => 5);
  const block = { rowStart: 10, rowEnd: 30, colStart: 640, colEnd: 680 };
  const compiled = new WasmFarSweep();
  const { expected, actual } = bothSweeps(model, block, 32, 16, { simplifiedFromCells: 2 }, compiled);
  assert.deepEqual(actual, expected);
  // the simplification changed horizons (so its pyramid reads are what is compared)
  const full = bothSweeps(model, block, 32, 16, { simplifiedFromCells: Infinity }, compiled);
  assert.deepEqual(full.actual, full.expected);
  let moved = 0;
  for (let i = 0; i < expected.length; i++) if (expected[i] !== full.expected[i]) moved++;
  assert.ok(moved > expected.length / 50, `${moved} of ${expected.length} horizons moved by the simplification`);
});
