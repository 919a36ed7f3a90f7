/**
 * Terrain horizons: the elevation angle of the highest terrain seen from a cell toward an azimuth, so that
 * a cell is in terrain shadow when the sun's altitude is below the horizon in the sun's direction.
 *
 * The model is r.sun's own shadow ray (docs/solar-model.md §6.1, with nodata cells transparent): from the
 * cell's centre the ray steps L = (Δx + Δy)/2 at a time; step j samples the nearest cell, at the ground
 * distance d to that cell's centre; the ray's height over the cell is z₀ + d·tan h + R(1 − cos(d/R))
 * (earth curvature, R = 6 371 km). The horizon is therefore
 *     tan H = max over the steps j of (z_j − z₀)/d_j − R(1 − cos(d_j/R))/d_j,
 * and a sun at altitude h is hidden exactly when h < H — the test r.sun makes sample by sample. There is no
 * distance cut-off; terrain outside the DEM is unknown and casts no shadow (a ray leaving the DEM at once
 * sees an open horizon, −π/2).
 *
 * This module holds the definitions and the readable reference tracer. The engine splits each ray:
 *  - the near field (steps 1 … n) is traced at the exact sun azimuth when needed (`nearFieldSteps`),
 *    bounded per direction sector beforehand (nearHorizonBounds.ts);
 *  - the far field (steps > n) is computed in N stored directions by profile sweeps (sweptHorizon.ts; the
 *    exact per-cell ray over a maximum pyramid, farHorizon.ts, is its reference) and interpolated between
 *    them (`horizonAt`).
 * n and N follow from the error budget in horizonBudget.ts.
 *
 * Directions are grid azimuths, clockwise from grid north.
 * @see docs/solar-model.md §6.1 and Part A ("Horizons")
 */

/** Mean earth radius used for the curvature drop [m] (r.sun). */
export const EARTH_RADIUS_M = 6_371_000;

/** Stored horizon angles are integers in units of 1e-4 rad (resolution 0.0057°). */
export const HORIZON_ANGLE_UNIT_RAD = 1e-4;

/** An open horizon (−π/2, nothing in sight) is stored as −MAX_HORIZON_UNITS, just inside the quantised range. */
export const MAX_HORIZON_UNITS = Math.floor(Math.PI / 2 / HORIZON_ANGLE_UNIT_RAD);

/**
 * R(1 − cos(d/R)) / d, the slope of the earth-curvature drop at ground distance d [m]. Evaluated as its
 * series d/(2R)·(1 − x²/12 + x⁴/360), x = d/R: relative error below 1e-9 up to d = 1000 km, and free of the
 * cancellation in 1 − cos(x) for small x.
 */
export function curvatureOverDistance(distanceM: number): number {
  const x = distanceM / EARTH_RADIUS_M;
  const x2 = x * x;
  return (distanceM / (2 * EARTH_RADIUS_M)) * (1 - x2 / 12 + (x2 * x2) / 360);
}

/** tan of the view from a cell at elevation z₀ to terrain of elevation z at ground distance d [m]. */
export function viewTangent(z0M: number, zM: number, distanceM: number): number {
  return (zM - z0M) / distanceM - curvatureOverDistance(distanceM);
}

/**
 * Cells per ray step along a grid azimuth [rad, clockwise from grid north] on cells of `cellSizeXM` ×
 * `cellSizeYM` metres: step j samples the cell at column offset floor(j·colPerStep + ½) and row offset
 * −floor(j·northPerStep + ½) (rows grow southward).
 */
export interface RayDirection {
  readonly colPerStep: number;
  readonly northPerStep: number;
}

export function rayDirection(cellSizeXM: number, cellSizeYM: number, gridAzimuthRad: number): RayDirection {
  const stepM = 0.5 * (cellSizeXM + cellSizeYM);
  return { colPerStep: (stepM * Math.sin(gridAzimuthRad)) / cellSizeXM, northPerStep: (stepM * Math.cos(gridAzimuthRad)) / cellSizeYM };
}

/** Column offset of ray step j: floor(j·colPerStep + ½). */
export function stepColOffset(j: number, colPerStep: number): number {
  return Math.floor(j * colPerStep + 0.5);
}

/**
 * Row offset of ray step j: −floor(j·northPerStep + ½), taken as 0 − floor(…) so that it is never −0 (a −0 makes V8
 * drop the integer code of the ray loops that call this and compile them again).
 */
export function stepRowOffset(j: number, northPerStep: number): number {
  return 0 - Math.floor(j * northPerStep + 0.5);
}

/** The grid as the tracers see it: elevations (NaN = nodata) and the cell size used for a ray's origin row. */
export interface ElevationGrid {
  readonly width: number;
  readonly height: number;
  readonly elevation: Float32Array;
  readonly cellSizeX: Float64Array;
  readonly cellSizeY: Float64Array;
}

/**
 * tan H of the horizon seen from cell (row, col) toward `gridAzimuthRad`, over ray steps firstStep …
 * lastStep (default: until the ray leaves the grid), sample by sample: the readable reference of the fast
 * tracers. −Infinity when no step lands on a valid cell.
 */
export function horizonTangentAlongRay(
  grid: ElevationGrid,
  row: number,
  col: number,
  gridAzimuthRad: number,
  firstStep = 1,
  lastStep = Infinity,
): number {
  const dx = grid.cellSizeX[row]!;
  const dy = grid.cellSizeY[row]!;
  const { colPerStep, northPerStep } = rayDirection(dx, dy, gridAzimuthRad);
  const z0 = grid.elevation[row * grid.width + col]!;
  let best = -Infinity;
  for (let j = firstStep; j <= lastStep; j++) {
    const dc = stepColOffset(j, colPerStep);
    const dr = stepRowOffset(j, northPerStep);
    const r = row + dr;
    const c = col + dc;
    if (r < 0 || r >= grid.height || c < 0 || c >= grid.width) break;
    if (dc === 0 && dr === 0) continue; // a step shorter than half a cell stays on the origin
    const z = grid.elevation[r * grid.width + c]!;
    if (Number.isNaN(z)) continue; // nodata is transparent
    const t = viewTangent(z0, z, Math.sqrt((dc * dx) ** 2 + (dr * dy) ** 2));
    if (t > best) best = t;
  }
  return best;
}

/** A stored horizon angle [units of HORIZON_ANGLE_UNIT_RAD] from tan H; −∞ (open) becomes −MAX_HORIZON_UNITS. */
export function horizonUnits(tangent: number): number {
  return Math.max(-MAX_HORIZON_UNITS, Math.round(Math.atan(tangent) / HORIZON_ANGLE_UNIT_RAD));
}

/**
 * Columns and rows a near-field ray of `steps` steps can reach from its cell, whatever its azimuth (on cells
 * `cellSizeXM` × `cellSizeYM`): |offset| ≤ ⌊steps · per step + ½⌋ (`nearFieldSteps`), plus one for safety.
 */
export function nearFieldReach(cellSizeXM: number, cellSizeYM: number, steps: number): { cols: number; rows: number } {
  if (steps === 0) return { cols: 0, rows: 0 };
  const stepM = 0.5 * (cellSizeXM + cellSizeYM);
  return { cols: Math.floor((steps * stepM) / cellSizeXM + 0.5) + 1, rows: Math.floor((steps * stepM) / cellSizeYM + 0.5) + 1 };
}

/** The distinct cells of a near-field ray (`nearFieldSteps`): offsets, 1/d [1/m] and curvature slope, per cell. */
export interface NearFieldRay {
  readonly colOffset: Int32Array;
  readonly rowOffset: Int32Array;
  readonly inverseDistance: Float64Array;
  readonly curvatureSlope: Float64Array;
}

/** Room for the cells of rays of up to `steps` steps. */
export function allocateNearFieldRay(steps: number): NearFieldRay {
  return { colOffset: new Int32Array(steps), rowOffset: new Int32Array(steps), inverseDistance: new Float64Array(steps), curvatureSlope: new Float64Array(steps) };
}

/**
 * The distinct cells of the first `steps` ray steps along a grid azimuth [rad, clockwise from grid north],
 * in order, into `out` (room for `steps`); returns how many. The near field is traced this way at the exact
 * sun azimuth, because the first cells around a cell decide its horizon in steps too coarse to interpolate
 * between stored directions.
 */
export function nearFieldSteps(cellSizeXM: number, cellSizeYM: number, gridAzimuthRad: number, steps: number, out: NearFieldRay): number {
  const { colPerStep, northPerStep } = rayDirection(cellSizeXM, cellSizeYM, gridAzimuthRad);
  let count = 0;
  let lastCol = 0;
  let lastRow = 0;
  for (let j = 1; j <= steps; j++) {
    const colOffset = stepColOffset(j, colPerStep);
    const rowOffset = stepRowOffset(j, northPerStep);
    if (colOffset === lastCol && rowOffset === lastRow) continue;
    lastCol = colOffset;
    lastRow = rowOffset;
    const d = Math.sqrt((colOffset * cellSizeXM) ** 2 + (rowOffset * cellSizeYM) ** 2);
    out.colOffset[count] = colOffset;
    out.rowOffset[count] = rowOffset;
    out.inverseDistance[count] = 1 / d;
    out.curvatureSlope[count] = curvatureOverDistance(d);
    count++;
  }
  return count;
}

/**
 * Horizon angle [rad] of one cell toward grid azimuth `gridAzimuthRad` (clockwise from grid north),
 * interpolated linearly between the two nearest of `directions` stored directions (direction k looks toward
 * k·2π/directions; `angles` holds them cell-major in HORIZON_ANGLE_UNIT_RAD).
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
