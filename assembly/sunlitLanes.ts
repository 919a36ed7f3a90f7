/**
 * The terrain-shadowed daily sums of the WebAssembly kernel (assembly/dailyKernel.ts), eight neighbouring cells
 * of a row at a time (the "lanes"). The eight cells share the day's samples: per group of samples their group
 * bounds are compared for all eight at once, and per sample of a group that not every lane's bounds decide,
 * the sample's altitude is compared with the eight cells' lit and dark bounds at once (128-bit SIMD, eight i16
 * per vector: the bounds are whole horizon units, and for a whole number b an altitude a ≥ b exactly when
 * ⌊a⌋ ≥ b, so the sample's altitude is compared by its floor — the same decision as the f64 comparison of
 * src/science/solar/dailyKernel.ts). Only the lanes whose altitude lies between the two bounds get the exact test, one by one: in front
 * of the surface's plane, above the interpolated far-field horizon and the near field's lower bound, and above
 * its upper bound or not hidden by any cell of the near-field ray (traced up to the grid's edge, or until the
 * highest terrain of the ray's quadrant cannot rise above what is left of the ray: src/science/solar/nearFieldMaxima.ts;
 * the TypeScript kernel traces the whole ray, and the decision is the same).
 *
 * Every lane's decision is the one `sunlitSums` of src/science/solar/dailyKernel.ts makes for that cell, with
 * the same IEEE operations on the same values: lit by the group's lit bound, else dark by its dark bound,
 * else per sample as above. The samples above every lit bound of all the lanes around noon are taken as lit
 * without looking at their groups; each lane's group bounds would make them lit anyway (a cell's lit-everywhere
 * bound is the largest of its group lit bounds). Each lane's lit samples form the same runs, whose prefix sums
 * are added in the same order, so the sums are equal to the bit (test/science/solar/dailyKernelWasm.test.ts).
 * Units and quantities: see src/science/solar/dailyKernel.ts.
 */

import { f64at, fi, i16at, i32at } from './memoryAccess';
import {
  PREFIX_QUANTITIES,
  D_DIRECTIONS,
  D_NEAR_STRIDE,
  D_GROUPS_PER_CELL,
  D_FAR,
  D_NEAR_UPPER,
  D_NEAR_LOWER,
  D_LIT_BOUND,
  D_DARK_BOUND,
  D_INCLINED,
  D_NORMAL_EAST,
  D_NORMAL_NORTH,
  D_NORMAL_UP,
  D_PRESSURE_RATIO,
  D_SHADED_DIFFUSE,
  D_SKY_VIEW,
  D_MUNEER_SLOPE,
  D_GROUND_VIEW,
  D_ELEVATION,
  D_VALID,
  D_GRID_WIDTH,
  D_GRID_HEIGHT,
  D_MARGIN_ROWS,
  D_MARGIN_COLS,
  D_NEAR_MAXIMA,
  Y_COUNT,
  Y_PEAK,
  Y_GROUP_COUNT,
  Y_ALTITUDE,
  Y_SIN_ALTITUDE,
  Y_SUN_EAST,
  Y_SUN_NORTH,
  Y_NEAR_SECTOR,
  Y_HD0,
  Y_HD1,
  Y_HW,
  Y_NEAR_START,
  Y_NEAR_OFFSET,
  Y_NEAR_COL,
  Y_NEAR_ROW,
  Y_NEAR_THRESHOLD,
  Y_PREFIX,
  Y_SAMPLE_GROUP,
  Y_GROUP_SECTOR,
  Y_GROUP_START,
  Y_GROUP_END,
  Y_GROUP_MIN,
  Y_GROUP_MAX,
  Y_NEAR_QUADRANT,
  Y_NEAR_MIN_THRESHOLD,
  Y_ALTITUDE_FLOOR,
  Y_GROUP_MIN_FLOOR,
  Y_GROUP_MAX_FLOOR,
} from './kernelLayout';

/** Cells integrated together. */
export const LANES: i32 = 8;
/** One bit per lane. */
const ALL_LANES: i32 = (1 << LANES) - 1;
/** Lanes whose near-field rays are stepped together (`unhiddenTogether`): four f32 elevations per vector. */
export const RAY_LANES: i32 = 4;
const RAY_LANE_BITS: i32 = (1 << RAY_LANES) - 1;
/** Bytes of one lane's sums (PREFIX_QUANTITIES f64) in the scratch area: lane l's at sums + l · LANE_SUMS_BYTES. */
export const LANE_SUMS_BYTES: i32 = PREFIX_QUANTITIES * 8;
// after the lanes' sums: each lane's run start (i32) and its count of runs (i32)
const RUN_START: i32 = LANES * LANE_SUMS_BYTES;
const RUN_COUNT: i32 = RUN_START + LANES * 4;
// then each lane's state (`prepareLanes`): the normal of its plane test, its elevation, where its horizons
// start, its row and column, whether its near-field rays stay inside the grid, its lit bound over the batch's
// sectors, how far each quadrant of its near field rises above it, and the terms of its daily sums' combination
// (assembly/dailyKernel.ts `combineSums`: whether it is inclined, its p/p₀ and view factors)
const LANE_STATE: i32 = RUN_COUNT + LANES * 4;
/** Bytes of one lane's state; lane l's at `laneState(sums, l)`. */
export const LANE_STATE_BYTES: i32 = 144;
export const L_TEST_EAST: i32 = 0;
export const L_TEST_NORTH: i32 = 8;
export const L_TEST_UP: i32 = 16;
const L_Z0: i32 = 24;
const L_FAR_BASE: i32 = 32;
const L_NEAR_BASE: i32 = 36;
const L_ROW: i32 = 40;
const L_COL: i32 = 44;
const L_INTERIOR: i32 = 48;
const L_BATCH_LIT: i32 = 56;
const L_RISE: i32 = 64; // four f64, quadrant q at L_RISE + 8q
export const L_PRESSURE_RATIO: i32 = 96;
export const L_SHADED_DIFFUSE: i32 = 104;
export const L_SKY_VIEW: i32 = 112;
export const L_MUNEER_SLOPE: i32 = 120;
export const L_GROUND_VIEW: i32 = 128;
export const L_INCLINED: i32 = 136;

/** Where lane `lane`'s state starts in the scratch at `sums`. */
@inline export function laneState(sums: i32, lane: i32): usize {
  return <usize>sums + <usize>(LANE_STATE + lane * LANE_STATE_BYTES);
}
// then the lanes' group bounds: per group sector the lit bounds of the eight lanes and their dark bounds, two
// i16 vectors
const GROUP_BOUNDS: i32 = LANE_STATE + LANES * LANE_STATE_BYTES;
const GROUP_BOUNDS_BYTES: i32 = 32;
/** The most group sectors a layout may have (N ≤ 256 far directions have at most 256). */
export const MAX_GROUP_SECTORS: i32 = 256;
// then one byte per group sector: 1 where a sample of the call's days stands in it (`markBatchSectors`)
const BATCH_SECTORS: i32 = GROUP_BOUNDS + MAX_GROUP_SECTORS * GROUP_BOUNDS_BYTES;
/** Bytes of scratch at the descriptor's D_SUMS. */
export const LANE_SCRATCH_BYTES: i32 = BATCH_SECTORS + MAX_GROUP_SECTORS;

/**
 * Marks the group sectors (of `groups`) in which a sample of the `dayCount` days at `days` stands, for
 * `prepareLanes`'s lit bound of the batch.
 */
export function markBatchSectors(sums: i32, days: usize, dayCount: i32, groups: i32, dayFields: i32): void {
  const marks = <usize>sums + <usize>BATCH_SECTORS;
  memory.fill(marks, 0, <usize>groups);
  for (let d = 0; d < dayCount; d++) {
    const day = days + (<usize>(d * dayFields) << 2);
    const groupSector = fi(day, Y_GROUP_SECTOR);
    for (let g = 0, n = fi(day, Y_GROUP_COUNT); g < n; g++) store<u8>(marks + <usize>i32at(groupSector, g), 1);
  }
}

/** Lane `lane`'s lit bound over the sectors of the batch's samples (`prepareLanes`) [horizon units]. */
export function batchLitBound(sums: i32, lane: i32): f64 {
  return load<f64>(<usize>sums + <usize>(LANE_STATE + lane * LANE_STATE_BYTES + L_BATCH_LIT));
}

/** One bit per lane (bit l: lane l) from the masks of lanes 0–1 and 2–3 (f64 comparisons of four lanes). */
@inline function laneBits(low: v128, high: v128): i32 {
  return i64x2.bitmask(low) | (i64x2.bitmask(high) << 2);
}

/**
 * Writes the floors of the altitudes of the samples and of their groups' least and greatest altitudes of the
 * `dayCount` days at `days` (Y_ALTITUDE_FLOOR, Y_GROUP_MIN_FLOOR, Y_GROUP_MAX_FLOOR), which `sunlitLanes` compares
 * with the lanes' bounds: once per call for all its cells [horizon units; sun samples stand above the horizon,
 * 0 … 15 708, so each fits an i16].
 */
export function floorAltitudes(days: usize, dayCount: i32, dayFields: i32): void {
  for (let d = 0; d < dayCount; d++) {
    const day = days + (<usize>(d * dayFields) << 2);
    const altitude = fi(day, Y_ALTITUDE);
    const altitudeFloor = fi(day, Y_ALTITUDE_FLOOR);
    for (let k = 0, n = fi(day, Y_COUNT); k < n; k++) store<i32>(<usize>altitudeFloor + (<usize>k << 2), <i32>Math.floor(f64at(altitude, k)));
    const groupMin = fi(day, Y_GROUP_MIN);
    const groupMax = fi(day, Y_GROUP_MAX);
    const groupMinFloor = fi(day, Y_GROUP_MIN_FLOOR);
    const groupMaxFloor = fi(day, Y_GROUP_MAX_FLOOR);
    for (let g = 0, n = fi(day, Y_GROUP_COUNT); g < n; g++) {
      store<i32>(<usize>groupMinFloor + (<usize>g << 2), <i32>Math.floor(f64at(groupMin, g)));
      store<i32>(<usize>groupMaxFloor + (<usize>g << 2), <i32>Math.floor(f64at(groupMax, g)));
    }
  }
}

/** The eight lanes' i16 vector of a floor that `floorAltitudes` wrote. */
@inline function floorSplat(floors: i32, i: i32): v128 {
  return i16x8.splat(<i16>i32at(floors, i));
}

/** Cells from the first lane's to lane `lane`'s: lanes beyond `lanes` repeat the first cell. */
@inline function laneShift(lane: i32, lanes: i32): i32 {
  return lane < lanes ? lane : 0;
}

/**
 * Writes tile-local `cell`'s own terms into the lane state at `state`: the normal of its plane test ((0, 0, 1) for a
 * level cell), whether it is inclined, its p/p₀ and view factors (what `combineSums` of assembly/dailyKernel.ts reads).
 */
export function storeCellTerms(desc: usize, state: usize, cell: i32): void {
  const tilted = load<u8>(<usize>fi(desc, D_INCLINED) + <usize>cell) == 1;
  store<f64>(state + L_TEST_EAST, tilted ? f64at(fi(desc, D_NORMAL_EAST), cell) : 0.0);
  store<f64>(state + L_TEST_NORTH, tilted ? f64at(fi(desc, D_NORMAL_NORTH), cell) : 0.0);
  store<f64>(state + L_TEST_UP, tilted ? f64at(fi(desc, D_NORMAL_UP), cell) : 1.0);
  store<i32>(state + L_INCLINED, i32(tilted));
  store<f64>(state + L_PRESSURE_RATIO, f64at(fi(desc, D_PRESSURE_RATIO), cell));
  store<f64>(state + L_SHADED_DIFFUSE, f64at(fi(desc, D_SHADED_DIFFUSE), cell));
  store<f64>(state + L_SKY_VIEW, f64at(fi(desc, D_SKY_VIEW), cell));
  store<f64>(state + L_MUNEER_SLOPE, f64at(fi(desc, D_MUNEER_SLOPE), cell));
  store<f64>(state + L_GROUND_VIEW, f64at(fi(desc, D_GROUND_VIEW), cell));
}

/** Two f64 fields at `field` of the lane states at `state`: lane `lane`'s and the next lane's. */
@inline function lanePair(state: usize, lane: i32, field: usize): v128 {
  const at = state + <usize>lane * LANE_STATE_BYTES + field;
  return f64x2.replace_lane(f64x2.splat(load<f64>(at)), 1, load<f64>(at + LANE_STATE_BYTES));
}

/** Bytes of a cache line (the touch-ahead's stride). */
const CACHE_LINE_BYTES: i32 = 64;

/**
 * Reads one byte of every cache line of the LANES cells' far- and near-field horizons from tile-local `cell` on
 * (the next lanes): independent loads the processor overlaps, so that their horizons are in the cache when
 * their exact tests read them (one line at a time, each waiting on the memory, as most of the time of the
 * kernel did when the tile's horizons exceed the caches). Returns the bytes or-ed (kept, so the loads stay).
 */
export function touchHorizons(desc: usize, cell: i32): i32 {
  let seen = 0;
  const farBytes = LANES * fi(desc, D_DIRECTIONS) * 2;
  const far = <usize>fi(desc, D_FAR) + <usize>(cell * fi(desc, D_DIRECTIONS) * 2);
  for (let at = 0; at < farBytes; at += CACHE_LINE_BYTES) seen |= load<u8>(far + <usize>at);
  const nearBytes = LANES * fi(desc, D_NEAR_STRIDE) * 2;
  const nearOffset = <usize>(cell * fi(desc, D_NEAR_STRIDE) * 2);
  const upper = <usize>fi(desc, D_NEAR_UPPER) + nearOffset;
  const lower = <usize>fi(desc, D_NEAR_LOWER) + nearOffset;
  for (let at = 0; at < nearBytes; at += CACHE_LINE_BYTES) seen |= load<u8>(upper + <usize>at) | load<u8>(lower + <usize>at);
  return seen;
}

/**
 * Lays out the state of the `lanes` cells (row, col) … (tile-local `cell` …, window index `gridCell` …) for
 * `sunlitLanes`: each lane's plane test, elevation, horizon offsets and whether its near-field rays stay inside
 * the grid, the lanes' group bounds as vectors (of the group sectors of the batch's samples), and each lane's largest lit bound over the group sectors of the
 * batch's samples (`markBatchSectors`; at most its lit-everywhere bound, lower where the sectors of the sun's
 * path these days are lit lower than the others). Lanes beyond `lanes` repeat the first cell and are not
 * valid. Returns the valid lanes (one bit each).
 */
export function prepareLanes(desc: usize, sums: i32, row: i32, col: i32, cell: i32, gridCell: i32, lanes: i32): i32 {
  const validCells = fi(desc, D_VALID);
  const width = fi(desc, D_GRID_WIDTH);
  const height = fi(desc, D_GRID_HEIGHT);
  const marginRows = fi(desc, D_MARGIN_ROWS);
  const marginCols = fi(desc, D_MARGIN_COLS);
  const elevation = fi(desc, D_ELEVATION);
  const maxima = fi(desc, D_NEAR_MAXIMA);
  const rowInterior = row >= marginRows && row < height - marginRows;
  let valid = 0;
  for (let lane = 0; lane < LANES; lane++) {
    const shift = laneShift(lane, lanes);
    const laneCell = cell + shift;
    if (lane < lanes && load<u8>(<usize>validCells + <usize>laneCell) == 1) valid |= 1 << lane;
    const state = <usize>sums + <usize>(LANE_STATE + lane * LANE_STATE_BYTES);
    storeCellTerms(desc, state, laneCell);
    const z0 = <f64>load<f32>(<usize>elevation + (<usize>(gridCell + shift) << 2));
    store<f64>(state + L_Z0, z0);
    for (let q = 0; q < 4; q++) {
      store<f64>(state + L_RISE + (<usize>q << 3), <f64>load<f32>(<usize>maxima + (<usize>(laneCell * 4 + q) << 2)) - z0);
    }
    store<i32>(state + L_FAR_BASE, laneCell * fi(desc, D_DIRECTIONS));
    store<i32>(state + L_NEAR_BASE, laneCell * fi(desc, D_NEAR_STRIDE));
    store<i32>(state + L_ROW, row);
    store<i32>(state + L_COL, col + shift);
    store<i32>(state + L_INTERIOR, i32(rowInterior && col + shift >= marginCols && col + shift < width - marginCols));
  }
  const groups = fi(desc, D_GROUPS_PER_CELL);
  const litBound = <usize>fi(desc, D_LIT_BOUND);
  const darkBound = <usize>fi(desc, D_DARK_BOUND);
  const bounds = <usize>sums + <usize>GROUP_BOUNDS;
  const marks = <usize>sums + <usize>BATCH_SECTORS;
  for (let lane = 0; lane < LANES; lane++) {
    const first = <usize>((cell + laneShift(lane, lanes)) * groups) << 1;
    let batchLit: i32 = i32.MIN_VALUE;
    for (let g = 0; g < groups; g++) {
      // (the bounds of the other sectors are never read)
      if (load<u8>(marks + <usize>g) == 0) continue;
      const at = bounds + <usize>(g * GROUP_BOUNDS_BYTES + lane * 2);
      const lit = <i32>load<i16>(litBound + first + (<usize>g << 1));
      store<i16>(at, lit);
      store<i16>(at + 16, load<i16>(darkBound + first + (<usize>g << 1)));
      batchLit = max(batchLit, lit);
    }
    // −Infinity where no sector is marked (a batch without samples), as the largest of no bounds
    const state = <usize>sums + <usize>(LANE_STATE + lane * LANE_STATE_BYTES + L_BATCH_LIT);
    store<f64>(state, batchLit == i32.MIN_VALUE ? -Infinity : <f64>batchLit);
  }
  return valid;
}

/** Adds the prefix sums of the sunlit run of samples [first, end) to the sums at `sums` (sets them for the first run). */
@inline export function addRun(sums: i32, prefix: i32, first: i32, end: i32, firstRun: bool): void {
  const from = <usize>prefix + (<usize>(first * PREFIX_QUANTITIES) << 3);
  const to = <usize>prefix + (<usize>(end * PREFIX_QUANTITIES) << 3);
  const s = <usize>sums;
  if (firstRun) {
    for (let q: usize = 0; q < <usize>PREFIX_QUANTITIES * 8; q += 16) {
      v128.store(s + q, f64x2.sub(v128.load(to + q), v128.load(from + q)));
    }
  } else {
    for (let q: usize = 0; q < <usize>PREFIX_QUANTITIES * 8; q += 16) {
      v128.store(s + q, f64x2.add(v128.load(s + q), f64x2.sub(v128.load(to + q), v128.load(from + q))));
    }
  }
}

/** `addRun` into lane `lane`'s sums, counting its runs. */
function addLaneRun(sums: i32, prefix: i32, lane: i32, first: i32, end: i32): void {
  const countAt = <usize>sums + <usize>(RUN_COUNT + lane * 4);
  const runs = load<i32>(countAt);
  store<i32>(countAt, runs + 1);
  addRun(sums + lane * LANE_SUMS_BYTES, prefix, first, end, runs == 0);
}

/**
 * Lanes whose lit state changes at sample k (bits of `lit` against `inRun`): runs start at k or end before it.
 * Returns the new lit state.
 */
function switchRuns(sums: i32, prefix: i32, inRun: i32, lit: i32, k: i32): i32 {
  let changed = inRun ^ lit;
  while (changed != 0) {
    const lane = ctz(changed);
    changed &= changed - 1;
    const startAt = <usize>sums + <usize>(RUN_START + lane * 4);
    if ((lit >> lane) & 1) store<i32>(startAt, k);
    else addLaneRun(sums, prefix, lane, load<i32>(startAt), k);
  }
  return lit;
}

/**
 * The lanes of `trace` whose near-field ray of the sample (ray cells `from` … `end` − 1 of the day's lists, in
 * quadrant `quadrant`, −1 for none) no cell hides, one lane after the other: a lane's ray ends unhidden where its
 * quadrant cannot rise above what is left of it or where it leaves the grid, hidden at the first cell above it.
 */
function unhiddenOneByOne(
  sums: i32, trace: i32, quadrant: i32, from: i32, end: i32, gridCell: i32, elevation: i32, width: i32, height: i32,
  nearCol: i32, nearRow: i32, nearOffset: i32, nearThreshold: i32, nearMinThreshold: i32,
): i32 {
  let unhidden = 0;
  while (trace != 0) {
    const lane = ctz(trace);
    trace &= trace - 1;
    const state = <usize>sums + <usize>(LANE_STATE + lane * LANE_STATE_BYTES);
    const z0 = load<f64>(state + L_Z0);
    const rayBase = gridCell + lane;
    const interior = load<i32>(state + L_INTERIOR) == 1;
    const rise = quadrant >= 0 ? load<f64>(state + L_RISE + (<usize>quadrant << 3)) : Infinity;
    let hidden = false;
    for (let j = from; j < end; j++) {
      if (rise <= f64at(nearMinThreshold, j)) break;
      if (!interior) {
        const r = load<i32>(state + L_ROW) + i32at(nearRow, j);
        const c = load<i32>(state + L_COL) + i32at(nearCol, j);
        if (r < 0 || r >= height || c < 0 || c >= width) break;
      }
      if (<f64>load<f32>(<usize>elevation + (<usize>(rayBase + i32at(nearOffset, j)) << 2)) - z0 > f64at(nearThreshold, j)) {
        hidden = true;
        break;
      }
    }
    if (!hidden) unhidden |= 1 << lane;
  }
  return unhidden;
}

/**
 * `unhiddenOneByOne` for RAY_LANES lanes from `firstLane` on, all of them cells of the batch, the rays of the
 * lanes of `trace` (bit l: lane firstLane + l) stepped together: the sample's ray has the same cell offsets for
 * every lane, so step j reads the four lanes' cells at once (four consecutive elevations of the window) and
 * compares each, as f64, with the same threshold. Each lane stops where it would stop alone — its quadrant's rise
 * first, then the grid's edge, then a cell above the ray — so every lane's outcome is `unhiddenOneByOne`'s. The
 * four elevations are read while at least one lane still steps; a lane that has left the grid is then at most
 * RAY_LANES − 1 cells beside one that has not, so the read stays within the window and the few cells after it
 * (dailyKernelWasm.ts keeps them). Returns the unhidden lanes of `trace` (bit l: lane firstLane + l).
 */
function unhiddenTogether(
  sums: i32, trace: i32, firstLane: i32, quadrant: i32, from: i32, end: i32, gridCell: i32, elevation: i32, width: i32, height: i32,
  nearCol: i32, nearRow: i32, nearOffset: i32, nearThreshold: i32, nearMinThreshold: i32,
): i32 {
  const state = <usize>sums + <usize>(LANE_STATE + firstLane * LANE_STATE_BYTES);
  const z01 = lanePair(state, 0, L_Z0);
  const z23 = lanePair(state, 2, L_Z0);
  let rise01 = f64x2.splat(Infinity);
  let rise23 = f64x2.splat(Infinity);
  if (quadrant >= 0) {
    const at = L_RISE + (<usize>quadrant << 3);
    rise01 = lanePair(state, 0, at);
    rise23 = lanePair(state, 2, at);
  }
  let interior = 1;
  for (let lane = 0; lane < RAY_LANES; lane++) interior &= load<i32>(state + lane * LANE_STATE_BYTES + L_INTERIOR);
  const row = load<i32>(state + L_ROW);
  const cols = i32x4.add(i32x4.splat(load<i32>(state + L_COL)), i32x4(0, 1, 2, 3));
  const widths = i32x4.splat(width);
  let pending = trace;
  let hidden = 0;
  for (let j = from; j < end; j++) {
    const least = f64x2.splat(f64at(nearMinThreshold, j));
    pending &= ~laneBits(f64x2.le(rise01, least), f64x2.le(rise23, least));
    if (!interior) {
      const r = row + i32at(nearRow, j);
      if (r < 0 || r >= height) break;
      const c = i32x4.add(cols, i32x4.splat(i32at(nearCol, j)));
      pending &= ~i32x4.bitmask(v128.or(i32x4.lt_s(c, i32x4.splat(0)), i32x4.ge_s(c, widths)));
    }
    if (pending == 0) break;
    const cells = v128.load(<usize>elevation + (<usize>(gridCell + firstLane + i32at(nearOffset, j)) << 2));
    const threshold = f64x2.splat(f64at(nearThreshold, j));
    const above01 = f64x2.gt(f64x2.sub(f64x2.promote_low_f32x4(cells), z01), threshold);
    const above23 = f64x2.gt(f64x2.sub(f64x2.promote_low_f32x4(i32x4.shuffle(cells, cells, 2, 3, 2, 3)), z23), threshold);
    const hiddenNow = laneBits(above01, above23) & pending;
    hidden |= hiddenNow;
    pending &= ~hiddenNow;
    if (pending == 0) break;
  }
  return trace & ~hidden;
}

/**
 * The sums over the sunlit samples of one day of the lanes prepared by `prepareLanes` (only the lanes of
 * `valid`, one bit each) into lane l's sums at `sums + l · LANE_SUMS_BYTES`. `cell`, `gridCell`: the first
 * lane's tile-local and window index; `everywhere`: the largest lit-everywhere bound of the valid lanes
 * [horizon units]. Returns the lanes with at least one sunlit sample (only their sums are set).
 */
export function sunlitLanes(desc: usize, day: usize, sums: i32, cell: i32, gridCell: i32, lanes: i32, valid: i32, everywhere: f64): i32 {
  const count = fi(day, Y_COUNT);
  const prefix = fi(day, Y_PREFIX);
  const peak = fi(day, Y_PEAK);
  const sampleGroup = fi(day, Y_SAMPLE_GROUP);
  const altitudeUnits = fi(day, Y_ALTITUDE);
  const sinAltitude = fi(day, Y_SIN_ALTITUDE);
  const sunEast = fi(day, Y_SUN_EAST);
  const sunNorth = fi(day, Y_SUN_NORTH);
  const hd0 = fi(day, Y_HD0);
  const hd1 = fi(day, Y_HD1);
  const hw = fi(day, Y_HW);
  const nearSector = fi(day, Y_NEAR_SECTOR);
  const nearStart = fi(day, Y_NEAR_START);
  const nearOffset = fi(day, Y_NEAR_OFFSET);
  const nearCol = fi(day, Y_NEAR_COL);
  const nearRow = fi(day, Y_NEAR_ROW);
  const nearThreshold = fi(day, Y_NEAR_THRESHOLD);
  const nearQuadrant = fi(day, Y_NEAR_QUADRANT);
  const nearMinThreshold = fi(day, Y_NEAR_MIN_THRESHOLD);
  const groupCount = fi(day, Y_GROUP_COUNT);
  const groupSector = fi(day, Y_GROUP_SECTOR);
  const groupStart = fi(day, Y_GROUP_START);
  const groupEnd = fi(day, Y_GROUP_END);
  const groupMinFloor = fi(day, Y_GROUP_MIN_FLOOR);
  const groupMaxFloor = fi(day, Y_GROUP_MAX_FLOOR);
  const altitudeFloor = fi(day, Y_ALTITUDE_FLOOR);
  const far = fi(desc, D_FAR);
  const nearUpper = fi(desc, D_NEAR_UPPER);
  const nearLower = fi(desc, D_NEAR_LOWER);
  const directions = fi(desc, D_DIRECTIONS);
  const elevation = fi(desc, D_ELEVATION);
  const width = fi(desc, D_GRID_WIDTH);
  const height = fi(desc, D_GRID_HEIGHT);
  for (let lane = 0; lane < LANES; lane++) store<i32>(<usize>sums + <usize>(RUN_COUNT + lane * 4), 0);
  let inRun = 0;
  // the groups strictly between `skipFrom` and `skipTo` have the sun above every lit bound of every lane
  let skipFrom = groupCount;
  let skipTo = groupCount;
  if (count > 0 && f64at(altitudeUnits, peak) >= everywhere) {
    let lo = 0;
    let hi = peak;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (f64at(altitudeUnits, mid) >= everywhere) hi = mid;
      else lo = mid + 1;
    }
    skipFrom = i32at(sampleGroup, lo);
    lo = peak;
    hi = count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (f64at(altitudeUnits, mid) >= everywhere) lo = mid;
      else hi = mid - 1;
    }
    skipTo = i32at(sampleGroup, lo);
  }
  for (let g = 0; g < groupCount; g++) {
    if (g == skipFrom + 1 && g < skipTo) {
      if (inRun != valid) inRun = switchRuns(sums, prefix, inRun, valid, i32at(groupStart, g));
      g = skipTo - 1;
      continue;
    }
    const first = i32at(groupStart, g);
    const last = i32at(groupEnd, g);
    const bounds = <usize>sums + <usize>(GROUP_BOUNDS + i32at(groupSector, g) * GROUP_BOUNDS_BYTES);
    const litBounds = v128.load(bounds);
    const darkBounds = v128.load(bounds, 16);
    // lanes lit or dark for the whole group (the lit bound first, as the scalar kernel tests it)
    const groupLit = i16x8.bitmask(i16x8.ge_s(floorSplat(groupMinFloor, g), litBounds));
    const groupDark = i16x8.bitmask(i16x8.lt_s(floorSplat(groupMaxFloor, g), darkBounds)) & ~groupLit;
    if (((groupLit | groupDark | ~valid) & ALL_LANES) == ALL_LANES) {
      if (inRun != (groupLit & valid)) inRun = switchRuns(sums, prefix, inRun, groupLit & valid, first);
      continue;
    }
    const fixedLit = groupLit & valid;
    const open = valid & ~groupLit & ~groupDark;
    for (let k = first; k < last; k++) {
      const altitude = f64at(altitudeUnits, k);
      const sunAltitude = floorSplat(altitudeFloor, k);
      const above = i16x8.ge_s(sunAltitude, litBounds);
      let lit = fixedLit | (i16x8.bitmask(above) & open);
      // between the bounds: the exact test, lane by lane, up to the near-field rays to trace
      let exact = i16x8.bitmask(v128.andnot(i16x8.ge_s(sunAltitude, darkBounds), above)) & open;
      let trace = 0;
      while (exact != 0) {
        const lane = ctz(exact);
        exact &= exact - 1;
        const state = <usize>sums + <usize>(LANE_STATE + lane * LANE_STATE_BYTES);
        const base = load<i32>(state + L_FAR_BASE);
        const a0 = i16at(far, base + i32at(hd0, k));
        const a1 = i16at(far, base + i32at(hd1, k));
        const near = load<i32>(state + L_NEAR_BASE) + i32at(nearSector, k);
        const inFront =
          i32(load<f64>(state + L_TEST_EAST) * f64at(sunEast, k) + load<f64>(state + L_TEST_NORTH) * f64at(sunNorth, k) + load<f64>(state + L_TEST_UP) * f64at(sinAltitude, k) > 0) &
          i32(altitude >= a0 + f64at(hw, k) * (a1 - a0)) &
          i32(altitude >= i16at(nearLower, near));
        // (without branches: whether the sample passes the tests so far is hard to predict)
        const above = i32(altitude >= i16at(nearUpper, near));
        lit |= (inFront & above) << lane;
        trace |= (inFront & (above ^ 1)) << lane;
      }
      // between the near field's bounds: trace the rays over the cells around the lanes' cells (up to the grid's
      // edge, or until no cell of the ray's quadrant rises above what is left of the ray: nearFieldMaxima.ts)
      if (trace != 0) {
        const quadrant = i32at(nearQuadrant, k);
        const from = i32at(nearStart, k);
        const end = i32at(nearStart, k + 1);
        // four lanes' rays at once where all four are cells of the batch, else one by one
        for (let firstLane = 0; firstLane < LANES; firstLane += RAY_LANES) {
          const some = (trace >> firstLane) & RAY_LANE_BITS;
          if (some == 0) continue;
          lit |= firstLane + RAY_LANES <= lanes
            ? unhiddenTogether(sums, some, firstLane, quadrant, from, end, gridCell, elevation, width, height, nearCol, nearRow, nearOffset, nearThreshold, nearMinThreshold) << firstLane
            : unhiddenOneByOne(sums, some << firstLane, quadrant, from, end, gridCell, elevation, width, height, nearCol, nearRow, nearOffset, nearThreshold, nearMinThreshold);
        }
      }
      if (lit != inRun) inRun = switchRuns(sums, prefix, inRun, lit, k);
    }
  }
  let litLanes = 0;
  for (let lane = 0; lane < LANES; lane++) {
    if ((inRun >> lane) & 1) addLaneRun(sums, prefix, lane, load<i32>(<usize>sums + <usize>(RUN_START + lane * 4)), count);
    if (load<i32>(<usize>sums + <usize>(RUN_COUNT + lane * 4)) > 0) litLanes |= 1 << lane;
  }
  return litLanes;
}
