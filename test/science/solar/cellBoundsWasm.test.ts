/**
 * The per-cell lit and dark bounds compiled into the daily kernel's module (assembly/cellBounds.ts, through
 * `WasmDailyKernel.cellBounds`) are those of `tileNearHorizons`' TypeScript loop (`sunlitBounds`, then
 * `groupBounds`) to the bit: near fields bounded and traced, with and without sun sectors, each group's least far
 * horizon kept by the compiled sweep or taken from its directions, layouts of 1 to 96 directions (fewer than five
 * groups take the plane's downslope extreme), on terrain with flat cells, nodata and cliffs, tiles inside and at
 * the edges, and tiles larger than the kernel's chunk of kept minima.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WasmDailyKernel } from '../../../src/science/solar/dailyKernelWasm.js';
import { WasmFarSweep } from '../../../src/science/solar/sweptHorizonWasm.js';
import { WasmNearBounds } from '../../../src/science/solar/nearHorizonBoundsWasm.js';
import { surfaceTerms } from '../../../src/science/solar/surface.js';
import { buildTerrainModel, copyElevations, type CellBlock, type TerrainModel } from '../../../src/science/solar/terrainModel.js';
import { hornGradientOfBlock } from '../../../src/science/terrain/slopeAspect.js';
import {
  groupSectors,
  horizonTracer,
  sectorMasks,
  tileFarHorizons,
  tileNearHorizons,
  type CompiledCellBounds,
  type HorizonTracer,
  type HorizonLayout,
  type NearFieldMode,
  type SectorMasks,
} from '../../../src/science/solar/tileHorizons.js';

/** Rolling hills with a cliff, a flat plateau (cells of zero gradient) and nodata cells, alone and in a patch. */
function terrainModel(width: number, height: number): TerrainModel {
  const z = new Float32Array(width * height);
  for (let r = 0; r < height; r++) {
    for (let c = 0; c < width; c++) {
      let h = 600 + 120 * Math.sin(c / 9) * Math.cos(r / 11) + 4 * c - 2 * r + ((r * 37 + c * 11) % 13) / 5;
      if (c > width / 2 && c < width / 2 + 3) h += 300; // a wall
      if (r > 5 && r < 15 && c > 5 && c < 18) h = 700; // flat
      z[r * width + c] = h;
    }
  }
  for (const [r, c] of [[3, 40], [30, 30], [31, 30], [0, 0], [height - 1, 10]] as const) z[r * width + c] = NaN;
  for (let r = 40; r < 44; r++) for (let c = 50; c < 56; c++) z[r * width + c] = NaN;
  const dx = Float64Array.from({ length: height }, (_, r) => 25 * Math.cos((55 + (height - r) * 0.002) * (Math.PI / 180)));
  return buildTerrainModel(z, width, height, dx, new Float64Array(height).fill(15));
}

/** The sun in the southern sectors only, as on a winter day in the north (sectors from north, clockwise). */
function southernMasks(layout: HorizonLayout): SectorMasks {
  const sun = Uint8Array.from({ length: layout.directions }, (_, k) => {
    const azimuth = ((k + 0.5) * 360) / layout.directions;
    return azimuth > 120 && azimuth < 240 ? 1 : 0;
  });
  return sectorMasks(layout, sun);
}

interface Bounds {
  lit: number[];
  dark: number[];
  everywhere: number[];
}

/**
 * The bounds of `tile` twice, into `kernel`'s horizons: with the TypeScript loop, then with the compiled one
 * (`compiled` switched on), from the same far field (swept once) and near-field bounds.
 */
function bothBounds(
  tracer: HorizonTracer,
  switchable: { on: boolean },
  kernel: WasmDailyKernel,
  tile: CellBlock,
  masks: SectorMasks | null,
  nearField: NearFieldMode,
): { expected: Bounds; actual: Bounds } {
  const { model, layout } = tracer;
  const width = tile.colEnd - tile.colStart;
  const cells = width * (tile.rowEnd - tile.rowStart);
  kernel.reserve(cells, cells);
  const elevation = new Float64Array(cells);
  copyElevations(model, tile, elevation);
  const gradient = { fallEast: new Float64Array(cells), fallNorth: new Float64Array(cells) };
  hornGradientOfBlock(model.elevation, model.width, model.height, tile, model.cellSizeX, model.cellSizeY, gradient);
  const surface = surfaceTerms(elevation, gradient.fallEast, gradient.fallNorth, kernel.surfaceAllocator());
  const horizons = kernel.horizons!;
  const groups = groupSectors(layout);
  tileFarHorizons(tracer, tile, horizons, masks);
  const bounds = (): Bounds => {
    horizons.litBound.fill(12345);
    horizons.darkBound.fill(12345);
    horizons.litEverywhere.fill(12345);
    tileNearHorizons(tracer, tile, surface, horizons, masks, nearField);
    return {
      lit: Array.from(horizons.litBound.subarray(0, cells * groups)),
      dark: Array.from(horizons.darkBound.subarray(0, cells * groups)),
      everywhere: Array.from(horizons.litEverywhere.subarray(0, cells)),
    };
  };
  switchable.on = false;
  const expected = bounds();
  switchable.on = true;
  const actual = bounds();
  return { expected, actual };
}

test('the compiled cell bounds are tileNearHorizons’ TypeScript bounds to the bit', () => {
  const model = terrainModel(90, 70);
  const layouts: HorizonLayout[] = [
    { directions: 32, nearSectors: 128, nearSteps: 16 },
    { directions: 96, nearSectors: 192, nearSteps: 24 },
    { directions: 48, nearSectors: 144, nearSteps: 16 },
    { directions: 4, nearSectors: 128, nearSteps: 16 },
    // one sector, the whole turn: only there does the downslope extreme of the plane keep a dark bound down
    { directions: 1, nearSectors: 128, nearSteps: 16 },
  ];
  const tiles: CellBlock[] = [
    { rowStart: 16, rowEnd: 48, colStart: 32, colEnd: 64 },
    { rowStart: 0, rowEnd: 16, colStart: 0, colEnd: 48 },
    { rowStart: 36, rowEnd: 70, colStart: 40, colEnd: 90 },
  ];
  const whole = { rowStart: 0, rowEnd: 70, colStart: 0, colEnd: 90 };
  let compiledCalls = 0;
  let checked = 0;
  for (const layout of layouts) {
    for (const nearField of ['bounded', 'traced'] as const) {
      const kernel = new WasmDailyKernel(layout, 100, false, nearField);
      const switchable = { on: false };
      const compiled: CompiledCellBounds = {
        cellBounds: (...args) => {
          if (!switchable.on) return false;
          const done = kernel.cellBounds(...args);
          if (done) compiledCalls++;
          return done;
        },
      };
      // (each group's directions, without the compiled sweep's kept minima, with the smaller layouts: the TypeScript sweep is slow)
      for (const sweep of layout.directions <= 32 ? [new WasmFarSweep(), null] : [new WasmFarSweep()]) {
        // (the near-field bounds compiled too, as in a run: the same bounds, and quicker)
        const tracer = horizonTracer(model, layout, new WasmNearBounds(), sweep, compiled);
        for (const masks of [null, southernMasks(layout)]) {
          // the whole grid (more cells than the kernel copies kept minima for at once) with one layout
          for (const tile of layout.directions === 32 ? [...tiles, whole] : tiles) {
            const label = `${layout.directions} directions, ${nearField}, ${masks ? 'sun sectors' : 'every sector'}, ${sweep ? 'kept minima' : 'group directions'}, ${JSON.stringify(tile)}`;
            const { expected, actual } = bothBounds(tracer, switchable, kernel, tile, masks, nearField);
            assert.deepEqual(actual.lit, expected.lit, `lit bounds: ${label}`);
            assert.deepEqual(actual.dark, expected.dark, `dark bounds: ${label}`);
            assert.deepEqual(actual.everywhere, expected.everywhere, `lit everywhere: ${label}`);
            checked++;
          }
        }
      }
    }
  }
  assert.equal(compiledCalls, checked, 'every tile took the compiled loop');
});

test('bounds of arrays outside the kernel’s memory are left to TypeScript', () => {
  const layout = { directions: 32, nearSectors: 128, nearSteps: 16 };
  const model = terrainModel(40, 40);
  const kernel = new WasmDailyKernel(layout, 100, false, 'bounded');
  const tile = { rowStart: 0, rowEnd: 16, colStart: 0, colEnd: 16 };
  kernel.reserve(256, 256);
  const elevation = new Float64Array(256);
  copyElevations(model, tile, elevation);
  const gradient = { fallEast: new Float64Array(256), fallNorth: new Float64Array(256) };
  hornGradientOfBlock(model.elevation, model.width, model.height, tile, model.cellSizeX, model.cellSizeY, gradient);
  const onHeap = surfaceTerms(elevation, gradient.fallEast, gradient.fallNorth);
  const groups = Int32Array.from({ length: groupSectors(layout) }, (_, g) => g);
  assert.equal(kernel.cellBounds(onHeap, kernel.horizons!, layout, 256, null, groups, false, new Int16Array(256 * groups.length)), false);
  const inMemory = surfaceTerms(elevation, gradient.fallEast, gradient.fallNorth, kernel.surfaceAllocator());
  const otherLayout = { directions: 64, nearSectors: 128, nearSteps: 16 };
  assert.equal(kernel.cellBounds(inMemory, kernel.horizons!, otherLayout, 256, null, groups, false, new Int16Array(256 * groups.length)), false);
});
