/**
 * Upslope contributing area and specific catchment area by D-infinity accumulation.
 * Cells are visited in topological order (every donor before its receivers; Kahn's algorithm), so the cost
 * is O(n) and there is no recursion.
 *
 * @see Tarboton (1997) Water Resources Research 33(2):309–319, §"Upslope area"; eemt-model.md §2.2 P6
 */
import { FACET_CARDINAL_IS_EAST_WEST, type DinfFlow } from './flowDinf.js';
import { cellWidthOfRow, checkGrid, type GridGeometry } from './hydroGrid.js';

export interface CatchmentOptions {
  /**
   * Contour width w that divides the upslope area:
   * - `'cell'` (default, Tarboton 1997 and TauDEM): the cell side crossed by the flow — dx when the flow
   *   facet leaves through the north/south side, dy through the east/west side (= the cell size on square grids);
   * - `'flowNormal'`: that side projected normal to the flow direction, w·cos r (r = angle between the flow and
   *   the facet's cardinal direction). Exact on planes of any orientation, up to √2 larger a for diagonal flow.
   */
  readonly contourWidth?: 'cell' | 'flowNormal';
}

/** Result of {@link specificCatchmentArea}. */
export interface Catchment {
  /** Upslope contributing area of each cell, including the cell itself [m²]; NaN on nodata. */
  readonly area: Float64Array;
  /** Specific catchment area a = area / contour width [m² m⁻¹ = m]; NaN on nodata. */
  readonly specificArea: Float64Array;
}

/**
 * Accumulates cell areas down the D-infinity flow and divides by the contour width.
 * Cell area is dx(row)·dy. Flow leaving the domain (outlets) is simply not passed on.
 * @param flow D-infinity flow of the grid (see flowDirectionsDinf); it must be acyclic, which D-infinity
 *   flow of any DEM is (it always goes strictly downhill)
 * @see Tarboton (1997)
 */
export function specificCatchmentArea(flow: DinfFlow, grid: GridGeometry, options: CatchmentOptions = {}): Catchment {
  const n = checkGrid(grid, flow.angle);
  const { width, height, dy } = grid;
  if (flow.width !== width || flow.height !== height) throw new RangeError('flow and grid sizes differ');
  const { receiverA, receiverB, fractionA } = flow;
  const area = new Float64Array(n);
  const donors = new Uint8Array(n);
  const queue = new Int32Array(n);
  let valid = 0;
  for (let row = 0; row < height; row++) {
    const cellArea = cellWidthOfRow(grid, row) * dy;
    for (let i = row * width, end = i + width; i < end; i++) {
      if (Number.isNaN(flow.angle[i]!)) {
        area[i] = NaN;
        continue;
      }
      valid++;
      area[i] = cellArea;
      const a = receiverA[i]!;
      const b = receiverB[i]!;
      if (a >= 0) donors[a] = donors[a]! + 1;
      if (b >= 0) donors[b] = donors[b]! + 1;
    }
  }
  let tail = 0;
  for (let i = 0; i < n; i++) if (donors[i] === 0 && !Number.isNaN(area[i]!)) queue[tail++] = i;
  for (let head = 0; head < tail; head++) {
    const i = queue[head]!;
    const a = receiverA[i]!;
    if (a < 0) continue;
    const b = receiverB[i]!;
    const f = fractionA[i]!;
    area[a] = area[a]! + f * area[i]!;
    if (--donors[a]! === 0) queue[tail++] = a;
    if (b >= 0) {
      area[b] = area[b]! + (1 - f) * area[i]!;
      if (--donors[b]! === 0) queue[tail++] = b;
    }
  }
  if (tail !== valid) throw new Error(`flow directions contain a cycle (${valid - tail} cells unreached)`);

  const flowNormal = options.contourWidth === 'flowNormal';
  const specificArea = new Float64Array(n);
  for (let row = 0; row < height; row++) {
    const dx = cellWidthOfRow(grid, row);
    const squareSide = Math.sqrt(dx * dy);
    for (let i = row * width, end = i + width; i < end; i++) {
      const k = flow.facet[i]!;
      let w: number;
      if (k < 0) w = squareSide;
      else {
        w = FACET_CARDINAL_IS_EAST_WEST[k] ? dy : dx;
        if (flowNormal) w *= Math.cos(flow.facetAngle[i]!);
      }
      specificArea[i] = area[i]! / w;
    }
  }
  return { area, specificArea };
}
