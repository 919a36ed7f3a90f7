/** How a job is split: whole months, every day of the year exactly once, weights by days, small DEMs whole, eemt's solar phase. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AFTER_SOLAR_PART, monthRanges, planParts } from '../../src/jobs/partPlan.js';
import { eemtSolarShare } from '../../src/workflows/eemt/progress.js';

const SPLIT = { minCells: 1000, parts: 4 };

test('a large sol job: month ranges covering days 1–365 once, in order, weights summing to 1', () => {
  for (let parts = 1; parts <= 12; parts++) {
    const plan = planParts('sol', 5000, { minCells: 1000, parts });
    assert.equal(plan.length, parts === 1 ? 1 : parts);
    if (parts === 1) continue;
    const days = plan.flatMap((p) => p.days!);
    assert.deepEqual(days, Array.from({ length: 365 }, (_, i) => i + 1));
    assert.ok(Math.abs(plan.reduce((s, p) => s + p.weight, 0) - 1) < 1e-12);
    assert.equal(new Set(plan.map((p) => p.name)).size, plan.length);
  }
  assert.deepEqual(
    planParts('sol', 5000, SPLIT).map((p) => [p.name, p.days!.length]),
    [['m01-03', 90], ['m04-06', 91], ['m07-09', 92], ['m10-12', 92]],
  );
  assert.deepEqual(monthRanges(2), [[0, 5], [6, 11]]);
  assert.equal(monthRanges(12).length, 12);
});

test('small DEMs are one part, sol or eemt', () => {
  assert.deepEqual(planParts('sol', 999, SPLIT), [{ name: 'all', days: null, weight: 1 }]);
  assert.deepEqual(planParts('eemt', 999, SPLIT, 3), [{ name: 'all', days: null, weight: 1 }]);
});

test('a large eemt job: solar parts by month ranges weighted by the solar share, then the rest of the job last', () => {
  for (const years of [1, 5]) {
    const plan = planParts('eemt', 5000, SPLIT, years);
    const solarShare = eemtSolarShare(years);
    assert.deepEqual(plan.map((p) => [p.name, p.eemtPhases]), [
      ['m01-03', 'solar'], ['m04-06', 'solar'], ['m07-09', 'solar'], ['m10-12', 'solar'], [AFTER_SOLAR_PART, 'after-solar'],
    ]);
    assert.deepEqual(plan.slice(0, 4).flatMap((p) => p.days!), Array.from({ length: 365 }, (_, i) => i + 1));
    assert.equal(plan.at(-1)!.days, null);
    assert.ok(Math.abs(plan.slice(0, 4).reduce((s, p) => s + p.weight, 0) - solarShare) < 1e-12);
    assert.ok(Math.abs(plan.reduce((s, p) => s + p.weight, 0) - 1) < 1e-12);
    assert.ok(Math.abs(plan[0]!.weight - (90 / 365) * solarShare) < 1e-12);
  }
  // More climate years make the rest of the job a larger share.
  assert.ok(eemtSolarShare(1) > eemtSolarShare(5) && eemtSolarShare(5) > 0.5);
});
