/**
 * A run of few days traces the near field at its samples instead of bounding it (`nearFieldMode`,
 * tileHorizons.ts): the stored near-field bounds then decide nothing, and both kernels give the outputs of the
 * bounded near field to the bit, because the bounds only spare traces — also from one row of undecided bounds that
 * every cell shares (a traced run's horizons, `runNearField`). A year stays bounded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  allocateDaySamples,
  integrateBlockDays,
  sampleCapacity,
  sunSampleCount,
  sunSamplesForDay,
  sunSectors,
  transmittanceTable,
  type TileGeometry,
} from '../../../src/science/solar/dailyKernel.js';
import { WasmDailyKernel } from '../../../src/science/solar/dailyKernelWasm.js';
import { MAX_HORIZON_UNITS } from '../../../src/science/solar/horizon.js';
import { surfaceTerms } from '../../../src/science/solar/surface.js';
import { buildTerrainModel } from '../../../src/science/solar/terrainModel.js';
import {
  allocateTileHorizons,
  horizonTracer,
  nearFieldMode,
  sectorMasks,
  tileHorizons,
  tracedSampleLimit,
  type HorizonLayout,
  type NearFieldMode,
  type TileHorizons,
} from '../../../src/science/solar/tileHorizons.js';
import { hornGradientOfBlock } from '../../../src/science/terrain/slopeAspect.js';

const DEG = Math.PI / 180;
const WIDTH = 40;
const HEIGHT = 34;
const CELL_M = 10;
const params = { stepMinutes: 15, linkeTurbidity: 3, albedo: 0.2 };
const year = Array.from({ length: 365 }, (_, i) => i + 1);

function geometry(latitudeDeg: number): TileGeometry {
  return { latitudeRad: latitudeDeg * DEG, convergenceRad: 0.6 * DEG, cellSizeXM: CELL_M, cellSizeYM: CELL_M, pressureRatioCentre: 0.85, pressureRatioHalfRange: 0.01 };
}

/** Steep ridges with long shadows in every direction, a wall, and two nodata cells. */
function ridges(): Float32Array {
  const z = new Float32Array(WIDTH * HEIGHT);
  for (let r = 0; r < HEIGHT; r++) {
    for (let c = 0; c < WIDTH; c++) {
      const x = c * CELL_M;
      const y = (HEIGHT - 1 - r) * CELL_M;
      z[r * WIDTH + c] = 1200 + 90 * Math.sin(x / 45) * Math.cos(y / 60) + 40 * Math.sin((x + 2 * y) / 25) + 0.6 * x + (c === 26 ? 70 : 0);
    }
  }
  z[5 * WIDTH + 7] = NaN;
  z[20 * WIDTH + 30] = NaN;
  return z;
}

test('a few days are traced, a year is bounded, and without near steps nothing is traced', () => {
  const layout = { directions: 64, nearSectors: 128, nearSteps: 48 };
  const tiles = [geometry(62)];
  const masksFor = (days: number[]) => sectorMasks(layout, sunSectors(days, tiles, 15, layout.directions));
  const few = [30, 80, 330];
  assert.equal(nearFieldMode(layout, masksFor(few), sunSampleCount(few, tiles, 15)), 'traced');
  assert.equal(nearFieldMode(layout, masksFor(year), sunSampleCount(year, tiles, 15)), 'bounded');
  assert.equal(nearFieldMode(layout, null, sunSampleCount(year, [geometry(41)], 15)), 'bounded');
  assert.equal(nearFieldMode({ ...layout, nearSteps: 0 }, masksFor(few), sunSampleCount(few, tiles, 15)), 'bounded');
  // shorter near fields are cheaper to bound: three days are still traced with 16 steps, January is bounded,
  // its first 20 days still traced with 48 steps
  const january = Array.from({ length: 31 }, (_, i) => i + 1);
  const short = { ...layout, nearSteps: 16 };
  assert.equal(nearFieldMode(short, masksFor(few), sunSampleCount(few, tiles, 15)), 'traced');
  assert.equal(nearFieldMode(short, masksFor(january), sunSampleCount(january, tiles, 15)), 'bounded');
  assert.equal(nearFieldMode(layout, masksFor(january.slice(0, 20)), sunSampleCount(january.slice(0, 20), tiles, 15)), 'traced');
  // the count is that of the tile whose cells see the sun most often: the equinox day has 12 h of sun everywhere
  assert.equal(sunSampleCount([80], [geometry(62), geometry(0.5)], 15), 48);
  assert.equal(sunSampleCount([355], [geometry(72)], 15), 0);
});

test('a sample count that stops at the limit of tracing decides as the whole count does, and stops early in a year', () => {
  const tiles = [geometry(62), geometry(41), geometry(-35)];
  const january = Array.from({ length: 31 }, (_, i) => i + 1);
  for (const layout of [
    { directions: 64, nearSectors: 128, nearSteps: 48 },
    { directions: 64, nearSectors: 128, nearSteps: 16 },
    { directions: 32, nearSectors: 128, nearSteps: 0 },
  ]) {
    for (const days of [[30, 80, 330], january, january.slice(0, 20), year, [355]]) {
      for (const masks of [null, sectorMasks(layout, sunSectors(days, tiles, 15, layout.directions))]) {
        const whole = sunSampleCount(days, tiles, 15);
        const limit = tracedSampleLimit(layout, masks);
        const capped = sunSampleCount(days, tiles, 15, limit);
        assert.equal(nearFieldMode(layout, masks, capped), nearFieldMode(layout, masks, whole), `${layout.nearSteps} steps, ${days.length} days`);
        assert.equal(nearFieldMode(layout, masks, whole), whole < limit ? 'traced' : 'bounded');
        // below the limit the count is whole; at it, at least the limit and no more than a day's samples past it
        if (whole < limit) assert.equal(capped, whole);
        else assert.ok(capped >= limit && capped <= limit + 97, `${capped} against the limit ${limit}`);
      }
    }
  }
  // a year's first tile passes the limit within weeks: the capped count is a small part of the whole
  const layout = { directions: 64, nearSectors: 128, nearSteps: 16 };
  const whole = sunSampleCount(year, [geometry(41)], 15);
  const capped = sunSampleCount(year, [geometry(41)], 15, tracedSampleLimit(layout, null));
  assert.ok(whole > 15_000 && capped < whole / 10, `${capped} of ${whole}`);
});

for (const [latitudeDeg, days, layout] of [
  [62, [30, 80, 330], { directions: 64, nearSectors: 128, nearSteps: 12 }],
  [41, [172, 355], { directions: 32, nearSectors: 128, nearSteps: 8 }],
  [-35, [1, 100], { directions: 96, nearSectors: 192, nearSteps: 9 }],
] as [number, number[], HorizonLayout][]) {
  test(`a traced near field gives the bounded one's outputs bit for bit in both kernels (latitude ${latitudeDeg}°, days ${days.join(',')})`, () => {
    const z = ridges();
    const model = buildTerrainModel(z, WIDTH, HEIGHT, new Float64Array(HEIGHT).fill(CELL_M), new Float64Array(HEIGHT).fill(CELL_M));
    const tile = { rowStart: 3, rowEnd: 29, colStart: 2, colEnd: 38 };
    const tileWidth = tile.colEnd - tile.colStart;
    const cells = tileWidth * (tile.rowEnd - tile.rowStart);
    const tileZ = new Float64Array(cells);
    for (let r = tile.rowStart; r < tile.rowEnd; r++) for (let c = tile.colStart; c < tile.colEnd; c++) tileZ[(r - tile.rowStart) * tileWidth + c - tile.colStart] = z[r * WIDTH + c]!;
    const gradient = { fallEast: new Float64Array(cells), fallNorth: new Float64Array(cells) };
    hornGradientOfBlock(z, WIDTH, HEIGHT, tile, model.cellSizeX, model.cellSizeY, gradient);
    const sun = geometry(latitudeDeg);
    const masks = sectorMasks(layout, sunSectors(days, [sun], params.stepMinutes, layout.directions));
    const table = transmittanceTable(params.linkeTurbidity);
    const capacity = sampleCapacity(params.stepMinutes);
    const tracer = horizonTracer(model, layout);

    // `shared`: horizons made for a traced run, one row of undecided near-field bounds for every cell
    const typescript = (nearField: NearFieldMode, shared = false) => {
      const surface = surfaceTerms(tileZ, gradient.fallEast, gradient.fallNorth);
      const horizons = allocateTileHorizons(layout, cells, undefined, shared ? 'traced' : 'bounded');
      tileHorizons(tracer, tile, surface, horizons, masks, nearField);
      const samples = days.map((day) => sunSamplesForDay(day, sun, params, table, WIDTH, layout, allocateDaySamples(capacity, layout.nearSteps)));
      const globals = days.map(() => new Float32Array(cells));
      const hours = days.map(() => new Float32Array(cells));
      integrateBlockDays(tile, tile, samples, surface, { model, layout, horizons }, params.albedo, globals, hours);
      return { horizons, globals, hours };
    };
    const compiled = (nearField: NearFieldMode, shared = false) => {
      const wasm = new WasmDailyKernel(layout, capacity, false, shared ? 'traced' : 'bounded');
      const margin = 2 * layout.nearSteps + 2;
      wasm.reserve(cells, (tile.rowEnd - tile.rowStart + 2 * margin) * (tileWidth + 2 * margin));
      const surface = surfaceTerms(tileZ, gradient.fallEast, gradient.fallNorth, wasm.surfaceAllocator());
      tileHorizons(tracer, tile, surface, wasm.horizons!, masks, nearField);
      wasm.loadElevationWindow(model, tile, margin, margin);
      days.forEach((day, d) => sunSamplesForDay(day, sun, params, table, wasm.windowWidth, layout, wasm.daySamples[d]!));
      wasm.integrateBlockDays(tile, tile, days.length, surface, { model, layout, horizons: wasm.horizons! }, params.albedo);
      return { globals: days.map((_, d) => wasm.globalOut(d).slice(0, cells)), hours: days.map((_, d) => wasm.hoursOut(d).slice(0, cells)) };
    };

    const bounded = typescript('bounded');
    const traced = typescript('traced');
    assertUndecided(traced.horizons, z, tile, layout);
    const boundedWasm = compiled('bounded');
    const tracedWasm = compiled('traced');
    const shared = typescript('traced', true);
    const sharedWasm = compiled('traced', true);
    assert.equal(shared.horizons.nearStride, 0);
    assert.equal(shared.horizons.nearUpper.length, layout.nearSectors);
    assert.throws(() => typescript('bounded', true), /no room for near-field bounds/);
    // no near field at all: the sun shines wherever the plane and the far field let it (the near field matters here)
    const noNear = { globals: days.map(() => new Float32Array(cells)), hours: days.map(() => new Float32Array(cells)) };
    const farOnly = { ...layout, nearSteps: 0 };
    {
      const surface = surfaceTerms(tileZ, gradient.fallEast, gradient.fallNorth);
      const horizons = allocateTileHorizons(farOnly, cells);
      tileHorizons(horizonTracer(model, farOnly), tile, surface, horizons, sectorMasks(farOnly, sunSectors(days, [sun], params.stepMinutes, farOnly.directions)));
      const samples = days.map((day) => sunSamplesForDay(day, sun, params, table, WIDTH, farOnly, allocateDaySamples(capacity, 0)));
      integrateBlockDays(tile, tile, samples, surface, { model, layout: farOnly, horizons }, params.albedo, noNear.globals, noNear.hours);
    }
    let nearShaded = 0;
    days.forEach((day, d) => {
      for (let i = 0; i < cells; i++) {
        const label = `day ${day}, cell ${i}`;
        assert.ok(Object.is(traced.globals[d]![i], bounded.globals[d]![i]) && Object.is(traced.hours[d]![i], bounded.hours[d]![i]), `TypeScript, ${label}`);
        assert.ok(Object.is(tracedWasm.globals[d]![i], boundedWasm.globals[d]![i]) && Object.is(tracedWasm.hours[d]![i], boundedWasm.hours[d]![i]), `WebAssembly, ${label}`);
        assert.ok(Object.is(tracedWasm.globals[d]![i], bounded.globals[d]![i]), `WebAssembly against TypeScript, ${label}`);
        assert.ok(Object.is(shared.globals[d]![i], bounded.globals[d]![i]) && Object.is(shared.hours[d]![i], bounded.hours[d]![i]), `TypeScript, one shared row, ${label}`);
        assert.ok(Object.is(sharedWasm.globals[d]![i], bounded.globals[d]![i]) && Object.is(sharedWasm.hours[d]![i], bounded.hours[d]![i]), `WebAssembly, one shared row, ${label}`);
        if (bounded.hours[d]![i]! < noNear.hours[d]![i]!) nearShaded++;
      }
    });
    assert.ok(nearShaded > (days.length * cells) / 20, `the near field shades only ${nearShaded} cell-days`);
  });
}

/** A traced tile's near-field bounds decide nothing: upper +MAX, lower −MAX (nodata cells open). */
function assertUndecided(horizons: TileHorizons, z: Float32Array, tile: { rowStart: number; rowEnd: number; colStart: number; colEnd: number }, layout: HorizonLayout): void {
  const tileWidth = tile.colEnd - tile.colStart;
  for (let r = tile.rowStart; r < tile.rowEnd; r++) {
    for (let c = tile.colStart; c < tile.colEnd; c++) {
      const cell = (r - tile.rowStart) * tileWidth + (c - tile.colStart);
      const upper = Number.isNaN(z[r * WIDTH + c]!) ? -MAX_HORIZON_UNITS : MAX_HORIZON_UNITS;
      for (let k = 0; k < layout.nearSectors; k++) {
        assert.equal(horizons.nearUpper[cell * layout.nearSectors + k], upper);
        assert.equal(horizons.nearLower[cell * layout.nearSectors + k], -MAX_HORIZON_UNITS);
      }
    }
  }
}
