/**
 * The compiled far sweep's horizon units (assembly/horizonUnits.ts: an approximate arctangent, the exact one near
 * a half unit) equal horizon.ts's `horizonUnits` (`Math.atan`, rounded) on every tangent tried: the tangents of
 * every half-unit boundary from −π/2 to π/2 and the doubles on either side of each (where a wrong approximation
 * would round the other way), tangents at the three ranges' joins, random tangents of every size, zero, ±∞ and the
 * clamp at −MAX. A copy of the approximation with its guard removed must disagree somewhere near the boundaries,
 * so the boundary cases reach the guard. The same approximation rounded up and down (`ceilUnits`, `floorUnits`: the
 * near-field bounds' and the lit and dark bounds' units) equals JavaScript's `Math.ceil` and `Math.floor` of
 * `Math.atan(t) / 1e-4` at and around every whole-unit boundary and on the same random tangents.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HORIZON_ANGLE_UNIT_RAD, MAX_HORIZON_UNITS, horizonUnits } from '../../../src/science/solar/horizon.js';
import { FAR_SWEEP_DESCRIPTOR_FIELDS } from '../../../src/science/solar/sweptHorizonWasm.js';
import { instantiateKernel } from '../../../src/util/wasmModules.js';
import { random } from '../../helpers/syntheticTerrain.js';


/** How the compiled function rounds: `horizonUnits` (to the nearest unit), `ceilUnits` or `floorUnits`. */
type Rounding = 'nearest' | 'up' | 'down';
const ROUNDING_CODE: Record<Rounding, number> = { nearest: 0, up: 1, down: 2 };

function compiledUnits(tangents: Float64Array, maxUnits = MAX_HORIZON_UNITS, rounding: Rounding = 'nearest'): Int16Array {
  const bytes = tangents.length * 10 + 65536;
  const memory = new WebAssembly.Memory({ initial: Math.ceil((bytes + 65536) / 65536) });
  const { horizonUnitsOf } = instantiateKernel('farSweep', memory, FAR_SWEEP_DESCRIPTOR_FIELDS).exports as {
    horizonUnitsOf(t: number, n: number, out: number, max: number, rounding: number): void;
  };
  const base = 65536;
  new Float64Array(memory.buffer, base, tangents.length).set(tangents);
  const out = base + tangents.length * 8;
  horizonUnitsOf(base, tangents.length, out, maxUnits, ROUNDING_CODE[rounding]);
  return new Int16Array(memory.buffer, out, tangents.length).slice();
}

/** The units JavaScript gives a tangent, rounded as `rounding` (nearHorizonBounds.ts's and tileHorizons.ts's `Math.ceil`, `Math.floor`). */
function referenceUnits(tangent: number, rounding: Rounding): number {
  if (rounding === 'nearest') return horizonUnits(tangent);
  const units = Math.atan(tangent) / HORIZON_ANGLE_UNIT_RAD;
  return rounding === 'up' ? Math.ceil(units) : Math.floor(units);
}

/** The doubles `steps` apart from x on either side (steps ≥ 1), and x itself. */
function neighbours(x: number, steps: number): number[] {
  const f = new Float64Array(1);
  const bits = new BigInt64Array(f.buffer);
  const around: number[] = [x];
  for (const sign of [-1n, 1n]) {
    f[0] = x;
    const start = bits[0]!;
    for (let s = 1n; s <= BigInt(steps); s++) {
      // the bit patterns of doubles of one sign are ordered like their magnitudes
      bits[0] = start + (x >= 0 ? sign : -sign) * s;
      around.push(f[0]!);
    }
  }
  return around;
}

function assertEqualToReference(tangents: number[], rounding: Rounding = 'nearest'): void {
  const compiled = compiledUnits(Float64Array.from(tangents), MAX_HORIZON_UNITS, rounding);
  let wrong = 0;
  let first = '';
  tangents.forEach((t, i) => {
    const expected = referenceUnits(t, rounding);
    // (−0 as an i16 is 0)
    if (compiled[i] !== (expected === 0 ? 0 : expected) && wrong++ === 0) first = `tangent ${t}: ${compiled[i]} against ${expected}`;
  });
  assert.equal(wrong, 0, `${wrong} of ${tangents.length} tangents differ (${rounding}); first ${first}`);
}

/** The tangents of the angles (k + offset) units for every k from −π/2 to π/2, and the doubles next to each. */
function boundaryTangents(offset: number): number[] {
  const tangents: number[] = [];
  const halfPiUnits = Math.floor(Math.PI / 2 / HORIZON_ANGLE_UNIT_RAD);
  for (let k = -halfPiUnits - 1; k <= halfPiUnits; k++) {
    const boundary = Math.tan((k + offset) * HORIZON_ANGLE_UNIT_RAD);
    // (zero and its neighbours are among the special values below: `neighbours` stays on one side of zero)
    if (Number.isFinite(boundary) && boundary !== 0) tangents.push(...neighbours(boundary, 3));
  }
  return tangents;
}

test('every half-unit boundary from −π/2 to π/2 and the doubles next to it give horizon.ts’s units', () => {
  const tangents = boundaryTangents(0.5);
  assert.ok(tangents.length > 200_000);
  assertEqualToReference(tangents);
});

test('every whole-unit boundary from −π/2 to π/2 and the doubles next to it give JavaScript’s units rounded up and down', () => {
  const tangents = boundaryTangents(0);
  assert.ok(tangents.length > 200_000);
  assertEqualToReference(tangents, 'up');
  assertEqualToReference(tangents, 'down');
});

test('the joins of the ranges, special values and random tangents of every size give horizon.ts’s units', () => {
  const next = random(20261127);
  const tangents: number[] = [0, -0, Infinity, -Infinity, 1, -1, 1e-300, -1e-300, 1e300, -1e300, Number.MAX_VALUE, Number.MIN_VALUE, -Number.MIN_VALUE];
  for (const join of [Math.tan(Math.PI / 8), Math.tan((3 * Math.PI) / 8), 0.41421356237309503, 2.414213562373095]) tangents.push(...neighbours(join, 50), ...neighbours(-join, 50));
  for (let i = 0; i < 400_000; i++) tangents.push((next() - 0.5) * 2);
  for (let i = 0; i < 200_000; i++) tangents.push((next() < 0.5 ? -1 : 1) * 10 ** (12 * next() - 6));
  for (const rounding of ['nearest', 'up', 'down'] as const) assertEqualToReference(tangents, rounding);
});

test('the clamp at −MAX applies as in horizon.ts', () => {
  const tangents = Float64Array.from([-1e9, -10, -1, -0.01, 0.01, 3]);
  const clamped = compiledUnits(tangents, 5000);
  assert.deepEqual(Array.from(clamped), Array.from(tangents, (t) => Math.max(-5000, Math.round(Math.atan(t) / HORIZON_ANGLE_UNIT_RAD))));
  assert.deepEqual(Array.from(clamped.slice(0, 3)), [-5000, -5000, -5000]);
});

test('without the guard, the approximation alone would round some boundary tangents the other way', () => {
  // the same polynomial and reductions as assembly/horizonUnits.ts, with no exact arctangent near half units
  const c = [0.9999999950489838, -0.33333263128467117, 0.19996871586568668, -0.1422314130702446, 0.10479217858183891, -0.058430165941239384];
  const nearZero = (x: number): number => {
    const s = x * x;
    const s2 = s * s;
    return x * (c[0]! + c[1]! * s + s2 * (c[2]! + c[3]! * s + s2 * (c[4]! + c[5]! * s)));
  };
  const unguarded = (t: number): number => {
    const x = Math.abs(t);
    const angle = x <= 0.41421356237309503 ? nearZero(x) : x <= 2.414213562373095 ? Math.PI / 4 + nearZero((x - 1) / (x + 1)) : Math.PI / 2 - nearZero(1 / x);
    const rounded = Math.floor(angle * 1e4 + 0.5);
    return Math.max(-MAX_HORIZON_UNITS, t < 0 ? -rounded : rounded);
  };
  let differ = 0;
  for (let k = 0; k < 15_000; k++) {
    for (const t of neighbours(Math.tan((k + 0.5) * HORIZON_ANGLE_UNIT_RAD), 1)) if (unguarded(t) !== horizonUnits(t)) differ++;
  }
  assert.ok(differ > 100, `only ${differ} boundary tangents differ without the guard`);
});
