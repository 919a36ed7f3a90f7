/**
 * Terrain horizon angles: for every cell and each of `directions` azimuths, the elevation angle of the
 * highest terrain seen from the cell, so that a cell is in terrain shadow when the sun's altitude is below
 * the horizon in the sun's direction.
 *
 * Method: r.sun's own shadow ray, evaluated once per direction instead of once per time sample. From the
 * cell's centre a ray steps L = (Δx + Δy)/2 at a time; each step samples the nearest cell, at the ground
 * distance d to that cell's centre; the ray height over the cell is z₀ + d·tan h + R(1 − cos(d/R)) (earth
 * curvature, R = 6 371 km). The horizon is therefore
 *     tan H = max over the samples of (z_k − z₀ − R(1 − cos(d_k/R))) / d_k,
 * and a sun at altitude h is hidden exactly when h < H — the same test r.sun makes sample by sample.
 * Because the grid is regular, the sequence of cell offsets and distances along a direction is the same for
 * every cell: it is computed once per direction and each ray is then a tight loop over precomputed offsets,
 * which stops as soon as no remaining sample can rise above the best angle found (the remaining terrain is
 * bounded by the DEM maximum). Nodata cells are transparent. Terrain outside the DEM is unknown and casts
 * no shadow: cells near an edge facing outward see an open horizon (−π/2 when the ray leaves at once).
 *
 * Directions are grid azimuths, clockwise from grid north: direction k looks toward k·2π/directions.
 * Between two directions the horizon is interpolated linearly (see `horizonAt`).
 *
 * @see docs/solar-model.md §6.1 (r.sun's tracer) and the project README ("Shadows")
 */

/** Mean earth radius used for the curvature drop [m] (r.sun). */
export const EARTH_RADIUS_M = 6_371_000;

/** Stored horizon angles are integers in units of 1e-4 rad (resolution 0.0057°). */
export const HORIZON_ANGLE_UNIT_RAD = 1e-4;

/** An open horizon (−π/2, nothing in sight) is stored as −MAX_HORIZON_UNITS, just inside the quantised range. */
export const MAX_HORIZON_UNITS = Math.floor(Math.PI / 2 / HORIZON_ANGLE_UNIT_RAD);

/** The ray of one direction: cell offsets and distances, shared by all cells of a grid (or of a band of rows). */
export interface RayTemplate {
  /** Index offset of each sample (row offset · width + column offset). */
  readonly offset: Int32Array;
  /** 1 / d of each sample [m⁻¹]. */
  readonly inverseDistance: Float64Array;
  /** Curvature drop over distance, R(1 − cos(d/R)) / d [-], of each sample. */
  readonly curvatureSlope: Float64Array;
  /** For early termination: 1/min(d_j) and the curvature term at that distance over the samples after k. */
  readonly remainingInverseDistance: Float64Array;
  readonly remainingCurvatureSlope: Float64Array;
  /** Number of leading samples that stay inside the grid, by the cell's column (and row) position. */
  readonly samplesInsideByCol: Int32Array;
  readonly samplesInsideByRow: Int32Array;
}

/**
 * Ray templates for `directions` equally spaced grid azimuths on a grid of width × height cells whose
 * cells measure `cellSizeXM` × `cellSizeYM` metres, with ray step (Δx + Δy)/2 · `distanceStep`.
 */
export function rayTemplates(
  width: number,
  height: number,
  cellSizeXM: number,
  cellSizeYM: number,
  directions: number,
  distanceStep = 1,
  firstStep = 1,
): RayTemplate[] {
  const templates: RayTemplate[] = [];
  for (let k = 0; k < directions; k++) {
    templates.push(rayTemplate(width, height, cellSizeXM, cellSizeYM, (2 * Math.PI * k) / directions, distanceStep, firstStep));
  }
  return templates;
}

/** The ray template of one grid azimuth [rad, clockwise from grid north]. */
export function rayTemplate(
  width: number,
  height: number,
  cellSizeXM: number,
  cellSizeYM: number,
  gridAzimuthRad: number,
  distanceStep = 1,
  firstStep = 1,
): RayTemplate {
  const stepM = distanceStep * 0.5 * (cellSizeXM + cellSizeYM);
  const colPerStep = (stepM * Math.sin(gridAzimuthRad)) / cellSizeXM;
  const rowPerStep = (-stepM * Math.cos(gridAzimuthRad)) / cellSizeYM;
  const cols: number[] = [];
  const rows: number[] = [];
  let lastCol = 0;
  let lastRow = 0;
  for (let k = firstStep; ; k++) {
    // nearest cell to the k-th sample point (the cell centre is the ray origin)
    const dc = Math.floor(k * colPerStep + 0.5);
    const dr = -Math.floor(-k * rowPerStep + 0.5);
    if (Math.abs(dc) >= width || Math.abs(dr) >= height) break;
    if (dc === lastCol && dr === lastRow) continue;
    cols.push(dc);
    rows.push(dr);
    lastCol = dc;
    lastRow = dr;
  }
  const n = cols.length;
  const offset = new Int32Array(n);
  const inverseDistance = new Float64Array(n);
  const curvatureSlope = new Float64Array(n);
  const distance = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    offset[k] = rows[k]! * width + cols[k]!;
    const d = Math.hypot(cols[k]! * cellSizeXM, rows[k]! * cellSizeYM);
    distance[k] = d;
    inverseDistance[k] = 1 / d;
    curvatureSlope[k] = curvatureOverDistance(d);
  }
  const remainingInverseDistance = new Float64Array(n);
  const remainingCurvatureSlope = new Float64Array(n);
  let minAhead = Infinity;
  for (let k = n - 1; k >= 0; k--) {
    remainingInverseDistance[k] = 1 / minAhead;
    remainingCurvatureSlope[k] = Number.isFinite(minAhead) ? curvatureOverDistance(minAhead) : 0;
    minAhead = Math.min(minAhead, distance[k]!);
  }
  return {
    offset,
    inverseDistance,
    curvatureSlope,
    remainingInverseDistance,
    remainingCurvatureSlope,
    samplesInsideByCol: samplesInside(cols, width),
    samplesInsideByRow: samplesInside(rows, height),
  };
}

/** Cell offsets with their inverse distance and curvature slope, as the near-field bounds store them. */
function offsetCells(cols: readonly number[], rows: readonly number[], cellSizeXM: number, cellSizeYM: number) {
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

/** R(1 − cos(d/R)) / d, the slope of the earth-curvature drop at distance d [m]. */
function curvatureOverDistance(distanceM: number): number {
  return (EARTH_RADIUS_M * (1 - Math.cos(distanceM / EARTH_RADIUS_M))) / distanceM;
}

/**
 * For each position p in 0..size−1 along one axis, how many leading samples keep p + offset inside
 * [0, size): the prefix extremes of the offsets grow monotonically, so a binary search finds the first
 * sample that leaves.
 */
function samplesInside(offsets: readonly number[], size: number): Int32Array {
  const n = offsets.length;
  const prefixMax = new Float64Array(n);
  const prefixMin = new Float64Array(n);
  let max = 0;
  let min = 0;
  for (let k = 0; k < n; k++) {
    max = Math.max(max, offsets[k]!);
    min = Math.min(min, offsets[k]!);
    prefixMax[k] = max;
    prefixMin[k] = min;
  }
  const result = new Int32Array(size);
  for (let p = 0; p < size; p++) {
    let lo = 0; // samples [0, lo) are known to stay inside
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (p + prefixMin[mid]! >= 0 && p + prefixMax[mid]! < size) lo = mid + 1;
      else hi = mid;
    }
    result[p] = lo;
  }
  return result;
}

/**
 * tan of the horizon angle seen from cell (row, col) along one ray template; −Infinity when the ray
 * leaves the grid (or meets only nodata) before any sample.
 * @param zMaxM maximum valid elevation of the grid [m]
 */
export function horizonTangent(
  elevation: Float64Array,
  width: number,
  row: number,
  col: number,
  zMaxM: number,
  ray: RayTemplate,
): number {
  const cell = row * width + col;
  const z0 = elevation[cell]!;
  const headroom = zMaxM - z0;
  const count = Math.min(ray.samplesInsideByCol[col]!, ray.samplesInsideByRow[row]!);
  const offset = ray.offset;
  const inverseDistance = ray.inverseDistance;
  const curvatureSlope = ray.curvatureSlope;
  const remainingInverseDistance = ray.remainingInverseDistance;
  const remainingCurvatureSlope = ray.remainingCurvatureSlope;
  let best = -Infinity;
  for (let k = 0; k < count; k++) {
    const t = (elevation[cell + offset[k]!]! - z0) * inverseDistance[k]! - curvatureSlope[k]!;
    if (t > best) best = t;
    if (headroom * remainingInverseDistance[k]! - remainingCurvatureSlope[k]! <= best) break;
  }
  return best;
}

/** The far-field ray templates of a row, its near-field sectors, and the cell size they were made for. */
export interface RowRays {
  readonly rays: readonly RayTemplate[];
  readonly nearSectors: NearSectors | null;
  readonly nearCandidates: NearStepCandidates | null;
  readonly cellSizeXM: number;
  readonly cellSizeYM: number;
}

/**
 * Far-field horizon angles of the cells in rows [rowStart, rowEnd) for all directions, written into
 * `anglesOut` (cell-major: anglesOut[cell · directions + k], units of HORIZON_ANGLE_UNIT_RAD); upper
 * bounds of the near-field horizon per near sector into `nearOut` (cell-major with the near sectors' own
 * count; sector j spans the azimuths j·2π/count … (j + 1)·2π/count) and lower bounds into `nearLowerOut`
 * (same layout). Nodata cells get 0 and open bounds.
 * `raysForRow(row)` gives the templates for that row (one set for projected grids; per band of rows for
 * geographic grids, whose east-west cell size changes with latitude). The templates must start after the
 * near field (firstStep = nearSteps + 1).
 */
export function computeHorizonRows(
  elevation: Float64Array,
  width: number,
  height: number,
  rowStart: number,
  rowEnd: number,
  zMaxM: number,
  raysForRow: (row: number) => RowRays,
  anglesOut: Int16Array,
  nearOut: Int16Array,
  nearLowerOut: Int16Array,
): void {
  for (let row = rowStart; row < rowEnd; row++) {
    const { rays, nearSectors: sectors, nearCandidates } = raysForRow(row);
    const directions = rays.length;
    for (let col = 0; col < width; col++) {
      const cell = row * width + col;
      const base = cell * directions;
      const nearCount = sectors ? sectors.directions : 0;
      const nearBase = cell * nearCount;
      if (Number.isNaN(elevation[cell]!)) {
        anglesOut.fill(0, base, base + directions);
        nearOut.fill(-MAX_HORIZON_UNITS, nearBase, nearBase + nearCount);
        nearLowerOut.fill(-MAX_HORIZON_UNITS, nearBase, nearBase + nearCount);
        continue;
      }
      for (let k = 0; k < directions; k++) {
        const tangent = horizonTangent(elevation, width, row, col, zMaxM, rays[k]!);
        anglesOut[base + k] = Math.max(-MAX_HORIZON_UNITS, Math.round(Math.atan(tangent) / HORIZON_ANGLE_UNIT_RAD));
      }
      for (let j = 0; j < nearCount; j++) {
        nearOut[nearBase + j] = nearSectorBoundUnits(elevation, width, height, row, col, sectors!, j);
        nearLowerOut[nearBase + j] = nearCandidates ? nearSectorLowerUnits(elevation, width, height, row, col, nearCandidates, j) : -MAX_HORIZON_UNITS;
      }
    }
  }
}

/**
 * One ray step of the near field: the cell nearest to the point j·L along a grid azimuth.
 * The near field is traced at the exact sun azimuth (like r.sun), because the first few cells around a cell
 * decide its horizon in steps too coarse to interpolate between stored directions.
 */
export interface NearStep {
  readonly colOffset: number;
  readonly rowOffset: number;
  readonly inverseDistance: number;
  readonly curvatureSlope: number;
}

/** The distinct cells of the first `steps` ray steps along a grid azimuth [rad, clockwise from grid north]. */
export function nearFieldSteps(cellSizeXM: number, cellSizeYM: number, gridAzimuthRad: number, steps: number): NearStep[] {
  const result: NearStep[] = [];
  forEachNearFieldStep(cellSizeXM, cellSizeYM, gridAzimuthRad, steps, (colOffset, rowOffset, inverseDistance, curvatureSlope) =>
    result.push({ colOffset, rowOffset, inverseDistance, curvatureSlope }),
  );
  return result;
}

/** Calls `visit` for each distinct near-field cell (see nearFieldSteps), without allocating. */
export function forEachNearFieldStep(
  cellSizeXM: number,
  cellSizeYM: number,
  gridAzimuthRad: number,
  steps: number,
  visit: (colOffset: number, rowOffset: number, inverseDistance: number, curvatureSlope: number) => void,
): void {
  const stepM = 0.5 * (cellSizeXM + cellSizeYM);
  const colPerStep = (stepM * Math.sin(gridAzimuthRad)) / cellSizeXM;
  const northPerStep = (stepM * Math.cos(gridAzimuthRad)) / cellSizeYM;
  let lastCol = 0;
  let lastRow = 0;
  for (let j = 1; j <= steps; j++) {
    const colOffset = Math.floor(j * colPerStep + 0.5);
    const rowOffset = -Math.floor(j * northPerStep + 0.5);
    if (colOffset === lastCol && rowOffset === lastRow) continue;
    lastCol = colOffset;
    lastRow = rowOffset;
    const d = Math.hypot(colOffset * cellSizeXM, rowOffset * cellSizeYM);
    visit(colOffset, rowOffset, 1 / d, curvatureOverDistance(d));
  }
}

/** tan of the near-field horizon of cell (row, col) along `steps` (−Infinity if no step lands inside the grid). */
export function nearFieldTangent(
  elevation: Float64Array,
  width: number,
  height: number,
  row: number,
  col: number,
  steps: readonly NearStep[],
): number {
  const z0 = elevation[row * width + col]!;
  let best = -Infinity;
  for (const step of steps) {
    const r = row + step.rowOffset;
    const c = col + step.colOffset;
    if (r < 0 || r >= height || c < 0 || c >= width) break;
    const t = (elevation[r * width + c]! - z0) * step.inverseDistance - step.curvatureSlope;
    if (t > best) best = t;
  }
  return best;
}

/**
 * The cells a near-field ray can land on while its azimuth stays within each direction sector
 * [k·Δ, (k+1)·Δ] (Δ = 2π/directions): every cell whose square meets the sector within reach of `steps`
 * ray steps. A superset of the exact near-field cells, so the steepest of them bounds the near horizon.
 */
export interface NearSectors {
  /** Number of sectors around the horizon. */
  readonly directions: number;
  /** Candidates of sector k: entries start[k] … start[k + 1] − 1. */
  readonly start: Int32Array;
  readonly colOffset: Int32Array;
  readonly rowOffset: Int32Array;
  readonly inverseDistance: Float64Array;
  readonly curvatureSlope: Float64Array;
}

export function nearSectors(cellSizeXM: number, cellSizeYM: number, directions: number, steps: number): NearSectors {
  const reach = steps * 0.5 * (cellSizeXM + cellSizeYM) * (1 + 1e-9);
  const maxCols = Math.ceil(reach / cellSizeXM) + 1;
  const maxRows = Math.ceil(reach / cellSizeYM) + 1;
  const sector = (2 * Math.PI) / directions;
  const entries: { k: number; dc: number; dr: number }[] = [];
  for (let dr = -maxRows; dr <= maxRows; dr++) {
    for (let dc = -maxCols; dc <= maxCols; dc++) {
      if (dr === 0 && dc === 0) continue;
      // the cell's square in metres, x east, y north (row offsets grow southward)
      const x0 = (dc - 0.5) * cellSizeXM;
      const x1 = (dc + 0.5) * cellSizeXM;
      const y0 = (-dr - 0.5) * cellSizeYM;
      const y1 = (-dr + 0.5) * cellSizeYM;
      const nearestX = Math.max(x0, Math.min(0, x1));
      const nearestY = Math.max(y0, Math.min(0, y1));
      if (Math.hypot(nearestX, nearestY) > reach) continue;
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
      for (let k = 0; k < directions; k++) {
        // sector k relative to the cell's centre azimuth, wrapped to (−π, π]
        let a = k * sector - centre;
        a -= 2 * Math.PI * Math.round(a / (2 * Math.PI));
        const b = a + sector;
        const overlaps = (a <= hi && b >= lo) || (a + 2 * Math.PI <= hi && b + 2 * Math.PI >= lo) || (a - 2 * Math.PI <= hi && b - 2 * Math.PI >= lo);
        if (overlaps) entries.push({ k, dc, dr });
      }
    }
  }
  entries.sort((p, q) => p.k - q.k);
  const start = new Int32Array(directions + 1);
  entries.forEach((e, i) => (start[e.k + 1] = i + 1));
  for (let k = 1; k <= directions; k++) start[k] = Math.max(start[k]!, start[k - 1]!);
  const cells = offsetCells(
    entries.map((e) => e.dc),
    entries.map((e) => e.dr),
    cellSizeXM,
    cellSizeYM,
  );
  return { directions, start, ...cells };
}

/** Upper bound of the near horizon of cell (row, col) within sector k, in horizon units (rounded up). */
export function nearSectorBoundUnits(
  elevation: Float64Array,
  width: number,
  height: number,
  row: number,
  col: number,
  sectors: NearSectors,
  k: number,
): number {
  const z0 = elevation[row * width + col]!;
  let best = -Infinity;
  for (let i = sectors.start[k]!, end = sectors.start[k + 1]!; i < end; i++) {
    const r = row + sectors.rowOffset[i]!;
    const c = col + sectors.colOffset[i]!;
    if (r < 0 || r >= height || c < 0 || c >= width) continue;
    const t = (elevation[r * width + c]! - z0) * sectors.inverseDistance[i]! - sectors.curvatureSlope[i]!;
    if (t > best) best = t;
  }
  return best === -Infinity ? -MAX_HORIZON_UNITS : Math.min(MAX_HORIZON_UNITS, Math.ceil(Math.atan(best) / HORIZON_ANGLE_UNIT_RAD));
}

/**
 * Horizon angle [rad] of one cell toward grid azimuth `gridAzimuthRad` (clockwise from grid north),
 * interpolated linearly between the two nearest stored directions.
 */
export function horizonAt(angles: Int16Array, cell: number, directions: number, gridAzimuthRad: number): number {
  const position = ((gridAzimuthRad / (2 * Math.PI)) * directions) % directions;
  const p = position < 0 ? position + directions : position;
  const k0 = Math.floor(p);
  const f = p - k0;
  const k1 = k0 + 1 === directions ? 0 : k0 + 1;
  const base = cell * directions;
  return ((1 - f) * angles[base + k0]! + f * angles[base + k1]!) * HORIZON_ANGLE_UNIT_RAD;
}

/**
 * For each sector k and ray step s, every cell the near-field ray can land on at step s while its azimuth
 * stays within the sector (a superset: cells within a tenth of a cell of a densely sampled arc of radius
 * s·L). The steepest view over the steps of the flattest candidate of each step is a lower bound of the
 * near horizon anywhere in the sector, so a sun below it is certainly hidden.
 */
export interface NearStepCandidates {
  readonly directions: number;
  readonly steps: number;
  /** Candidates of (sector k, step s), s = 1…steps: entries start[k·steps + s − 1] … start[k·steps + s] − 1. */
  readonly start: Int32Array;
  readonly colOffset: Int32Array;
  readonly rowOffset: Int32Array;
  readonly inverseDistance: Float64Array;
  readonly curvatureSlope: Float64Array;
}

export function nearStepCandidates(cellSizeXM: number, cellSizeYM: number, directions: number, steps: number): NearStepCandidates {
  const stepM = 0.5 * (cellSizeXM + cellSizeYM);
  const sector = (2 * Math.PI) / directions;
  const margin = 0.1;
  const cols: number[] = [];
  const rows: number[] = [];
  const start = new Int32Array(directions * steps + 1);
  for (let k = 0; k < directions; k++) {
    for (let s = 1; s <= steps; s++) {
      const found = new Set<string>();
      const radius = s * stepM;
      const samples = Math.max(2, Math.ceil((radius * sector) / (0.2 * Math.min(cellSizeXM, cellSizeYM))) + 1);
      for (let i = 0; i <= samples; i++) {
        const azimuth = k * sector + (sector * i) / samples;
        // position in cell units, x east and y north (rows grow southward)
        const x = (radius * Math.sin(azimuth)) / cellSizeXM;
        const y = (radius * Math.cos(azimuth)) / cellSizeYM;
        for (const cx of new Set([Math.floor(x - margin + 0.5), Math.floor(x + 0.5), Math.floor(x + margin + 0.5)])) {
          for (const cy of new Set([Math.floor(y - margin + 0.5), Math.floor(y + 0.5), Math.floor(y + margin + 0.5)])) {
            if (cx === 0 && cy === 0) continue;
            found.add(`${cx},${-cy}`);
          }
        }
      }
      for (const key of found) {
        const [c, r] = key.split(',').map(Number);
        cols.push(c!);
        rows.push(r!);
      }
      start[k * steps + s] = cols.length;
    }
  }
  return { directions, steps, start, ...offsetCells(cols, rows, cellSizeXM, cellSizeYM) };
}

/**
 * Lower bound of the near horizon of cell (row, col) within sector k, in horizon units (rounded down):
 * max over the steps of the lowest candidate view, up to the first step whose candidates may leave the grid.
 * Nodata candidates are transparent (they make their step's minimum −∞).
 */
export function nearSectorLowerUnits(
  elevation: Float64Array,
  width: number,
  height: number,
  row: number,
  col: number,
  candidates: NearStepCandidates,
  k: number,
): number {
  const z0 = elevation[row * width + col]!;
  let best = -Infinity;
  for (let s = 0; s < candidates.steps; s++) {
    let lowest = Infinity;
    let leaves = false;
    for (let i = candidates.start[k * candidates.steps + s]!, end = candidates.start[k * candidates.steps + s + 1]!; i < end; i++) {
      const r = row + candidates.rowOffset[i]!;
      const c = col + candidates.colOffset[i]!;
      if (r < 0 || r >= height || c < 0 || c >= width) {
        leaves = true;
        break;
      }
      const t = (elevation[r * width + c]! - z0) * candidates.inverseDistance[i]! - candidates.curvatureSlope[i]!;
      lowest = Number.isNaN(t) ? -Infinity : Math.min(lowest, t);
    }
    if (leaves) break;
    if (lowest > best) best = lowest;
  }
  return best === -Infinity ? -MAX_HORIZON_UNITS : Math.max(-MAX_HORIZON_UNITS, Math.floor(Math.atan(best) / HORIZON_ANGLE_UNIT_RAD));
}
