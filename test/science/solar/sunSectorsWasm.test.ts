/**
 * The far sectors the compiled kernel finds for a tile's sun tiles (assembly/sunSectors.ts, through
 * `WasmDailyKernel.sunSectors`) are `sunSectors`'s: latitudes from the equator to polar day and night on both
 * hemispheres, meridian convergences of either sign (azimuths wrapped past north), steps of 7.5 to 60 minutes,
 * 32 to 256 directions, single days and whole years, and more sun tiles than one call of the module takes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WasmDailyKernel } from '../../../src/science/solar/dailyKernelWasm.js';
import { sunSectors, type TileGeometry } from '../../../src/science/solar/dailyKernel.js';
import { sampleHours } from '../../../src/science/solar/dailyIrradiation.js';
import { solarDeclination, sunDirection } from '../../../src/science/solar/sunPosition.js';

const DEG = Math.PI / 180;

/** `count` sun tiles spread over latitudes from `fromDeg` to `toDeg` and convergences of ±`convergenceDeg`. */
function tiles(count: number, fromDeg: number, toDeg: number, convergenceDeg: number): TileGeometry[] {
  return Array.from({ length: count }, (_, i) => {
    const f = count === 1 ? 0.5 : i / (count - 1);
    return { latitudeRad: (fromDeg + f * (toDeg - fromDeg)) * DEG, convergenceRad: (2 * f - 1) * convergenceDeg * DEG, cellSizeXM: 10, cellSizeYM: 10 } as TileGeometry;
  });
}

test('the compiled sun sectors of a tile are sunSectors’s', () => {
  const kernel = new WasmDailyKernel({ directions: 64, nearSectors: 128, nearSteps: 16 }, 100, false, 'traced');
  kernel.reserve(64, 256);
  const year = Array.from({ length: 365 }, (_, i) => i + 1);
  const cases: [number[], TileGeometry[], number, number][] = [
    [[172], tiles(1, 41, 41, 0), 15, 64],
    [[340, 350, 360], tiles(49, 59.9, 60.1, 1.5), 15, 64],
    [[1, 80, 172, 264, 355], tiles(9, -62, -55, 3), 7.5, 256],
    [year, tiles(4, 0, 2, 0.4), 60, 32],
    [[1, 100, 172, 200, 355], tiles(12, 66, 80, 30), 15, 128], // polar day and night
    [[30, 80, 330], tiles(300, 35, 36, 2), 30, 192], // more sun tiles than one call takes
  ];
  // sun tiles turned so that one of their samples stands on a sector boundary, within rounding: it marks both sides
  const onBoundary = [0, 5, 17, 30].map((k): TileGeometry => {
    const latitudeRad = 41 * DEG;
    const declination = solarDeclination(100);
    const hour = sampleHours(latitudeRad, declination, 0.25)[k + 10]!;
    const sun = sunDirection(latitudeRad, declination, ((hour - 12) * Math.PI) / 12);
    const azimuth = Math.atan2(sun.east, sun.north);
    const boundary = (Math.round((azimuth / (2 * Math.PI)) * 256) / 256) * 2 * Math.PI;
    return { latitudeRad, convergenceRad: boundary - azimuth + (k % 2 ? 1e-12 : -1e-12), cellSizeXM: 10, cellSizeYM: 10 } as TileGeometry;
  });
  cases.push([[100], onBoundary, 15, 256]);
  let marked = 0;
  let partial = 0;
  for (const [days, geometries, step, directions] of cases) {
    const expected = sunSectors(days, geometries, step, directions);
    const compiled = kernel.sunSectors(days, geometries, step, directions);
    assert.deepEqual(Array.from(compiled), Array.from(expected), `${days.length} days, ${geometries.length} tiles, step ${step}, N ${directions}`);
    marked += expected.filter((v) => v === 1).length;
    if (expected.some((v) => v === 0)) partial++;
  }
  assert.ok(marked > 100 && partial >= 3, `${marked} sectors marked; ${partial} cases with sectors the sun never stands in`);
});
