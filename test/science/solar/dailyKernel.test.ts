import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hornGradient } from '../../../src/science/terrain/slopeAspect.js';
import { surfaceTerms } from '../../../src/science/solar/surface.js';
import { horizonAt, horizonTangentAlongRay } from '../../../src/science/solar/horizon.js';
import {
  KERNEL_DAY_BATCH,
  allocateDaySamples,
  integrateBlock,
  integrateBlockDays,
  integrateBlockFlat,
  sampleCapacity,
  sunSamplesForDay,
  transmittanceTable,
  lookupTransmittance,
} from '../../../src/science/solar/dailyKernel.js';
import { buildTerrainModel } from '../../../src/science/solar/terrainModel.js';
import { allocateTileHorizons, horizonTracer, tileHorizons } from '../../../src/science/solar/tileHorizons.js';
import { dailyIrradiation } from '../../../src/science/solar/dailyIrradiation.js';
import { beamTransmittance } from '../../../src/science/solar/clearSky.js';

const DEG = Math.PI / 180;
const width = 30;
const height = 24;
const cellM = 10;

function hillyDem(): Float64Array {
  const z = new Float64Array(width * height);
  for (let r = 0; r < height; r++) {
    for (let c = 0; c < width; c++) {
      const x = c * cellM;
      const y = (height - 1 - r) * cellM;
      z[r * width + c] = 1500 + 60 * Math.sin(x / 70) * Math.cos(y / 50) + 0.4 * x - 0.2 * y;
    }
  }
  z[3 * width + 4] = NaN; // a nodata cell
  for (let c = 10; c < 14; c++) z[12 * width + c] = 1500; // an exactly flat patch
  for (let c = 9; c < 15; c++) for (const r of [11, 13]) z[r * width + c] = 1500;
  return z;
}

for (const [params, layout, latitudeDeg, cellXM = cellM] of [
  [{ stepMinutes: 15, linkeTurbidity: 3, albedo: 0.2 }, { directions: 32, nearSectors: 128, nearSteps: 6 }, 40],
  // 96 far directions: the kernel groups samples by 32 sectors of 3 far sectors each
  [{ stepMinutes: 7, linkeTurbidity: 6.5, albedo: 0.45 }, { directions: 96, nearSectors: 192, nearSteps: 9 }, 40],
  // southern hemisphere: the sun crosses the north
  [{ stepMinutes: 15, linkeTurbidity: 3, albedo: 0.2 }, { directions: 64, nearSectors: 128, nearSteps: 8 }, -35],
  // polar day (day 172: the sun circles through every sector) and polar night (day 355: no sample)
  [{ stepMinutes: 20, linkeTurbidity: 3, albedo: 0.2 }, { directions: 48, nearSectors: 144, nearSteps: 6 }, 72],
  // cells 4 m east-west by 10 m north-south (as on a geographic grid at 66°): a ray step of 7 m crosses 1.75
  // columns, so east- and westward rays reach 16 columns in 9 steps, beyond nearSteps + 2
  [{ stepMinutes: 15, linkeTurbidity: 3, albedo: 0.2 }, { directions: 64, nearSectors: 128, nearSteps: 9 }, 50, 4],
] as const) {
  test(`the kernel equals the scalar model cell by cell (latitude ${latitudeDeg}°, step ${params.stepMinutes}, T_L ${params.linkeTurbidity}, N ${layout.directions}, n ${layout.nearSteps}, cells ${cellXM} × ${cellM} m)`, () => {
    const z = hillyDem();
    const gradient = hornGradient(z, width, height, cellXM, cellM);
    const surface = surfaceTerms(z, gradient.fallEast, gradient.fallNorth);
    const { directions, nearSteps } = layout;
    const model = buildTerrainModel(Float32Array.from(z), width, height, new Float64Array(height).fill(cellXM), new Float64Array(height).fill(cellM));
    const horizons = allocateTileHorizons(layout, width * height);
    const whole = { rowStart: 0, rowEnd: height, colStart: 0, colEnd: width };
    tileHorizons(horizonTracer(model, layout), whole, surface, horizons);
    const angles = horizons.far;
    const convergenceRad = 0.8 * DEG; // grid north lies 0.8° clockwise of true north
    let pzMin = Infinity;
    let pzMax = -Infinity;
    for (let i = 0; i < z.length; i++) {
      if (surface.valid[i] !== 1) continue;
      pzMin = Math.min(pzMin, surface.pressureRatio[i]!);
      pzMax = Math.max(pzMax, surface.pressureRatio[i]!);
    }
    const tile = {
      latitudeRad: latitudeDeg * DEG,
      convergenceRad,
      cellSizeXM: cellXM,
      cellSizeYM: cellM,
      pressureRatioCentre: (pzMin + pzMax) / 2,
      pressureRatioHalfRange: (pzMax - pzMin) / 2,
    };
    const table = transmittanceTable(params.linkeTurbidity);
    const samples = allocateDaySamples(sampleCapacity(params.stepMinutes), nearSteps);
    const globalOut = new Float32Array(width * height);
    const hoursOut = new Float32Array(width * height);
    const flatOut = new Float32Array(width * height);
    const beamPartOut = new Float32Array(width * height);
    const flatBeamOut = new Float32Array(width * height);
    const terrain = { model, layout, horizons };
    for (const day of [1, 80, 172, 266, 355]) {
      sunSamplesForDay(day, tile, params, table, width, layout, samples);
      integrateBlock(whole, whole, samples, surface, terrain, params.albedo, globalOut, hoursOut, beamPartOut);
      integrateBlockFlat(whole, whole, samples, surface, flatOut, flatBeamOut);
      let checked = 0;
      for (let cell = 0; cell < width * height; cell++) {
        if (Number.isNaN(z[cell]!)) {
          assert.ok([globalOut, hoursOut, flatOut, beamPartOut, flatBeamOut].every((out) => Number.isNaN(out[cell]!)));
          continue;
        }
        const e = gradient.fallEast[cell]!;
        const n = gradient.fallNorth[cell]!;
        const gridAspect = Math.atan2(e, n);
        const row = Math.floor(cell / width);
        const col = cell % width;
        // the horizon the kernel uses: stored far field, interpolated, and the exact near-field ray
        const horizon = (az: number) => {
          const far = horizonAt(angles, cell, directions, az + convergenceRad);
          const near = horizonTangentAlongRay(model, row, col, az + convergenceRad, 1, nearSteps);
          return Math.max(far, Math.atan(near));
        };
        const surfaceCell = {
          latitudeRad: tile.latitudeRad,
          elevationM: model.elevation[cell]!,
          slopeRad: Math.atan(Math.hypot(e, n)),
          aspectRad: gridAspect - convergenceRad, // true azimuth of the downslope direction
        };
        const expected = dailyIrradiation(day, surfaceCell, params, horizon);
        const label = `day ${day} cell ${cell}`;
        assert.ok(Math.abs(globalOut[cell]! - expected.globalWhM2) <= 2e-5 * expected.globalWhM2 + 1e-3, `${label}: ${globalOut[cell]} vs ${expected.globalWhM2}`);
        assert.equal(hoursOut[cell], Math.fround(expected.sunshineHours), label);
        // the beam part: the beam on the surface and the ground reflection of the horizontal beam
        const beamPart = expected.beamWhM2 + expected.reflectedBeamWhM2;
        assert.ok(Math.abs(beamPartOut[cell]! - beamPart) <= 2e-5 * expected.globalWhM2 + 1e-3, `${label} beam part: ${beamPartOut[cell]} vs ${beamPart}`);
        const flat = dailyIrradiation(day, { ...surfaceCell, slopeRad: 0 }, params);
        assert.ok(Math.abs(flatOut[cell]! - flat.globalWhM2) <= 2e-5 * flat.globalWhM2, `${label} flat: ${flatOut[cell]} vs ${flat.globalWhM2}`);
        assert.ok(Math.abs(flatBeamOut[cell]! - flat.beamWhM2) <= 2e-5 * flat.globalWhM2, `${label} flat beam: ${flatBeamOut[cell]} vs ${flat.beamWhM2}`);
        checked++;
      }
      assert.equal(checked, width * height - 1);
    }
  });
}

test('several days in one pass over the cells equal the same days one at a time, value for value', () => {
  const z = hillyDem();
  const gradient = hornGradient(z, width, height, cellM, cellM);
  const surface = surfaceTerms(z, gradient.fallEast, gradient.fallNorth);
  const layout = { directions: 64, nearSectors: 128, nearSteps: 8 };
  const model = buildTerrainModel(Float32Array.from(z), width, height, new Float64Array(height).fill(cellM), new Float64Array(height).fill(cellM));
  const horizons = allocateTileHorizons(layout, width * height);
  const whole = { rowStart: 0, rowEnd: height, colStart: 0, colEnd: width };
  tileHorizons(horizonTracer(model, layout), whole, surface, horizons);
  const terrain = { model, layout, horizons };
  const params = { stepMinutes: 15, linkeTurbidity: 3, albedo: 0.2 };
  const tile = { latitudeRad: 40 * DEG, convergenceRad: 0, cellSizeXM: cellM, cellSizeYM: cellM, pressureRatioCentre: 0.83, pressureRatioHalfRange: 0.01 };
  const table = transmittanceTable(params.linkeTurbidity);
  // consecutive days (the run above every lit bound starts from the previous day's) and jumps across the year
  const days = [1, 2, 3, 80, 81, 172, 266, 355];
  assert.ok(days.length <= KERNEL_DAY_BATCH);
  const samples = days.map((day) => sunSamplesForDay(day, tile, params, table, width, layout, allocateDaySamples(sampleCapacity(15), 8)));
  const globals = days.map(() => new Float32Array(width * height));
  const hours = days.map(() => new Float32Array(width * height));
  integrateBlockDays(whole, whole, samples, surface, terrain, params.albedo, globals, hours);
  const global1 = new Float32Array(width * height);
  const hours1 = new Float32Array(width * height);
  days.forEach((day, i) => {
    integrateBlock(whole, whole, samples[i]!, surface, terrain, params.albedo, global1, hours1);
    assert.deepEqual(globals[i], global1, `day ${day} global`);
    assert.deepEqual(hours[i], hours1, `day ${day} hours`);
  });
});

test('the transmittance table: within 1e-6 of the formula (also across its jump at m = 20), exact at its grid, entries computed only where looked up', () => {
  for (const linke of [1, 3, 7.5]) {
    const table = transmittanceTable(linke);
    // air masses from a sun at the zenith to one on the horizon at high ground, and beyond the table; steps of
    // 0.00037 put several in each grid step, those around m = 20 too
    for (let m = 1; m < 60; m += 0.00037) assert.ok(Math.abs(lookupTransmittance(table, m) - beamTransmittance(linke, m)) < 1e-6, `T_L ${linke}, m ${m}`);
    for (const i of [500, 501, 7777, 23_999]) assert.equal(lookupTransmittance(table, i * table.stepAirMass), beamTransmittance(linke, i * table.stepAirMass));
  }
  const table = transmittanceTable(3);
  lookupTransmittance(table, 2.0031);
  const computed = table.values.reduce((n, v) => n + (Number.isNaN(v) ? 0 : 1), 0);
  assert.equal(computed, 2, 'one look-up computes the two entries around it');
});
