/**
 * A day's sun samples computed by the compiled kernel (assembly/sunSamples.ts, through
 * `WasmDailyKernel.writeSunSamples`) are those `sunSamplesForDay` computes in TypeScript, to the bit: every array
 * the kernel reads (altitudes, sines, sun vectors, near sectors, far directions and weights, prefix sums, groups
 * with their altitude ranges, each sample's group), the near-field rays' inputs, and the day's count, peak, group
 * count and Σ D_h. Over days spread over the whole year, at latitudes from the tropics to polar day and night in both
 * hemispheres; meridian convergence that wraps the grid azimuth past north; square, elongated and fine cells;
 * layouts of 48 to 256 far directions (one to eight far sectors per group); time steps of 5 to 60 minutes;
 * Linke turbidities from 1.8 to 6.5; suns high and below 0.1 rad (Muneer's low-sun term); and pressure half-ranges
 * down to the floor of 1e-6. One kernel takes the days in turn, and its transmittance table is refilled when the
 * turbidity changes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  allocateDaySamples,
  sampleCapacity,
  sunSamplesForDay,
  transmittanceTable,
  type DaySamples,
  type HorizonLayout,
  type NearRayWriter,
  type TileGeometry,
} from '../../../src/science/solar/dailyKernel.js';
import { WasmDailyKernel } from '../../../src/science/solar/dailyKernelWasm.js';

const DEG = Math.PI / 180;

/** Everything a day of samples holds that the kernel reads, as plain numbers (−0 kept apart from 0). */
function everything(samples: DaySamples, rayInputs: Float64Array) {
  const count = samples.count;
  const groups = samples.groupCount;
  const list = (a: ArrayLike<number>, n: number) => Array.from({ length: n }, (_, i) => (Object.is(a[i], -0) ? '-0' : a[i]));
  return {
    count,
    peak: samples.peak,
    groupCount: groups,
    scalars: [samples.stepHours, samples.extraterrestrialWM2, samples.sumDiffuseHorizontal, samples.pressureRatioCentre],
    reach: [samples.nearReachCols, samples.nearReachRows],
    sinAltitude: list(samples.sinAltitude, count),
    altitudeUnits: list(samples.altitudeUnits, count),
    sunEast: list(samples.sunEast, count),
    sunNorth: list(samples.sunNorth, count),
    nearSector: list(samples.nearSector, count),
    horizonDirection0: list(samples.horizonDirection0, count),
    horizonDirection1: list(samples.horizonDirection1, count),
    horizonWeight: list(samples.horizonWeight, count),
    prefix: list(samples.prefix, 26 * (count + 1)),
    sampleGroup: list(samples.sampleGroup, count),
    groupSector: list(samples.groupSector, groups),
    groupStart: list(samples.groupStart, groups),
    groupEnd: list(samples.groupEnd, groups),
    groupMinAltitude: list(samples.groupMinAltitude, groups),
    groupMaxAltitude: list(samples.groupMaxAltitude, groups),
    nearStart: list(samples.nearStart, count + 1),
    nearThreshold: list(samples.nearThreshold, samples.nearStart[count]!),
    rayInputs: list(rayInputs, 3 * count),
  };
}

/** The kernel as a writer of the near-field rays only: `sunSamplesForDay` computes the samples in TypeScript. */
function raysOnly(kernel: WasmDailyKernel): NearRayWriter {
  return { rayInputs: kernel.rayInputs, writeNearRays: (...args) => kernel.writeNearRays(...args) };
}

const TILES: readonly [latitudeDeg: number, convergenceDeg: number, cellSizeXM: number, cellSizeYM: number, halfRange: number][] = [
  [41, 0.4, 10, 10, 0.012],
  [62, -1.7, 20, 20, 0.03],
  [-35.8, 3.5, 2, 2, 0.004],
  [8, 0, 30, 30, 0],
  [71, 2.5, 9.3, 30.9, 0.02],
  [-78, -0.2, 1, 1, 0.0005],
  [89.5, 0, 0.5, 0.5, 0.001],
];

const SETTINGS: readonly [stepMinutes: number, linkeTurbidity: number, layout: HorizonLayout][] = [
  [15, 3, { directions: 64, nearSectors: 128, nearSteps: 16 }],
  [5, 1.8, { directions: 256, nearSectors: 512, nearSteps: 8 }],
  [60, 6.5, { directions: 48, nearSectors: 144, nearSteps: 12 }],
  [30, 3, { directions: 96, nearSectors: 192, nearSteps: 24 }],
];

test('the compiled sun samples of a day are the TypeScript ones to the bit', () => {
  let days = 0;
  let samples = 0;
  let lowSun = 0;
  for (const [stepMinutes, linkeTurbidity, layout] of SETTINGS) {
    const params = { stepMinutes, linkeTurbidity, albedo: 0.2 };
    const capacity = sampleCapacity(stepMinutes);
    const kernel = new WasmDailyKernel(layout, capacity, false, 'traced');
    kernel.reserve(256, 4096);
    const compiled = kernel.daySamples[0]!;
    const plain = kernel.daySamples[1]!;
    // (the TypeScript path's own table, apart from the kernel's)
    const table = transmittanceTable(linkeTurbidity);
    for (const [latitudeDeg, convergenceDeg, cellSizeXM, cellSizeYM, halfRange] of TILES) {
      const tile: TileGeometry = {
        latitudeRad: latitudeDeg * DEG,
        convergenceRad: convergenceDeg * DEG,
        cellSizeXM,
        cellSizeYM,
        pressureRatioCentre: Math.exp(-1200 / 8434.5),
        pressureRatioHalfRange: halfRange,
      };
      for (let day = 1; day <= 365; day += stepMinutes === 5 ? 7 : 2) {
        sunSamplesForDay(day, tile, params, table, 300, layout, plain, raysOnly(kernel));
        const expected = everything(plain, kernel.rayInputs);
        sunSamplesForDay(day, tile, params, table, 300, layout, compiled, kernel);
        assert.deepEqual(everything(compiled, kernel.rayInputs), expected, `day ${day} at ${latitudeDeg}°, ${stepMinutes} min, T_L ${linkeTurbidity}, ${layout.directions} directions`);
        days++;
        samples += compiled.count;
        // samples below 0.1 rad: Muneer's low-sun circumsolar term
        for (let k = 0; k < compiled.count; k++) if (compiled.altitudeUnits[k]! < 0.1 / 1e-4) lowSun++;
      }
    }
  }
  assert.ok(days > 2000, `${days} days compared`);
  assert.ok(samples > 100_000, `${samples} samples compared`);
  assert.ok(lowSun > 10_000, `${lowSun} samples below 0.1 rad`);
});

test('the compiled sun samples go to the kernel’s own day samples only, and fall back for a table larger than its room', () => {
  const layout = { directions: 64, nearSectors: 128, nearSteps: 16 };
  const params = { stepMinutes: 15, linkeTurbidity: 3, albedo: 0.2 };
  const kernel = new WasmDailyKernel(layout, sampleCapacity(15), false, 'traced');
  kernel.reserve(64, 1024);
  const tile: TileGeometry = { latitudeRad: 40 * DEG, convergenceRad: 0, cellSizeXM: 10, cellSizeYM: 10, pressureRatioCentre: 0.9, pressureRatioHalfRange: 0.01 };
  const elsewhere = allocateDaySamples(sampleCapacity(15), 16);
  assert.throws(() => sunSamplesForDay(172, tile, params, transmittanceTable(3), 40, layout, elsewhere, kernel), /this kernel's own day samples/);
  // a finer table than the module has room for: the TypeScript samples, the same as without the compiled ones
  const fine = transmittanceTable(3, 48, 0.001);
  const ours = kernel.daySamples[0]!;
  assert.equal(kernel.writeSunSamples(ours, { tile, declinationRad: 0.4, stepHours: 0.25, extraterrestrialWM2: 1367, diffuse: { tn: 0.08, a1: 0.1, a2: 0.9, a3: -0.2 }, pressureRatioCentre: 0.9, pressureRatioHalf: 0.01, layout }, fine), false);
  sunSamplesForDay(172, tile, params, fine, 40, layout, kernel.daySamples[1]!, raysOnly(kernel));
  const expected = everything(kernel.daySamples[1]!, kernel.rayInputs);
  sunSamplesForDay(172, tile, params, fine, 40, layout, ours, kernel);
  assert.deepEqual(everything(ours, kernel.rayInputs), expected);
  assert.ok(ours.count > 40);
});

test('the compiled sun samples follow a change of turbidity (the kernel refills its transmittance table)', () => {
  const layout = { directions: 64, nearSectors: 128, nearSteps: 16 };
  const kernel = new WasmDailyKernel(layout, sampleCapacity(15), false, 'traced');
  kernel.reserve(64, 1024);
  const tile: TileGeometry = { latitudeRad: 47 * DEG, convergenceRad: 0.01, cellSizeXM: 10, cellSizeYM: 10, pressureRatioCentre: 0.85, pressureRatioHalfRange: 0.02 };
  const daySums = new Set<number>();
  for (const linkeTurbidity of [3, 5.5, 3, 2]) {
    const params = { stepMinutes: 15, linkeTurbidity, albedo: 0.2 };
    const table = transmittanceTable(linkeTurbidity);
    sunSamplesForDay(100, tile, params, table, 40, layout, kernel.daySamples[1]!, raysOnly(kernel));
    const expected = everything(kernel.daySamples[1]!, kernel.rayInputs);
    sunSamplesForDay(100, tile, params, table, 40, layout, kernel.daySamples[0]!, kernel);
    assert.deepEqual(everything(kernel.daySamples[0]!, kernel.rayInputs), expected, `T_L ${linkeTurbidity}`);
    daySums.add(expected.prefix[26 * expected.count + 2] as number);
  }
  // (the turbidity changes the sums: the comparison would see a stale table)
  assert.equal(daySums.size, 3);
});
