/**
 * Bounds of the near-field horizon (ray steps 1 … n) of a cell within each of K direction sectors
 * [k·2π/K, (k + 1)·2π/K]: the daily kernel traces the near field at the exact sun azimuth only for samples
 * between the two bounds, and decides every other sample from them.
 *
 * The candidates of step s in sector k are the cells the ray's step s lands on at some azimuth of the sector
 * (the nearest cell to the point s·L along the azimuth, horizon.ts): found exactly, from the azimuths at
 * which that point crosses a cell boundary, with a margin for the cell sizes the rays are traced with
 * (`cellSizeSlack`) and for rounding.
 *  - Upper bound: the steepest view to any candidate of any step of the sector.
 *  - Lower bound: for each step s, the flattest view among its candidates; the steepest of these over the
 *    steps (each step's cell is certainly one of them). Steps whose candidates may leave the grid end the
 *    bound; nodata candidates make their step's minimum −∞.
 *
 * The candidate cells depend only on the cell size, the sectors and n, so they are listed once.
 * @see horizon.ts (the model), dailyKernel.ts (their use)
 */
import { HORIZON_ANGLE_UNIT_RAD, MAX_HORIZON_UNITS, curvatureOverDistance } from './horizon.js';

/** Candidate cells of each sector (upper bound) or of each sector and step (lower bound). */
export interface NearCandidates {
  /** Number of sectors around the horizon. */
  readonly sectors: number;
  /** Number of ray steps of the near field. */
  readonly steps: number;
  /** Upper bound: candidates of sector k are entries upperStart[k] … upperStart[k + 1] − 1. */
  readonly upperStart: Int32Array;
  readonly upper: CandidateCells;
  /** Lower bound: candidates of sector k at step s (1 … steps) are entries lowerStart[k·steps + s − 1] … lowerStart[k·steps + s] − 1. */
  readonly lowerStart: Int32Array;
  readonly lower: CandidateCells;
  /** Largest |column| and |row| offset of any candidate. */
  readonly reachCols: number;
  readonly reachRows: number;
  /** Every distinct candidate cell once, and each list's entries as indices into it (for cells far from the edge). */
  readonly disc: CandidateCells;
  readonly upperDisc: Uint16Array | Int32Array;
  readonly lowerDisc: Uint16Array | Int32Array;
  /** Width of the grid the candidates are for, and the disc's cells as index offsets in it. */
  readonly gridWidth: number;
  readonly discOffset: Int32Array;
}

/** Offsets of candidate cells with their 1/d and curvature slope. */
export interface CandidateCells {
  readonly colOffset: Int32Array;
  readonly rowOffset: Int32Array;
  readonly inverseDistance: Float64Array;
  readonly curvatureSlope: Float64Array;
}

function candidateCells(cols: readonly number[], rows: readonly number[], cellSizeXM: number, cellSizeYM: number): CandidateCells {
  const n = cols.length;
  const cells = {
    colOffset: Int32Array.from(cols),
    rowOffset: Int32Array.from(rows),
    inverseDistance: new Float64Array(n),
    curvatureSlope: new Float64Array(n),
  };
  for (let i = 0; i < n; i++) {
    const d = Math.hypot(cols[i]! * cellSizeXM, rows[i]! * cellSizeYM);
    cells.inverseDistance[i] = 1 / d;
    cells.curvatureSlope[i] = curvatureOverDistance(d);
  }
  return cells;
}

/**
 * The candidate cells of `sectors` sectors and `steps` near-field steps on cells of the given size [m], in a
 * grid `gridWidth` cells wide, for rays traced with cell sizes within `cellSizeSlack` (relative) of these.
 */
export function nearCandidates(cellSizeXM: number, cellSizeYM: number, sectors: number, steps: number, gridWidth: number, cellSizeSlack = 0): NearCandidates {
  const lower = stepCandidates(cellSizeXM, cellSizeYM, sectors, steps, cellSizeSlack);
  const upper = sectorUnion(lower, sectors, steps, cellSizeXM, cellSizeYM);
  let reachCols = 0;
  let reachRows = 0;
  for (const cells of [upper.cells, lower.cells]) {
    for (const c of cells.colOffset) reachCols = Math.max(reachCols, Math.abs(c));
    for (const r of cells.rowOffset) reachRows = Math.max(reachRows, Math.abs(r));
  }
  // the distinct cells, so that a cell's view of each is computed once, in row-major order (row by row, each row's
  // columns ascending, as their keys sort): its cells along a row are neighbours in the grid, whose views the compiled
  // bounds compute several at a time (nearHorizonBoundsWasm.ts)
  const keyOf = (row: number, col: number) => (row + 32768) * 65536 + (col + 32768);
  const distinct = new Set<number>();
  for (const cells of [upper.cells, lower.cells]) cells.colOffset.forEach((c, i) => distinct.add(keyOf(cells.rowOffset[i]!, c)));
  const keys = Array.from(distinct).sort((x, y) => x - y);
  const index = new Map(keys.map((key, at) => [key, at]));
  const cols = keys.map((key) => (key % 65536) - 32768);
  const rows = keys.map((key) => Math.floor(key / 65536) - 32768);
  const discIndex = (cells: CandidateCells) => Int32Array.from(cells.colOffset, (c, i) => index.get(keyOf(cells.rowOffset[i]!, c))!);
  // the indices as 16-bit when the disc allows (half the memory traffic of the inner loops)
  const upperWide = discIndex(upper.cells);
  const lowerWide = discIndex(lower.cells);
  const narrow = (indices: Int32Array) => (cols.length <= 65536 ? Uint16Array.from(indices) : indices);
  const upperDisc = narrow(upperWide);
  const lowerDisc = narrow(lowerWide);
  return {
    sectors,
    steps,
    upperStart: upper.start,
    upper: upper.cells,
    lowerStart: lower.start,
    lower: lower.cells,
    reachCols,
    reachRows,
    disc: candidateCells(cols, rows, cellSizeXM, cellSizeYM),
    upperDisc,
    lowerDisc,
    gridWidth,
    discOffset: Int32Array.from(cols, (c, i) => rows[i]! * gridWidth + c),
  };
}

/** Margin [cells] for rounding: the kernel's ray (steps × cells per step) lands within this of our point. */
const ROUNDING_MARGIN_CELLS = 1e-9;

/**
 * For each sector k and step s (groups k·steps + s − 1), every cell the ray's step s can land on at an azimuth
 * of the sector: the point p(φ) = s·L·(sin φ / dx, cos φ / dy) [cells east, north] rounds to one cell between
 * consecutive azimuths at which a coordinate crosses a half-integer, so the cells are those at the middles of
 * the pieces between the sector's ends and these crossings; each point is widened by a margin of
 * `cellSizeSlack` times the reach (a ray traced with other cell sizes lands that much elsewhere) plus
 * rounding, which also takes in both cells at every crossing.
 */
function stepCandidates(cellSizeXM: number, cellSizeYM: number, sectors: number, steps: number, cellSizeSlack: number) {
  const stepM = 0.5 * (cellSizeXM + cellSizeYM);
  const width = (2 * Math.PI) / sectors;
  const reachCells = (steps * stepM) / Math.min(cellSizeXM, cellSizeYM) + 1;
  const margin = reachCells * cellSizeSlack + ROUNDING_MARGIN_CELLS;
  const groups: { cols: number[]; rows: number[] }[] = [];
  const crossings: number[] = [];
  for (let k = 0; k < sectors; k++) {
    const from = k * width;
    const to = (k + 1) * width;
    for (let s = 1; s <= steps; s++) {
      const rx = (s * stepM) / cellSizeXM;
      const ry = (s * stepM) / cellSizeYM;
      crossings.length = 0;
      crossings.push(from, to);
      halfIntegerCrossings(rx, 'east', from, to, crossings);
      halfIntegerCrossings(ry, 'north', from, to, crossings);
      crossings.sort((x, y) => x - y);
      const found = new Map<number, [number, number]>();
      const visit = (azimuth: number) => {
        const x = rx * Math.sin(azimuth);
        const y = ry * Math.cos(azimuth);
        for (const cx of [Math.floor(x - margin + 0.5), Math.floor(x + margin + 0.5)]) {
          for (const cy of [Math.floor(y - margin + 0.5), Math.floor(y + margin + 0.5)]) {
            if (cx !== 0 || cy !== 0) found.set((cx + 32768) * 65536 + (32768 - cy), [cx, -cy]);
          }
        }
      };
      visit(from);
      visit(to);
      for (let i = 1; i < crossings.length; i++) visit(0.5 * (crossings[i - 1]! + crossings[i]!));
      const group = { cols: [] as number[], rows: [] as number[] };
      for (const [c, r] of found.values()) {
        group.cols.push(c);
        group.rows.push(r);
      }
      groups.push(group);
    }
  }
  return flatten(groups, cellSizeXM, cellSizeYM);
}

/**
 * The azimuths in (from, to) at which a step's east coordinate r·sin φ or north coordinate r·cos φ [cells]
 * equals a half-integer, appended to `out`: every solution in [0, 2π) for each half-integer within ±r.
 */
function halfIntegerCrossings(r: number, axis: 'east' | 'north', from: number, to: number, out: number[]): void {
  const f = axis === 'east' ? Math.sin : Math.cos;
  // the coordinate's range over the sector: its ends and any extremum inside it
  let lo = Math.min(r * f(from), r * f(to));
  let hi = Math.max(r * f(from), r * f(to));
  for (let q = 1; q < 4; q++) {
    const extremum = (q * Math.PI) / 2;
    if (extremum > from && extremum < to) {
      lo = Math.min(lo, r * f(extremum));
      hi = Math.max(hi, r * f(extremum));
    }
  }
  for (let c = Math.ceil(lo - 0.5); c + 0.5 <= hi; c++) {
    const v = (c + 0.5) / r;
    if (Math.abs(v) > 1) continue;
    // sin φ = v: φ = asin v or π − asin v; cos φ = v: φ = ±acos v (mod 2π)
    const solutions = axis === 'east' ? [Math.asin(v), Math.PI - Math.asin(v)] : [Math.acos(v), 2 * Math.PI - Math.acos(v)];
    for (const phi of solutions) {
      const wrapped = phi < 0 ? phi + 2 * Math.PI : phi;
      if (wrapped > from && wrapped < to) out.push(wrapped);
    }
  }
}

/** Per sector, every cell some step of the ray can land on (the union of the sector's step candidates). */
function sectorUnion(steps: ReturnType<typeof flatten>, sectors: number, stepCount: number, cellSizeXM: number, cellSizeYM: number) {
  const bySector: { cols: number[]; rows: number[] }[] = [];
  for (let k = 0; k < sectors; k++) {
    const seen = new Set<number>();
    const group = { cols: [] as number[], rows: [] as number[] };
    for (let i = steps.start[k * stepCount]!; i < steps.start[(k + 1) * stepCount]!; i++) {
      const c = steps.cells.colOffset[i]!;
      const r = steps.cells.rowOffset[i]!;
      const key = (r + 32768) * 65536 + (c + 32768);
      if (seen.has(key)) continue;
      seen.add(key);
      group.cols.push(c);
      group.rows.push(r);
    }
    bySector.push(group);
  }
  return flatten(bySector, cellSizeXM, cellSizeYM);
}

function flatten(groups: readonly { cols: number[]; rows: number[] }[], cellSizeXM: number, cellSizeYM: number) {
  const start = new Int32Array(groups.length + 1);
  groups.forEach((g, i) => (start[i + 1] = start[i]! + g.cols.length));
  return {
    start,
    cells: candidateCells(
      groups.flatMap((g) => g.cols),
      groups.flatMap((g) => g.rows),
      cellSizeXM,
      cellSizeYM,
    ),
  };
}

/** Some of the sectors of a candidate list, and the disc cells their candidates use (`selectSectors`). */
export interface SectorSelection {
  readonly candidates: NearCandidates;
  /** Per sector: 1 if it is bounded. */
  readonly sectors: Uint8Array;
  /** Indices of the disc cells some candidate of a selected sector uses, ascending. */
  readonly disc: Int32Array;
}

/** The selection of the sectors k with sectors[k] = 1 of `candidates`. */
export function selectSectors(candidates: NearCandidates, sectors: Uint8Array): SectorSelection {
  if (sectors.length !== candidates.sectors) throw new RangeError(`${sectors.length} sector flags for ${candidates.sectors} sectors`);
  const used = new Uint8Array(candidates.disc.colOffset.length);
  const { steps, upperStart, lowerStart, upperDisc, lowerDisc } = candidates;
  for (let k = 0; k < candidates.sectors; k++) {
    if (sectors[k] === 0) continue;
    for (let i = upperStart[k]!; i < upperStart[k + 1]!; i++) used[upperDisc[i]!] = 1;
    for (let i = lowerStart[k * steps]!; i < lowerStart[(k + 1) * steps]!; i++) used[lowerDisc[i]!] = 1;
  }
  const disc: number[] = [];
  used.forEach((on, i) => on && disc.push(i));
  return { candidates, sectors, disc: Int32Array.from(disc) };
}

/**
 * Upper and lower bounds [horizon units, rounded outward] of the near-field horizon of cell (row, col) in
 * every sector, written to upperOut/lowerOut at outBase + k. Cells beyond the grid are skipped (upper) or
 * end the bound (lower). A cell with no candidate in a sector gets the open horizon −MAX_HORIZON_UNITS.
 * With `selection` (of these candidates), only its sectors are bounded; the others get open horizons.
 * Each distinct candidate cell's view is computed once (`boundsFromDisc`); the same bounds as
 * `nearHorizonBoundsByCandidates`, the readable form (a test holds them equal).
 * Positional parameters on purpose: this runs for every cell of every tile (the TypeScript near field), and
 * the grid, candidates, outputs and scratch are the caller's per-tile locals; a record per call would be
 * built and read once per cell.
 */
export function nearHorizonBounds(
  elevation: Float32Array,
  width: number,
  height: number,
  row: number,
  col: number,
  candidates: NearCandidates,
  upperOut: Int16Array,
  lowerOut: Int16Array,
  outBase: number,
  scratch: Float64Array,
  selection: SectorSelection | null = null,
): void {
  if (selection && selection.candidates !== candidates) throw new RangeError('the sector selection is for other candidates');
  if (width !== candidates.gridWidth) throw new RangeError(`near-field candidates are for a grid ${candidates.gridWidth} cells wide, not ${width}`);
  const { reachCols, reachRows } = candidates;
  // every candidate inside the grid: no bounds checks needed
  const inside = row >= reachRows && row < height - reachRows && col >= reachCols && col < width - reachCols;
  boundsFromDisc(elevation, width, height, row, col, inside, candidates, upperOut, lowerOut, outBase, scratch, selection);
}

/**
 * `nearHorizonBounds` computed candidate by candidate, sector by sector: the readable form, with the same
 * parameters so that a test calls both alike.
 */
export function nearHorizonBoundsByCandidates(
  elevation: Float32Array,
  width: number,
  height: number,
  row: number,
  col: number,
  candidates: NearCandidates,
  upperOut: Int16Array,
  lowerOut: Int16Array,
  outBase: number,
  selection: SectorSelection | null = null,
): void {
  const needed = selection ? selection.sectors : null;
  const z0 = elevation[row * width + col]!;
  const { sectors, steps, upperStart, upper, lowerStart, lower } = candidates;
  for (let k = 0; k < sectors; k++) {
    if (needed && needed[k] === 0) {
      upperOut[outBase + k] = lowerOut[outBase + k] = -MAX_HORIZON_UNITS;
      continue;
    }
    let best = -Infinity;
    for (let i = upperStart[k]!, end = upperStart[k + 1]!; i < end; i++) {
      const r = row + upper.rowOffset[i]!;
      const c = col + upper.colOffset[i]!;
      if (r < 0 || r >= height || c < 0 || c >= width) continue;
      const t = (elevation[r * width + c]! - z0) * upper.inverseDistance[i]! - upper.curvatureSlope[i]!;
      if (t > best) best = t;
    }
    upperOut[outBase + k] = upperUnits(best);
    let lowest = -Infinity;
    for (let s = 0; s < steps; s++) {
      let flattest = Infinity;
      let leaves = false;
      for (let i = lowerStart[k * steps + s]!, end = lowerStart[k * steps + s + 1]!; i < end; i++) {
        const r = row + lower.rowOffset[i]!;
        const c = col + lower.colOffset[i]!;
        if (r < 0 || r >= height || c < 0 || c >= width) {
          leaves = true;
          break;
        }
        const t = (elevation[r * width + c]! - z0) * lower.inverseDistance[i]! - lower.curvatureSlope[i]!;
        // nodata: this step may see nothing
        flattest = t < flattest ? t : Number.isNaN(t) ? -Infinity : flattest;
      }
      if (leaves) break;
      if (flattest > lowest) lowest = flattest;
    }
    lowerOut[outBase + k] = lowerUnits(lowest);
  }
}

/** Scratch size `nearHorizonBounds` needs for `candidates`. */
export function nearScratchLength(candidates: NearCandidates): number {
  return candidates.disc.colOffset.length;
}

/**
 * The bounds from each distinct candidate cell's view, computed once. Near the grid's edge (`inside` false) a
 * view beyond the grid is NaN: skipped by the upper bound, and it ends the lower bound at its step (whose every
 * candidate is then looked at, as the readable form does).
 * Per cell, like `nearHorizonBounds`: its parameters stay positional (no record built and read per cell).
 */
function boundsFromDisc(
  elevation: Float32Array,
  width: number,
  height: number,
  row: number,
  col: number,
  inside: boolean,
  candidates: NearCandidates,
  upperOut: Int16Array,
  lowerOut: Int16Array,
  outBase: number,
  view: Float64Array,
  selection: SectorSelection | null,
): void {
  const { sectors, steps, upperStart, lowerStart, disc, upperDisc, lowerDisc } = candidates;
  const { inverseDistance, curvatureSlope } = disc;
  const offset = candidates.discOffset;
  const needed = selection ? selection.sectors : null;
  const cell = row * width + col;
  const z0 = elevation[cell]!;
  // the disc cells to look at: those the selected sectors use, or all
  const used = selection ? selection.disc : null;
  const count = used ? used.length : offset.length;
  if (inside) {
    for (let j = 0; j < count; j++) {
      const i = used ? used[j]! : j;
      const t = (elevation[cell + offset[i]!]! - z0) * inverseDistance[i]! - curvatureSlope[i]!;
      // nodata: transparent for the upper bound, and its step may see nothing (lower bound)
      view[i] = Number.isNaN(t) ? -Infinity : t;
    }
  } else {
    const { colOffset, rowOffset } = disc;
    for (let j = 0; j < count; j++) {
      const i = used ? used[j]! : j;
      const r = row + rowOffset[i]!;
      const c = col + colOffset[i]!;
      if (r < 0 || r >= height || c < 0 || c >= width) {
        view[i] = NaN;
        continue;
      }
      const t = (elevation[cell + offset[i]!]! - z0) * inverseDistance[i]! - curvatureSlope[i]!;
      view[i] = Number.isNaN(t) ? -Infinity : t;
    }
  }
  for (let k = 0; k < sectors; k++) {
    if (needed && needed[k] === 0) {
      upperOut[outBase + k] = lowerOut[outBase + k] = -MAX_HORIZON_UNITS;
      continue;
    }
    let best = -Infinity;
    for (let i = upperStart[k]!, end = upperStart[k + 1]!; i < end; i++) {
      const t = view[upperDisc[i]!]!;
      if (t > best) best = t;
    }
    upperOut[outBase + k] = upperUnits(best);
    let lowest = -Infinity;
    if (inside) {
      for (let s = k * steps, last = s + steps; s < last; s++) {
        let flattest = Infinity;
        for (let i = lowerStart[s]!, end = lowerStart[s + 1]!; i < end; i++) {
          const t = view[lowerDisc[i]!]!;
          if (t < flattest) {
            flattest = t;
            // this step's minimum can only fall further: it cannot raise the bound any more
            if (flattest <= lowest) break;
          }
        }
        if (flattest > lowest) lowest = flattest;
      }
    } else {
      steps: for (let s = k * steps, last = s + steps; s < last; s++) {
        let flattest = Infinity;
        for (let i = lowerStart[s]!, end = lowerStart[s + 1]!; i < end; i++) {
          const t = view[lowerDisc[i]!]!;
          // a candidate beyond the grid: the ray may leave it here, the bound ends
          if (Number.isNaN(t)) break steps;
          if (t < flattest) flattest = t;
        }
        if (flattest > lowest) lowest = flattest;
      }
    }
    lowerOut[outBase + k] = lowerUnits(lowest);
  }
}

function upperUnits(tangent: number): number {
  return tangent === -Infinity ? -MAX_HORIZON_UNITS : Math.min(MAX_HORIZON_UNITS, Math.ceil(Math.atan(tangent) / HORIZON_ANGLE_UNIT_RAD));
}

function lowerUnits(tangent: number): number {
  return tangent === -Infinity ? -MAX_HORIZON_UNITS : Math.max(-MAX_HORIZON_UNITS, Math.floor(Math.atan(tangent) / HORIZON_ANGLE_UNIT_RAD));
}
