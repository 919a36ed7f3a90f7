/**
 * The near-field bounds compiled to WebAssembly (assembly/nearBounds.ts via nearHorizonBoundsWasm.ts) equal the
 * TypeScript bounds to the bit: on every cell of grids with nodata inside and at the edge, square and elongated
 * cells, an odd number of sectors, with and without a sector selection; one instance does everything in turn
 * (windows, candidate lists and selections replaced as the rows, spans and grids change), and through
 * `tileHorizons` the compiled tracer fills the same horizon arrays as the TypeScript one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nearCandidates, nearHorizonBounds, nearScratchLength, selectSectors, type NearCandidates, type SectorSelection } from '../../../src/science/solar/nearHorizonBounds.js';
import { WasmNearBounds } from '../../../src/science/solar/nearHorizonBoundsWasm.js';
import { surfaceTerms } from '../../../src/science/solar/surface.js';
import { buildTerrainModel, type TerrainModel } from '../../../src/science/solar/terrainModel.js';
import { allocateTileHorizons, horizonTracer, sectorMasks, tileHorizons, type CellBlock } from '../../../src/science/solar/tileHorizons.js';
import { hornGradientOfBlock } from '../../../src/science/terrain/slopeAspect.js';

function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

function grid(width: number, height: number, dx: number, dy: number, seed: number): TerrainModel {
  const next = random(seed);
  const z = new Float32Array(width * height);
  for (let r = 0; r < height; r++) {
    for (let c = 0; c < width; c++) z[r * width + c] = 800 + 40 * Math.sin(c / 6) * Math.cos(r / 9) + 3 * c - 2 * r + 12 * next();
  }
  // nodata at the edge, inside, and a block of it
  for (const cell of [0, 3 * width + 2, 20 * width + 31, 33 * width + 40, (height - 1) * width + width - 1]) z[cell] = NaN;
  for (let r = 40; r < 44; r++) for (let c = 10; c < 15; c++) z[r * width + c] = NaN;
  return buildTerrainModel(z, width, height, new Float64Array(height).fill(dx), new Float64Array(height).fill(dy));
}

/** The TypeScript bounds of a row segment, laid out as `boundsOfRow` lays them. */
function typescriptRow(model: TerrainModel, row: number, colStart: number, colEnd: number, candidates: NearCandidates, selection: SectorSelection | null) {
  const k = candidates.sectors;
  const upper = new Int16Array((colEnd - colStart) * k);
  const lower = new Int16Array((colEnd - colStart) * k);
  const scratch = new Float64Array(nearScratchLength(candidates));
  for (let col = colStart; col < colEnd; col++) {
    nearHorizonBounds(model.elevation, model.width, model.height, row, col, candidates, upper, lower, (col - colStart) * k, scratch, selection);
  }
  return { upper, lower };
}

test('compiled near-field bounds equal the TypeScript bounds on every cell, one instance across grids, spans and selections', () => {
  const compiled = new WasmNearBounds();
  const cases = [
    { dx: 10, dy: 10, sectors: 64, steps: 8 },
    { dx: 5, dy: 12, sectors: 48, steps: 6 },
    { dx: 10, dy: 10, sectors: 45, steps: 7 },
    // a long near field with the margin of rays traced with other cell sizes: along the grid's edge a step's
    // candidates leave it and later steps' come back in
    { dx: 8, dy: 8, sectors: 128, steps: 20, slack: 0.03 },
  ] as const;
  let compared = 0;
  cases.forEach((layout, n) => {
    const { dx, dy, sectors, steps } = layout;
    const model = grid(60, 50, dx, dy, 11 + n);
    const candidates = nearCandidates(dx, dy, sectors, steps, model.width, 'slack' in layout ? layout.slack : 0);
    // every third sector left out: pairs with one sector selected, pairs with both, pairs with none
    const some = selectSectors(candidates, new Uint8Array(sectors).map((_, k) => (k % 3 === 1 || k % 7 === 5 ? 0 : 1)));
    for (const selection of [null, some, null]) {
      // whole rows, then segments of different spans in an order that moves the window up and down
      const segments: [number, number, number][] = [];
      for (let row = 0; row < model.height; row++) segments.push([row, 0, model.width]);
      for (const row of [45, 2, 30, 49, 0, 17]) segments.push([row, 7, 29], [row, 40, 60], [row, 0, 1]);
      for (const [row, colStart, colEnd] of segments) {
        const expected = typescriptRow(model, row, colStart, colEnd, candidates, selection);
        const cells = (colEnd - colStart) * sectors;
        const upper = new Int16Array(cells + 2 * sectors).fill(7);
        const lower = new Int16Array(cells + 2 * sectors).fill(7);
        compiled.boundsOfRow(model, row, colStart, colEnd, candidates, selection, upper, lower, sectors);
        assert.deepEqual(upper.subarray(sectors, sectors + cells), expected.upper, `upper, row ${row} cols ${colStart}…${colEnd} (${dx} × ${dy} m, K ${sectors})`);
        assert.deepEqual(lower.subarray(sectors, sectors + cells), expected.lower, `lower, row ${row} cols ${colStart}…${colEnd} (${dx} × ${dy} m, K ${sectors})`);
        // nothing written outside its place
        assert.ok(upper.subarray(0, sectors).every((v) => v === 7) && upper.subarray(sectors + cells).every((v) => v === 7));
        compared += cells;
      }
    }
  });
  assert.ok(compared > 100_000, `${compared} bounds compared`);
});

test('the compiled bounds refuse a selection of other candidates and cells outside the grid', () => {
  const model = grid(60, 50, 10, 10, 3);
  const candidates = nearCandidates(10, 10, 32, 5, model.width);
  const other = selectSectors(nearCandidates(10, 10, 32, 5, model.width), new Uint8Array(32).fill(1));
  const out = new Int16Array(60 * 32);
  const compiled = new WasmNearBounds();
  assert.throws(() => compiled.boundsOfRow(model, 3, 0, 10, candidates, other, out, out, 0), /other candidates/);
  assert.throws(() => compiled.boundsOfRow(model, 50, 0, 10, candidates, null, out, out, 0), /not in the grid/);
  assert.throws(() => compiled.boundsOfRow(model, 3, 55, 61, candidates, null, out, out, 0), /not in the grid/);
});

test('a tracer with the compiled bounds fills the same tile horizons as the TypeScript tracer', () => {
  const model = grid(60, 50, 10, 10, 7);
  const layout = { directions: 32, nearSectors: 64, nearSteps: 8 };
  const compiledTracer = horizonTracer(model, layout, new WasmNearBounds());
  const typescriptTracer = horizonTracer(model, layout);
  const masks = sectorMasks(layout, new Uint8Array(32).map((_, k) => (k >= 8 && k < 25 ? 1 : 0)));
  for (const block of [
    { rowStart: 5, rowEnd: 30, colStart: 12, colEnd: 50 },
    { rowStart: 38, rowEnd: 50, colStart: 0, colEnd: 21 },
  ] satisfies CellBlock[]) {
    const width = block.colEnd - block.colStart;
    const cells = width * (block.rowEnd - block.rowStart);
    const z = new Float64Array(cells);
    for (let r = block.rowStart; r < block.rowEnd; r++) for (let c = block.colStart; c < block.colEnd; c++) z[(r - block.rowStart) * width + c - block.colStart] = model.elevation[r * model.width + c]!;
    const gradient = { fallEast: new Float64Array(cells), fallNorth: new Float64Array(cells) };
    hornGradientOfBlock(model.elevation, model.width, model.height, block, model.cellSizeX, model.cellSizeY, gradient);
    const surface = surfaceTerms(z, gradient.fallEast, gradient.fallNorth);
    for (const m of [null, masks]) {
      const fromCompiled = allocateTileHorizons(layout, cells);
      const fromTypescript = allocateTileHorizons(layout, cells);
      tileHorizons(compiledTracer, block, surface, fromCompiled, m);
      tileHorizons(typescriptTracer, block, surface, fromTypescript, m);
      assert.deepEqual(fromCompiled, fromTypescript);
      assert.ok(fromCompiled.nearLower.some((v) => v > -2000), 'some lower bounds informative');
    }
  }
});
