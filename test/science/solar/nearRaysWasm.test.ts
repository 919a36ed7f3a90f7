/**
 * The near-field rays of a day's sun samples written by the compiled kernel (assembly/nearRays.ts, through
 * `WasmDailyKernel.writeNearRays`) are those `sunSamplesForDay` writes with `nearFieldSteps` and
 * `appendNearFieldRay`, to the bit: every entry's grid offset, column, row, threshold and least threshold to the
 * ray's end, each sample's start and quadrant, and the day's reach; and the rest of the day's samples is the same.
 * Over latitudes from the tropics to polar day and night, square, elongated and geographic-sized cells, meridian
 * convergence, near fields of 16–64 steps and grids of several widths; one kernel takes the days in turn, so
 * nothing of one day may leak into the next.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allocateDaySamples, sampleCapacity, sunSamplesForDay, transmittanceTable, type DaySamples, type TileGeometry } from '../../../src/science/solar/dailyKernel.js';
import { WasmDailyKernel } from '../../../src/science/solar/dailyKernelWasm.js';

const DEG = Math.PI / 180;
const PARAMS = { stepMinutes: 15, linkeTurbidity: 3, albedo: 0.2 };

/** The arrays of `samples` that a day of `count` samples fills, as plain numbers (−0 kept apart from 0). */
function filled(samples: DaySamples) {
  const count = samples.count;
  const entries = samples.nearStart[count]!;
  const list = (a: ArrayLike<number>, n: number) => Array.from({ length: n }, (_, i) => (Object.is(a[i], -0) ? '-0' : a[i]));
  return {
    count,
    peak: samples.peak,
    groupCount: samples.groupCount,
    reach: [samples.nearReachCols, samples.nearReachRows],
    nearStart: list(samples.nearStart, count + 1),
    nearQuadrant: list(samples.nearQuadrant, count),
    nearOffset: list(samples.nearOffset, entries),
    nearCol: list(samples.nearCol, entries),
    nearRow: list(samples.nearRow, entries),
    nearThreshold: list(samples.nearThreshold, entries),
    nearMinThreshold: list(samples.nearMinThreshold, entries),
    altitudeUnits: list(samples.altitudeUnits, count),
    nearSector: list(samples.nearSector, count),
    prefix: list(samples.prefix, 26 * (count + 1)),
  };
}

test('the compiled near-field rays of a day are the TypeScript ones to the bit', () => {
  const table = transmittanceTable(PARAMS.linkeTurbidity);
  const capacity = sampleCapacity(PARAMS.stepMinutes);
  let days = 0;
  let entries = 0;
  for (const nearSteps of [16, 48, 64]) {
    const layout = { directions: 64, nearSectors: 128, nearSteps };
    const kernel = new WasmDailyKernel(layout, capacity, false, 'traced');
    kernel.reserve(256, 4096);
    const plain = allocateDaySamples(capacity, nearSteps);
    for (const [latitudeDeg, convergenceDeg, cellSizeXM, cellSizeYM] of [
      [62, 0.8, 20, 20],
      [-35.8, -1.3, 2, 2],
      [12, 0, 30, 30],
      [71, 2.5, 9.3, 30.9],
      [-80, 0, 1, 1],
      [45, -0.2, 0.22, 0.22],
    ] as const) {
      const tile: TileGeometry = {
        latitudeRad: latitudeDeg * DEG,
        convergenceRad: convergenceDeg * DEG,
        cellSizeXM,
        cellSizeYM,
        pressureRatioCentre: 0.83,
        pressureRatioHalfRange: 0.01,
      };
      for (const [day, width] of [[1, 44], [80, 97], [172, 300], [355, 44], [356, 1201]] as const) {
        const ours = kernel.daySamples[day % 3]!;
        sunSamplesForDay(day, tile, PARAMS, table, width, layout, plain);
        sunSamplesForDay(day, tile, PARAMS, table, width, layout, ours, kernel);
        assert.deepEqual(filled(ours), filled(plain), `day ${day} at ${latitudeDeg}°, cells ${cellSizeXM} × ${cellSizeYM} m, ${nearSteps} steps, width ${width}`);
        days++;
        entries += plain.nearStart[plain.count]!;
      }
    }
  }
  assert.equal(days, 90);
  // (polar night has no sample; the rest have many)
  assert.ok(entries > 50_000, `${entries} entries compared`);
});

test('the compiled near-field rays go to the kernel’s own day samples only', () => {
  const layout = { directions: 64, nearSectors: 128, nearSteps: 16 };
  const kernel = new WasmDailyKernel(layout, sampleCapacity(15), false, 'traced');
  kernel.reserve(64, 1024);
  const tile: TileGeometry = { latitudeRad: 40 * DEG, convergenceRad: 0, cellSizeXM: 10, cellSizeYM: 10, pressureRatioCentre: 0.9, pressureRatioHalfRange: 0.01 };
  const elsewhere = allocateDaySamples(sampleCapacity(15), 16);
  assert.throws(() => sunSamplesForDay(172, tile, PARAMS, transmittanceTable(3), 40, layout, elsewhere, kernel), /this kernel's own day samples/);
});
