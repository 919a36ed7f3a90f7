/**
 * The far-field horizon of one cell in one stored direction: exactly the maximum that
 * `horizonTangentAlongRay` finds over the steps firstStep, firstStep + 1, … (same samples, same arithmetic),
 * but without visiting most of them.
 *
 * Method (maximum-pyramid ray traversal, as in "maximum mipmaps" for height-field ray casting, Tevs et al.
 * 2008): the ray's cell offsets are monotone in each axis, so the steps that fall in any block of the
 * pyramid are consecutive. A block whose maximum elevation M, seen at the smallest distance d its cells can
 * have, cannot beat the best angle so far — (M − z₀)/d − curvature(d) ≤ best — is skipped whole: the ray
 * jumps to its first step outside the block, then tries a block twice as large. The whole ray stops once
 * even the DEM's maximum could not rise above the best angle. On real terrain a ray visits a few dozen
 * samples and blocks however long it is, so the cost per cell hardly grows with the DEM; the pyramid is
 * resident (a third of the DEM), so any tile of cells can be computed from it.
 */
import { curvatureOverDistance, stepColOffset, stepRowOffset } from './horizon.js';
import type { TerrainModel } from './terrainModel.js';

/** Result of `farHorizon`: tan H and the step where it was found (−1 if none). */
export interface FarHorizon {
  tangent: number;
  step: number;
}

/**
 * tan H of the far field of cell (row, col): the steepest view over ray steps ≥ firstStep along the
 * direction with `colPerStep` / `northPerStep` cells per step (see `rayDirection`, made for this row's cell
 * size); −Infinity if no such step lands on a valid cell. Written into `out`, which is returned.
 */
export function farHorizon(
  model: TerrainModel,
  row: number,
  col: number,
  colPerStep: number,
  northPerStep: number,
  firstStep: number,
  out: FarHorizon,
): FarHorizon {
  const { width, height, elevation, pyramid } = model;
  const dx = model.cellSizeX[row]!;
  const dy = model.cellSizeY[row]!;
  const stepM = 0.5 * (dx + dy);
  const diagonalM = Math.sqrt(dx * dx + dy * dy);
  const z0 = elevation[row * width + col]!;
  const headroom = model.zMaxM - z0;
  const levels = pyramid.length;
  let best = -Infinity;
  let bestStep = -1;
  let level = 1;
  let j = firstStep;
  for (;;) {
    const dc = stepColOffset(j, colPerStep);
    const dr = stepRowOffset(j, northPerStep);
    const r = row + dr;
    const c = col + dc;
    if (r < 0 || r >= height || c < 0 || c >= width) break;
    // every sample from step j on lies at least j·L − half a cell diagonal away (its cell's centre is within
    // half a diagonal of the sample point): stop when even the DEM maximum there could not beat the best angle
    const nearestAhead = j * stepM - 0.5 * diagonalM;
    if (nearestAhead > 0) {
      const curvature = curvatureOverDistance(nearestAhead);
      const inverseNearest = 1 / nearestAhead;
      if (headroom * inverseNearest - curvature <= best) break;
      // the largest block around the sample whose highest cell cannot beat the best angle from any of the
      // ray's samples inside it (all at least `nearestAhead` and at most a block diagonal farther away)
      let skipTo = -1;
      for (let l = level < levels ? level : levels; l >= 1; l--) {
        const blockRow = r >> l;
        const blockCol = c >> l;
        const rise = pyramid[l - 1]![blockRow * ((width + (1 << l) - 1) >> l) + blockCol]! - z0;
        const bound = rise >= 0 ? rise * inverseNearest - curvature : rise / (nearestAhead + ((1 << l) + 1) * diagonalM) - curvature;
        if (bound <= best) {
          const rowLo = (blockRow << l) - row;
          const colLo = (blockCol << l) - col;
          const last = (1 << l) - 1;
          const leaveCol = stepLeaving(j, colPerStep, colLo, colLo + last);
          // rows: the row offset is −floor(j·north + ½), inside while −(rowLo + last) ≤ floor(…) ≤ −rowLo (0 − …: never −0,
          // as `stepRowOffset`)
          const leaveRow = stepLeaving(j, northPerStep, 0 - (rowLo + last), 0 - rowLo);
          skipTo = leaveCol < leaveRow ? leaveCol : leaveRow;
          level = l + 1;
          break;
        }
      }
      if (skipTo > 0) {
        j = skipTo;
        continue;
      }
    }
    level = 1;
    if (dc !== 0 || dr !== 0) {
      // NaN (nodata) compares false: transparent
      const t = viewAt(elevation, width, z0, r, c, dc * dx, dr * dy);
      if (t > best) {
        best = t;
        bestStep = j;
      }
    }
    j++;
  }
  out.tangent = best;
  out.step = bestStep;
  return out;
}

/** tan of the view from elevation z0 to cell (r, c), whose centre lies (xM, yM) metres from the origin's. */
function viewAt(elevation: Float32Array, width: number, z0: number, r: number, c: number, xM: number, yM: number): number {
  const d = Math.sqrt(xM * xM + yM * yM);
  return (elevation[r * width + c]! - z0) / d - curvatureOverDistance(d);
}

/** More ray steps than any grid has: an offset that changes this slowly never leaves a block. */
export const MAX_STEPS = 2 ** 40;

/**
 * First step after `j` whose offset floor(step·perStep + ½) leaves [lo, hi] (the offset at `j` is inside
 * and moves monotonically with the step); Infinity if it never does.
 */
function stepLeaving(j: number, perStep: number, lo: number, hi: number): number {
  if (perStep > 0) {
    let e = Math.max(j + 1, Math.ceil((hi + 0.5) / perStep));
    if (!(e < MAX_STEPS)) return Infinity;
    while (e - 1 > j && Math.floor((e - 1) * perStep + 0.5) > hi) e--;
    while (Math.floor(e * perStep + 0.5) <= hi) e++;
    return e;
  }
  if (perStep < 0) {
    let e = Math.max(j + 1, Math.floor((lo - 0.5) / perStep) + 1);
    if (!(e < MAX_STEPS)) return Infinity;
    while (e - 1 > j && Math.floor((e - 1) * perStep + 0.5) < lo) e--;
    while (Math.floor(e * perStep + 0.5) >= lo) e++;
    return e;
  }
  return Infinity;
}
