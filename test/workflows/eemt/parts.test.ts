/** Unit tests of the eemt workflow's parts: progress mapping, true-north aspect, product names. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createGeodesy } from '../../../src/raster/index.js';
import { hornGradient } from '../../../src/science/terrain/slopeAspect.js';
import { EEMT_PHASES, eemtPhaseWeights, eemtSolarShare, EemtProgress } from '../../../src/workflows/eemt/progress.js';
import { convergenceOfCells, trueNorthAspectRad } from '../../../src/workflows/eemt/trueNorth.js';
import { climateGridPath, daymetCsvPath, eemtAnnualPath, eemtMeanPath, eemtMonthlyPath } from '../../../src/workflows/eemt/products.js';
import type { ProgressUpdate } from '../../../src/workflows/types.js';
import { lonLatGrid, utm13Grid } from '../../helpers/grids.js';

test('progress: phases map onto consecutive slices of 0–1; the fraction never decreases', () => {
  const updates: ProgressUpdate[] = [];
  const progress = new EemtProgress((u) => updates.push(u), eemtPhaseWeights(1));
  progress.phase('inputs')(0, 'a');
  progress.phase('climate')(0.5, 'b');
  progress.phase('climate')(0.2, 'late report with a smaller fraction');
  progress.phase('solar')(1, 'c');
  progress.phase('solar')(Number.NaN, 'nonsense');
  progress.phase('energy')(2, 'clamped');
  progress.done('done');
  for (let k = 1; k < updates.length; k++) assert.ok(updates[k]!.fraction >= updates[k - 1]!.fraction);
  assert.equal(updates[0]!.fraction, 0);
  assert.equal(updates.at(-1)!.fraction, 1);
  assert.equal(updates[1]!.message, 'climate download: b');
  assert.equal(updates[2]!.fraction, updates[1]!.fraction);
});

test('phase weights: solar dominates a one-year run; EEMT maps grow with the years', () => {
  const total = (w: Record<string, number>) => Object.values(w).reduce((a, b) => a + b, 0);
  const one = eemtPhaseWeights(1);
  assert.deepEqual(Object.keys(one), [...EEMT_PHASES]);
  assert.ok(one.solar / total(one) > 0.8);
  const many = eemtPhaseWeights(10);
  assert.ok(many.energy > one.energy * 9 && many.climate > one.climate);
});

test('convergence: the lattice interpolation matches the exact meridian convergence', () => {
  const grid = utm13Grid(70, 50, 30);
  const geodesy = createGeodesy(grid);
  const lattice = convergenceOfCells(grid);
  for (const [col, row] of [[0, 0], [69, 49], [17, 33], [40, 5], [69, 0], [33, 49]] as const) {
    const exact = geodesy.convergenceRad(col + 0.5, row + 0.5);
    assert.ok(Math.abs(lattice[row * 70 + col]! - exact) < 1e-9, `(${col}, ${row})`);
  }
  assert.ok(convergenceOfCells(lonLatGrid(5, 5)).every((v) => v === 0));
});

test('true-north aspect: grid aspect minus the convergence, NaN when flat or nodata', () => {
  const grid = utm13Grid(5, 5, 10);
  const n = 25;
  // Surface falling to the north (grid), one flat and one nodata cell handled apart.
  const gradient = { fallEast: new Float64Array(n), fallNorth: new Float64Array(n).fill(0.3) };
  gradient.fallNorth[0] = 0;
  gradient.fallEast[1] = Number.NaN;
  gradient.fallNorth[1] = Number.NaN;
  const aspect = trueNorthAspectRad(gradient, grid);
  const convergence = createGeodesy(grid).convergenceRad(2.5, 2.5);
  assert.ok(convergence > 0, 'west of the central meridian');
  assert.ok(Number.isNaN(aspect[0]!) && Number.isNaN(aspect[1]!));
  assert.ok(Math.abs(aspect[12]! - (2 * Math.PI - convergence)) < 1e-6);
  // An east-facing plane from Horn's gradient: aspect 90° − convergence.
  const z = Float64Array.from({ length: n }, (_, i) => 100 - (i % 5));
  const east = trueNorthAspectRad(hornGradient(z, 5, 5, 10, 10), grid);
  assert.ok(Math.abs(east[12]! - (Math.PI / 2 - convergence)) < 1e-6);
});

test('product names', () => {
  assert.equal(eemtMonthlyPath('Topo', 2020, 0), 'eemt/EEMT_Topo_jan_2020.tif');
  assert.equal(eemtMonthlyPath('Trad', 2019, 11), 'eemt/EEMT_Trad_dec_2019.tif');
  assert.equal(eemtAnnualPath('Trad', 2020), 'eemt/EEMT_Trad_annual_2020.tif');
  assert.equal(eemtMeanPath('Topo', 2018, 2020), 'eemt/EEMT_Topo_mean_2018-2020.tif');
  assert.equal(climateGridPath('vp', 2020, 6), 'daymet/vp/vp_2020_jul.tif');
  assert.equal(daymetCsvPath('-576250_-687000/2020.csv'), 'daymet/-576250_-687000/2020.csv');
});

test('phase weights of a split run: the solar phase alone, or everything but it', () => {
  const solarOnly = eemtPhaseWeights(2, 'solar');
  const afterSolar = eemtPhaseWeights(2, 'after-solar');
  const all = eemtPhaseWeights(2);
  assert.equal(afterSolar.solar, 0);
  assert.equal(solarOnly.climate + solarOnly.terrain + solarOnly.energy + solarOnly.readme, 0);
  for (const phase of EEMT_PHASES) if (phase !== 'solar') assert.equal(afterSolar[phase], all[phase]);
  const total = EEMT_PHASES.reduce((sum, phase) => sum + all[phase], 0);
  assert.ok(Math.abs(eemtSolarShare(2) - all.solar / total) < 1e-15);
});
