import { test } from 'node:test';
import assert from 'node:assert/strict';
import { farHorizon } from '../../../src/science/solar/farHorizon.js';
import { HORIZON_ANGLE_UNIT_RAD, MAX_HORIZON_UNITS, curvatureOverDistance, horizonTangentAlongRay, horizonUnits, rayDirection } from '../../../src/science/solar/horizon.js';
import { SIMPLIFIED_FROM_CELLS, sweepScratch, sweptFarHorizons } from '../../../src/science/solar/sweptHorizon.js';
import { buildTerrainModel, type TerrainModel } from '../../../src/science/solar/terrainModel.js';
import { random, terrain } from '../../helpers/syntheticTerrain.js';

const DEG = Math.PI / 180;

function swept(model: TerrainModel, block: { rowStart: number; rowEnd: number; colStart: number; colEnd: number }, directions: number, nearSteps: number): Int16Array {
  const far = new Int16Array((block.rowEnd - block.rowStart) * (block.colEnd - block.colStart) * directions).fill(12345);
  sweptFarHorizons(model, block, directions, nearSteps, far, sweepScratch());
  return far;
}

test('along the grid axes and diagonals the sweep samples r.sun\'s own ray: equal to the traced far field', () => {
  const next = random(3);
  const model = terrain(70, 60, 5, 5, (x, y) => 200 + 30 * Math.sin(x / 40) * Math.cos(y / 55) + 6 * next());
  for (let i = 0; i < 25; i++) model.elevation[Math.floor(next() * 70 * 60)] = NaN;
  const withHoles = buildTerrainModel(model.elevation, 70, 60, model.cellSizeX, model.cellSizeY);
  const block = { rowStart: 5, rowEnd: 55, colStart: 8, colEnd: 61 };
  for (const nearSteps of [0, 4, 16]) {
    const far = swept(withHoles, block, 8, nearSteps);
    let checked = 0;
    for (let row = block.rowStart; row < block.rowEnd; row++) {
      for (let col = block.colStart; col < block.colEnd; col++) {
        if (Number.isNaN(withHoles.elevation[row * 70 + col]!)) continue;
        for (let k = 0; k < 8; k++) {
          const exact = horizonUnits(horizonTangentAlongRay(withHoles, row, col, k * 45 * DEG, nearSteps + 1));
          const got = far[((row - block.rowStart) * 53 + col - block.colStart) * 8 + k]!;
          // the same samples; only the curvature arithmetic differs (≤ one unit of rounding)
          assert.ok(Math.abs(got - exact) <= 1, `row ${row} col ${col} direction ${k} from step ${nearSteps + 1}: ${got} vs ${exact}`);
          checked++;
        }
      }
    }
    assert.ok(checked > 15000);
  }
});

test('a straight ridge is seen at its crest angle, curvature included, from every cell in every direction that reaches it', () => {
  // a 400 m wall along row 10 of a flat 1 m grid; cells south of it look north across it
  const width = 300;
  const height = 900;
  const model = terrain(width, height, 1, 1, () => 0);
  for (let c = 0; c < width; c++) model.elevation[10 * width + c] = 400;
  const rebuilt = buildTerrainModel(model.elevation, width, height, model.cellSizeX, model.cellSizeY);
  const block = { rowStart: 600, rowEnd: 640, colStart: 130, colEnd: 170 };
  const directions = 64;
  const far = swept(rebuilt, block, directions, 8);
  for (let k = 0; k < directions; k++) {
    const azimuth = (2 * Math.PI * k) / directions;
    for (let row = block.rowStart; row < block.rowEnd; row += 13) {
      for (let col = block.colStart; col < block.colEnd; col += 11) {
        const got = far[((row - block.rowStart) * 40 + col - block.colStart) * directions + k]! * HORIZON_ANGLE_UNIT_RAD;
        const north = row - 10; // metres to the wall
        const reaches = Math.cos(azimuth) > 0 && Math.abs(north * Math.tan(azimuth)) < Math.min(col, width - 1 - col) - 2;
        if (!reaches) continue;
        const d = north / Math.cos(azimuth);
        const expected = Math.atan(400 / d - curvatureOverDistance(d));
        // the wall cell the ray meets may be half a cell aside: its distance differs by < 1 m
        const slack = Math.atan(400 / (d - 1)) - Math.atan(400 / (d + 1));
        assert.ok(Math.abs(got - expected) <= slack + 2 * HORIZON_ANGLE_UNIT_RAD, `direction ${k} row ${row} col ${col}: ${got} vs ${expected}`);
      }
    }
  }
  // looking south there is nothing but the flat plain falling away with the earth's curvature
  const south = far[(5 * 40 + 5) * directions + directions / 2]! * HORIZON_ANGLE_UNIT_RAD;
  assert.ok(south <= 0 && south >= -HORIZON_ANGLE_UNIT_RAD, `south ${south}`);
});

test('on steep terrain the swept far field errs less than the interpolation between stored directions', () => {
  const next = random(11);
  const width = 260;
  const height = 240;
  // slopes up to ~2 (ridges of 25 m every 145 m) on a broad swell: where lateral offsets cost most
  const model = terrain(width, height, 2, 2, (x, y) => 500 + 60 * Math.sin(x / 70 + 0.3) * Math.cos(y / 90) + 25 * Math.sin((x + 2 * y) / 23) + 0.5 * next());
  const block = { rowStart: 90, rowEnd: 150, colStart: 100, colEnd: 170 };
  const directions = 96;
  const nearSteps = 16;
  const far = swept(model, block, directions, nearSteps);
  const sweepErrors: number[] = [];
  const interpolationErrors: number[] = [];
  const out = { tangent: 0, step: 0 };
  const exactAt = (row: number, col: number, azimuth: number) => {
    const { colPerStep, northPerStep } = rayDirection(2, 2, azimuth);
    return Math.atan(farHorizon(model, row, col, colPerStep, northPerStep, nearSteps + 1, out).tangent);
  };
  for (let row = block.rowStart; row < block.rowEnd; row += 3) {
    for (let col = block.colStart; col < block.colEnd; col += 3) {
      const exact = Array.from({ length: directions }, (_, k) => exactAt(row, col, (2 * Math.PI * k) / directions));
      for (let k = 0; k < directions; k++) {
        const got = far[((row - block.rowStart) * 70 + col - block.colStart) * directions + k]!;
        assert.ok(got > -MAX_HORIZON_UNITS);
        sweepErrors.push(Math.abs(got * HORIZON_ANGLE_UNIT_RAD - exact[k]!));
        // what the kernel's interpolation between exact directions k and k + 1 misses halfway between them
        const between = exactAt(row, col, (2 * Math.PI * (k + 0.5)) / directions);
        interpolationErrors.push(Math.abs(0.5 * (exact[k]! + exact[(k + 1) % directions]!) - between));
      }
    }
  }
  const quantile = (values: number[], p: number) => values.sort((a, b) => a - b)[Math.floor(p * (values.length - 1))]! / DEG;
  for (const p of [0.5, 0.9, 0.95]) {
    const sweep = quantile(sweepErrors, p);
    const interpolation = quantile(interpolationErrors, p);
    assert.ok(sweep < interpolation, `quantile ${p}: sweep ${sweep.toFixed(3)}° vs interpolation ${interpolation.toFixed(3)}°`);
  }
  assert.ok(quantile(sweepErrors, 0.99) <= 1.1 * quantile(interpolationErrors, 0.99));
  assert.ok(quantile(sweepErrors, 0.5) < 0.1, 'most swept horizons are within 0.1° of the traced ones');
});

test('a cell\'s swept horizons do not depend on the block it is swept in', () => {
  const next = random(17);
  const model = terrain(90, 80, 3, 3, (x, y) => 100 + 20 * Math.sin(x / 17) + 15 * Math.cos(y / 13) + 4 * next());
  const whole = { rowStart: 0, rowEnd: 80, colStart: 0, colEnd: 90 };
  const part = { rowStart: 31, rowEnd: 47, colStart: 60, colEnd: 83 };
  const directions = 48;
  const a = swept(model, whole, directions, 6);
  const b = swept(model, part, directions, 6);
  for (let row = part.rowStart; row < part.rowEnd; row++) {
    for (let col = part.colStart; col < part.colEnd; col++) {
      for (let k = 0; k < directions; k++) {
        assert.equal(b[((row - part.rowStart) * 23 + col - part.colStart) * directions + k], a[(row * 90 + col) * directions + k]);
      }
    }
  }
  // every cell of the whole grid got a value (edge cells looking out: open)
  assert.ok(!a.includes(12345));
  assert.equal(a[(0 * 90 + 40) * directions + 0], -MAX_HORIZON_UNITS); // row 0 looking north
});

test('only the needed directions are swept, in any number and spread: the others open, the swept ones as in the full sweep', () => {
  const next = random(23);
  const model = terrain(64, 58, 4, 4, (x, y) => 300 + 40 * Math.sin(x / 19) * Math.cos(y / 11) + 5 * next());
  const block = { rowStart: 9, rowEnd: 50, colStart: 3, colEnd: 61 };
  const cells = 41 * 58;
  const directions = 96;
  const full = swept(model, block, directions, 5);
  // 50 of the 96 directions, in runs and singles: more than one pass of the sweep's planes
  const needed = Uint8Array.from({ length: directions }, (_, k) => (k % 4 === 3 || (k > 40 && k < 70) ? 0 : 1));
  const masked = new Int16Array(cells * directions).fill(12345);
  sweptFarHorizons(model, block, directions, 5, masked, sweepScratch(), { needed });
  let sweptValues = 0;
  for (let i = 0; i < cells; i++) {
    for (let k = 0; k < directions; k++) {
      const at = i * directions + k;
      if (needed[k]) {
        assert.equal(masked[at], full[at], `cell ${i} direction ${k}`);
        sweptValues++;
      } else assert.equal(masked[at], -MAX_HORIZON_UNITS, `cell ${i} direction ${k} is left open`);
    }
  }
  assert.equal(sweptValues, cells * needed.reduce((n, on) => n + on, 0));
  assert.ok(full.some((units) => units > 0), 'the terrain hides some of the sky');
});

test('terrain more than SIMPLIFIED_FROM_CELLS away is simplified over the maximum pyramid: close to the full sweep, unchanged nearer', () => {
  const next = random(5);
  const width = 1400;
  const height = 60;
  // rough mountains 900–1340 cells west of the block, gentle rough land nearer: distant terrain sets the western horizons
  const model = terrain(width, height, 1, 1, (x, y) =>
    x < 400 ? 150 + 40 * Math.sin(x / 13) * Math.cos(y / 7) + 10 * next() : 5 * Math.sin(x / 37) * Math.cos(y / 23) + 2 * next(),
  );
  const block = { rowStart: 10, rowEnd: 50, colStart: 1300, colEnd: 1340 };
  const directions = 32;
  const full = new Int16Array(40 * 40 * directions);
  const simplified = new Int16Array(40 * 40 * directions);
  sweptFarHorizons(model, block, directions, 16, full, sweepScratch(), { simplifiedFromCells: Infinity });
  sweptFarHorizons(model, block, directions, 16, simplified, sweepScratch());
  const westward: number[] = [];
  for (let i = 0; i < full.length; i++) {
    const k = i % directions;
    const azimuthDeg = (360 * k) / directions;
    const difference = Math.abs(simplified[i]! - full[i]!) * HORIZON_ANGLE_UNIT_RAD / DEG;
    // toward the east edge (60 cells away) and along the short axis nothing is simplified
    if (azimuthDeg <= 180) assert.equal(simplified[i], full[i], `direction ${k}`);
    else westward.push(difference);
  }
  westward.sort((a, b) => a - b);
  // a point stands for terrain up to 2/C rad aside (C = SIMPLIFIED_FROM_CELLS): on slopes to 3 that moves a horizon by
  // up to 6/C rad (1.34° with C = 256)
  const boundDeg = 6 / SIMPLIFIED_FROM_CELLS / DEG;
  const p95 = westward[Math.floor(0.95 * westward.length)]!;
  assert.ok(westward.at(-1)! <= boundDeg, `max ${westward.at(-1)}°`);
  assert.ok(p95 <= boundDeg / 10, `p95 ${p95}°`);
  // the simplification is in use: some distant horizons moved
  assert.ok(westward.filter((d) => d > 0).length > westward.length / 50, `${westward.filter((d) => d > 0).length} of ${westward.length} moved`);
});
