/**
 * Far-field horizons of a block of cells by profile sweeps with an upper convex hull (Dozier, Bruno &
 * Downey 1981; Dozier & Frew 1990; Dozier 2022): for one direction, the grid is cut into digital lines
 * parallel to it; each line is swept from the grid's edge on the side the rays look toward, keeping the
 * upper convex hull of the terrain already passed. The horizon of a cell is the steepest view back to that
 * hull, its tangent point, so each line costs one push per cell and a binary search per queried cell —
 * constant work per cell and direction, however long the rays, where tracing each cell's ray costs more
 * the longer it is.
 *
 * The model is r.sun's ray (horizon.ts) with two approximations, both well inside the direction
 * interpolation the far field already carries:
 *  - a cell's ray samples its own digital line: the cells of line λ are (a, λ + round(κ·a)) along the major
 *    axis a (the one the direction advances faster in) with κ the minor cells per major cell, so a sample
 *    lies at most one cell sideways of the cell's own ray — an azimuth error below 1/m rad at m cells;
 *  - distances are measured along the line (the projection of the cells' offset), and rows are swept with
 *    the cell size of their band of rows (FAR_CELL_SIZE_TOLERANCE; geographic grids: within 0.2 % of their
 *    own).
 * Earth curvature is exact to the series term the oracle uses: with z′ = z − u²/(2R) (u along the line),
 * (z_j − z_i − d²/(2R))/d = (z′_j − z′_i)/d − u_i/R, d = u_i − u_j, so the steepest view in (u, z′) is the
 * steepest view over the curved earth and the hull of (u, z′) answers it.
 *
 * The far field starts at the major offset of ray step n + 1 (the near field, steps 1 … n, is traced
 * exactly elsewhere): a point is pushed on the hull only when the sweep is that many cells past it.
 *
 * Distant terrain is simplified (as HORAYZON does, Steger et al. 2022): more than C = 256 cells before the
 * block, the line is pushed in spans of 2^ℓ cells, 2^ℓ ≤ 2·m/C at m cells from the block, each as one point
 * at the span's middle with the highest elevation of the 2^ℓ × 2^ℓ block of the maximum pyramid holding that
 * middle cell. A point thus stands for terrain at most 2^ℓ cells aside or along, under 2/C = 1/128 rad
 * (0.45°) seen from the block — a third of the azimuth step of the finest layout (N = 256: 1.41°), whose
 * interpolation error the far field already carries — and a line costs C + (C/2)·log₂(D/C) pushes for D cells
 * of approach instead of D (docs/solar-model.md gives the measured effect on the daily sums).
 */
import { EARTH_RADIUS_M, MAX_HORIZON_UNITS, horizonUnits } from './horizon.js';
import { cellSizeBands, pyramidWidth, type CellBlock, type TerrainModel } from './terrainModel.js';

/** The hull of one line, and the minor offset of each position of a direction's sweep (reused across lines and blocks). */
export interface SweepScratch {
  u: Float64Array;
  z: Float64Array;
  shift: Int32Array;
  /** Direction-major horizons of up to DIRECTIONS_PER_PASS directions of a block, before they go cell-major. */
  planes: Int16Array;
}

export function sweepScratch(): SweepScratch {
  return { u: new Float64Array(1024), z: new Float64Array(1024), shift: new Int32Array(1024), planes: new Int16Array(0) };
}

/**
 * Directions swept into planes (direction-major, 64 bytes per cell of the block) before they are written
 * cell-major: writing each direction's values straight into the cell-major array touched a cache line per cell
 * and direction; the planes cut the far sweep's time by about 8 % (1 m and 2.5 m DEMs, day 172).
 */
export const DIRECTIONS_PER_PASS = 32;

/** Cells before the block from which the swept lines are simplified (see the module comment). */
export const SIMPLIFIED_FROM_CELLS = 256;
/**
 * Rows whose cell sizes are within this of each other (relative) are swept with one cell size, their band's
 * first row's (`cellSizeBands`): distances off by at most 0.2 %, so tangents of the far horizon by as much.
 */
export const FAR_CELL_SIZE_TOLERANCE = 2e-3;

/** Options of `sweptFarHorizons`. */
export interface SweepOptions {
  /** Only the directions k with needed[k] = 1 are swept; the others are left open. */
  readonly needed?: Uint8Array | null;
  /** Distance [cells] before the block from which lines are simplified; Infinity: never. */
  readonly simplifiedFromCells?: number;
  /** The sweep compiled to WebAssembly (sweptHorizonWasm.ts: the same horizons), or null: swept here. */
  readonly compiled?: CompiledFarSweep | null;
  /** With `compiled`, each cell's least horizon per group of directions is written here too (`GroupDark`). */
  readonly groupDark?: GroupDark | null;
}

/** What sweeps rows of one cell size in place of `sweepRows` (sweptHorizonWasm.ts). */
export interface CompiledFarSweep {
  /** With `groupDark`, also each cell's least horizon per group of `perGroup` directions (see `SweepOptions.groupDark`). */
  sweepRows(rows: SweptRows, needed: Uint8Array | null, groupDark?: GroupDark | null): void;
}

/**
 * Each cell's least far-field horizon over the swept directions of each group of `perGroup` directions (group g:
 * directions g·r … (g + 1)·r, the last one N ≡ 0; +MAX_HORIZON_UNITS where none is swept), cell-major like the
 * horizons: N / r values per cell.
 */
export interface GroupDark {
  readonly perGroup: number;
  readonly out: Int16Array;
}

/**
 * Writes the far-field horizon [HORIZON_ANGLE_UNIT_RAD] of every cell of `block` in `directions` directions
 * (direction k looks toward grid azimuth k·2π/N) to `far`, cell-major and tile-local: cell (row, col) at
 * ((row − rowStart)·blockWidth + col − colStart)·N + k. Open horizons, and nodata cells, are
 * −MAX_HORIZON_UNITS.
 */
export function sweptFarHorizons(
  model: TerrainModel,
  block: CellBlock,
  directions: number,
  nearSteps: number,
  far: Int16Array,
  scratch: SweepScratch,
  options: SweepOptions = {},
): void {
  // rows of one band of cell sizes at a time, each with its band's cell size (a tile's rows in one band on a
  // projected grid; on a geographic grid a tile may span two), so a cell's values do not depend on its tile
  const { bandOfRow, firstRow } = cellSizeBands(model, FAR_CELL_SIZE_TOLERANCE);
  const blockWidth = block.colEnd - block.colStart;
  const needed = options.needed ?? null;
  const simplifiedFrom = Math.max(options.simplifiedFromCells ?? SIMPLIFIED_FROM_CELLS, 2 * (nearSteps + 2));
  const pyramidWidths = Int32Array.from(model.pyramid, (_, i) => pyramidWidth(model.width, i + 1));
  const compiled = options.compiled ?? null;
  const groupDark = options.groupDark ?? null;
  const groups = groupDark ? directions / groupDark.perGroup : 0;
  for (let rowStart = block.rowStart; rowStart < block.rowEnd; ) {
    const band = bandOfRow[rowStart]!;
    let rowEnd = rowStart + 1;
    while (rowEnd < block.rowEnd && bandOfRow[rowEnd] === band) rowEnd++;
    const first = firstRow[band]!;
    const rows: SweptRows = {
      model,
      block: { rowStart, rowEnd, colStart: block.colStart, colEnd: block.colEnd },
      directions,
      nearSteps,
      dx: model.cellSizeX[first]!,
      dy: model.cellSizeY[first]!,
      simplifiedFrom,
      pyramidWidths,
      far: far.subarray((rowStart - block.rowStart) * blockWidth * directions, (rowEnd - block.rowStart) * blockWidth * directions),
      scratch,
    };
    const local = (row: number) => (row - block.rowStart) * blockWidth * groups;
    if (compiled) compiled.sweepRows(rows, needed, groupDark && { perGroup: groupDark.perGroup, out: groupDark.out.subarray(local(rowStart), local(rowEnd)) });
    else sweepRows(rows, needed);
    rowStart = rowEnd;
  }
}

/** Rows of a block that all take one cell size, with what every direction's sweep of them needs. */
export interface SweptRows {
  readonly model: TerrainModel;
  readonly block: CellBlock;
  readonly directions: number;
  /** Near-field steps n: the far field starts at step n + 1. */
  readonly nearSteps: number;
  /** Cell size of the rows [m]. */
  readonly dx: number;
  readonly dy: number;
  /** Distance [cells] before the block from which lines are simplified. */
  readonly simplifiedFrom: number;
  /** Blocks per row of each pyramid level (index ℓ − 1). */
  readonly pyramidWidths: Int32Array;
  /** The rows' far-field horizons, cell-major and local to `block` (see `sweptFarHorizons`). */
  readonly far: Int16Array;
  readonly scratch: SweepScratch;
}

/** `sweptFarHorizons` for rows that all take one cell size: every needed direction swept, the others open. */
function sweepRows(rows: SweptRows, needed: Uint8Array | null): void {
  const { block, directions, far } = rows;
  const cells = (block.rowEnd - block.rowStart) * (block.colEnd - block.colStart);
  // the directions not swept are opened cell by cell (a cell's N values are adjacent; opening them direction by
  // direction touched every cell's cache line once per direction)
  const open: number[] = [];
  const swept: number[] = [];
  for (let k = 0; k < directions; k++) (needed && needed[k] === 0 ? open : swept).push(k);
  if (open.length > 0) {
    for (let i = 0; i < cells; i++) {
      const base = i * directions;
      for (const k of open) far[base + k] = -MAX_HORIZON_UNITS;
    }
  }
  // the needed directions in passes of up to DIRECTIONS_PER_PASS: each swept into a plane of its own (a line's
  // cells are near each other there), then the pass written to the cells' values at once
  const { scratch } = rows;
  const perPass = Math.min(DIRECTIONS_PER_PASS, swept.length);
  if (scratch.planes.length < perPass * cells) scratch.planes = new Int16Array(perPass * cells);
  const planes = scratch.planes;
  for (let from = 0; from < swept.length; from += perPass) {
    const pass = swept.slice(from, from + perPass);
    pass.forEach((k, j) => sweepDirection(rows, k, j * cells));
    for (let i = 0; i < cells; i++) {
      const base = i * directions;
      for (let j = 0; j < pass.length; j++) far[base + pass[j]!] = planes[j * cells + i]!;
    }
  }
}

/**
 * Converts the grid to the sweep's frame for direction k and sweeps every line that crosses the block, into the
 * plane at `planeOffset` of `scratch.planes`.
 */
function sweepDirection(rows: SweptRows, k: number, planeOffset: number): void {
  const { scratch } = rows;
  const direction = directionGeometry(rows, k);
  const { count, first, toward, slope, lineLo, lineHi } = direction;
  if (scratch.u.length < count) {
    scratch.u = new Float64Array(count);
    scratch.z = new Float64Array(count);
    scratch.shift = new Int32Array(count);
  }
  // the minor offset of the cell at each position of the sweep, the same for every line (a line adds its own λ)
  const shiftAt = scratch.shift;
  for (let t = 0; t < count; t++) shiftAt[t] = minorShift(slope, first - toward * t);
  const geometry: LineGeometry = { ...direction, shiftAt };
  for (let line = lineLo; line <= lineHi; line++) sweepLine(rows, geometry, line, planeOffset);
}

/** The minor offset floor(κ·a + ½) of the cell at major coordinate a of a line (the line adds its own λ). */
export function minorShift(slope: number, a: number): number {
  return Math.floor(slope * a + 0.5);
}

/** The sweep's frame for direction k over the rows: which axis is major, where the sweep starts, the lines that cross the block. */
export interface DirectionGeometry {
  readonly colMajor: boolean;
  /** The major direction the rays look toward (±1). */
  readonly toward: number;
  /** Major coordinate of the sweep's first position (the grid's edge on the side the rays look toward). */
  readonly first: number;
  /** Positions a cell is pushed after it is passed (the far field starts at ray step n + 1). */
  readonly lag: number;
  /** Metres per major cell along the line. */
  readonly alongM: number;
  /** κ: minor cells per major cell. */
  readonly slope: number;
  readonly minorSize: number;
  readonly majorLo: number;
  readonly majorHi: number;
  readonly minorLo: number;
  readonly minorHi: number;
  readonly blockWidth: number;
  /** Positions of the sweep. */
  readonly count: number;
  /** The lines λ that cross the block. */
  readonly lineLo: number;
  readonly lineHi: number;
}

export function directionGeometry(rows: SweptRows, k: number): DirectionGeometry {
  const { model, block, directions, nearSteps, dx, dy } = rows;
  const azimuthRad = (2 * Math.PI * k) / directions;
  const stepM = 0.5 * (dx + dy);
  const colPerStep = (stepM * Math.sin(azimuthRad)) / dx;
  const rowPerStep = -(stepM * Math.cos(azimuthRad)) / dy;
  const colMajor = Math.abs(colPerStep) >= Math.abs(rowPerStep);
  const majorPerStep = colMajor ? colPerStep : rowPerStep;
  const slope = (colMajor ? rowPerStep : colPerStep) / majorPerStep; // κ: minor cells per major cell
  const toward = majorPerStep > 0 ? 1 : -1; // the major direction the rays look toward
  const majorSize = colMajor ? model.width : model.height;
  const minorSize = colMajor ? model.height : model.width;
  const [majorLo, majorHi, minorLo, minorHi] = colMajor
    ? [block.colStart, block.colEnd - 1, block.rowStart, block.rowEnd - 1]
    : [block.rowStart, block.rowEnd - 1, block.colStart, block.colEnd - 1];
  const alongM = Math.hypot(colMajor ? dx : dy, slope * (colMajor ? dy : dx)); // metres per major cell
  const lag = Math.max(1, Math.floor((nearSteps + 1) * Math.abs(majorPerStep) + 0.5));
  const lineLo = minorLo - Math.max(minorShift(slope, majorLo), minorShift(slope, majorHi));
  const lineHi = minorHi - Math.min(minorShift(slope, majorLo), minorShift(slope, majorHi));
  // the sweep runs against the look direction: from the grid's edge on that side to the block's far side
  const first = toward > 0 ? majorSize - 1 : 0;
  const last = toward > 0 ? majorLo : majorHi;
  const count = Math.abs(last - first) + 1;
  return { colMajor, toward, first, lag, alongM, slope, minorSize, majorLo, majorHi, minorLo, minorHi, blockWidth: block.colEnd - block.colStart, count, lineLo, lineHi };
}

/** The positions of a sweep at which the block's cells are queried: [queryFrom, queryTo]. */
export function queryPositions(g: DirectionGeometry): { queryFrom: number; queryTo: number } {
  const tA = g.toward * (g.first - g.majorLo);
  const tB = g.toward * (g.first - g.majorHi);
  return tA < tB ? { queryFrom: tA, queryTo: tB } : { queryFrom: tB, queryTo: tA };
}

/**
 * The simplified part of every line of a sweep (the loop at the start of `sweepLine`, which does not depend on
 * the line): each span's pyramid level and the position of its middle, and the position from which cells are
 * pushed one by one.
 */
export function simplifiedSpans(queryFrom: number, simplifiedFrom: number, levels: number): { levels: number[]; middles: number[]; exactFrom: number } {
  const spans = { levels: [] as number[], middles: [] as number[], exactFrom: 0 };
  let next = 0;
  for (let m = queryFrom - next; m > simplifiedFrom; m = queryFrom - next) {
    let level = 1;
    while ((simplifiedFrom << level) <= m && level < levels) level++;
    const span = 1 << level;
    if (m - span < simplifiedFrom) break;
    spans.levels.push(level);
    spans.middles.push(next + (span >> 1));
    next += span;
  }
  spans.exactFrom = next;
  return spans;
}

interface LineGeometry extends DirectionGeometry {
  /** The minor offset floor(κ·a + ½) of the cell at each position (a = first − toward · position). */
  readonly shiftAt: Int32Array;
}

/** 1 / (2R) [1/m]: the curvature drop of terrain u metres away is u² / (2R). */
export const INVERSE_TWO_R = 1 / (2 * EARTH_RADIUS_M);

/** Adds point (u, z) to the upper hull of `size` points (u increasing) and returns its new size. */
function pushOnHull(hullU: Float64Array, hullZ: Float64Array, size: number, u: number, z: number): number {
  // drop the last point while it lies on or below the chord to the new one
  while (size >= 2) {
    const u1 = hullU[size - 1]!;
    const z1 = hullZ[size - 1]!;
    const u0 = hullU[size - 2]!;
    const z0 = hullZ[size - 2]!;
    if ((u1 - u0) * (z - z0) - (z1 - z0) * (u - u0) >= 0) size--;
    else break;
  }
  hullU[size] = u;
  hullZ[size] = z;
  return size + 1;
}

/**
 * Sweeps line λ: pushes each valid cell `lag` cells after passing it, queries the block's cells on the way and
 * writes their horizons to the plane at `planeOffset` of `scratch.planes` (block-local cell index).
 */
function sweepLine(rows: SweptRows, g: LineGeometry, line: number, planeOffset: number): void {
  const { model, block, scratch, simplifiedFrom, pyramidWidths } = rows;
  const planes = scratch.planes;
  const { elevation, width } = model;
  const { colMajor, toward, first, lag, alongM, minorSize, majorLo, majorHi, minorLo, minorHi, blockWidth, count, shiftAt } = g;
  const hullU = scratch.u;
  const hullZ = scratch.z;
  const majorStride = colMajor ? 1 : width;
  const minorStride = colMajor ? width : 1;
  // the positions (in sweep order) of the block's major range: queries happen there only
  const tA = toward * (first - majorLo);
  const tB = toward * (first - majorHi);
  const queryFrom = tA < tB ? tA : tB;
  const queryTo = tA < tB ? tB : tA;
  let size = 0;
  let next = 0; // the next position to push
  // the distant part of the line in spans of 2^ℓ cells over the maximum pyramid
  for (let m = queryFrom - next; m > simplifiedFrom; m = queryFrom - next) {
    let level = 1;
    while ((simplifiedFrom << level) <= m && level < model.pyramid.length) level++;
    const span = 1 << level;
    if (m - span < simplifiedFrom) break;
    const a = first - toward * (next + (span >> 1));
    const b = line + shiftAt[next + (span >> 1)]!;
    next += span;
    if (b < 0 || b >= minorSize) continue;
    const row = colMajor ? b : a;
    const col = colMajor ? a : b;
    const z = model.pyramid[level - 1]![(row >> level) * pyramidWidths[level - 1]! + (col >> level)]!;
    if (z === -Infinity) continue;
    const u = (next - span + (span >> 1)) * alongM;
    size = pushOnHull(hullU, hullZ, size, u, z - u * u * INVERSE_TWO_R);
  }
  // the positions whose cell lies on the grid (the minor offset moves monotonically along the line)
  const [validFrom, validTo] = positionsOnGrid(shiftAt, count, line, minorSize);
  for (let t = queryFrom; t <= queryTo; t++) {
    // push every valid cell at least `lag` positions back (farther along the look direction)
    const end = t - lag;
    if (next <= end) {
      if (next < validFrom) next = Math.min(validFrom, end + 1);
      for (const stop = Math.min(end, validTo); next <= stop; next++) {
        const a = first - toward * next;
        const z = elevation[a * majorStride + (line + shiftAt[next]!) * minorStride]!;
        if (Number.isNaN(z)) continue;
        const u = next * alongM;
        size = pushOnHull(hullU, hullZ, size, u, z - u * u * INVERSE_TWO_R);
      }
      if (next <= end) next = end + 1; // past the grid's edge: nothing more to push
    }
    const a = first - toward * t;
    const b = line + shiftAt[t]!;
    if (b < minorLo || b > minorHi) continue;
    const row = colMajor ? b : a;
    const col = colMajor ? a : b;
    const zObs = elevation[row * width + col]!;
    const out = planeOffset + (row - block.rowStart) * blockWidth + (col - block.colStart);
    if (size === 0 || Number.isNaN(zObs)) {
      planes[out] = horizonUnits(-Infinity);
      continue;
    }
    const u = t * alongM;
    const zc = zObs - u * u * INVERSE_TWO_R;
    // the hull vertex of steepest view: the views along the hull rise to it and fall after it
    let lo = 0;
    let hi = size - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      // view to mid + 1 at least the view to mid, both distances positive: compared without dividing
      if ((hullZ[mid + 1]! - zc) * (u - hullU[mid]!) >= (hullZ[mid]! - zc) * (u - hullU[mid + 1]!)) lo = mid + 1;
      else hi = mid;
    }
    planes[out] = horizonUnits((hullZ[lo]! - zc) / (u - hullU[lo]!) - u * 2 * INVERSE_TWO_R);
  }
}

/**
 * The first and last position of a sweep whose cell on line λ lies on the grid (minor offset λ + shift in
 * [0, minorSize)); last < first when none does. `shiftAt` is monotone over the `count` positions, so those
 * positions are one run: after the cells off one side of the grid and before those off the other.
 */
function positionsOnGrid(shiftAt: Int32Array, count: number, line: number, minorSize: number): [number, number] {
  const below = (t: number) => line + shiftAt[t]! < 0;
  const above = (t: number) => line + shiftAt[t]! >= minorSize;
  // rising offsets leave the grid's minor range below it first and above it last; falling ones the other way
  const [leftFirst, leftLast] = shiftAt[count - 1]! >= shiftAt[0]! ? [below, above] : [above, below];
  return [firstPosition(count, (t) => !leftFirst(t)), firstPosition(count, leftLast) - 1];
}

/** The first of `count` positions at which `holds` (false up to some position, true from it on), or `count`. */
function firstPosition(count: number, holds: (t: number) => boolean): number {
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (holds(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
