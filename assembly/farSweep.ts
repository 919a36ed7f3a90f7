/**
 * The far-field sweep compiled to WebAssembly (AssemblyScript, built by scripts/build-wasm.mjs into
 * build/wasm/farSweep.wasm): `sweepLine` of src/science/solar/sweptHorizon.ts for every line of one direction,
 * and the pass of directions written cell-major — statement for statement (the arctangent of each horizon is
 * assembly/horizonUnits.ts's, exact to the unit without `Math.atan` on almost every call), so the horizons are the
 * same to the bit (test/science/solar/sweptHorizonWasm.test.ts). The JavaScript side (src/science/solar/sweptHorizonWasm.ts)
 * computes each direction's geometry as sweptHorizon.ts does and copies the elevations the sweep reads into this
 * module's memory: a window of the grid around the block and, for the simplified distant terrain, a window of each
 * level of the maximum pyramid. Pointers are byte offsets; the descriptor is i32 fields, the f64 values
 * (distance per position, κ) sit at F_VALUES.
 */

import { horizonUnits } from './horizonUnits';
import { f64at, fi, i32at } from './memoryAccess';

export { horizonUnitsOf } from './horizonUnits';
export { budgetLattice, budgetLatticeSlopes, farHorizonRay, farRayStep, setRayTerrain } from './farRay';

/** Descriptor fields (i32), the same list as src/science/solar/sweptHorizonWasm.ts. */
export const DESCRIPTOR_FIELDS: i32 = 36;
const F_COL_MAJOR = 0;
const F_TOWARD = 1;
const F_FIRST = 2;
const F_LAG = 3;
const F_MINOR_SIZE = 4;
const F_MAJOR_LO = 5;
const F_MAJOR_HI = 6;
const F_MINOR_LO = 7;
const F_MINOR_HI = 8;
const F_COUNT = 9;
const F_LINE_LO = 10;
const F_LINE_HI = 11;
const F_SIMPLIFIED_FROM = 12;
const F_LEVELS = 13;
const F_BLOCK_ROW = 14;
const F_BLOCK_COL = 15;
const F_BLOCK_WIDTH = 16;
const F_WIN_ROW0 = 17;
const F_WIN_COL0 = 18;
const F_WIN_WIDTH = 19;
const F_ELEVATION = 20;
/** i32 × 4 per pyramid level ℓ (index ℓ − 1): its window's first row and column (level cells), width, pointer. */
const F_LEVEL_WINDOWS = 21;
const F_SHIFT = 22;
const F_HULL_U = 23;
const F_HULL_Z = 24;
const F_PLANE = 25;
const F_VALUES = 26;
const F_MAX_UNITS = 27;
// the pass's fields (`writePass`)
const F_CELLS = 28;
const F_DIRECTIONS = 29;
const F_FAR = 30;
const F_PASS = 31;
const F_PASS_COUNT = 32;
/** Per cell, the least horizon of each group of far directions (i16, F_GROUPS per cell), or 0: none kept. */
const F_GROUP_DARK = 33;
const F_GROUPS = 34;
/** Per plane of the pass, the groups its direction bounds (i32 pairs; −1: none). */
const F_PASS_GROUPS = 35;

// sweptHorizon.ts's INVERSE_TWO_R (1 / (2 · 6 371 000 m), horizon.ts's EARTH_RADIUS_M), passed in F_VALUES
let inverseTwoR: f64 = 0;

/** Element i of the f32 array at byte offset `ptr`, as an f64. */
@inline function f32at(ptr: i32, i: i32): f64 {
  return <f64>load<f32>(<usize>ptr + (<usize>i << 2));
}

/** sweptHorizon.ts's `pushOnHull`. */
@inline function pushOnHull(hullU: i32, hullZ: i32, size: i32, u: f64, z: f64): i32 {
  while (size >= 2) {
    const u1 = f64at(hullU, size - 1);
    const z1 = f64at(hullZ, size - 1);
    const u0 = f64at(hullU, size - 2);
    const z0 = f64at(hullZ, size - 2);
    if ((u1 - u0) * (z - z0) - (z1 - z0) * (u - u0) >= 0) size--;
    else break;
  }
  store<f64>(<usize>hullU + (<usize>size << 3), u);
  store<f64>(<usize>hullZ + (<usize>size << 3), z);
  return size + 1;
}

/** sweptHorizon.ts's `firstPosition` with the test of `positionsOnGrid`: the first t with (line + shift[t] in the tested range). */
function firstPosition(shiftAt: i32, count: i32, line: i32, minorSize: i32, testBelow: bool, negate: bool): i32 {
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const b = line + i32at(shiftAt, mid);
    let holds = testBelow ? b < 0 : b >= minorSize;
    if (negate) holds = !holds;
    if (holds) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Sweeps every line of the direction described at `desc` into its plane (sweptHorizon.ts's `sweepDirection` after its geometry). */
export function sweepDirection(desc: usize): void {
  const count = fi(desc, F_COUNT);
  const shiftAt = fi(desc, F_SHIFT);
  const values = fi(desc, F_VALUES);
  const slope = f64at(values, 1);
  const first = fi(desc, F_FIRST);
  const toward = fi(desc, F_TOWARD);
  inverseTwoR = f64at(values, 2);
  // the minor offset of the cell at each position of the sweep: floor(κ·a + ½)
  for (let t = 0; t < count; t++) store<i32>(<usize>shiftAt + (<usize>t << 2), <i32>Math.floor(slope * <f64>(first - toward * t) + 0.5));
  const lineHi = fi(desc, F_LINE_HI);
  for (let line = fi(desc, F_LINE_LO); line <= lineHi; line++) sweepLine(desc, line);
}

/** sweptHorizon.ts's `sweepLine` for line λ = `line`. */
function sweepLine(desc: usize, line: i32): void {
  const colMajor = fi(desc, F_COL_MAJOR) == 1;
  const toward = fi(desc, F_TOWARD);
  const first = fi(desc, F_FIRST);
  const lag = fi(desc, F_LAG);
  const minorSize = fi(desc, F_MINOR_SIZE);
  const majorLo = fi(desc, F_MAJOR_LO);
  const majorHi = fi(desc, F_MAJOR_HI);
  const minorLo = fi(desc, F_MINOR_LO);
  const minorHi = fi(desc, F_MINOR_HI);
  const count = fi(desc, F_COUNT);
  const simplifiedFrom = fi(desc, F_SIMPLIFIED_FROM);
  const levels = fi(desc, F_LEVELS);
  const blockRow = fi(desc, F_BLOCK_ROW);
  const blockCol = fi(desc, F_BLOCK_COL);
  const blockWidth = fi(desc, F_BLOCK_WIDTH);
  const winRow0 = fi(desc, F_WIN_ROW0);
  const winCol0 = fi(desc, F_WIN_COL0);
  const winWidth = fi(desc, F_WIN_WIDTH);
  const elevation = fi(desc, F_ELEVATION);
  const levelWindows = fi(desc, F_LEVEL_WINDOWS);
  const shiftAt = fi(desc, F_SHIFT);
  const hullU = fi(desc, F_HULL_U);
  const hullZ = fi(desc, F_HULL_Z);
  const plane = fi(desc, F_PLANE);
  const alongM = f64at(fi(desc, F_VALUES), 0);
  const maxUnits = <f64>fi(desc, F_MAX_UNITS);
  const itr = inverseTwoR;
  // window-relative strides of the major and minor axes
  const majorStride = colMajor ? 1 : winWidth;
  const minorStride = colMajor ? winWidth : 1;
  const windowBase = winRow0 * winWidth + winCol0;
  const tA = toward * (first - majorLo);
  const tB = toward * (first - majorHi);
  const queryFrom = tA < tB ? tA : tB;
  const queryTo = tA < tB ? tB : tA;
  let size = 0;
  let next = 0;
  // the distant part of the line in spans of 2^ℓ cells over the maximum pyramid
  for (let m = queryFrom - next; m > simplifiedFrom; m = queryFrom - next) {
    let level = 1;
    while (simplifiedFrom << level <= m && level < levels) level++;
    const span = 1 << level;
    if (m - span < simplifiedFrom) break;
    const a = first - toward * (next + (span >> 1));
    const b = line + i32at(shiftAt, next + (span >> 1));
    next += span;
    if (b < 0 || b >= minorSize) continue;
    const row = colMajor ? b : a;
    const col = colMajor ? a : b;
    const lw = levelWindows + ((level - 1) << 4);
    const levelIndex = ((row >> level) - i32at(lw, 0)) * i32at(lw, 2) + ((col >> level) - i32at(lw, 1));
    const z = f32at(i32at(lw, 3), levelIndex);
    if (z == -Infinity) continue;
    const u = <f64>(next - span + (span >> 1)) * alongM;
    size = pushOnHull(hullU, hullZ, size, u, z - u * u * itr);
  }
  // the positions whose cell lies on the grid (sweptHorizon.ts's `positionsOnGrid`)
  const rising = i32at(shiftAt, count - 1) >= i32at(shiftAt, 0);
  const validFrom = firstPosition(shiftAt, count, line, minorSize, rising, true);
  const validTo = firstPosition(shiftAt, count, line, minorSize, !rising, false) - 1;
  for (let t = queryFrom; t <= queryTo; t++) {
    const end = t - lag;
    if (next <= end) {
      if (next < validFrom) next = min(validFrom, end + 1);
      for (const stop = min(end, validTo); next <= stop; next++) {
        const a = first - toward * next;
        const z = f32at(elevation, a * majorStride + (line + i32at(shiftAt, next)) * minorStride - windowBase);
        if (z != z) continue;
        const u = <f64>next * alongM;
        size = pushOnHull(hullU, hullZ, size, u, z - u * u * itr);
      }
      if (next <= end) next = end + 1;
    }
    const a = first - toward * t;
    const b = line + i32at(shiftAt, t);
    if (b < minorLo || b > minorHi) continue;
    const row = colMajor ? b : a;
    const col = colMajor ? a : b;
    const zObs = f32at(elevation, (row - winRow0) * winWidth + (col - winCol0));
    const out = <usize>plane + (<usize>((row - blockRow) * blockWidth + (col - blockCol)) << 1);
    if (size == 0 || zObs != zObs) {
      store<i16>(out, <i16>(-maxUnits));
      continue;
    }
    const u = <f64>t * alongM;
    const zc = zObs - u * u * itr;
    let lo = 0;
    let hi = size - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((f64at(hullZ, mid + 1) - zc) * (u - f64at(hullU, mid)) >= (f64at(hullZ, mid) - zc) * (u - f64at(hullU, mid + 1))) lo = mid + 1;
      else hi = mid;
    }
    store<i16>(out, horizonUnits((f64at(hullZ, lo) - zc) / (u - f64at(hullU, lo)) - u * 2 * itr, maxUnits));
  }
}

/**
 * Writes the planes of a pass (F_PASS: the direction of each plane, i32; F_PASS_COUNT of them, F_CELLS cells each, at
 * F_PLANE) to the cells' values at F_FAR (F_DIRECTIONS per cell), as sweptHorizon.ts's `sweepRows` does; with
 * F_GROUP_DARK, lowers each cell's least horizon of the groups each plane's direction bounds (F_PASS_GROUPS) to it.
 */
export function writePass(desc: usize): void {
  const cells = fi(desc, F_CELLS);
  const directions = fi(desc, F_DIRECTIONS);
  const far = <usize>fi(desc, F_FAR);
  const planes = <usize>fi(desc, F_PLANE);
  const pass = fi(desc, F_PASS);
  const planeCount = fi(desc, F_PASS_COUNT);
  const groupDark = <usize>fi(desc, F_GROUP_DARK);
  const groups = fi(desc, F_GROUPS);
  const passGroups = fi(desc, F_PASS_GROUPS);
  for (let i = 0; i < cells; i++) {
    const base = far + (<usize>(i * directions) << 1);
    const dark = groupDark + (<usize>(i * groups) << 1);
    for (let j = 0; j < planeCount; j++) {
      const value = load<i16>(planes + (<usize>(j * cells + i) << 1));
      store<i16>(base + (<usize>i32at(pass, j) << 1), value);
      if (groupDark == 0) continue;
      for (let side = 0; side < 2; side++) {
        const g = i32at(passGroups, 2 * j + side);
        if (g < 0) continue;
        const at = dark + (<usize>g << 1);
        if (value < load<i16>(at)) store<i16>(at, value);
      }
    }
  }
}

/** Opens (−F_MAX_UNITS) the directions listed at F_PASS (F_PASS_COUNT of them) of every one of the F_CELLS cells at F_FAR. */
export function openDirections(desc: usize): void {
  const cells = fi(desc, F_CELLS);
  const directions = fi(desc, F_DIRECTIONS);
  const far = <usize>fi(desc, F_FAR);
  const pass = fi(desc, F_PASS);
  const openCount = fi(desc, F_PASS_COUNT);
  const open = <i16>(-fi(desc, F_MAX_UNITS));
  for (let i = 0; i < cells; i++) {
    const base = far + (<usize>(i * directions) << 1);
    for (let j = 0; j < openCount; j++) store<i16>(base + (<usize>i32at(pass, j) << 1), open);
  }
}
