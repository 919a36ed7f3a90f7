import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DAYS_IN_MONTH,
  DAY_OF_YEAR_BEFORE_MONTH,
  monthIndexOfYday,
  aggregateDailyToMonthly,
  aggregateDaymetYearToMonthly,
  DAYMET_MISSING_VALUE,
} from '../../../src/science/climate/index.js';

test('365-day calendar: month lengths, starts and yday → month', () => {
  assert.deepEqual([...DAYS_IN_MONTH], [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]);
  assert.equal(DAYS_IN_MONTH.reduce((a, b) => a + b, 0), 365);
  assert.deepEqual([...DAY_OF_YEAR_BEFORE_MONTH], [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334]);
  assert.equal(monthIndexOfYday(1), 0);
  assert.equal(monthIndexOfYday(31), 0);
  assert.equal(monthIndexOfYday(32), 1);
  assert.equal(monthIndexOfYday(59), 1);
  assert.equal(monthIndexOfYday(60), 2); // also in leap years: Daymet drops 31 Dec, not 29 Feb's slot
  assert.equal(monthIndexOfYday(151), 4); // 31 May is day 151
  assert.equal(monthIndexOfYday(152), 5);
  assert.equal(monthIndexOfYday(365), 11);
  assert.throws(() => monthIndexOfYday(0), RangeError);
  assert.throws(() => monthIndexOfYday(366), RangeError);
});

test('means and totals against hand computation (value = yday)', () => {
  const daily = Float64Array.from({ length: 365 }, (_, i) => i + 1);
  const mean = aggregateDailyToMonthly(daily, 'mean');
  const total = aggregateDailyToMonthly(daily, 'total');
  // January: days 1..31 → mean 16, total 496. February: 32..59 → mean 45.5, total 1274.
  assert.equal(mean[0], 16);
  assert.equal(total[0], 496);
  assert.equal(mean[1], 45.5);
  assert.equal(total[1], 1274);
  // December: 335..365 → mean 350, total 10850. May: 121..151 → mean 136 (31 days, incl. day 151).
  assert.equal(mean[11], 350);
  assert.equal(total[11], 10850);
  assert.equal(mean[4], 136);
  assert.equal(total.reduce((a, b) => a + b, 0), (365 * 366) / 2);
});

test('constant series: total = value × month length', () => {
  const prcp = new Float64Array(365).fill(2);
  const total = aggregateDailyToMonthly(prcp, 'total');
  assert.deepEqual([...total], DAYS_IN_MONTH.map((n) => 2 * n));
});

test('missing −9999 days: mean of present days, total scaled, NaN below the threshold', () => {
  const daily = new Float64Array(365).fill(1);
  // January: 6 of 31 missing (25/31 = 0.806 ≥ 0.8), the others 1 except day 2 = 7.
  for (let d = 10; d < 16; d++) daily[d] = DAYMET_MISSING_VALUE;
  daily[1] = 7;
  // February: 6 of 28 missing (22/28 = 0.786 < 0.8) → NaN.
  for (let d = 31; d < 37; d++) daily[d] = DAYMET_MISSING_VALUE;
  // March: one NaN counts as missing.
  daily[59] = Number.NaN;
  const mean = aggregateDailyToMonthly(daily, 'mean');
  const total = aggregateDailyToMonthly(daily, 'total');
  assert.equal(mean[0], (24 + 7) / 25);
  assert.ok(Math.abs(total[0]! - ((24 + 7) / 25) * 31) < 1e-12);
  assert.ok(Number.isNaN(mean[1]!));
  assert.ok(Number.isNaN(total[1]!));
  assert.equal(mean[2], 1);
  assert.equal(total[2], 31);
  // A looser threshold accepts February.
  assert.equal(aggregateDailyToMonthly(daily, 'mean', 0.5)[1], 1);
  // A whole missing series → all NaN.
  const all = aggregateDailyToMonthly(new Float64Array(365).fill(-9999), 'mean');
  assert.ok([...all].every(Number.isNaN));
});

test('aggregateDaymetYearToMonthly: tmax/tmin/vp means, prcp totals; wrong length throws', () => {
  const m = aggregateDaymetYearToMonthly({
    tmax: new Float64Array(365).fill(10),
    tmin: new Float64Array(365).fill(-2),
    prcp: new Float64Array(365).fill(0.5),
    vp: new Float64Array(365).fill(400),
  });
  assert.equal(m.tmax[6], 10);
  assert.equal(m.tmin[6], -2);
  assert.equal(m.vp[6], 400);
  assert.equal(m.prcp[6], 15.5);
  assert.equal(m.prcp[1], 14);
  assert.throws(() => aggregateDailyToMonthly(new Float64Array(366), 'mean'), /365/);
  assert.throws(() => aggregateDailyToMonthly(new Float64Array(365), 'mean', 0), RangeError);
});
