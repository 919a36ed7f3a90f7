/**
 * The daily kernel compiled to WebAssembly (AssemblyScript, built by `scripts/build-wasm.mjs` into
 * build/wasm/dailyKernel.wasm): `integrateBlockDays` of src/science/solar/dailyKernel.ts statement for
 * statement — the same samples, bounds, traces and sums in the same order, so its outputs are the same to the
 * bit (test/science/solar/dailyKernelWasm.test.ts). Only the run sums use 128-bit SIMD (two sums per
 * instruction, each the same IEEE operation). Every array lives in the module's imported memory; the
 * JavaScript side (src/science/solar/dailyKernelWasm.ts) lays them out and passes one descriptor of i32
 * fields (pointers are byte offsets) per call, with one descriptor of DAY_FIELDS fields per day.
 * Units and quantities: see dailyKernel.ts.
 */

import { f64at, fi, i32at } from './memoryAccess';

const PREFIX_QUANTITIES: i32 = 26;
const TAU_SUN_EAST: i32 = 0;
const TAU_SUN_NORTH: i32 = 1;
const TAU_SIN_ALTITUDE: i32 = 2;
const DIFFUSE_ONE_MINUS_TAU: i32 = 3;
const DIFFUSE_N_ONE_MINUS_TAU: i32 = 4;
const CIRCUMSOLAR_EAST: i32 = 5;
const CIRCUMSOLAR_NORTH: i32 = 6;
const CIRCUMSOLAR_UP: i32 = 7;
const DIFFUSE_LIT: i32 = 24;
const LIT_COUNT: i32 = 25;

// descriptor fields
const D_PART_ROW_START = 0;
const D_PART_ROW_END = 1;
const D_PART_COL_START = 2;
const D_PART_COL_END = 3;
const D_TILE_ROW_START = 4;
const D_TILE_COL_START = 5;
const D_TILE_WIDTH = 6;
const D_GRID_WIDTH = 7;
const D_GRID_HEIGHT = 8;
const D_MARGIN_ROWS = 9;
const D_WIN_ROW0 = 10;
const D_WIN_COL0 = 11;
const D_WIN_WIDTH = 12;
const D_ELEVATION = 13; // f32 window of the grid: rows from D_WIN_ROW0, columns from D_WIN_COL0, D_WIN_WIDTH wide
const D_DIRECTIONS = 14;
const D_NEAR_SECTORS = 15;
const D_GROUPS_PER_CELL = 16;
const D_FAR = 17;
const D_NEAR_UPPER = 18;
const D_NEAR_LOWER = 19;
const D_LIT_BOUND = 20;
const D_DARK_BOUND = 21;
const D_LIT_EVERYWHERE = 22;
const D_VALID = 23;
const D_INCLINED = 24;
const D_NORMAL_EAST = 25;
const D_NORMAL_NORTH = 26;
const D_NORMAL_UP = 27;
const D_PRESSURE_RATIO = 28;
const D_SHADED_DIFFUSE = 29;
const D_SKY_VIEW = 30;
const D_MUNEER_SLOPE = 31;
const D_GROUND_VIEW = 32;
const D_DAY_COUNT = 33;
const D_DAYS = 34;
const D_ALBEDO = 35; // pointer to an f64: the ground albedo
const D_SUMS = 36; // scratch of PREFIX_QUANTITIES f64, 16-byte aligned
const D_TERRAIN = 37; // 1: terrain shadows
const D_MARGIN_COLS = 38;
export const DESCRIPTOR_FIELDS: i32 = 39;

// day descriptor fields
const Y_COUNT = 0;
const Y_PEAK = 1;
const Y_GROUP_COUNT = 2;
const Y_ALTITUDE = 3;
const Y_SIN_ALTITUDE = 4;
const Y_SUN_EAST = 5;
const Y_SUN_NORTH = 6;
const Y_NEAR_SECTOR = 7;
const Y_HD0 = 8;
const Y_HD1 = 9;
const Y_HW = 10;
const Y_NEAR_START = 11;
const Y_NEAR_OFFSET = 12;
const Y_NEAR_COL = 13;
const Y_NEAR_ROW = 14;
const Y_NEAR_THRESHOLD = 15;
const Y_PREFIX = 16;
const Y_SAMPLE_GROUP = 17;
const Y_GROUP_SECTOR = 18;
const Y_GROUP_START = 19;
const Y_GROUP_END = 20;
const Y_GROUP_MIN = 21;
const Y_GROUP_MAX = 22;
const Y_GLOBAL_OUT = 23;
const Y_HOURS_OUT = 24;
const Y_SCALARS = 25; // f64: stepHours, g0, sumDiffuse, pzCentre
export const DAY_FIELDS: i32 = 26;

@inline function i16at(ptr: i32, i: i32): f64 {
  return <f64>load<i16>(<usize>ptr + (<usize>i << 1));
}

@inline function addRun(sums: i32, prefix: i32, first: i32, end: i32, firstRun: bool): void {
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

// the cell being integrated (CellState of dailyKernel.ts); one instance runs one call at a time
let cRow: i32 = 0;
let cCol: i32 = 0;
let cCell: i32 = 0;
let cInclined: bool = false;
let cNE: f64 = 0;
let cNN: f64 = 0;
let cNU: f64 = 1;
let cInterior: bool = false;
let cGridCell: i32 = 0;
let cZ0: f64 = 0;

function sunlitSums(desc: usize, day: usize, sums: i32): bool {
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
  const groupCount = fi(day, Y_GROUP_COUNT);
  const groupSector = fi(day, Y_GROUP_SECTOR);
  const groupStart = fi(day, Y_GROUP_START);
  const groupEnd = fi(day, Y_GROUP_END);
  const groupMin = fi(day, Y_GROUP_MIN);
  const groupMax = fi(day, Y_GROUP_MAX);
  const far = fi(desc, D_FAR);
  const nearUpper = fi(desc, D_NEAR_UPPER);
  const nearLower = fi(desc, D_NEAR_LOWER);
  const litBound = fi(desc, D_LIT_BOUND);
  const darkBound = fi(desc, D_DARK_BOUND);
  const litEverywhere = fi(desc, D_LIT_EVERYWHERE);
  const directions = fi(desc, D_DIRECTIONS);
  const nearSectors = fi(desc, D_NEAR_SECTORS);
  const groupsPerCell = fi(desc, D_GROUPS_PER_CELL);
  const width = fi(desc, D_GRID_WIDTH);
  const height = fi(desc, D_GRID_HEIGHT);
  const elevation = fi(desc, D_ELEVATION);
  const row = cRow;
  const col = cCol;
  const cell = cCell;
  const interior = cInterior;
  const gridCell = cGridCell;
  const z0 = cZ0;
  const testEast = cInclined ? cNE : 0.0;
  const testNorth = cInclined ? cNN : 0.0;
  const testUp = cInclined ? cNU : 1.0;
  const base = cell * directions;
  const nearBase = cell * nearSectors;
  let runs = 0;
  let runStart = -1;
  let skipFrom = groupCount;
  let skipTo = groupCount;
  const everywhere = i16at(litEverywhere, cell);
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
      if (runStart < 0) runStart = i32at(groupStart, g);
      g = skipTo - 1;
      continue;
    }
    const first = i32at(groupStart, g);
    const last = i32at(groupEnd, g);
    const groupBase = cell * groupsPerCell + i32at(groupSector, g);
    const groupLit = i16at(litBound, groupBase);
    if (f64at(groupMin, g) >= groupLit) {
      if (runStart < 0) runStart = first;
      continue;
    }
    const groupDark = i16at(darkBound, groupBase);
    if (f64at(groupMax, g) < groupDark) {
      if (runStart >= 0) {
        addRun(sums, prefix, runStart, first, runs++ == 0);
        runStart = -1;
      }
      continue;
    }
    for (let k = first; k < last; k++) {
      const altitude = f64at(altitudeUnits, k);
      let lit = altitude >= groupLit;
      if (!lit && altitude >= groupDark) {
        const a0 = i16at(far, base + i32at(hd0, k));
        const a1 = i16at(far, base + i32at(hd1, k));
        const near = nearBase + i32at(nearSector, k);
        const open =
          i32(testEast * f64at(sunEast, k) + testNorth * f64at(sunNorth, k) + testUp * f64at(sinAltitude, k) > 0) &
          i32(altitude >= a0 + f64at(hw, k) * (a1 - a0)) &
          i32(altitude >= i16at(nearLower, near));
        lit = (open & i32(altitude >= i16at(nearUpper, near))) == 1;
        if (open == 1 && !lit) {
          lit = true;
          const end = i32at(nearStart, k + 1);
          for (let j = i32at(nearStart, k); j < end; j++) {
            if (!interior) {
              const r = row + i32at(nearRow, j);
              const c = col + i32at(nearCol, j);
              if (r < 0 || r >= height || c < 0 || c >= width) break;
            }
            if (<f64>load<f32>(<usize>elevation + (<usize>(gridCell + i32at(nearOffset, j)) << 2)) - z0 > f64at(nearThreshold, j)) {
              lit = false;
              break;
            }
          }
        }
      }
      if (lit != runStart >= 0) {
        if (lit) runStart = k;
        else {
          addRun(sums, prefix, runStart, k, runs++ == 0);
          runStart = -1;
        }
      }
    }
  }
  if (runStart >= 0) addRun(sums, prefix, runStart, count, runs++ == 0);
  return runs > 0;
}

function unshadedSums(day: usize, sums: i32): bool {
  const count = fi(day, Y_COUNT);
  const prefix = fi(day, Y_PREFIX);
  const sinAltitude = fi(day, Y_SIN_ALTITUDE);
  const sunEast = fi(day, Y_SUN_EAST);
  const sunNorth = fi(day, Y_SUN_NORTH);
  let runs = 0;
  let runStart = -1;
  for (let k = 0; k < count; k++) {
    const lit = (cInclined ? cNE * f64at(sunEast, k) + cNN * f64at(sunNorth, k) + cNU * f64at(sinAltitude, k) : f64at(sinAltitude, k)) > 0;
    if (lit) {
      if (runStart < 0) runStart = k;
    } else if (runStart >= 0) {
      addRun(sums, prefix, runStart, k, runs++ == 0);
      runStart = -1;
    }
  }
  if (runStart >= 0) addRun(sums, prefix, runStart, count, runs++ == 0);
  return runs > 0;
}

@inline function quadratic(sums: i32, quantity: i32, delta: f64, delta2: f64): f64 {
  return f64at(sums, quantity * 3) + delta * f64at(sums, quantity * 3 + 1) + delta2 * f64at(sums, quantity * 3 + 2);
}

function combineSums(desc: usize, day: usize, sums: i32, lit: bool, albedo: f64): f64 {
  if (!lit) memory.fill(<usize>sums, 0, <usize>PREFIX_QUANTITIES << 3);
  const scalars = fi(day, Y_SCALARS);
  const stepHours = f64at(scalars, 0);
  const g0 = f64at(scalars, 1);
  const sumDiffuse = f64at(scalars, 2);
  const pzCentre = f64at(scalars, 3);
  const cell = cCell;
  const delta = f64at(fi(desc, D_PRESSURE_RATIO), cell) - pzCentre;
  const delta2 = delta * delta;
  const tauSinAltitude = quadratic(sums, TAU_SIN_ALTITUDE, delta, delta2);
  if (!cInclined) return (g0 * tauSinAltitude + sumDiffuse) * stepHours;
  const nE = cNE;
  const nN = cNN;
  const nU = cNU;
  const beam = g0 * (nE * quadratic(sums, TAU_SUN_EAST, delta, delta2) + nN * quadratic(sums, TAU_SUN_NORTH, delta, delta2) + nU * tauSinAltitude);
  const diffuse =
    f64at(fi(desc, D_SHADED_DIFFUSE), cell) * (sumDiffuse - f64at(sums, DIFFUSE_LIT)) +
    f64at(fi(desc, D_SKY_VIEW), cell) * quadratic(sums, DIFFUSE_ONE_MINUS_TAU, delta, delta2) +
    f64at(fi(desc, D_MUNEER_SLOPE), cell) * quadratic(sums, DIFFUSE_N_ONE_MINUS_TAU, delta, delta2) +
    nE * quadratic(sums, CIRCUMSOLAR_EAST, delta, delta2) +
    nN * quadratic(sums, CIRCUMSOLAR_NORTH, delta, delta2) +
    nU * quadratic(sums, CIRCUMSOLAR_UP, delta, delta2);
  const reflected = albedo * f64at(fi(desc, D_GROUND_VIEW), cell) * (g0 * tauSinAltitude + sumDiffuse);
  return (beam + diffuse + reflected) * stepHours;
}

export function integrateBlockDays(desc: usize): void {
  const dayCount = fi(desc, D_DAY_COUNT);
  const days = <usize>fi(desc, D_DAYS);
  const terrain = fi(desc, D_TERRAIN) == 1;
  const width = fi(desc, D_GRID_WIDTH);
  const height = fi(desc, D_GRID_HEIGHT);
  const marginRows = fi(desc, D_MARGIN_ROWS);
  const marginCols = fi(desc, D_MARGIN_COLS);
  const tileWidth = fi(desc, D_TILE_WIDTH);
  const tileRowStart = fi(desc, D_TILE_ROW_START);
  const tileColStart = fi(desc, D_TILE_COL_START);
  const winRow0 = fi(desc, D_WIN_ROW0);
  const winCol0 = fi(desc, D_WIN_COL0);
  const winWidth = fi(desc, D_WIN_WIDTH);
  const elevation = fi(desc, D_ELEVATION);
  const valid = fi(desc, D_VALID);
  const inclined = fi(desc, D_INCLINED);
  const normalEast = fi(desc, D_NORMAL_EAST);
  const normalNorth = fi(desc, D_NORMAL_NORTH);
  const normalUp = fi(desc, D_NORMAL_UP);
  const sums = fi(desc, D_SUMS);
  const albedo = load<f64>(<usize>fi(desc, D_ALBEDO));
  const rowEnd = fi(desc, D_PART_ROW_END);
  const colStart = fi(desc, D_PART_COL_START);
  const colEnd = fi(desc, D_PART_COL_END);
  for (let row = fi(desc, D_PART_ROW_START); row < rowEnd; row++) {
    const rowInterior = row >= marginRows && row < height - marginRows;
    for (let col = colStart; col < colEnd; col++) {
      const cell = (row - tileRowStart) * tileWidth + (col - tileColStart);
      if (load<u8>(<usize>valid + <usize>cell) == 0) {
        for (let d = 0; d < dayCount; d++) {
          const day = days + (<usize>(d * DAY_FIELDS) << 2);
          store<f32>(<usize>fi(day, Y_GLOBAL_OUT) + (<usize>cell << 2), NaN);
          store<f32>(<usize>fi(day, Y_HOURS_OUT) + (<usize>cell << 2), NaN);
        }
        continue;
      }
      cRow = row;
      cCol = col;
      cCell = cell;
      cInclined = load<u8>(<usize>inclined + <usize>cell) == 1;
      cNE = f64at(normalEast, cell);
      cNN = f64at(normalNorth, cell);
      cNU = f64at(normalUp, cell);
      cInterior = rowInterior && col >= marginCols && col < width - marginCols;
      cGridCell = (row - winRow0) * winWidth + (col - winCol0);
      cZ0 = terrain ? <f64>load<f32>(<usize>elevation + (<usize>cGridCell << 2)) : 0.0;
      for (let d = 0; d < dayCount; d++) {
        const day = days + (<usize>(d * DAY_FIELDS) << 2);
        const lit = terrain ? sunlitSums(desc, day, sums) : unshadedSums(day, sums);
        const dailyWh = combineSums(desc, day, sums, lit, albedo);
        store<f32>(<usize>fi(day, Y_GLOBAL_OUT) + (<usize>cell << 2), <f32>dailyWh);
        const stepHours = f64at(fi(day, Y_SCALARS), 0);
        store<f32>(<usize>fi(day, Y_HOURS_OUT) + (<usize>cell << 2), <f32>((lit ? f64at(sums, LIT_COUNT) : 0.0) * stepHours));
      }
    }
  }
}
