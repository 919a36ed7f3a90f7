/** How a job is split: whole months, every day of the year exactly once, weights by days, small DEMs whole. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { monthRanges, planParts } from '../../src/jobs/partPlan.js';

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

test('small DEMs and eemt jobs are one part', () => {
  assert.deepEqual(planParts('sol', 999, SPLIT), [{ name: 'all', days: null, weight: 1 }]);
  assert.deepEqual(planParts('eemt', 5000, SPLIT), [{ name: 'all', days: null, weight: 1 }]);
});
