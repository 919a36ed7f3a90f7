/**
 * D-infinity flow directions: the steepest downslope direction over 8 triangular facets around each cell,
 * with the flow split between the two neighbours that bound the chosen facet.
 *
 * @see Tarboton (1997) "A new method for the determination of flow directions and upslope areas in grid
 *   digital elevation models", Water Resources Research 33(2):309–319, Fig. 3 and Table 1
 */
import { cellWidthOfRow, checkGrid, type CellArray, type GridGeometry } from './hydroGrid.js';

/** D-infinity flow of every cell of a grid. */
export interface DinfFlow {
  readonly width: number;
  readonly height: number;
  /**
   * Flow direction [rad], counter-clockwise from east, in [0, 2π). −1 where no neighbour is lower (an outlet
   * on the edge or next to nodata, or an unfilled pit/flat); NaN on nodata.
   */
  readonly angle: Float64Array;
  /** Steepest downslope gradient along `angle` [m m⁻¹] (tan β of the flow line); 0 with no outflow; NaN on nodata. */
  readonly slope: Float64Array;
  /** Index of the first receiving neighbour, or −1. */
  readonly receiverA: Int32Array;
  /** Index of the second receiving neighbour, or −1 when all flow goes to `receiverA`. */
  readonly receiverB: Int32Array;
  /** Fraction of the outflow that goes to `receiverA` (the rest goes to `receiverB`) [-]. */
  readonly fractionA: Float64Array;
  /** Facet 0..7 of the flow direction (Tarboton's facets 1..8 minus one), or −1 with no outflow. */
  readonly facet: Int8Array;
  /** Angle between the flow direction and the facet's cardinal edge, 0 ≤ r ≤ r_max [rad] (NaN with no outflow). */
  readonly facetAngle: Float64Array;
}

// Facets in Tarboton's order. e1 is the cardinal neighbour, e2 the diagonal one (row/col offsets),
// base angle a_c·π/2 and sign a_f of Table 1: angle = base + sign·r.
const E1_ROW = [0, -1, -1, 0, 0, 1, 1, 0];
const E1_COL = [1, 0, 0, -1, -1, 0, 0, 1];
const E2_ROW = [-1, -1, -1, -1, 1, 1, 1, 1];
const E2_COL = [1, 1, -1, -1, -1, -1, 1, 1];
const BASE = [0, 0.5 * Math.PI, 0.5 * Math.PI, Math.PI, Math.PI, 1.5 * Math.PI, 1.5 * Math.PI, 2 * Math.PI];
const SIGN = [1, -1, 1, -1, 1, -1, 1, -1];
/** True when the facet's cardinal neighbour lies east or west (its distance is dx), false for north/south (dy). */
export const FACET_CARDINAL_IS_EAST_WEST: readonly boolean[] = [true, false, false, true, true, false, false, true];

/**
 * D-infinity flow directions of a (depression-filled) DEM.
 * Neighbours outside the grid or on nodata are not candidates; a facet with one such corner is reduced to its
 * other edge. Fill depressions first (see fillDepressions.ts) so that only outlets lack a downslope direction.
 * @param elevation elevations [m], row-major (row 0 north), NaN = nodata
 * @see Tarboton (1997) Eqs. 1–4 (generalised to dx ≠ dy: facet half-angle r_max = atan(d2/d1))
 */
export function flowDirectionsDinf(elevation: CellArray, grid: GridGeometry): DinfFlow {
  const n = checkGrid(grid, elevation);
  const { width, height, dy } = grid;
  const angle = new Float64Array(n);
  const slope = new Float64Array(n);
  const receiverA = new Int32Array(n).fill(-1);
  const receiverB = new Int32Array(n).fill(-1);
  const fractionA = new Float64Array(n);
  const facet = new Int8Array(n).fill(-1);
  const facetAngle = new Float64Array(n).fill(NaN);
  const d1s = new Float64Array(8);
  const d2s = new Float64Array(8);
  const rmaxs = new Float64Array(8);

  for (let row = 0; row < height; row++) {
    const dx = cellWidthOfRow(grid, row);
    const diagonal = Math.hypot(dx, dy);
    for (let k = 0; k < 8; k++) {
      d1s[k] = FACET_CARDINAL_IS_EAST_WEST[k] ? dx : dy;
      d2s[k] = FACET_CARDINAL_IS_EAST_WEST[k] ? dy : dx;
      rmaxs[k] = Math.atan2(d2s[k]!, d1s[k]!);
    }
    for (let col = 0; col < width; col++) {
      const i = row * width + col;
      const e0 = elevation[i]!;
      if (Number.isNaN(e0)) {
        angle[i] = NaN;
        slope[i] = NaN;
        continue;
      }
      let best = 0;
      let bestFacet = -1;
      let bestR = 0;
      for (let k = 0; k < 8; k++) {
        const r1 = row + E1_ROW[k]!;
        const c1 = col + E1_COL[k]!;
        const r2 = row + E2_ROW[k]!;
        const c2 = col + E2_COL[k]!;
        const e1 = r1 >= 0 && r1 < height && c1 >= 0 && c1 < width ? elevation[r1 * width + c1]! : NaN;
        const e2 = r2 >= 0 && r2 < height && c2 >= 0 && c2 < width ? elevation[r2 * width + c2]! : NaN;
        const has1 = !Number.isNaN(e1);
        const has2 = !Number.isNaN(e2);
        const d1 = d1s[k]!;
        const d2 = d2s[k]!;
        let s: number;
        let r: number;
        if (has1 && has2) {
          const s1 = (e0 - e1) / d1;
          const s2 = (e1 - e2) / d2;
          if (s2 < 0 || (s2 === 0 && s1 <= 0)) {
            // atan2(s2, s1) ≤ 0 (or s1 ≤ 0 with s2 = 0): steepest descent along the cardinal edge
            r = 0;
            s = s1;
          } else if (s1 <= 0 || s2 * d1 > s1 * d2) {
            // beyond the diagonal edge
            r = rmaxs[k]!;
            s = (e0 - e2) / diagonal;
          } else {
            r = -1; // inside the facet; the angle is computed only for the winner
            s = Math.sqrt(s1 * s1 + s2 * s2);
          }
        } else if (has1) {
          r = 0;
          s = (e0 - e1) / d1;
        } else if (has2) {
          r = rmaxs[k]!;
          s = (e0 - e2) / diagonal;
        } else {
          continue;
        }
        if (s > best) {
          best = s;
          bestFacet = k;
          bestR = r === -1 ? Math.atan2((e1 - e2) / d2, (e0 - e1) / d1) : r;
        }
      }
      if (bestFacet < 0) {
        angle[i] = -1;
        continue;
      }
      const k = bestFacet;
      const rmax = rmaxs[k]!;
      const a = BASE[k]! + SIGN[k]! * bestR;
      angle[i] = a >= 2 * Math.PI ? a - 2 * Math.PI : a;
      slope[i] = best;
      facet[i] = k;
      facetAngle[i] = bestR;
      const iE1 = (row + E1_ROW[k]!) * width + col + E1_COL[k]!;
      const iE2 = (row + E2_ROW[k]!) * width + col + E2_COL[k]!;
      if (bestR <= 0) {
        receiverA[i] = iE1;
        fractionA[i] = 1;
      } else if (bestR >= rmax) {
        receiverA[i] = iE2;
        fractionA[i] = 1;
      } else {
        receiverA[i] = iE1;
        receiverB[i] = iE2;
        fractionA[i] = 1 - bestR / rmax;
      }
    }
  }
  return { width, height, angle, slope, receiverA, receiverB, fractionA, facet, facetAngle };
}
