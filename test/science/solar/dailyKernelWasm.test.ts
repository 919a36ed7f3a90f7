/**
 * The WebAssembly daily kernel (assembly/dailyKernel.ts via dailyKernelWasm.ts) gives the TypeScript kernel's
 * outputs to the bit: on tiles inside the grid (rays crossing the elevation window's edge) and at its edge, with
 * two sun geometries per tile, nodata cells, level cells beside inclined ones, square and elongated cells, polar day, batches of days of every season
 * and of consecutive days (whose sun's path spans few sectors: the kernel's lit bound of the batch), and without terrain; one
 * kernel instance does the tiles in turn, so nothing of a tile may leak into the next. A kernel made to give the beam
 * part of the global irradiation (EEMT's real-sky radiation) gives that of the TypeScript kernel to the bit too, and
 * the same global irradiation and hours as one without it. With the near field traced at every sample (a run of few
 * days), the compiled kernel's early end of a trace (nearFieldMaxima.ts) changes no decision either, nor do four of the eight
 * cells' rays traced together where some leave the grid at its east edge (their reads beyond it land on a wall).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  KERNEL_DAY_BATCH,
  allocateDaySamples,
  integrateBlockDays,
  sampleCapacity,
  sunSamplesForDay,
  transmittanceTable,
  type HorizonLayout,
  type TileGeometry,
} from '../../../src/science/solar/dailyKernel.js';
import { WasmDailyKernel } from '../../../src/science/solar/dailyKernelWasm.js';
import { surfaceTerms } from '../../../src/science/solar/surface.js';
import { buildTerrainModel } from '../../../src/science/solar/terrainModel.js';
import { horizonTracer, tileHorizons, type CellBlock, type NearFieldMode } from '../../../src/science/solar/tileHorizons.js';
import { hornGradientOfBlock } from '../../../src/science/terrain/slopeAspect.js';

const DEG = Math.PI / 180;
const WIDTH = 44;
const HEIGHT = 36;
/** Days of every season in one batch. */
const SEASON_DAYS = [1, 2, 80, 172, 266, 355];
/** A batch of consecutive days, as the sol runs take them: the sun's path of the batch spans few sectors. */
const WINTER_DAYS = [350, 351, 352, 353, 354, 355, 356, 357];

/**
 * Hills, a wall that casts long shadows, a level plateau, nodata cells in the second tile where the first tile has
 * valid ones, and one inside the first tile (among the eight cells the kernel integrates together).
 */
function terrain(eastEdge = false): Float32Array {
  const z = new Float32Array(WIDTH * HEIGHT);
  for (let r = 0; r < HEIGHT; r++) {
    for (let c = 0; c < WIDTH; c++) {
      let h = 1500 + 60 * Math.sin(c / 7) * Math.cos(r / 5) + 4 * c - 2 * r;
      if (c === 30) h += 90;
      // (EAST_EDGE_TILES) a wall in the east column south of row 20, so that the cells north of it near the east
      // edge see high terrain in their south-east quadrant and their rays toward a low eastern sun step on until they
      // leave the grid; and walls on the west side, where the read one cell beyond the east edge lands (the next row
      // of the elevation window): four cells traced together read it, and it must not hide the sun
      if (eastEdge && ((c === WIDTH - 1 && r >= 20) || c <= 3)) h += 400;
      // a level plateau in the first tile: its inner cells are exactly horizontal (r.sun's flat case), beside
      // inclined cells among the eight integrated together
      if (r >= 8 && r <= 12 && c >= 10 && c <= 15) h = 1700;
      z[r * WIDTH + c] = h;
    }
  }
  for (const [r, c] of [[24, 3], [25, 3], [30, 10], [35, 0], [15, 21]] as const) z[r * WIDTH + c] = NaN;
  return z;
}

/** Tile A inside the grid, then tile B at its south-west corner (smaller, with nodata). */
const TILES: CellBlock[] = [
  { rowStart: 4, rowEnd: 22, colStart: 6, colEnd: 36 },
  { rowStart: 22, rowEnd: HEIGHT, colStart: 0, colEnd: 17 },
];

/**
 * Tiles along the grid's east edge (the walls of `terrain(true)`): the first's halves end in four cells of a row,
 * the second's in eight, whose last four end at the edge.
 */
const EAST_EDGE_TILES: CellBlock[] = [
  { rowStart: 4, rowEnd: 20, colStart: 20, colEnd: WIDTH },
  { rowStart: 4, rowEnd: 20, colStart: 12, colEnd: WIDTH },
];

for (const [name, layout, latitudeDeg, cellXM, beamPart, days, nearField = 'bounded', eastEdge = false] of [
  ['square cells, 40° N', { directions: 64, nearSectors: 128, nearSteps: 8 }, 40, 10, false, SEASON_DAYS],
  ['square cells, 40° N, near field traced at every sample', { directions: 64, nearSectors: 128, nearSteps: 8 }, 40, 10, false, SEASON_DAYS, 'traced'],
  ['cells 4 × 10 m, 62° N, near field traced at every sample', { directions: 64, nearSectors: 128, nearSteps: 12 }, 62, 4, false, [20, 80, 330], 'traced'],
  ['square cells, 50° N, near field traced at every sample, rays leaving the grid eastward', { directions: 64, nearSectors: 128, nearSteps: 8 }, 50, 10, false, [20, 80, 172, 330], 'traced', true],
  ['square cells, 40° N, eight consecutive winter days', { directions: 64, nearSectors: 128, nearSteps: 8 }, 40, 10, false, WINTER_DAYS],
  ['square cells, 40° N, with the beam part', { directions: 64, nearSectors: 128, nearSteps: 8 }, 40, 10, true, SEASON_DAYS],
  ['cells 4 × 10 m, 50° N', { directions: 64, nearSectors: 128, nearSteps: 9 }, 50, 4, false, SEASON_DAYS],
  ['polar day and night, 72° N, with the beam part', { directions: 48, nearSectors: 144, nearSteps: 6 }, 72, 10, true, SEASON_DAYS],
  ['southern hemisphere, 96 directions', { directions: 96, nearSectors: 192, nearSteps: 7 }, -35, 10, false, SEASON_DAYS],
  ['southern hemisphere, eight consecutive winter days', { directions: 96, nearSectors: 192, nearSteps: 7 }, -35, 10, false, [172, 173, 174, 175, 176, 177, 178, 179]],
  ['no terrain shadows', null, 40, 10, false, SEASON_DAYS],
  ['no terrain shadows, with the beam part', null, 40, 10, true, SEASON_DAYS],
  // (steep slopes facing every way: samples facing a slope's plane in two runs, and blocks decided by their bounds)
  ['no terrain shadows, cells 4 × 10 m, polar day and night, 72° N', null, 72, 4, false, SEASON_DAYS],
  ['no terrain shadows, cells 4 × 10 m, southern hemisphere, eight consecutive winter days', null, -35, 4, false, [172, 173, 174, 175, 176, 177, 178, 179]],
] as const satisfies readonly (readonly [string, HorizonLayout | null, number, number, boolean, readonly number[], NearFieldMode?, boolean?])[]) {
  test(`the WebAssembly kernel equals the TypeScript kernel to the bit (${name})`, () => {
    const cellYM = 10;
    const z = terrain(eastEdge);
    const sizeX = new Float64Array(HEIGHT).fill(cellXM);
    const sizeY = new Float64Array(HEIGHT).fill(cellYM);
    const model = buildTerrainModel(z, WIDTH, HEIGHT, sizeX, sizeY);
    const params = { stepMinutes: 15, linkeTurbidity: 3.5, albedo: 0.25 };
    const table = transmittanceTable(params.linkeTurbidity);
    const capacity = sampleCapacity(params.stepMinutes);
    const lay: HorizonLayout | null = layout;
    const tracer = lay ? horizonTracer(model, lay) : null;
    const wasm = new WasmDailyKernel(lay, capacity, beamPart);
    const tsSamples = days.map(() => allocateDaySamples(capacity, lay?.nearSteps ?? 0));
    assert.ok(days.length <= KERNEL_DAY_BATCH);
    let compared = 0;
    let lit = 0;
    for (const tile of eastEdge ? EAST_EDGE_TILES : TILES) {
      const tileWidth = tile.colEnd - tile.colStart;
      const cells = tileWidth * (tile.rowEnd - tile.rowStart);
      const margin = lay ? 2 * lay.nearSteps + 2 : 0;
      wasm.reserve(cells, (tile.rowEnd - tile.rowStart + 2 * margin) * (tileWidth + 2 * margin));
      const tileZ = new Float64Array(cells);
      for (let r = tile.rowStart; r < tile.rowEnd; r++) for (let c = tile.colStart; c < tile.colEnd; c++) tileZ[(r - tile.rowStart) * tileWidth + c - tile.colStart] = z[r * WIDTH + c]!;
      const gradient = { fallEast: new Float64Array(cells), fallNorth: new Float64Array(cells) };
      hornGradientOfBlock(z, WIDTH, HEIGHT, tile, sizeX, sizeY, gradient);
      const surface = surfaceTerms(tileZ, gradient.fallEast, gradient.fallNorth, wasm.surfaceAllocator());
      // in the module's memory, and the same as new arrays (nothing left of the previous tile)
      assert.equal(surface.valid.buffer, wasm.daySamples[0]!.prefix.buffer);
      assert.deepEqual(surface, surfaceTerms(tileZ, gradient.fallEast, gradient.fallNorth));
      const horizons = wasm.horizons;
      if (tracer) tileHorizons(tracer, tile, surface, horizons!, null, nearField);
      if (lay) wasm.loadElevationWindow(model, tile, margin, margin);
      const kernelTerrain = lay ? { model, layout: lay, horizons: horizons! } : null;
      // two sun geometries: the tile's west and east halves
      const middle = tile.colStart + (tileWidth >> 1);
      const parts = [
        { ...tile, colEnd: middle },
        { ...tile, colStart: middle },
      ];
      const tsGlobal = days.map(() => new Float32Array(cells).fill(-1));
      const tsHours = days.map(() => new Float32Array(cells).fill(-1));
      const tsBeamPart = beamPart ? days.map(() => new Float32Array(cells).fill(-1)) : null;
      for (const [p, part] of parts.entries()) {
        const sun: TileGeometry = {
          latitudeRad: (latitudeDeg + 0.05 * p) * DEG,
          convergenceRad: (0.4 + p) * DEG,
          cellSizeXM: cellXM,
          cellSizeYM: cellYM,
          pressureRatioCentre: Math.exp(-1560 / 8434.5),
          pressureRatioHalfRange: 0.012,
        };
        days.forEach((day, d) => {
          sunSamplesForDay(day, sun, params, table, WIDTH, lay, tsSamples[d]!);
          sunSamplesForDay(day, sun, params, table, wasm.windowWidth || WIDTH, lay, wasm.daySamples[d]!);
        });
        integrateBlockDays(part, tile, tsSamples, surface, kernelTerrain, params.albedo, tsGlobal, tsHours, tsBeamPart);
        wasm.integrateBlockDays(part, tile, days.length, surface, kernelTerrain, params.albedo);
      }
      days.forEach((day, d) => {
        const global = wasm.globalOut(d);
        const hours = wasm.hoursOut(d);
        for (let i = 0; i < cells; i++) {
          assert.ok(Object.is(global[i], tsGlobal[d]![i]) && Object.is(hours[i], tsHours[d]![i]), `day ${day}, tile ${tile.rowStart}/${tile.colStart}, cell ${i}: ${global[i]} ${hours[i]} vs ${tsGlobal[d]![i]} ${tsHours[d]![i]}`);
          if (tsBeamPart) {
            const part = wasm.beamPartOut(d)[i];
            assert.ok(Object.is(part, tsBeamPart[d]![i]), `beam part, day ${day}, cell ${i}: ${part} vs ${tsBeamPart[d]![i]}`);
            assert.ok(!(part! > global[i]! * (1 + 1e-6)), `beam part ${part} above the global ${global[i]}`);
          }
          if (hours[i]! > 0) lit++;
          compared++;
        }
      });
    }
    assert.ok(lit > compared / 3, `${lit} of ${compared} cell-days see the sun`);
  });
}

test('the WebAssembly kernel refuses what it was not prepared for', () => {
  const layout = { directions: 32, nearSectors: 128, nearSteps: 4 };
  const wasm = new WasmDailyKernel(layout, sampleCapacity(15));
  assert.throws(() => wasm.surfaceAllocator(), /reserve room first/);
  wasm.reserve(100, 400);
  const z = new Float32Array(40 * 40).fill(100);
  const model = buildTerrainModel(z, 40, 40, new Float64Array(40).fill(10), new Float64Array(40).fill(10));
  const tile = { rowStart: 0, rowEnd: 10, colStart: 0, colEnd: 10 };
  const surface = surfaceTerms(new Float64Array(100).fill(100), new Float64Array(100), new Float64Array(100), wasm.surfaceAllocator());
  const sun = { latitudeRad: 40 * DEG, convergenceRad: 0, cellSizeXM: 10, cellSizeYM: 10, pressureRatioCentre: 0.99, pressureRatioHalfRange: 0 };
  // rays of 4 steps, an elevation window of 2 cells around the tile
  wasm.loadElevationWindow(model, tile, 2, 2);
  sunSamplesForDay(172, sun, { stepMinutes: 15, linkeTurbidity: 3, albedo: 0.2 }, transmittanceTable(3), wasm.windowWidth, layout, wasm.daySamples[0]!);
  const kernelTerrain = { model, layout, horizons: wasm.horizons! };
  assert.throws(() => wasm.integrateBlockDays(tile, tile, 1, surface, kernelTerrain, 0.2), /beyond the loaded elevation window/);
  assert.throws(() => wasm.integrateBlockDays(tile, tile, 0, surface, kernelTerrain, 0.2), new RegExp(`1 to ${KERNEL_DAY_BATCH} days`));
  const foreign = surfaceTerms(new Float64Array(100).fill(100), new Float64Array(100), new Float64Array(100));
  assert.throws(() => wasm.integrateBlockDays(tile, tile, 1, foreign, kernelTerrain, 0.2), /surfaceAllocator/);
  assert.throws(() => wasm.loadElevationWindow(model, { rowStart: 0, rowEnd: 40, colStart: 0, colEnd: 40 }, 4, 4), /exceeds the reserved room/);
  // the kernel keeps eight cells' group bounds for at most 256 group sectors
  assert.throws(() => new WasmDailyKernel({ directions: 257, nearSectors: 257, nearSteps: 4 }, sampleCapacity(15)), /at most 256 group sectors/);
  // the beam part only from a kernel made to give it
  assert.throws(() => wasm.beamPartOut(0), /without the beam part/);
});
