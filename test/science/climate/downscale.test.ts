import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_LAPSE_RATE_K_PER_KM,
  lapseRateAdjustedTemperature,
  monthlyLapseRatesKPerKm,
  resampleNearestToDem,
  lapseAdjustedTemperatureToDem,
} from '../../../src/science/climate/index.js';

const close = (a: number, b: number, tol = 1e-9) => assert.ok(Math.abs(a - b) <= tol, `${a} vs ${b}`);

test('lapse rate: default 6.49 K/km, T unchanged at z_ref', () => {
  assert.equal(DEFAULT_LAPSE_RATE_K_PER_KM, 6.49);
  assert.equal(lapseRateAdjustedTemperature(12.3, 2500, 2500), 12.3);
  // 500 m above the Daymet cell: −3.245 K.
  close(lapseRateAdjustedTemperature(10, 3000, 2500), 6.755);
  // 250 m below: +1.6225 K.
  close(lapseRateAdjustedTemperature(-4, 2250, 2500), -2.3775);
  close(lapseRateAdjustedTemperature(0, 1000, 0, 5), -5);
});

test('monthly lapse rates: scalar broadcast, 12 values, wrong count throws', () => {
  assert.deepEqual([...monthlyLapseRatesKPerKm()], new Array(12).fill(6.49));
  assert.deepEqual([...monthlyLapseRatesKPerKm(5)], new Array(12).fill(5));
  const twelve = [4, 4.5, 5, 5.5, 6, 6.5, 7, 6.5, 6, 5.5, 5, 4.5];
  assert.deepEqual([...monthlyLapseRatesKPerKm(twelve)], twelve);
  assert.throws(() => monthlyLapseRatesKPerKm([1, 2, 3]), /12 values/);
  assert.throws(() => monthlyLapseRatesKPerKm(Number.NaN), /finite/);
});

test('nearest-neighbour resampling copies the cell value; −1 and nodata → NaN', () => {
  const cells = [100, 200, 300];
  const idx = Int32Array.from([0, 1, 2, 2, -1, 0]);
  const z = [1, 1, 1, 1, 1, Number.NaN];
  const out = resampleNearestToDem(cells, idx, z);
  assert.deepEqual([...out.slice(0, 4)], [100, 200, 300, 300]);
  assert.ok(Number.isNaN(out[4]!));
  assert.ok(Number.isNaN(out[5]!));
  assert.deepEqual([...resampleNearestToDem(cells, Int32Array.from([2, 0]))], [300, 100]);
  assert.throws(() => resampleNearestToDem(cells, idx, [1, 2]), /DEM elevation/);
});

test('lapse-adjusted temperature per DEM cell', () => {
  const t = [5, -3];
  const zRef = [2500, 2600];
  const idx = Int32Array.from([0, 0, 1, 1, -1]);
  const dem = [2500, 2600, 2600, 2400, 2500];
  const out = lapseAdjustedTemperatureToDem(t, zRef, idx, dem);
  close(out[0]!, 5, 1e-6);
  close(out[1]!, 5 - 0.649, 1e-6);
  close(out[2]!, -3, 1e-6);
  close(out[3]!, -3 + 1.298, 1e-6);
  assert.ok(Number.isNaN(out[4]!));
  const out10 = lapseAdjustedTemperatureToDem(t, zRef, idx, dem, 10);
  close(out10[1]!, 4, 1e-6);
  assert.ok(Number.isNaN(lapseAdjustedTemperatureToDem(t, zRef, idx, [Number.NaN, 0, 0, 0, 0])[0]!));
});
