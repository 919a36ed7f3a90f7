import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hornGradient } from '../../../src/science/terrain/slopeAspect.js';
import { surfaceTerms } from '../../../src/science/solar/surface.js';
import { MAX_HORIZON_UNITS } from '../../../src/science/solar/horizon.js';
import {
  allocateDaySamples,
  integrateBlockDays,
  sampleCapacity,
  sunSamplesForDay,
  sunSectors,
  transmittanceTable,
  type TileGeometry,
} from '../../../src/science/solar/dailyKernel.js';
import { buildTerrainModel } from '../../../src/science/solar/terrainModel.js';
import { allocateTileHorizons, horizonTracer, sectorMasks, tileHorizons, type HorizonLayout } from '../../../src/science/solar/tileHorizons.js';

const DEG = Math.PI / 180;
const params = { stepMinutes: 15, linkeTurbidity: 3, albedo: 0.2 };
const year = Array.from({ length: 365 }, (_, i) => i + 1);

function geometry(latitudeDeg: number, convergenceDeg = 0): TileGeometry {
  return { latitudeRad: latitudeDeg * DEG, convergenceRad: convergenceDeg * DEG, cellSizeXM: 10, cellSizeYM: 10, pressureRatioCentre: 0.85, pressureRatioHalfRange: 0.01 };
}

/** Far sectors (of n) whose whole span lies within `deg` degrees of grid azimuth `centreDeg`. */
function sectorsWithin(n: number, centreDeg: number, deg: number): number[] {
  const width = 360 / n;
  const off = (a: number) => Math.abs((((a - centreDeg) % 360) + 540) % 360 - 180);
  return Array.from({ length: n }, (_, k) => k).filter((k) => off(k * width) <= deg && off((k + 1) * width) <= deg);
}

test('sun sectors hold every sample of the days they were found for, at any latitude, convergence and step', () => {
  const layout = { directions: 96, nearSectors: 192, nearSteps: 8 };
  const cases: [number, number, number[], number][] = [
    [41, 0, year, 15],
    [-35, 1.5, [1, 100, 172, 300], 15],
    [72, -2, [80, 172, 355], 20],
    [0.5, 0, [1, 172, 266], 7],
  ];
  for (const [latitudeDeg, convergenceDeg, days, stepMinutes] of cases) {
    const tiles = [geometry(latitudeDeg, convergenceDeg), geometry(latitudeDeg + 0.004, convergenceDeg + 0.01)];
    const sectors = sunSectors(days, tiles, stepMinutes, layout.directions);
    const masks = sectorMasks(layout, sectors);
    const table = transmittanceTable(3);
    const samples = allocateDaySamples(sampleCapacity(stepMinutes), layout.nearSteps);
    let checked = 0;
    for (const day of days) {
      for (const tile of tiles) {
        sunSamplesForDay(day, tile, { ...params, stepMinutes }, table, 40, layout, samples);
        for (let k = 0; k < samples.count; k++) {
          const label = `latitude ${latitudeDeg}, day ${day}, sample ${k}`;
          assert.equal(masks.farSectors[samples.horizonDirection0[k]!], 1, label);
          assert.equal(masks.directions[samples.horizonDirection0[k]!], 1, label);
          assert.equal(masks.directions[samples.horizonDirection1[k]!], 1, label);
          assert.equal(masks.nearSectors[samples.nearSector[k]!], 1, label);
          checked++;
        }
      }
    }
    assert.ok(checked > 0);
  }
});

test('sun sectors follow the sun path: at 41° N never within 52° of north in a year, all around in polar day', () => {
  const n = 64;
  // at 41° N the sun rises at most acos(sin 23.44° / cos 41°) = 58.2° from north (summer solstice)
  const yearly = sunSectors(year, [geometry(41)], 15, n);
  for (const k of sectorsWithin(n, 0, 52)) assert.equal(yearly[k], 0, `sector ${k}`);
  for (let k = 0; k < n; k++) {
    const from = (k * 360) / n;
    if (from >= 62 && from + 360 / n <= 298) assert.equal(yearly[k], 1, `sector ${k}`);
  }
  // at 41° S the same around the south, and a grid convergence turns the sectors with it
  const southern = sunSectors(year, [geometry(-41, 10)], 15, n);
  for (const k of sectorsWithin(n, 190, 52)) assert.equal(southern[k], 0, `southern sector ${k}`);
  assert.ok(southern.reduce((a, b) => a + b, 0) < 0.8 * n);
  // one winter day crosses about a third of the sky: between its sunrise and sunset azimuths (±59° of south)
  const winter = sunSectors([355], [geometry(41)], 15, n);
  for (const k of sectorsWithin(n, 180, 50)) assert.equal(winter[k], 1, `winter sector ${k}`);
  for (const k of sectorsWithin(n, 0, 110)) assert.equal(winter[k], 0, `winter sector ${k}`);
  // polar day at 72° N: the sun circles through every sector; polar night: none
  assert.ok(sunSectors([172], [geometry(72)], 15, n).every((on) => on === 1));
  assert.ok(sunSectors([355], [geometry(72)], 15, n).every((on) => on === 0));
});

/** Steep synthetic terrain with long shadows in every direction and a nodata cell. */
function ridges(width: number, height: number, cellM: number): Float64Array {
  const z = new Float64Array(width * height);
  for (let r = 0; r < height; r++) {
    for (let c = 0; c < width; c++) {
      const x = c * cellM;
      const y = (height - 1 - r) * cellM;
      z[r * width + c] = 1200 + 90 * Math.sin(x / 45) * Math.cos(y / 60) + 40 * Math.sin((x + 2 * y) / 25) + 0.6 * x;
    }
  }
  z[5 * width + 7] = NaN;
  return z;
}

for (const [latitudeDeg, days, layout] of [
  [41, [1, 2, 3, 4, 5, 6, 7, 8], { directions: 64, nearSectors: 128, nearSteps: 8 }],
  [41, [150, 172, 200, 355], { directions: 32, nearSectors: 128, nearSteps: 6 }],
  [-35, [172, 173], { directions: 96, nearSectors: 192, nearSteps: 9 }],
] as [number, number[], HorizonLayout][]) {
  test(`horizons only in the sun's sectors give the kernel's values bit for bit (latitude ${latitudeDeg}°, days ${days.join(',')}, N ${layout.directions})`, () => {
    const width = 36;
    const height = 30;
    const cellM = 10;
    const z = ridges(width, height, cellM);
    const gradient = hornGradient(z, width, height, cellM, cellM);
    const surface = surfaceTerms(z, gradient.fallEast, gradient.fallNorth);
    const model = buildTerrainModel(Float32Array.from(z), width, height, new Float64Array(height).fill(cellM), new Float64Array(height).fill(cellM));
    const whole = { rowStart: 0, rowEnd: height, colStart: 0, colEnd: width };
    const tile = { ...geometry(latitudeDeg, 0.8), cellSizeXM: cellM, cellSizeYM: cellM };
    const sectors = sunSectors(days, [tile], params.stepMinutes, layout.directions);
    const masks = sectorMasks(layout, sectors);
    const skipped = sectors.length - sectors.reduce((a, b) => a + b, 0);
    assert.ok(skipped >= layout.directions / 8, `only ${skipped} sectors without the sun`);
    const all = allocateTileHorizons(layout, width * height);
    const masked = allocateTileHorizons(layout, width * height);
    tileHorizons(horizonTracer(model, layout), whole, surface, all);
    tileHorizons(horizonTracer(model, layout), whole, surface, masked, masks);
    // the sectors without the sun are left open; the others are the same as computed everywhere
    for (let cell = 0; cell < width * height; cell++) {
      for (let k = 0; k < layout.directions; k++) {
        const at = cell * layout.directions + k;
        assert.equal(masked.far[at], masks.directions[k] ? all.far[at] : -MAX_HORIZON_UNITS);
      }
      for (let k = 0; k < layout.nearSectors; k++) {
        const at = cell * layout.nearSectors + k;
        assert.equal(masked.nearUpper[at], masks.nearSectors[k] ? all.nearUpper[at] : -MAX_HORIZON_UNITS);
        assert.equal(masked.nearLower[at], masks.nearSectors[k] ? all.nearLower[at] : -MAX_HORIZON_UNITS);
      }
    }
    const table = transmittanceTable(params.linkeTurbidity);
    const samples = days.map((day) => sunSamplesForDay(day, tile, params, table, width, layout, allocateDaySamples(sampleCapacity(params.stepMinutes), layout.nearSteps)));
    const run = (horizons: typeof all | null) => {
      const globals = days.map(() => new Float32Array(width * height));
      const hours = days.map(() => new Float32Array(width * height));
      integrateBlockDays(whole, whole, samples, surface, horizons ? { model, layout, horizons } : null, params.albedo, globals, hours);
      return { globals, hours };
    };
    const expected = run(all);
    const actual = run(masked);
    const unshaded = run(null);
    let shaded = 0;
    days.forEach((day, d) => {
      for (let cell = 0; cell < width * height; cell++) {
        assert.ok(Object.is(actual.globals[d]![cell], expected.globals[d]![cell]), `day ${day} cell ${cell}`);
        assert.ok(Object.is(actual.hours[d]![cell], expected.hours[d]![cell]), `day ${day} cell ${cell} hours`);
        if (expected.hours[d]![cell]! < unshaded.hours[d]![cell]!) shaded++;
      }
    });
    // the terrain casts shadows on many cell-days, so the horizons mattered
    assert.ok(shaded > (days.length * width * height) / 10, `${shaded} shaded cell-days`);
  });
}
