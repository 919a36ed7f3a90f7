/**
 * Northness of every cell, n = cos(aspect from north) · sin(slope).
 *
 * @see eemt-model.md §2.2 P8; Rasmussen et al. 2015 (VZJ) L399–403
 */
import type { CellArray } from './hydroGrid.js';

export interface NorthnessOptions {
  /** Unit of slope and aspect. Default radians. */
  readonly angleUnit?: 'radians' | 'degrees';
  /**
   * Aspect convention: `'clockwiseFromNorth'` (default; GDAL, SAGA, ArcGIS) or `'counterClockwiseFromEast'`
   * (GRASS r.slope.aspect without -n).
   */
  readonly aspectConvention?: 'clockwiseFromNorth' | 'counterClockwiseFromEast';
  /** Output array to fill; a new Float64Array when omitted. */
  readonly out?: Float64Array;
}

/**
 * Northness n ∈ [−1, 1] [-]: +1 for a vertical north-facing wall, −1 for a south-facing one, 0 on flats
 * (slope 0 gives 0 whatever the aspect, even an undefined one). NaN where the slope is NaN, or where the
 * aspect is NaN on a sloping cell.
 * @param slope slope angle β
 * @param aspect aspect θ (direction the slope faces)
 */
export function northnessFromSlopeAspect(slope: CellArray, aspect: CellArray, options: NorthnessOptions = {}): Float64Array {
  const n = slope.length;
  if (aspect.length !== n) throw new RangeError(`aspect has ${aspect.length} cells, slope ${n}`);
  const out = options.out ?? new Float64Array(n);
  if (out.length !== n) throw new RangeError('out has the wrong length');
  const toRad = options.angleUnit === 'degrees' ? Math.PI / 180 : 1;
  const fromEast = options.aspectConvention === 'counterClockwiseFromEast';
  for (let i = 0; i < n; i++) {
    const beta = slope[i]! * toRad;
    if (beta === 0) {
      out[i] = 0;
      continue;
    }
    const theta = aspect[i]! * toRad;
    // cos(aspect from north) = sin(aspect counter-clockwise from east)
    out[i] = (fromEast ? Math.sin(theta) : Math.cos(theta)) * Math.sin(beta);
  }
  return out;
}
