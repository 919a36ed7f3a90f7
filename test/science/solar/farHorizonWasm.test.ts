/**
 * The far-horizon rays compiled into the far sweep's module (assembly/farRay.ts, through `compiledFarRays`) find
 * `farHorizon`'s tangent and step to the bit: on real DEMs (mcn_10m at 10 m, the 62° N oracle DEM at 20 m) and on
 * made-up terrain with nodata cells and patches, a cliff, flat ground, rows of varying cell size and a non-square
 * grid; from the first step and from later ones, along the 12 azimuths of the budget's lattice and along random ones.
 * The horizon budget, which traces its rays with them, chooses the same layout with the same measurements.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readDem } from '../../../src/raster/index.js';
import { farHorizon, type FarHorizon } from '../../../src/science/solar/farHorizon.js';
import { COMPILED_RAY_MAX_CELLS, compiledFarRays } from '../../../src/science/solar/farHorizonWasm.js';
import { horizonBudget, latticeCounts } from '../../../src/science/solar/horizonBudget.js';
import { rayDirection } from '../../../src/science/solar/horizon.js';
import { buildTerrainModel, type TerrainModel } from '../../../src/science/solar/terrainModel.js';

const fixtures = new URL('../../fixtures/', import.meta.url).pathname;

/** A DEM read as the solar year holds it: Float32 elevations (NaN nodata), `cellM` square cells. */
async function demModel(path: string, cellM: number): Promise<TerrainModel> {
  const dem = await readDem(path);
  const { width, height } = dem.grid;
  return buildTerrainModel(Float32Array.from(dem.elevation), width, height, new Float64Array(height).fill(cellM), new Float64Array(height).fill(cellM));
}

/** Hills with a wall, a flat plateau, single nodata cells and a nodata patch; east-west cell size varying by row. */
function madeUpModel(width: number, height: number): TerrainModel {
  const z = new Float32Array(width * height);
  for (let r = 0; r < height; r++) {
    for (let c = 0; c < width; c++) {
      let h = 900 + 150 * Math.sin(c / 8) * Math.cos(r / 13) + 3 * c - 5 * r + ((r * 31 + c * 7) % 11) / 3;
      if (c > width / 3 && c < width / 3 + 2) h += 400;
      if (r > 10 && r < 20 && c > 4 && c < 30) h = 950;
      z[r * width + c] = h;
    }
  }
  for (const [r, c] of [[2, 2], [height - 1, 0], [40, 61], [41, 61]] as const) z[r * width + c] = NaN;
  for (let r = 50; r < 58; r++) for (let c = 70; c < 77; c++) z[r * width + c] = NaN;
  const dx = Float64Array.from({ length: height }, (_, r) => 30 * Math.cos((60 + (height - r) * 0.003) * (Math.PI / 180)));
  return buildTerrainModel(z, width, height, dx, new Float64Array(height).fill(17));
}

/** A small deterministic generator (the rays' origins and azimuths). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

/** Compares compiled and JavaScript rays over lattice cells × lattice azimuths and `extra` random rays; returns the count. */
function compareRays(model: TerrainModel, extra: number): number {
  const compiled = compiledFarRays(model);
  assert.ok(compiled, 'the compiled rays load for a DEM of this size');
  const a: FarHorizon = { tangent: 0, step: 0 };
  const b: FarHorizon = { tangent: 0, step: 0 };
  let rays = 0;
  let found = 0;
  const check = (row: number, col: number, azimuth: number, firstStep: number) => {
    const { colPerStep, northPerStep } = rayDirection(model.cellSizeX[row]!, model.cellSizeY[row]!, azimuth);
    farHorizon(model, row, col, colPerStep, northPerStep, firstStep, a);
    compiled.trace(row, col, colPerStep, northPerStep, firstStep, b);
    assert.ok(Object.is(a.tangent, b.tangent) && a.step === b.step, `cell (${row}, ${col}), azimuth ${azimuth}, from step ${firstStep}: ${JSON.stringify(a)} against ${JSON.stringify(b)}`);
    rays++;
    if (a.step > 0) found++;
  };
  const lattice = 24;
  for (let i = 0; i < lattice; i++) {
    for (let j = 0; j < lattice; j++) {
      const row = Math.min(model.height - 1, Math.floor(((i + 0.5) * model.height) / lattice));
      const col = Math.min(model.width - 1, Math.floor(((j + 0.5) * model.width) / lattice));
      if (Number.isNaN(model.elevation[row * model.width + col])) continue;
      for (let k = 0; k < 12; k++) check(row, col, ((k + 0.5) * 2 * Math.PI) / 12, 1);
    }
  }
  const next = random(model.width * 7919 + model.height);
  for (let n = 0; n < extra; n++) {
    const row = Math.floor(next() * model.height);
    const col = Math.floor(next() * model.width);
    if (Number.isNaN(model.elevation[row * model.width + col])) continue;
    // the cardinal and diagonal directions (an axis with no step), and any other
    const azimuth = n % 8 === 0 ? ((n / 8) % 8) * (Math.PI / 4) : next() * 2 * Math.PI;
    check(row, col, azimuth, 1 + Math.floor(next() * 40));
  }
  assert.ok(found > rays / 10, `horizons found on ${found} of ${rays} rays`);
  return rays;
}

test('the compiled far-horizon rays equal farHorizon to the bit on mcn_10m and the 62° N DEM', async () => {
  for (const [name, cellM] of [['mcn_10m.tif', 10], ['oracle/fine/north62_20m.tif', 20]] as const) {
    const rays = compareRays(await demModel(`${fixtures}${name}`, cellM), 3000);
    assert.ok(rays > 8000, `${name}: ${rays} rays`);
  }
});

test('the compiled far-horizon rays equal farHorizon on made-up terrain with nodata, a wall and varying cells', () => {
  for (const [width, height] of [[120, 90], [37, 150], [200, 23]] as const) compareRays(madeUpModel(width, height), 4000);
});

test('the horizon budget measures and chooses the same with compiled and JavaScript rays', async () => {
  const models = [await demModel(`${fixtures}mcn_10m.tif`, 10), await demModel(`${fixtures}oracle/fine/north62_20m.tif`, 20), madeUpModel(120, 90)];
  for (const model of models) {
    for (const site of [undefined, { largestAbsLatitudeRad: (62 * Math.PI) / 180 }]) {
      assert.deepEqual(horizonBudget(model, site, 'compiled'), horizonBudget(model, site, 'javascript'));
    }
  }
});

test("the budget's lattice of rays, compiled whole, counts and measures what the JavaScript lattice does", async () => {
  const models = [await demModel(`${fixtures}mcn_10m.tif`, 10), await demModel(`${fixtures}oracle/fine/north62_20m.tif`, 20), madeUpModel(120, 90), madeUpModel(37, 150)];
  for (const model of models) {
    const compiled = compiledFarRays(model)!;
    // the budget's lattice, and others: denser, sparser, other azimuths and near-step choices
    for (const [lattice, azimuths, nearSteps] of [[24, 12, [16, 24, 32, 48, 64]], [40, 7, [1, 5, 100]], [3, 32, [8]], [1, 1, []]] as const) {
      const counts = compiled.lattice(lattice, azimuths, nearSteps);
      assert.deepEqual(counts, latticeCounts(model, lattice, azimuths, nearSteps), `${model.width} × ${model.height}, lattice ${lattice}, ${azimuths} azimuths`);
      if (lattice >= 24) assert.ok(counts.rays > 100 && counts.slopes.length > lattice * 4, `${counts.rays} rays, ${counts.slopes.length} slopes`);
    }
    // several lattices in a row on one copy: nothing carries over
    assert.deepEqual(compiled.lattice(24, 12, [16, 24]), latticeCounts(model, 24, 12, [16, 24]));
    assert.throws(() => compiled.lattice(65, 12, [16]), RangeError);
  }
});

test('DEMs beyond the size limit keep the JavaScript rays', () => {
  const side = Math.ceil(Math.sqrt(COMPILED_RAY_MAX_CELLS)) + 1;
  const flat = buildTerrainModel(new Float32Array(side * side).fill(100), side, side, new Float64Array(side).fill(1), new Float64Array(side).fill(1));
  assert.equal(compiledFarRays(flat), null);
});
