/**
 * The daily kernel compiled to WebAssembly (AssemblyScript, built by `scripts/build-wasm.mjs` into
 * build/wasm/dailyKernel.wasm): `integrateBlockDays` of src/science/solar/dailyKernel.ts — the same samples,
 * bounds, traces and sums, so its outputs are the same to the bit (test/science/solar/dailyKernelWasm.test.ts).
 * With terrain shadows it takes eight cells of a row at a time (assembly/sunlitLanes.ts: the sample and bound
 * comparisons of the eight in 128-bit SIMD); the sums of a cell and their combination are the scalar kernel's,
 * the run sums two at a time (SIMD, each the same IEEE operation). Every array lives in the module's imported
 * memory; the JavaScript side (src/science/solar/dailyKernelWasm.ts) lays them out and passes one descriptor
 * of i32 fields (pointers are byte offsets, assembly/kernelLayout.ts) per call, with one descriptor of
 * DAY_FIELDS fields per day. A day whose descriptor names an output of the beam part (EEMT's real-sky radiation)
 * gets it too. Units and quantities: see dailyKernel.ts.
 */

import { f64at, fi, i16at, i32at } from './memoryAccess';
import {
  LANES,
  LANE_SUMS_BYTES,
  L_GROUND_VIEW,
  L_INCLINED,
  L_MUNEER_SLOPE,
  L_PRESSURE_RATIO,
  L_SHADED_DIFFUSE,
  L_SKY_VIEW,
  L_TEST_EAST,
  L_TEST_NORTH,
  L_TEST_UP,
  addRun,
  batchLitBound,
  floorAltitudes,
  laneState,
  markBatchSectors,
  prepareLanes,
  storeCellTerms,
  sunlitLanes,
  touchHorizons,
} from './sunlitLanes';
import {
  PREFIX_QUANTITIES,
  TAU_SUN_EAST,
  TAU_SUN_NORTH,
  TAU_SIN_ALTITUDE,
  DIFFUSE_ONE_MINUS_TAU,
  DIFFUSE_N_ONE_MINUS_TAU,
  CIRCUMSOLAR_EAST,
  CIRCUMSOLAR_NORTH,
  CIRCUMSOLAR_UP,
  DIFFUSE_LIT,
  LIT_COUNT,
  DAY_FIELDS,
  D_PART_ROW_START,
  D_PART_ROW_END,
  D_PART_COL_START,
  D_PART_COL_END,
  D_TILE_ROW_START,
  D_TILE_COL_START,
  D_TILE_WIDTH,
  D_WIN_ROW0,
  D_WIN_COL0,
  D_WIN_WIDTH,
  D_GROUPS_PER_CELL,
  D_VALID,
  D_DAY_COUNT,
  D_DAYS,
  D_ALBEDO,
  D_SUMS,
  D_TERRAIN,
  Y_COUNT,
  Y_SIN_ALTITUDE,
  Y_SUN_EAST,
  Y_SUN_NORTH,
  Y_PREFIX,
  Y_GLOBAL_OUT,
  Y_HOURS_OUT,
  Y_SCALARS,
  Y_BEAM_PART_OUT,
} from './kernelLayout';

export { DAY_FIELDS, DESCRIPTOR_FIELDS } from './kernelLayout';
export { LANE_SCRATCH_BYTES, MAX_GROUP_SECTORS, RAY_LANES } from './sunlitLanes';
export { nearQuadrantMaxima } from './nearMaxima';
export { NEAR_RAY_INPUTS, nearFieldRays } from './nearRays';
export { hornGradientRow } from './hornGradient';
export { surfaceTermsOfWindow } from './surfaceTerms';
export { CELL_BOUNDS_FIELDS, cellBounds } from './cellBounds';
export { SUN_SAMPLE_BYTES, sunSamples } from './sunSamples';
export { sunSectorsOfDays } from './sunSectors';


// the bytes `touchHorizons` read, or-ed (a use of its loads)
let touched: i32 = 0;

/**
 * Whether the samples from k on face the sun (bit i: sample k + i, four samples): the scalar kernel's test of each,
 * n · s > 0 on an inclined cell (the same products, summed in the same order, two samples per vector) and sin h > 0
 * on a level one, so the same decisions.
 */
@inline function facingFour(sunEast: i32, sunNorth: i32, sinAltitude: i32, k: i32, inclined: bool, cellEast: f64, cellNorth: f64, cellUp: f64): i32 {
  const at = <usize>k << 3;
  const up01 = v128.load(<usize>sinAltitude + at);
  const up23 = v128.load(<usize>sinAltitude + at, 16);
  const zero = f64x2.splat(0);
  if (!inclined) return i64x2.bitmask(f64x2.gt(up01, zero)) | (i64x2.bitmask(f64x2.gt(up23, zero)) << 2);
  const nE = f64x2.splat(cellEast);
  const nN = f64x2.splat(cellNorth);
  const nU = f64x2.splat(cellUp);
  const east = <usize>sunEast + at;
  const north = <usize>sunNorth + at;
  const dot01 = f64x2.add(f64x2.add(f64x2.mul(nE, v128.load(east)), f64x2.mul(nN, v128.load(north))), f64x2.mul(nU, up01));
  const dot23 = f64x2.add(f64x2.add(f64x2.mul(nE, v128.load(east, 16)), f64x2.mul(nN, v128.load(north, 16))), f64x2.mul(nU, up23));
  return i64x2.bitmask(f64x2.gt(dot01, zero)) | (i64x2.bitmask(f64x2.gt(dot23, zero)) << 2);
}

/** `facingFour` for the `n` (fewer than four) samples from k on, one by one. */
function facingFew(sunEast: i32, sunNorth: i32, sinAltitude: i32, k: i32, n: i32, inclined: bool, cellEast: f64, cellNorth: f64, cellUp: f64): i32 {
  let facing = 0;
  for (let i = 0; i < n; i++) {
    const j = k + i;
    const dot = inclined ? cellEast * f64at(sunEast, j) + cellNorth * f64at(sunNorth, j) + cellUp * f64at(sinAltitude, j) : f64at(sinAltitude, j);
    facing |= i32(dot > 0) << i;
  }
  return facing;
}

/**
 * `unshadedSums` of dailyKernel.ts for the cell whose terms are in the lane state at `state` (`storeCellTerms`): the
 * sums over the samples that face the sun, four samples at a time (`facingFour`, the last few `facingFew`); the runs
 * of facing samples are those the scalar loop finds, their prefix sums added in the same order.
 */
function unshadedSums(day: usize, sums: i32, state: usize): bool {
  const count = fi(day, Y_COUNT);
  const prefix = fi(day, Y_PREFIX);
  const sinAltitude = fi(day, Y_SIN_ALTITUDE);
  const sunEast = fi(day, Y_SUN_EAST);
  const sunNorth = fi(day, Y_SUN_NORTH);
  const inclined = load<i32>(state + L_INCLINED) == 1;
  const nE = load<f64>(state + L_TEST_EAST);
  const nN = load<f64>(state + L_TEST_NORTH);
  const nU = load<f64>(state + L_TEST_UP);
  let runs = 0;
  let runStart = -1;
  for (let k = 0; k < count; k += 4) {
    const n = min(4, count - k);
    const facing = n == 4 ? facingFour(sunEast, sunNorth, sinAltitude, k, inclined, nE, nN, nU) : facingFew(sunEast, sunNorth, sinAltitude, k, n, inclined, nE, nN, nU);
    // (a run neither starts nor ends within these four: the common case)
    if (facing == (runStart >= 0 ? (1 << n) - 1 : 0)) continue;
    for (let i = 0; i < n; i++) {
      if ((facing >> i) & 1) {
        if (runStart < 0) runStart = k + i;
      } else if (runStart >= 0) {
        addRun(sums, prefix, runStart, k + i, runs++ == 0);
        runStart = -1;
      }
    }
  }
  if (runStart >= 0) addRun(sums, prefix, runStart, count, runs++ == 0);
  return runs > 0;
}

@inline function quadratic(sums: i32, quantity: i32, delta: f64, delta2: f64): f64 {
  return f64at(sums, quantity * 3) + delta * f64at(sums, quantity * 3 + 1) + delta2 * f64at(sums, quantity * 3 + 2);
}

/**
 * Daily global irradiation [Wh m⁻² day⁻¹] of the cell whose terms are in the lane state at `state` (`storeCellTerms`:
 * its normal, inclination, p/p₀ and view factors), from its sums over sunlit samples (`lit` false: none, and the
 * sums are zeroed) and the day's scalars; `combineSums` of dailyKernel.ts, the same operations on the same values.
 */
function combineSums(state: usize, sums: i32, lit: bool, albedo: f64, stepHours: f64, g0: f64, sumDiffuse: f64, pzCentre: f64): f64 {
  if (!lit) memory.fill(<usize>sums, 0, <usize>PREFIX_QUANTITIES << 3);
  const delta = load<f64>(state + L_PRESSURE_RATIO) - pzCentre;
  const delta2 = delta * delta;
  const tauSinAltitude = quadratic(sums, TAU_SIN_ALTITUDE, delta, delta2);
  if (load<i32>(state + L_INCLINED) == 0) return (g0 * tauSinAltitude + sumDiffuse) * stepHours;
  const nE = load<f64>(state + L_TEST_EAST);
  const nN = load<f64>(state + L_TEST_NORTH);
  const nU = load<f64>(state + L_TEST_UP);
  const beam = g0 * (nE * quadratic(sums, TAU_SUN_EAST, delta, delta2) + nN * quadratic(sums, TAU_SUN_NORTH, delta, delta2) + nU * tauSinAltitude);
  const diffuse =
    load<f64>(state + L_SHADED_DIFFUSE) * (sumDiffuse - f64at(sums, DIFFUSE_LIT)) +
    load<f64>(state + L_SKY_VIEW) * quadratic(sums, DIFFUSE_ONE_MINUS_TAU, delta, delta2) +
    load<f64>(state + L_MUNEER_SLOPE) * quadratic(sums, DIFFUSE_N_ONE_MINUS_TAU, delta, delta2) +
    nE * quadratic(sums, CIRCUMSOLAR_EAST, delta, delta2) +
    nN * quadratic(sums, CIRCUMSOLAR_NORTH, delta, delta2) +
    nU * quadratic(sums, CIRCUMSOLAR_UP, delta, delta2);
  const reflected = albedo * load<f64>(state + L_GROUND_VIEW) * (g0 * tauSinAltitude + sumDiffuse);
  return (beam + diffuse + reflected) * stepHours;
}

/**
 * The beam part of the cell's daily global irradiation (the beam on the surface and the ground reflection of the
 * horizontal beam) from its sums, after `combineSums` (which zeroes them on a day without sun); the cell's terms as
 * there.
 */
function beamPartOfSums(state: usize, sums: i32, albedo: f64, stepHours: f64, g0: f64, pzCentre: f64): f64 {
  const delta = load<f64>(state + L_PRESSURE_RATIO) - pzCentre;
  const delta2 = delta * delta;
  const tauSinAltitude = quadratic(sums, TAU_SIN_ALTITUDE, delta, delta2);
  if (load<i32>(state + L_INCLINED) == 0) return g0 * tauSinAltitude * stepHours;
  const beam = g0 * (load<f64>(state + L_TEST_EAST) * quadratic(sums, TAU_SUN_EAST, delta, delta2) + load<f64>(state + L_TEST_NORTH) * quadratic(sums, TAU_SUN_NORTH, delta, delta2) + load<f64>(state + L_TEST_UP) * tauSinAltitude);
  const reflectedBeam = albedo * load<f64>(state + L_GROUND_VIEW) * (g0 * tauSinAltitude);
  return (beam + reflectedBeam) * stepHours;
}

/**
 * The outputs of tile-local `cell`, whose terms are in the lane state at `state`, for `day`, from its sums over
 * sunlit samples (`lit` false: none).
 */
function storeDay(day: usize, state: usize, sums: i32, cell: i32, lit: bool, albedo: f64): void {
  const scalars = fi(day, Y_SCALARS);
  const stepHours = f64at(scalars, 0);
  const g0 = f64at(scalars, 1);
  const pzCentre = f64at(scalars, 3);
  const at = <usize>cell << 2;
  store<f32>(<usize>fi(day, Y_GLOBAL_OUT) + at, <f32>combineSums(state, sums, lit, albedo, stepHours, g0, f64at(scalars, 2), pzCentre));
  store<f32>(<usize>fi(day, Y_HOURS_OUT) + at, <f32>((lit ? f64at(sums, LIT_COUNT) : 0.0) * stepHours));
  const beamPartOut = fi(day, Y_BEAM_PART_OUT);
  if (beamPartOut != 0) store<f32>(<usize>beamPartOut + at, <f32>beamPartOfSums(state, sums, albedo, stepHours, g0, pzCentre));
}

/** Nodata outputs of tile-local `cell` for every day. */
function storeNodata(days: usize, dayCount: i32, cell: i32): void {
  for (let d = 0; d < dayCount; d++) {
    const day = days + (<usize>(d * DAY_FIELDS) << 2);
    store<f32>(<usize>fi(day, Y_GLOBAL_OUT) + (<usize>cell << 2), NaN);
    store<f32>(<usize>fi(day, Y_HOURS_OUT) + (<usize>cell << 2), NaN);
    const beamPartOut = fi(day, Y_BEAM_PART_OUT);
    if (beamPartOut != 0) store<f32>(<usize>beamPartOut + (<usize>cell << 2), NaN);
  }
}

/**
 * The `lanes` (1 to LANES) cells from (row, col) on (tile-local `cell` …, window index `gridCell` …), with
 * terrain shadows (assembly/sunlitLanes.ts).
 */
function integrateLanes(desc: usize, row: i32, col: i32, cell: i32, gridCell: i32, lanes: i32, nextCell: i32, albedo: f64): void {
  if (nextCell >= 0) touched |= touchHorizons(desc, nextCell);
  const dayCount = fi(desc, D_DAY_COUNT);
  const days = <usize>fi(desc, D_DAYS);
  const sums = fi(desc, D_SUMS);
  const valid = prepareLanes(desc, sums, row, col, cell, gridCell, lanes);
  // the samples at or above every valid lane's lit bound over the batch's sectors are lit (sunlitLanes)
  let everywhere = -Infinity;
  for (let lane = 0; lane < lanes; lane++) {
    if ((valid >> lane) & 1) everywhere = max(everywhere, batchLitBound(sums, lane));
    else storeNodata(days, dayCount, cell + lane);
  }
  if (valid == 0) return;
  for (let d = 0; d < dayCount; d++) {
    const day = days + (<usize>(d * DAY_FIELDS) << 2);
    const lit = sunlitLanes(desc, day, sums, cell, gridCell, lanes, valid, everywhere);
    for (let lane = 0; lane < lanes; lane++) {
      if ((valid >> lane) & 1) storeDay(day, laneState(sums, lane), sums + lane * LANE_SUMS_BYTES, cell + lane, ((lit >> lane) & 1) == 1, albedo);
    }
  }
}

/**
 * Daily global irradiation and sunshine hours of the cells of the part (descriptor fields D_*) for each of
 * the D_DAY_COUNT days: with terrain shadows eight cells of a row at a time, without one cell at a time
 * (four of its samples at a time: `unshadedSums`).
 */
export function integrateBlockDays(desc: usize): void {
  const dayCount = fi(desc, D_DAY_COUNT);
  const days = <usize>fi(desc, D_DAYS);
  const terrain = fi(desc, D_TERRAIN) == 1;
  const tileWidth = fi(desc, D_TILE_WIDTH);
  const tileRowStart = fi(desc, D_TILE_ROW_START);
  const tileColStart = fi(desc, D_TILE_COL_START);
  const winRow0 = fi(desc, D_WIN_ROW0);
  const winCol0 = fi(desc, D_WIN_COL0);
  const winWidth = fi(desc, D_WIN_WIDTH);
  const valid = fi(desc, D_VALID);
  const sums = fi(desc, D_SUMS);
  const albedo = load<f64>(<usize>fi(desc, D_ALBEDO));
  const rowEnd = fi(desc, D_PART_ROW_END);
  const colStart = fi(desc, D_PART_COL_START);
  const colEnd = fi(desc, D_PART_COL_END);
  if (terrain) {
    markBatchSectors(sums, days, dayCount, fi(desc, D_GROUPS_PER_CELL), DAY_FIELDS);
    floorAltitudes(days, dayCount, DAY_FIELDS);
  }
  for (let row = fi(desc, D_PART_ROW_START); row < rowEnd; row++) {
    const tileRow = (row - tileRowStart) * tileWidth - tileColStart;
    if (terrain) {
      for (let col = colStart; col < colEnd; col += LANES) {
        // the lanes after these: on along the row, else the start of the next row, else none
        const nextCell = col + LANES < colEnd ? tileRow + col + LANES : row + 1 < rowEnd ? tileRow + tileWidth + colStart : -1;
        integrateLanes(desc, row, col, tileRow + col, (row - winRow0) * winWidth + (col - winCol0), min(LANES, colEnd - col), nextCell, albedo);
      }
      continue;
    }
    for (let col = colStart; col < colEnd; col++) {
      const cell = tileRow + col;
      if (load<u8>(<usize>valid + <usize>cell) == 0) {
        storeNodata(days, dayCount, cell);
        continue;
      }
      // (the scratch's first lane state holds the cell's terms: the lanes are not used without terrain)
      const state = laneState(sums, 0);
      storeCellTerms(desc, state, cell);
      for (let d = 0; d < dayCount; d++) {
        const day = days + (<usize>(d * DAY_FIELDS) << 2);
        storeDay(day, state, sums, cell, unshadedSums(day, sums, state), albedo);
      }
    }
  }
}
