/**
 * Aspect clockwise from TRUE north for the northness of EEMT-TOPO (eemt-model.md §2.2 P8).
 *
 * Horn's gradient gives the downslope direction relative to grid north; the solar model works in true
 * azimuths, and so does this: aspect_true = aspect_grid − γ, with γ the meridian convergence (grid bearing
 * of true north, `Geodesy.convergenceRad`). On projected DEMs γ is below ~1° inside a UTM zone, so the
 * correction is small, but it keeps the northness consistent with the shading of the solar phase.
 */
import { createGeodesy } from '../../raster/geo/geodesy.js';
import type { GridSpec } from '../../raster/types.js';
import { aspectCompassRad, type HornGradient } from '../../science/terrain/slopeAspect.js';

/** Spacing [cells] of the lattice on which the convergence is computed exactly (it varies slowly). */
const CONVERGENCE_LATTICE_STEP = 16;

/**
 * Meridian convergence [rad] of every cell centre (row-major), computed exactly on a lattice every
 * 16 cells (and at the last row/column) and bilinearly interpolated in between. 0 on geographic grids.
 */
export function convergenceOfCells(grid: GridSpec): Float64Array {
  const { width, height } = grid;
  const out = new Float64Array(width * height);
  if (grid.crs.kind === 'geographic') return out;
  const geodesy = createGeodesy(grid);
  const cols = latticeWeights(width);
  const rows = latticeWeights(height);
  const exact = rows.knots.map((r) => cols.knots.map((c) => geodesy.convergenceRad(c + 0.5, r + 0.5)));
  for (let r = 0; r < height; r++) {
    const j = rows.segment[r]!;
    const v = rows.weight[r]!;
    const above = exact[j]!;
    const below = exact[Math.min(j + 1, rows.knots.length - 1)]!;
    for (let c = 0; c < width; c++) {
      const i = cols.segment[c]!;
      const u = cols.weight[c]!;
      const i1 = Math.min(i + 1, cols.knots.length - 1);
      out[r * width + c] = (1 - v) * ((1 - u) * above[i]! + u * above[i1]!) + v * ((1 - u) * below[i]! + u * below[i1]!);
    }
  }
  return out;
}

/** Lattice knots along one axis of `n` cells, and for every cell its segment and linear weight. */
function latticeWeights(n: number): { knots: number[]; segment: Int32Array; weight: Float64Array } {
  const knots: number[] = [];
  for (let k = 0; k < n; k += CONVERGENCE_LATTICE_STEP) knots.push(k);
  if (knots[knots.length - 1] !== n - 1) knots.push(n - 1);
  const segment = new Int32Array(n);
  const weight = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    const s = Math.min(Math.floor(k / CONVERGENCE_LATTICE_STEP), Math.max(0, knots.length - 2));
    const k0 = knots[s]!;
    const k1 = knots[Math.min(s + 1, knots.length - 1)]!;
    segment[k] = s;
    weight[k] = k1 > k0 ? (k - k0) / (k1 - k0) : 0;
  }
  return { knots, segment, weight };
}

/**
 * Aspect of every cell [rad], the downslope direction clockwise from true north in [0, 2π); NaN at
 * nodata and on cells with a zero gradient (no aspect).
 */
export function trueNorthAspectRad(gradient: HornGradient, grid: GridSpec): Float64Array {
  const convergence = convergenceOfCells(grid);
  const n = gradient.fallEast.length;
  const out = new Float64Array(n);
  const fullTurn = 2 * Math.PI;
  for (let i = 0; i < n; i++) {
    const east = gradient.fallEast[i]!;
    const north = gradient.fallNorth[i]!;
    if (Number.isNaN(east) || Number.isNaN(north)) {
      out[i] = NaN;
      continue;
    }
    const a = aspectCompassRad(east, north) - convergence[i]!;
    out[i] = a < 0 ? a + fullTurn : a >= fullTurn ? a - fullTurn : a;
  }
  return out;
}
