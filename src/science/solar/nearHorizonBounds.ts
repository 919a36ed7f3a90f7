/**
 * Bounds of the near-field horizon (ray steps 1 … n) of a cell within each of K direction sectors
 * [k·2π/K, (k + 1)·2π/K]: the daily kernel traces the near field at the exact sun azimuth only for samples
 * between the two bounds, and decides every other sample from them.
 *
 *  - Upper bound: the steepest view to any cell the near-field ray can land on while its azimuth stays in
 *    the sector (every cell whose square meets the sector within reach of n steps).
 *  - Lower bound: for each step s, the flattest view among the cells the ray can land on at step s within
 *    the sector; the steepest of these over the steps (each step's cell is certainly one of them). Steps
 *    whose candidates may leave the grid end the bound; nodata candidates make their step's minimum −∞.
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
 * grid `gridWidth` cells wide.
 */
export function nearCandidates(cellSizeXM: number, cellSizeYM: number, sectors: number, steps: number, gridWidth: number): NearCandidates {
  const upper = upperCandidates(cellSizeXM, cellSizeYM, sectors, steps);
  const lower = lowerCandidates(cellSizeXM, cellSizeYM, sectors, steps);
  let reachCols = 0;
  let reachRows = 0;
  for (const cells of [upper.cells, lower.cells]) {
    for (const c of cells.colOffset) reachCols = Math.max(reachCols, Math.abs(c));
    for (const r of cells.rowOffset) reachRows = Math.max(reachRows, Math.abs(r));
  }
  // the distinct cells, so that a cell's view of each is computed once
  const index = new Map<number, number>();
  const cols: number[] = [];
  const rows: number[] = [];
  const discIndex = (cells: CandidateCells) =>
    Int32Array.from(cells.colOffset, (c, i) => {
      const key = (cells.rowOffset[i]! + 32768) * 65536 + (c + 32768);
      let at = index.get(key);
      if (at === undefined) {
        at = cols.length;
        index.set(key, at);
        cols.push(c);
        rows.push(cells.rowOffset[i]!);
      }
      return at;
    });
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

/** Every cell whose square meets sector k within reach of `steps` ray steps, grouped by sector. */
function upperCandidates(cellSizeXM: number, cellSizeYM: number, sectors: number, steps: number) {
  const reach = steps * 0.5 * (cellSizeXM + cellSizeYM) * (1 + 1e-9);
  const maxCols = Math.ceil(reach / cellSizeXM) + 1;
  const maxRows = Math.ceil(reach / cellSizeYM) + 1;
  const width = (2 * Math.PI) / sectors;
  const bySector: { cols: number[]; rows: number[] }[] = Array.from({ length: sectors }, () => ({ cols: [], rows: [] }));
  for (let dr = -maxRows; dr <= maxRows; dr++) {
    for (let dc = -maxCols; dc <= maxCols; dc++) {
      if (dr === 0 && dc === 0) continue;
      // the cell's square in metres, x east, y north (row offsets grow southward)
      const x0 = (dc - 0.5) * cellSizeXM;
      const x1 = (dc + 0.5) * cellSizeXM;
      const y0 = (-dr - 0.5) * cellSizeYM;
      const y1 = (-dr + 0.5) * cellSizeYM;
      if (Math.hypot(Math.max(x0, Math.min(0, x1)), Math.max(y0, Math.min(0, y1))) > reach) continue;
      // azimuth range of the square seen from the origin, relative to its centre's azimuth
      const centre = Math.atan2(dc * cellSizeXM, -dr * cellSizeYM);
      let lo = Infinity;
      let hi = -Infinity;
      for (const [x, y] of [[x0, y0], [x0, y1], [x1, y0], [x1, y1]] as const) {
        let a = Math.atan2(x, y) - centre;
        if (a > Math.PI) a -= 2 * Math.PI;
        if (a < -Math.PI) a += 2 * Math.PI;
        lo = Math.min(lo, a);
        hi = Math.max(hi, a);
      }
      for (let k = 0; k < sectors; k++) {
        // sector k relative to the cell's centre azimuth, wrapped to (−π, π]
        let a = k * width - centre;
        a -= 2 * Math.PI * Math.round(a / (2 * Math.PI));
        const b = a + width;
        const overlaps = (a <= hi && b >= lo) || (a + 2 * Math.PI <= hi && b + 2 * Math.PI >= lo) || (a - 2 * Math.PI <= hi && b - 2 * Math.PI >= lo);
        if (overlaps) {
          bySector[k]!.cols.push(dc);
          bySector[k]!.rows.push(dr);
        }
      }
    }
  }
  return flatten(bySector, cellSizeXM, cellSizeYM);
}

/**
 * For each sector and step s, every cell the ray can land on at step s within the sector: cells within a
 * tenth of a cell of a densely sampled arc of radius s·L (a superset of the exact ones).
 */
function lowerCandidates(cellSizeXM: number, cellSizeYM: number, sectors: number, steps: number) {
  const stepM = 0.5 * (cellSizeXM + cellSizeYM);
  const width = (2 * Math.PI) / sectors;
  const margin = 0.1;
  const groups: { cols: number[]; rows: number[] }[] = [];
  for (let k = 0; k < sectors; k++) {
    for (let s = 1; s <= steps; s++) {
      // (keyed by number: the cells in the order first found)
      const found = new Map<number, [number, number]>();
      const radius = s * stepM;
      const samples = Math.max(2, Math.ceil((radius * width) / (0.2 * Math.min(cellSizeXM, cellSizeYM))) + 1);
      for (let i = 0; i <= samples; i++) {
        const azimuth = k * width + (width * i) / samples;
        // position in cell units, x east and y north (rows grow southward)
        const x = (radius * Math.sin(azimuth)) / cellSizeXM;
        const y = (radius * Math.cos(azimuth)) / cellSizeYM;
        for (const cx of [Math.floor(x - margin + 0.5), Math.floor(x + 0.5), Math.floor(x + margin + 0.5)]) {
          for (const cy of [Math.floor(y - margin + 0.5), Math.floor(y + 0.5), Math.floor(y + margin + 0.5)]) {
            if (cx === 0 && cy === 0) continue;
            found.set((cx + 32768) * 65536 + (32768 - cy), [cx, -cy]);
          }
        }
      }
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

/** `nearHorizonBounds` computed candidate by candidate, sector by sector: the readable form. */
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
