import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MISCLASSIFIED_SHARE_TARGET, estimatedMisclassifiedShare, horizonBudget, horizonLayoutFor } from '../../../src/science/solar/horizonBudget.js';
import { buildTerrainModel } from '../../../src/science/solar/terrainModel.js';

/** The same landscape (hills 150–400 m across, up to 35 m high) sampled at `cellM` over 1.2 km × 1 km. */
function hills(cellM: number) {
  const width = Math.round(1200 / cellM);
  const height = Math.round(1000 / cellM);
  const z = new Float32Array(width * height);
  for (let r = 0; r < height; r++) {
    for (let c = 0; c < width; c++) {
      const x = c * cellM;
      const y = r * cellM;
      z[r * width + c] = 2000 + 35 * Math.sin(x / 60) * Math.cos(y / 45) + 20 * Math.sin((x + 2 * y) / 110) + 0.02 * x;
    }
  }
  return buildTerrainModel(z, width, height, new Float64Array(height).fill(cellM), new Float64Array(height).fill(cellM));
}

test('the misclassification estimate is 9 %/° × p_far × S̃·π/N in degrees', () => {
  // mcn_10m with 16 near steps and 32 directions: 21 % of the horizons set beyond the near field, S̃ = 0.295
  assert.ok(Math.abs(estimatedMisclassifiedShare(0.21, 0.295, 32) - 0.09 * 0.21 * ((0.295 * 180) / 32)) < 1e-12);
  assert.equal(estimatedMisclassifiedShare(0, 0.5, 32), 0);
  assert.ok(estimatedMisclassifiedShare(0.3, 0.5, 128) < estimatedMisclassifiedShare(0.3, 0.5, 64));
});

test('flat terrain needs the smallest layout: no horizon can hide the sun', () => {
  const flat = buildTerrainModel(new Float32Array(80 * 60).fill(1500), 80, 60, new Float64Array(60).fill(5), new Float64Array(60).fill(5));
  const budget = horizonBudget(flat);
  assert.deepEqual(budget.layout, { directions: 32, nearSectors: 128, nearSteps: 16 });
  assert.equal(budget.medianSlope, 0);
  assert.equal(budget.estimatedShare, 0);
});

test('hilly terrain meets the budget, and the same hills on a finer grid need more directions or near steps', () => {
  const coarse = horizonBudget(hills(10));
  const fine = horizonBudget(hills(2));
  for (const budget of [coarse, fine]) {
    assert.ok(budget.estimatedShare <= MISCLASSIFIED_SHARE_TARGET, `${JSON.stringify(budget)}`);
    assert.ok(budget.medianSlope > 0.2 && budget.medianSlope < 1);
    assert.equal(budget.layout.nearSectors % budget.layout.directions, 0);
    // a longer near field leaves fewer horizons to the far field
    assert.ok(budget.farShare[16]! >= budget.farShare[24]! && budget.farShare[24]! >= budget.farShare[32]!);
  }
  // the hills span more cells on the finer grid: more of their horizons lie beyond 16 steps
  assert.ok(fine.farShare[16]! > coarse.farShare[16]!);
  const work = (l: { directions: number; nearSteps: number }) => l.directions * l.nearSteps;
  assert.ok(work(fine.layout) > work(coarse.layout), `${JSON.stringify(fine.layout)} vs ${JSON.stringify(coarse.layout)}`);
  assert.deepEqual(horizonLayoutFor(hills(10)), coarse.layout);
});
