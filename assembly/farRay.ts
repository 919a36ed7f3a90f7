/**
 * `farHorizon` of src/science/solar/farHorizon.ts compiled (exported by assembly/farSweep.ts): the far-field horizon
 * of one cell in one direction, by the maximum-pyramid ray traversal, statement for statement with the same IEEE
 * operations (floor, ceil, sqrt, +, −, ×, ÷), so its tangent and step are the same to the bit
 * (test/science/solar/farHorizonWasm.test.ts). The horizon budget traces a few thousand such rays on the main
 * thread before a run starts (horizonBudget.ts): cold JavaScript took 30–50 ms of a small run's start for them.
 *
 * The terrain (`setRayTerrain`): the elevations (f32, row-major) and the levels of the maximum pyramid (f32 each, at
 * the byte offsets of an i32 table, level ℓ at index ℓ − 1), in this module's memory.
 */

import { jsCos, jsHypot, jsSin } from './javascriptMath';

// horizon.ts's EARTH_RADIUS_M [m] and farHorizon.ts's MAX_STEPS, passed in by `setRayTerrain`
let earthRadiusM: f64 = 0;
let maxSteps: f64 = 0;

let tElevation: usize = 0;
let tWidth: i32 = 0;
let tHeight: i32 = 0;
let tLevelTable: usize = 0;
let tLevels: i32 = 0;
let tZMaxM: f64 = 0;
/** The step of the last ray's horizon (−1: none), as `farHorizon`'s `out.step`. */
let lastStep: f64 = -1;

/** The terrain the rays run over (see the module comment), and the constants of horizon.ts and farHorizon.ts they use. */
export function setRayTerrain(elevation: usize, width: i32, height: i32, levelTable: usize, levels: i32, zMaxM: f64, earthRadius: f64, stepLimit: f64): void {
  earthRadiusM = earthRadius;
  maxSteps = stepLimit;
  tElevation = elevation;
  tWidth = width;
  tHeight = height;
  tLevelTable = levelTable;
  tLevels = levels;
  tZMaxM = zMaxM;
}

/** The step at which the last `farHorizonRay` found its horizon, −1 if none. */
export function farRayStep(): f64 {
  return lastStep;
}

/** horizon.ts's `curvatureOverDistance`. */
@inline function curvatureOverDistance(distanceM: f64): f64 {
  const x = distanceM / earthRadiusM;
  const x2 = x * x;
  return (distanceM / (2 * earthRadiusM)) * (1 - x2 / 12 + (x2 * x2) / 360);
}

@inline function elevationAt(index: i32): f64 {
  return <f64>load<f32>(tElevation + (<usize>index << 2));
}

/** farHorizon.ts's `stepLeaving`. */
function stepLeaving(j: f64, perStep: f64, lo: f64, hi: f64): f64 {
  if (perStep > 0) {
    let e = max(j + 1, Math.ceil((hi + 0.5) / perStep));
    if (!(e < maxSteps)) return Infinity;
    while (e - 1 > j && Math.floor((e - 1) * perStep + 0.5) > hi) e--;
    while (Math.floor(e * perStep + 0.5) <= hi) e++;
    return e;
  }
  if (perStep < 0) {
    let e = max(j + 1, Math.floor((lo - 0.5) / perStep) + 1);
    if (!(e < maxSteps)) return Infinity;
    while (e - 1 > j && Math.floor((e - 1) * perStep + 0.5) < lo) e--;
    while (Math.floor(e * perStep + 0.5) >= lo) e++;
    return e;
  }
  return Infinity;
}

/**
 * farHorizon.ts's `farHorizon` of cell (row, col) along the direction with `colPerStep` / `northPerStep` cells per
 * step from step `firstStep`, on cells of dx × dy metres (the row's): returns tan H (−Infinity if no step lands on a
 * valid cell); `farRayStep()` then gives the step.
 */
export function farHorizonRay(row: i32, col: i32, colPerStep: f64, northPerStep: f64, firstStep: f64, dx: f64, dy: f64): f64 {
  const width = tWidth;
  const height = tHeight;
  const stepM = 0.5 * (dx + dy);
  const diagonalM = Math.sqrt(dx * dx + dy * dy);
  const z0 = elevationAt(row * width + col);
  const headroom = tZMaxM - z0;
  const levels = tLevels;
  let best: f64 = -Infinity;
  let bestStep: f64 = -1;
  let level: i32 = 1;
  let j = firstStep;
  for (;;) {
    const dc = Math.floor(j * colPerStep + 0.5);
    const dr = 0 - Math.floor(j * northPerStep + 0.5);
    const rf = <f64>row + dr;
    const cf = <f64>col + dc;
    if (rf < 0 || rf >= <f64>height || cf < 0 || cf >= <f64>width) break;
    const r = <i32>rf;
    const c = <i32>cf;
    const nearestAhead = j * stepM - 0.5 * diagonalM;
    if (nearestAhead > 0) {
      const curvature = curvatureOverDistance(nearestAhead);
      const inverseNearest = 1 / nearestAhead;
      if (headroom * inverseNearest - curvature <= best) break;
      let skipTo: f64 = -1;
      for (let l = level < levels ? level : levels; l >= 1; l--) {
        const blockRow = r >> l;
        const blockCol = c >> l;
        const levelCells = <usize>load<i32>(tLevelTable + (<usize>(l - 1) << 2));
        const rise = <f64>load<f32>(levelCells + (<usize>(blockRow * ((width + (1 << l) - 1) >> l) + blockCol) << 2)) - z0;
        const bound = rise >= 0 ? rise * inverseNearest - curvature : rise / (nearestAhead + <f64>((1 << l) + 1) * diagonalM) - curvature;
        if (bound <= best) {
          const rowLo = (blockRow << l) - row;
          const colLo = (blockCol << l) - col;
          const last = (1 << l) - 1;
          const leaveCol = stepLeaving(j, colPerStep, <f64>colLo, <f64>(colLo + last));
          const leaveRow = stepLeaving(j, northPerStep, <f64>(0 - (rowLo + last)), <f64>(0 - rowLo));
          skipTo = leaveCol < leaveRow ? leaveCol : leaveRow;
          level = l + 1;
          break;
        }
      }
      if (skipTo > 0) {
        j = skipTo;
        continue;
      }
    }
    level = 1;
    if (dc != 0 || dr != 0) {
      // NaN (nodata) compares false: transparent
      const xM = dc * dx;
      const yM = dr * dy;
      const d = Math.sqrt(xM * xM + yM * yM);
      const t = (elevationAt(r * width + c) - z0) / d - curvatureOverDistance(d);
      if (t > best) {
        best = t;
        bestStep = j;
      }
    }
    j++;
  }
  lastStep = bestStep;
  return best;
}

/** Slopes written by the last `budgetLattice`. */
let latticeSlopes: i32 = 0;

/** The slopes the last `budgetLattice` wrote. */
export function budgetLatticeSlopes(): i32 {
  return latticeSlopes;
}

/** horizonBudget.ts's `centralSlope` |∇z| of cell (row, col) on cells of dx × dy metres (NaN next to nodata). */
function centralSlope(row: i32, col: i32, dx: f64, dy: f64): f64 {
  const width = tWidth;
  const height = tHeight;
  const left = max(0, col - 1);
  const right = min(width - 1, col + 1);
  const up = max(0, row - 1);
  const down = min(height - 1, row + 1);
  const spanX = <f64>(right - left) * dx;
  const spanY = <f64>(down - up) * dy;
  const gx = spanX > 0 ? (elevationAt(row * width + right) - elevationAt(row * width + left)) / spanX : 0;
  const gy = spanY > 0 ? (elevationAt(down * width + col) - elevationAt(up * width + col)) / spanY : 0;
  return jsHypot(gx, gy);
}

/**
 * horizonBudget.ts's lattice of exact rays, compiled: its `lattice` × `lattice` cells (the rows and columns at the
 * lattice's centres), and from each with a valid elevation `azimuths` rays from step 1 (`farHorizonRay`, in the
 * directions horizon.ts's `rayDirection` gives for the row's cells, `cellSizeX` and `cellSizeY` f64 per row). Counts
 * into `beyond` (i32 per near-step choice, the `choices` i32 of `nearSteps`) the rays that can hide a sun (tan H ≥ 0)
 * whose horizon is set beyond that many steps, writes each cell's central slope (NaN left out) to `slopes` (f64),
 * and returns the rays that can hide a sun; `budgetLatticeSlopes()` then gives the slopes written. The same
 * operations in the same order as the JavaScript, with JavaScript's sin, cos and hypot: the same counts and slopes.
 */
export function budgetLattice(lattice: i32, azimuths: i32, cellSizeX: usize, cellSizeY: usize, nearSteps: usize, choices: i32, beyond: usize, slopes: usize): i32 {
  const width = tWidth;
  const height = tHeight;
  let rays = 0;
  let slopeCount = 0;
  for (let k = 0; k < choices; k++) store<i32>(beyond + (<usize>k << 2), 0);
  for (let i = 0; i < lattice; i++) {
    const row = <i32>min<f64>(<f64>(height - 1), Math.floor(((<f64>i + 0.5) * <f64>height) / <f64>lattice));
    const dx = load<f64>(cellSizeX + (<usize>row << 3));
    const dy = load<f64>(cellSizeY + (<usize>row << 3));
    // horizon.ts's rayDirection: one step of the row's mean cell size
    const stepM = 0.5 * (dx + dy);
    for (let j = 0; j < lattice; j++) {
      const col = <i32>min<f64>(<f64>(width - 1), Math.floor(((<f64>j + 0.5) * <f64>width) / <f64>lattice));
      const z = elevationAt(row * width + col);
      if (z != z) continue;
      const slope = centralSlope(row, col, dx, dy);
      if (slope == slope) {
        store<f64>(slopes + (<usize>slopeCount << 3), slope);
        slopeCount++;
      }
      for (let a = 0; a < azimuths; a++) {
        const azimuth = ((<f64>a + 0.5) * 2 * Math.PI) / <f64>azimuths;
        const colPerStep = (stepM * jsSin(azimuth)) / dx;
        const northPerStep = (stepM * jsCos(azimuth)) / dy;
        const tangent = farHorizonRay(row, col, colPerStep, northPerStep, 1, dx, dy);
        if (!(tangent >= 0)) continue;
        rays++;
        for (let k = 0; k < choices; k++) {
          const at = beyond + (<usize>k << 2);
          if (lastStep > <f64>load<i32>(nearSteps + (<usize>k << 2))) store<i32>(at, load<i32>(at) + 1);
        }
      }
    }
  }
  latticeSlopes = slopeCount;
  return rays;
}
