/**
 * horizon.ts's `horizonUnits` — max(−MAX, round(atan(tangent) / 1e-4)) — to the bit, without `Math.atan` on
 * almost every call: the far sweep (assembly/farSweep.ts) converts one tangent per cell and direction, and
 * `Math.atan` (correct to the last bit over its whole range) was about a seventh of its time.
 *
 * The angle is first approximated: an odd polynomial of degree 11 on |t| ≤ tan(π/8), the other tangents brought
 * into that range by atan(t) = π/4 + atan((t − 1)/(t + 1)) (t ≤ tan(3π/8)) and atan(t) = π/2 − atan(1/t). The
 * polynomial's coefficients are a least-squares Chebyshev fit of atan(x)/x in x² (weights x), whose largest error
 * on the range, sampled at 4 M points, is 2.7·10⁻¹⁰ rad (2.7·10⁻⁶ units); the reductions and the arithmetic add
 * errors of order 10⁻¹⁶ rad. Only the rounding to a whole unit can turn such an error into a different result,
 * and only when the angle lies within the error of a half unit. So when the approximate angle lies within
 * ROUNDING_GUARD_UNITS (37 times the error) of a half unit, the exact `Math.atan` decides, as horizon.ts's
 * function does; elsewhere both round to the same unit. test/science/solar/horizonUnitsWasm.test.ts holds the
 * two equal at and around every half-unit boundary and over random tangents.
 */

// atan(x) ≈ x · (C0 + C1·x² + … + C5·x¹⁰) for 0 ≤ x ≤ tan(π/8) (the fit above)
const C0: f64 = 0.9999999950489838;
const C1: f64 = -0.33333263128467117;
const C2: f64 = 0.19996871586568668;
const C3: f64 = -0.1422314130702446;
const C4: f64 = 0.10479217858183891;
const C5: f64 = -0.058430165941239384;
const TAN_PI_OVER_8: f64 = 0.41421356237309503;
const TAN_3PI_OVER_8: f64 = 2.414213562373095;
/** horizon.ts's HORIZON_ANGLE_UNIT_RAD: the exact path divides by it, as horizon.ts does, for the same bits. */
const HORIZON_ANGLE_UNIT_RAD: f64 = 1e-4;
/** Its inverse, for the approximate path. */
const UNITS_PER_RAD: f64 = 1e4;
/** How close (in units) to a half unit (whole units for `ceilUnits`, `floorUnits`) the approximate angle must come for the exact arctangent to decide. */
const ROUNDING_GUARD_UNITS: f64 = 1e-4;

/** The polynomial's arctangent of 0 ≤ x ≤ tan(π/8) (Estrin's scheme). */
@inline function atanNearZero(x: f64): f64 {
  const s = x * x;
  const s2 = s * s;
  return x * (C0 + C1 * s + s2 * (C2 + C3 * s + s2 * (C4 + C5 * s)));
}

/** The approximate angle of |tangent| in units (NaN for NaN). */
@inline function approximateUnits(x: f64): f64 {
  let angle: f64;
  if (x <= TAN_PI_OVER_8) angle = atanNearZero(x);
  else if (x <= TAN_3PI_OVER_8) angle = Math.PI / 4 + atanNearZero((x - 1) / (x + 1));
  else angle = Math.PI / 2 - atanNearZero(1 / x);
  return angle * UNITS_PER_RAD;
}

/** horizon.ts's `horizonUnits(tangent)` with MAX_HORIZON_UNITS = `maxUnits`, exactly. */
@inline export function horizonUnits(tangent: f64, maxUnits: f64): i16 {
  const units = approximateUnits(abs(tangent));
  if (abs(units - Math.floor(units) - 0.5) < ROUNDING_GUARD_UNITS) return <i16>max(-maxUnits, Math.round(Math.atan(tangent) / HORIZON_ANGLE_UNIT_RAD));
  const rounded = Math.floor(units + 0.5);
  return <i16>max(-maxUnits, tangent < 0 ? -rounded : rounded);
}

/** The approximate angle of `tangent` in units, with its sign. */
@inline function signedApproximateUnits(tangent: f64): f64 {
  const units = approximateUnits(abs(tangent));
  return tangent < 0 ? -units : units;
}

/**
 * Whether the signed approximate units `units` lie within ROUNDING_GUARD_UNITS of a whole unit (or are NaN), where
 * rounding them up or down could differ from rounding the exact angle.
 */
@inline function nearWholeUnit(units: f64): bool {
  const above = units - Math.floor(units);
  return !(above >= ROUNDING_GUARD_UNITS && above <= 1 - ROUNDING_GUARD_UNITS);
}

/**
 * ⌈atan(tangent) / 1e-4⌉ exactly as JavaScript's `Math.ceil(Math.atan(tangent) / HORIZON_ANGLE_UNIT_RAD)` (the
 * near-field bounds' upper units, nearHorizonBounds.ts; the lit bounds' plane terms, tileHorizons.ts): the approximate
 * angle away from whole units (where it rounds up to the same unit), the exact one near them.
 */
@inline export function ceilUnits(tangent: f64): f64 {
  const units = signedApproximateUnits(tangent);
  return nearWholeUnit(units) ? Math.ceil(Math.atan(tangent) / HORIZON_ANGLE_UNIT_RAD) : Math.ceil(units);
}

/** ⌊atan(tangent) / 1e-4⌋ exactly as JavaScript's `Math.floor(Math.atan(tangent) / HORIZON_ANGLE_UNIT_RAD)` (as `ceilUnits`). */
@inline export function floorUnits(tangent: f64): f64 {
  const units = signedApproximateUnits(tangent);
  return nearWholeUnit(units) ? Math.floor(Math.atan(tangent) / HORIZON_ANGLE_UNIT_RAD) : Math.floor(units);
}

/**
 * For the tests: `horizonUnits` (rounding 0), `ceilUnits` (1) or `floorUnits` (2) of each of the `count` f64
 * tangents at `tangents`, into the i16 values at `out` (`horizonUnits` clamped at −`maxUnits`).
 */
export function horizonUnitsOf(tangents: usize, count: i32, out: usize, maxUnits: i32, rounding: i32): void {
  for (let i = 0; i < count; i++) {
    const tangent = load<f64>(tangents + (<usize>i << 3));
    const units = rounding == 1 ? <i16>ceilUnits(tangent) : rounding == 2 ? <i16>floorUnits(tangent) : horizonUnits(tangent, <f64>maxUnits);
    store<i16>(out + (<usize>i << 1), units);
  }
}
