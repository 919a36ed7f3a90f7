import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  EARTH_RADIUS_M,
  HORIZON_ANGLE_UNIT_RAD,
  computeHorizonRows,
  horizonAt,
  horizonTangent,
  nearFieldSteps,
  nearFieldTangent,
  nearSectorBoundUnits,
  nearSectorLowerUnits,
  nearSectors,
  nearStepCandidates,
  rayTemplate,
  rayTemplates,
} from '../../../src/science/solar/horizon.js';

const DEG = Math.PI / 180;

/** Elevation grid from a function of (x east, y north) in metres, cell centres, row 0 north. */
function grid(width: number, height: number, cell: number, f: (x: number, y: number) => number): Float64Array {
  const z = new Float64Array(width * height);
  for (let r = 0; r < height; r++) for (let c = 0; c < width; c++) z[r * width + c] = f(c * cell, (height - 1 - r) * cell);
  return z;
}

function zMax(z: Float64Array): number {
  let m = -Infinity;
  for (const v of z) if (v > m) m = v;
  return m;
}

/** r.sun's ray, marched sample by sample with no precomputation and no early exit (the reference). */
function bruteForceTangent(z: Float64Array, width: number, height: number, row: number, col: number, cell: number, azimuth: number): number {
  const z0 = z[row * width + col]!;
  let best = -Infinity;
  for (let k = 1; ; k++) {
    const dc = Math.floor((k * cell * Math.sin(azimuth)) / cell + 0.5);
    const dr = -Math.floor((k * cell * Math.cos(azimuth)) / cell + 0.5);
    const c = col + dc;
    const r = row + dr;
    if (c < 0 || c >= width || r < 0 || r >= height) return best;
    const d = Math.hypot(dc * cell, dr * cell);
    const zk = z[r * width + c]!;
    if (Number.isNaN(zk)) continue;
    const t = (zk - z0 - EARTH_RADIUS_M * (1 - Math.cos(d / EARTH_RADIUS_M))) / d;
    if (t > best) best = t;
  }
}

test('from the apex of a cone every horizon is the cone flank going down', () => {
  const size = 41;
  const slope = 0.4;
  const z = grid(size, size, 10, (x, y) => 1000 - slope * Math.hypot(x - 200, y - 200));
  const rays = rayTemplates(size, size, 10, 10, 64);
  for (const ray of rays) {
    const t = horizonTangent(z, size, 20, 20, zMax(z), ray);
    // every sample is at its own distance on the flank: (z - z0)/d = -slope, less a tiny curvature term
    assert.ok(Math.abs(t + slope) < 1e-4, `tan ${t}`);
  }
});

test('from the bottom of a pit every horizon is the pit wall going up', () => {
  const size = 41;
  const slope = 0.25;
  const z = grid(size, size, 10, (x, y) => 500 + slope * Math.hypot(x - 200, y - 200));
  const rays = rayTemplates(size, size, 10, 10, 32);
  for (const ray of rays) {
    const t = horizonTangent(z, size, 20, 20, zMax(z), ray);
    assert.ok(Math.abs(t - slope) < 1e-4, `tan ${t}`);
  }
});

test('a wall to the east shades at atan(height / distance); open sky the other way and beyond the edge', () => {
  const width = 60;
  const height = 11;
  const cell = 10;
  // 50 m wall occupying the column at x = 400 m
  const z = grid(width, height, cell, (x) => (Math.abs(x - 400) < 1 ? 150 : 100));
  const east = rayTemplate(width, height, cell, cell, 90 * DEG);
  const west = rayTemplate(width, height, cell, cell, 270 * DEG);
  const col = 20; // x = 200 m: 200 m from the wall
  const tEast = horizonTangent(z, width, 5, col, zMax(z), east);
  const expected = (50 - EARTH_RADIUS_M * (1 - Math.cos(200 / EARTH_RADIUS_M))) / 200;
  assert.ok(Math.abs(tEast - expected) < 1e-12, `${tEast} vs ${expected}`);
  // looking west over flat ground the horizon is the earth's curvature just below level
  const tWest = horizonTangent(z, width, 5, col, zMax(z), west);
  assert.ok(tWest < 0 && tWest > -1e-4, `west ${tWest}`);
  // at the east edge looking east there is no terrain at all
  assert.equal(horizonTangent(z, width, 5, width - 1, zMax(z), east), -Infinity);
});

test('nodata cells are transparent: the wall behind them still shades', () => {
  const width = 60;
  const height = 11;
  const z = grid(width, height, 10, (x) => (Math.abs(x - 400) < 1 ? 150 : 100));
  for (let r = 0; r < height; r++) for (let c = 25; c < 35; c++) z[r * width + c] = NaN;
  const east = rayTemplate(width, height, 10, 10, 90 * DEG);
  const t = horizonTangent(z, width, 5, 20, zMax(z), east);
  const curvature = (EARTH_RADIUS_M * (1 - Math.cos(200 / EARTH_RADIUS_M))) / 200;
  assert.ok(Math.abs(t - (0.25 - curvature)) < 1e-12, `tan ${t}`);
});

test('precomputed rays with early exit equal a brute-force march of r.sun\'s ray', () => {
  const width = 37;
  const height = 29;
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const z = grid(width, height, 10, (x, y) => 300 + 40 * Math.sin(x / 60) * Math.cos(y / 45) + 8 * random());
  z[5 * width + 7] = NaN;
  const directions = 48;
  const rays = rayTemplates(width, height, 10, 10, directions);
  const top = zMax(z);
  for (let row = 0; row < height; row += 3) {
    for (let col = 0; col < width; col += 4) {
      if (Number.isNaN(z[row * width + col]!)) continue;
      for (let k = 0; k < directions; k++) {
        const fast = horizonTangent(z, width, row, col, top, rays[k]!);
        const slow = bruteForceTangent(z, width, height, row, col, 10, (2 * Math.PI * k) / directions);
        if (slow === -Infinity) assert.equal(fast, slow, `row ${row} col ${col} dir ${k}`);
        else assert.ok(Math.abs(fast - slow) < 1e-12, `row ${row} col ${col} dir ${k}: ${fast} vs ${slow}`);
      }
    }
  }
});

test('stored horizons are interpolated between directions and wrap around north', () => {
  const width = 21;
  const z = grid(width, width, 10, (x, y) => 100 + 0.1 * x + 0.05 * y);
  const directions = 8;
  const angles = new Int16Array(width * width * directions);
  const nearBound = new Int16Array(width * width * directions);
  const rays = { rays: rayTemplates(width, width, 10, 10, directions), nearSectors: null, nearCandidates: null, cellSizeXM: 10, cellSizeYM: 10 };
  computeHorizonRows(z, width, width, 0, width, zMax(z), () => rays, angles, nearBound, new Int16Array(nearBound.length));
  const cell = 10 * width + 10;
  const base = cell * directions;
  // exactly on a stored direction
  assert.equal(horizonAt(angles, cell, directions, 2 * (Math.PI / 4)), angles[base + 2]! * HORIZON_ANGLE_UNIT_RAD);
  // halfway between north-west (7) and north (0)
  const mid = horizonAt(angles, cell, directions, 2 * Math.PI - Math.PI / 8);
  const expected = 0.5 * (angles[base + 7]! + angles[base]!) * HORIZON_ANGLE_UNIT_RAD;
  assert.ok(Math.abs(mid - expected) < 1e-12);
  // a plane rising to the east: looking east the horizon is its slope angle, looking west it is below level
  assert.ok(Math.abs(angles[base + 2]! * HORIZON_ANGLE_UNIT_RAD - Math.atan(0.1)) < 2e-4);
  assert.ok(angles[base + 6]! < 0);
});

test('near-field sector bounds bracket the exact near-field horizon at every azimuth of the sector', () => {
  const width = 40;
  const height = 36;
  let seed = 11;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const z = grid(width, height, 10, (x, y) => 800 + 35 * Math.sin(x / 25) * Math.cos(y / 30) + 12 * random());
  z[18 * width + 21] = NaN;
  const sectorsCount = 64;
  const steps = 8;
  const upper = nearSectors(10, 10, sectorsCount, steps);
  const lower = nearStepCandidates(10, 10, sectorsCount, steps);
  let lowerUseful = 0;
  for (const [row, col] of [[18, 20], [5, 5], [30, 33], [1, 38], [20, 10]] as const) {
    for (let k = 0; k < sectorsCount; k++) {
      const ub = nearSectorBoundUnits(z, width, height, row, col, upper, k) * HORIZON_ANGLE_UNIT_RAD;
      const lb = nearSectorLowerUnits(z, width, height, row, col, lower, k) * HORIZON_ANGLE_UNIT_RAD;
      if (lb > -1.5) lowerUseful++;
      for (let i = 0; i <= 20; i++) {
        const azimuth = ((k + i / 20) * 2 * Math.PI) / sectorsCount;
        const exact = Math.atan(nearFieldTangent(z, width, height, row, col, nearFieldSteps(10, 10, azimuth, steps)));
        assert.ok(exact <= ub + 1e-12, `upper: cell ${row},${col} sector ${k}: ${exact} > ${ub}`);
        assert.ok(exact >= lb - 1e-12, `lower: cell ${row},${col} sector ${k}: ${exact} < ${lb}`);
      }
    }
  }
  assert.ok(lowerUseful > 200, `lower bounds informative in ${lowerUseful} sectors`);
});
