/** How a job is split: tile slices covering the tiles once, a last part assembling them, weights summing to 1, small DEMs whole. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AFTER_SOLAR_PART, ASSEMBLE_PART, ASSEMBLY_SHARE, planParts, runsLast } from '../../src/jobs/queue/partPlan.js';
import { eemtSolarShare } from '../../src/workflows/eemt/progress.js';

const SPLIT = { minCells: 1000, parts: 4 };
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

test('a large sol job: N tile slices, then the assembly in N shares, the first one last in the flow; weights sum to 1', () => {
  for (let parts = 2; parts <= 12; parts++) {
    const plan = planParts('sol', 5000, { minCells: 1000, parts });
    assert.equal(plan.length, 2 * parts);
    assert.deepEqual(plan.slice(0, parts).map((p) => p.mode), Array.from({ length: parts }, (_, index) => ({ kind: 'slice', slice: { index, count: parts } })));
    const shares = plan.slice(parts);
    assert.deepEqual(shares.map((p) => p.mode), Array.from({ length: parts }, (_, index) => ({ kind: 'assemble', slices: parts, share: { index, count: parts } })));
    // the first share is the flow's last part; it adds the others when it starts
    assert.deepEqual(plan.map(runsLast), plan.map((_, k) => k === parts));
    assert.deepEqual(plan.map((p) => p.addedByLastPart === true), plan.map((_, k) => k > parts));
    assert.ok(Math.abs(sum(plan.map((p) => p.weight)) - 1) < 1e-12);
    assert.ok(Math.abs(sum(shares.map((p) => p.weight)) - ASSEMBLY_SHARE) < 1e-12);
    assert.equal(new Set(plan.map((p) => p.name)).size, plan.length);
  }
  assert.deepEqual(
    planParts('sol', 5000, SPLIT).map((p) => p.name),
    ['tiles-1-of-4', 'tiles-2-of-4', 'tiles-3-of-4', 'tiles-4-of-4', ASSEMBLE_PART, `${ASSEMBLE_PART}-2-of-4`, `${ASSEMBLE_PART}-3-of-4`, `${ASSEMBLE_PART}-4-of-4`],
  );
});

test('small DEMs, or one part asked, are one part, sol or eemt', () => {
  assert.deepEqual(planParts('sol', 999, SPLIT), [{ name: 'all', weight: 1, mode: { kind: 'whole' } }]);
  assert.deepEqual(planParts('eemt', 999, SPLIT, 3), [{ name: 'all', weight: 1, mode: { kind: 'whole' } }]);
  assert.deepEqual(planParts('sol', 5000, { minCells: 1000, parts: 1 }), [{ name: 'all', weight: 1, mode: { kind: 'whole' } }]);
});

test('a large eemt job: solar tile slices weighted by the solar share, then the rest of the job, assembling them, last', () => {
  for (const years of [1, 5]) {
    const plan = planParts('eemt', 5000, SPLIT, years);
    const solarShare = eemtSolarShare(years);
    assert.deepEqual(
      plan.map((p) => [p.name, p.mode]),
      [
        ['tiles-1-of-4', { kind: 'slice', slice: { index: 0, count: 4 } }],
        ['tiles-2-of-4', { kind: 'slice', slice: { index: 1, count: 4 } }],
        ['tiles-3-of-4', { kind: 'slice', slice: { index: 2, count: 4 } }],
        ['tiles-4-of-4', { kind: 'slice', slice: { index: 3, count: 4 } }],
        [AFTER_SOLAR_PART, { kind: 'assemble', slices: 4 }],
      ],
    );
    assert.ok(Math.abs(sum(plan.slice(0, 4).map((p) => p.weight)) - solarShare) < 1e-12);
    assert.ok(Math.abs(sum(plan.map((p) => p.weight)) - 1) < 1e-12);
  }
  // More climate years make the rest of the job a larger share.
  assert.ok(eemtSolarShare(1) > eemtSolarShare(5) && eemtSolarShare(5) > 0.5);
});
