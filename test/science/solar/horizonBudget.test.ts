import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MISCLASSIFIED_SHARE_TARGET, estimatedMisclassifiedShare, horizonBudget, horizonLayoutFor, lowSunFactor } from '../../../src/science/solar/horizonBudget.js';
import { buildTerrainModel } from '../../../src/science/solar/terrainModel.js';

/** The same landscape (hills 150–400 m across, up to 35 m high, × `relief`) sampled at `cellM` over 1.2 km × 1 km. */
function hills(cellM: number, relief = 1) {
  const width = Math.round(1200 / cellM);
  const height = Math.round(1000 / cellM);
  const z = new Float32Array(width * height);
  for (let r = 0; r < height; r++) {
    for (let c = 0; c < width; c++) {
      const x = c * cellM;
      const y = r * cellM;
      z[r * width + c] = 2000 + relief * (35 * Math.sin(x / 60) * Math.cos(y / 45) + 20 * Math.sin((x + 2 * y) / 110) + 0.02 * x);
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

const site = (latitudeDeg: number) => ({ largestAbsLatitudeRad: (latitudeDeg * Math.PI) / 180 });

test('the low-sun factor: 1 while the noon sun reaches 30° all year, √(tan 30° / tan h_min) below, 3 at most', () => {
  assert.equal(lowSunFactor(), 1);
  assert.equal(lowSunFactor(site(0)), 1);
  // 90° − 36.56° − 23.44° = 30°: the last latitude at the calibration's sun
  assert.equal(lowSunFactor(site(36.5)), 1);
  // 55°: the lowest noon sun 11.56° high
  const h = ((90 - 55 - 23.44) * Math.PI) / 180;
  assert.ok(Math.abs(lowSunFactor(site(55)) - Math.sqrt(Math.tan(Math.PI / 6) / Math.tan(h))) < 1e-12);
  assert.ok(lowSunFactor(site(55)) > 1.6 && lowSunFactor(site(55)) < 1.75);
  assert.ok(lowSunFactor(site(45)) > 1 && lowSunFactor(site(45)) < lowSunFactor(site(55)));
  // polar night (and the sun within a few degrees of the horizon at noon): the cap
  assert.equal(lowSunFactor(site(66.6)), 3);
  assert.equal(lowSunFactor(site(80)), 3);
  assert.equal(lowSunFactor(site(65)), 3);
});

test('a DEM where the sun stays low in winter gets a finer layout than the same DEM at mid-latitudes', () => {
  const terrain = hills(2);
  const mid = horizonBudget(terrain, site(30));
  const south = horizonBudget(terrain, site(55));
  assert.deepEqual(mid.layout, horizonBudget(terrain).layout, 'at 30° the calibration holds as it is');
  assert.equal(south.lowSunFactor, lowSunFactor(site(55)));
  assert.ok(south.estimatedShare <= MISCLASSIFIED_SHARE_TARGET);
  // the estimate of the mid-latitude layout at 55° would miss the target; the chosen one costs more
  const midAtSouth = estimatedMisclassifiedShare(mid.farShare[mid.layout.nearSteps]!, mid.medianSlope, mid.layout.directions, south.lowSunFactor);
  assert.ok(midAtSouth > MISCLASSIFIED_SHARE_TARGET, `${midAtSouth}`);
  const work = (l: { directions: number; nearSteps: number }) => l.directions * l.nearSteps;
  assert.ok(work(south.layout) > work(mid.layout), `${JSON.stringify(south.layout)} vs ${JSON.stringify(mid.layout)}`);
});

test('where no layout meets the target, the one with the smallest estimate is chosen, not the cheapest', () => {
  // hills ten times as high (slopes around 3) near the pole: beyond what any layout can bring to 2 %
  const budget = horizonBudget(hills(2, 10), site(70));
  assert.ok(budget.estimatedShare > MISCLASSIFIED_SHARE_TARGET, `${budget.estimatedShare}`);
  // the most directions and the near field with the fewest horizons beyond it
  const nearest = Math.min(...Object.values(budget.farShare));
  assert.equal(budget.layout.directions, 256);
  assert.equal(budget.farShare[budget.layout.nearSteps], nearest);
  assert.ok(Math.abs(budget.estimatedShare - estimatedMisclassifiedShare(nearest, budget.medianSlope, 256, 3)) < 1e-12);
});
