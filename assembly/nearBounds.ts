/**
 * The near-field horizon bounds compiled to WebAssembly (AssemblyScript, built by `scripts/build-wasm.mjs` into
 * build/wasm/nearBounds.wasm): `boundsFromDisc` of src/science/solar/nearHorizonBounds.ts for the cells of
 * one row segment — the same views, the maxima and minima of the same views (near the grid's edge in the same
 * order, inside it the views four at a time and two sectors at a time, see `nearBoundsRow`), and the same units
 * of the bounds' arctangents (assembly/horizonUnits.ts's `ceilUnits` and `floorUnits`: an approximation away from
 * whole units, fdlibm's `Math.atan` near them, as V8's), so its bounds are the same to the bit
 * (test/science/solar/nearHorizonBoundsWasm.test.ts). Every array lives in the module's imported memory; the
 * JavaScript side (src/science/solar/nearHorizonBoundsWasm.ts) lays them out and passes one descriptor of i32
 * fields (pointers are byte offsets). Candidate offsets index an elevation window of the grid, not the grid.
 */

import { ceilUnits, floorUnits } from './horizonUnits';
import { f64at, fi, i32at } from './memoryAccess';


// descriptor fields
const D_ROW = 0; // grid row of the cells
const D_COL_START = 1; // grid columns [start, end)
const D_COL_END = 2;
const D_GRID_WIDTH = 3;
const D_GRID_HEIGHT = 4;
const D_WIN_ROW0 = 5; // the window's first grid row and column, and its width
const D_WIN_COL0 = 6;
const D_WIN_WIDTH = 7;
const D_ELEVATION = 8; // f32 window
const D_SECTORS = 9;
const D_STEPS = 10;
const D_UPPER_START = 11; // i32, sectors + 1
const D_LOWER_START = 12; // i32, sectors · steps + 1
const D_UPPER_DISC = 13; // i32 indices into the disc
const D_LOWER_DISC = 14;
const D_INVERSE_DISTANCE = 15; // f64 per disc cell
const D_CURVATURE_SLOPE = 16; // f64 per disc cell
const D_DISC_OFFSET = 17; // i32 per disc cell: offset in the window
const D_DISC_COL = 18; // i32 per disc cell
const D_DISC_ROW = 19;
const D_REACH_COLS = 20;
const D_REACH_ROWS = 21;
const D_NEEDED = 22; // u8 per sector (0: every sector)
const D_VIEW = 23; // f64 scratch per disc cell, and one more (NaN) after them
const D_UPPER_OUT = 24; // i16, (col − colStart) · sectors + k
const D_LOWER_OUT = 25;
const D_MAX_UNITS = 26; // MAX_HORIZON_UNITS
const D_PAIR_START = 27; // i32 per sector pair and step, + 1: the lower-bound entries of sectors 2p and 2p + 1 side by side
const D_PAIR_DISC = 28; // i32 disc index pairs (sector 2p, sector 2p + 1), each step's lists padded to the longer one
const D_RUN_FIRST = 29; // i32 per run: the disc index of its first cell (the disc cells the needed sectors use, all
const D_RUN_LENGTH = 30; // without a selection, in runs of neighbours along a grid row: consecutive disc indices and
const D_RUN_COUNT = 31; // window offsets)
const D_EMPTY_STEP = 32; // 1 when some step of some sector has no candidate (then the edge takes sectors one at a time)
export const DESCRIPTOR_FIELDS: i32 = 33;

@inline function setView(ptr: i32, i: i32, v: f64): void {
  store<f64>(<usize>ptr + (<usize>i << 3), v);
}
@inline function storeUnits(ptr: i32, i: i32, v: i32): void {
  store<i16>(<usize>ptr + (<usize>i << 1), <i16>v);
}

@inline function upperUnits(tangent: f64, maxUnits: i32): i32 {
  return tangent == -Infinity ? -maxUnits : <i32>Math.min(<f64>maxUnits, ceilUnits(tangent));
}
@inline function lowerUnits(tangent: f64, maxUnits: i32): i32 {
  return tangent == -Infinity ? -maxUnits : <i32>Math.max(<f64>-maxUnits, floorUnits(tangent));
}

/**
 * The views of the disc cells of the runs (`runFirst`, `runLength`) from the cell at window index `cell` (elevation
 * z0) at grid (row, col), four neighbours at a time (each view the same f64 operations as one at a time); with
 * `edge`, a view of a cell beyond the grid is NaN.
 */
@inline function viewsOfRuns(
  view: i32, elevation: i32, offset: i32, inverseDistance: i32, curvatureSlope: i32, colOffset: i32, rowOffset: i32,
  runFirst: i32, runLength: i32, runCount: i32, cell: i32, z0: f64, row: i32, col: i32, width: i32, height: i32, edge: bool,
): void {
  const z0s = f64x2.splat(z0);
  const hidden = f64x2.splat(-Infinity);
  for (let r = 0; r < runCount; r++) {
    let first = i32at(runFirst, r);
    let end = first + i32at(runLength, r);
    if (edge) {
      // the run's cells beyond the grid (a whole row of them, or its columns before or after the grid's)
      const inRow = row + i32at(rowOffset, first);
      const c0 = col + i32at(colOffset, first) - first; // the grid column of disc index i is c0 + i
      const from = inRow < 0 || inRow >= height ? end : max(first, -c0);
      const to = max(from, min(end, width - c0));
      for (let i = first; i < from; i++) setView(view, i, NaN);
      for (let i = to; i < end; i++) setView(view, i, NaN);
      first = from;
      end = to;
    }
    const cells = <usize>elevation + (<usize>(cell + i32at(offset, first) - first) << 2);
    let i = first;
    for (; i + 4 <= end; i += 4) {
      const four = v128.load(cells + (<usize>i << 2));
      const at = <usize>i << 3;
      const low = f64x2.sub(f64x2.mul(f64x2.sub(f64x2.promote_low_f32x4(four), z0s), v128.load(<usize>inverseDistance + at)), v128.load(<usize>curvatureSlope + at));
      const high = f64x2.sub(
        f64x2.mul(f64x2.sub(f64x2.promote_low_f32x4(i32x4.shuffle(four, four, 2, 3, 2, 3)), z0s), v128.load(<usize>inverseDistance + at, 16)),
        v128.load(<usize>curvatureSlope + at, 16),
      );
      // nodata: transparent for the upper bound, and its step may see nothing (lower bound)
      v128.store(<usize>view + at, v128.bitselect(low, hidden, f64x2.eq(low, low)));
      v128.store(<usize>view + at, v128.bitselect(high, hidden, f64x2.eq(high, high)), 16);
    }
    for (; i < end; i++) {
      const t = (<f64>load<f32>(cells + (<usize>i << 2)) - z0) * f64at(inverseDistance, i) - f64at(curvatureSlope, i);
      setView(view, i, isNaN(t) ? -Infinity : t);
    }
  }
}

/**
 * The bounds of sectors 2·pair and 2·pair + 1 side by side, one per SIMD lane, from their lower-bound entries
 * (each step's two candidate lists padded to the longer by repeating their last entry; an empty list reads the
 * view slot after the disc's, NaN, which pmin and pmax pass over): per step the flattest view (the lower bound:
 * the steepest of these), and over all steps the steepest (the upper bound: a sector's upper-bound candidates are
 * its steps' candidates, nearHorizonBounds.ts). With `edge`, a step with a view beyond the grid (NaN) ends its
 * sector's lower bound, as in the sector-by-sector loop (so no step may be empty). Maxima and minima of the same
 * views as the readable loops, in another order. Stores both sectors' bounds in units at `at` and `at` + 1 of
 * `upperOut` and `lowerOut` (`skip0`, `skip1`: that sector is not needed, its bounds decide nothing).
 */
@inline function pairBounds(
  view: i32, pairStart: i32, pairDisc: i32, pair: i32, steps: i32, edge: bool,
  upperOut: i32, lowerOut: i32, at: i32, skip0: bool, skip1: bool, maxUnits: i32,
): void {
  let lowest = f64x2.splat(-Infinity);
  let steepest = f64x2.splat(-Infinity);
  let left = i64x2.splat(0);
  for (let s = pair * steps, last = s + steps; s < last; s++) {
    let flattest = f64x2.splat(Infinity);
    let beyond = i64x2.splat(0);
    for (let i = i32at(pairStart, s), end = i32at(pairStart, s + 1); i < end; i++) {
      const two = f64x2.replace_lane(f64x2.splat(f64at(view, i32at(pairDisc, 2 * i))), 1, f64at(view, i32at(pairDisc, 2 * i + 1)));
      flattest = f64x2.pmin(flattest, two);
      steepest = f64x2.pmax(steepest, two);
      if (edge) beyond = v128.or(beyond, f64x2.ne(two, two));
    }
    if (edge) {
      left = v128.or(left, beyond);
      lowest = v128.bitselect(lowest, f64x2.pmax(lowest, flattest), left);
    } else {
      lowest = f64x2.pmax(lowest, flattest);
    }
  }
  storeUnits(upperOut, at, skip0 ? -maxUnits : upperUnits(f64x2.extract_lane(steepest, 0), maxUnits));
  storeUnits(lowerOut, at, skip0 ? -maxUnits : lowerUnits(f64x2.extract_lane(lowest, 0), maxUnits));
  storeUnits(upperOut, at + 1, skip1 ? -maxUnits : upperUnits(f64x2.extract_lane(steepest, 1), maxUnits));
  storeUnits(lowerOut, at + 1, skip1 ? -maxUnits : lowerUnits(f64x2.extract_lane(lowest, 1), maxUnits));
}

/** Upper and lower near-field bounds of every sector of the cells of one row segment (see the module comment). */
export function nearBoundsRow(desc: usize): void {
  const row = fi(desc, D_ROW);
  const colStart = fi(desc, D_COL_START);
  const colEnd = fi(desc, D_COL_END);
  const width = fi(desc, D_GRID_WIDTH);
  const height = fi(desc, D_GRID_HEIGHT);
  const winRow0 = fi(desc, D_WIN_ROW0);
  const winCol0 = fi(desc, D_WIN_COL0);
  const winWidth = fi(desc, D_WIN_WIDTH);
  const elevation = fi(desc, D_ELEVATION);
  const sectors = fi(desc, D_SECTORS);
  const steps = fi(desc, D_STEPS);
  const upperStart = fi(desc, D_UPPER_START);
  const lowerStart = fi(desc, D_LOWER_START);
  const upperDisc = fi(desc, D_UPPER_DISC);
  const lowerDisc = fi(desc, D_LOWER_DISC);
  const inverseDistance = fi(desc, D_INVERSE_DISTANCE);
  const curvatureSlope = fi(desc, D_CURVATURE_SLOPE);
  const offset = fi(desc, D_DISC_OFFSET);
  const colOffset = fi(desc, D_DISC_COL);
  const rowOffset = fi(desc, D_DISC_ROW);
  const reachCols = fi(desc, D_REACH_COLS);
  const reachRows = fi(desc, D_REACH_ROWS);
  const needed = fi(desc, D_NEEDED);
  const view = fi(desc, D_VIEW);
  const upperOut = fi(desc, D_UPPER_OUT);
  const lowerOut = fi(desc, D_LOWER_OUT);
  const maxUnits = fi(desc, D_MAX_UNITS);
  const pairStart = fi(desc, D_PAIR_START);
  const pairDisc = fi(desc, D_PAIR_DISC);
  const runFirst = fi(desc, D_RUN_FIRST);
  const runLength = fi(desc, D_RUN_LENGTH);
  const runCount = fi(desc, D_RUN_COUNT);
  const emptyStep = fi(desc, D_EMPTY_STEP) == 1;
  const rowInside = row >= reachRows && row < height - reachRows;
  for (let col = colStart; col < colEnd; col++) {
    const outBase = (col - colStart) * sectors;
    const cell = (row - winRow0) * winWidth + (col - winCol0);
    const z0 = <f64>load<f32>(<usize>elevation + (<usize>cell << 2));
    if (isNaN(z0)) {
      for (let k = 0; k < sectors; k++) {
        storeUnits(upperOut, outBase + k, -maxUnits);
        storeUnits(lowerOut, outBase + k, -maxUnits);
      }
      continue;
    }
    const inside = rowInside && col >= reachCols && col < width - reachCols;
    if (inside) viewsOfRuns(view, elevation, offset, inverseDistance, curvatureSlope, colOffset, rowOffset, runFirst, runLength, runCount, cell, z0, row, col, width, height, false);
    else viewsOfRuns(view, elevation, offset, inverseDistance, curvatureSlope, colOffset, rowOffset, runFirst, runLength, runCount, cell, z0, row, col, width, height, true);
    // two sectors at a time (`pairBounds`; near the grid's edge only when no step is empty); sectors taken one at a
    // time after them (the last of an odd number, or all near the edge)
    const firstSingle = inside || !emptyStep ? sectors & ~1 : 0;
    for (let k = 0; k < firstSingle; k += 2) {
      const skip0 = needed != 0 && load<u8>(<usize>needed + <usize>k) == 0;
      const skip1 = needed != 0 && load<u8>(<usize>needed + <usize>(k + 1)) == 0;
      if (skip0 && skip1) {
        storeUnits(upperOut, outBase + k, -maxUnits);
        storeUnits(lowerOut, outBase + k, -maxUnits);
        storeUnits(upperOut, outBase + k + 1, -maxUnits);
        storeUnits(lowerOut, outBase + k + 1, -maxUnits);
        continue;
      }
      if (inside) pairBounds(view, pairStart, pairDisc, k >> 1, steps, false, upperOut, lowerOut, outBase + k, skip0, skip1, maxUnits);
      else pairBounds(view, pairStart, pairDisc, k >> 1, steps, true, upperOut, lowerOut, outBase + k, skip0, skip1, maxUnits);
    }
    for (let k = firstSingle; k < sectors; k++) {
      if (needed != 0 && load<u8>(<usize>needed + <usize>k) == 0) {
        storeUnits(upperOut, outBase + k, -maxUnits);
        storeUnits(lowerOut, outBase + k, -maxUnits);
        continue;
      }
      // near the grid's edge: a view beyond the grid (NaN) is skipped by the upper bound and ends the lower one
      let best = -Infinity;
      for (let i = i32at(upperStart, k), end = i32at(upperStart, k + 1); i < end; i++) {
        const t = f64at(view, i32at(upperDisc, i));
        if (t > best) best = t;
      }
      let lowest = -Infinity;
      let leaves = false;
      for (let s = k * steps, last = s + steps; s < last && !leaves; s++) {
        let flattest = Infinity;
        for (let i = i32at(lowerStart, s), end = i32at(lowerStart, s + 1); i < end; i++) {
          const t = f64at(view, i32at(lowerDisc, i));
          if (isNaN(t)) {
            leaves = true;
            break;
          }
          if (t < flattest) flattest = t;
        }
        if (!leaves && flattest > lowest) lowest = flattest;
      }
      storeUnits(upperOut, outBase + k, upperUnits(best, maxUnits));
      storeUnits(lowerOut, outBase + k, lowerUnits(lowest, maxUnits));
    }
  }
}
