/**
 * Topographic wetness index and the mass-conserving wetness index (MCWI) of EEMT-TOPO.
 *
 * @see eemt-model.md §2.2 P6 (guards); Beven & Kirkby (1979); Rasmussen et al. 2015 (VZJ) Eqs. 9–10
 */
import type { CellArray } from './hydroGrid.js';

export interface WetnessIndexOptions {
  /** How `slope` is given: the angle β in radians (default) or tan β. */
  readonly slopeUnit?: 'radians' | 'tangent';
  /** Lower bound of a, normally the cell size [m]. Required. */
  readonly minimumSpecificAreaM: number;
  /** Lower bound of tan β [-]. Default 1e-3. */
  readonly minimumTanSlope?: number;
  /** Output array to fill (length of the inputs); a new Float64Array when omitted. */
  readonly out?: Float64Array;
}

/**
 * Topographic wetness index λ = ln(a / tan β) [-] with the spec's guards: tan β ≥ 1e-3, a ≥ cell size and
 * λ := max(λ, 0). Finite wherever both inputs are finite (flats included); NaN where either is NaN.
 * @param specificArea specific catchment area a [m] (see specificCatchmentArea)
 * @param slope local slope β [rad] or tan β, by `options.slopeUnit`
 * @see eemt-model.md §2.2 P6
 */
export function topographicWetnessIndex(specificArea: CellArray, slope: CellArray, options: WetnessIndexOptions): Float64Array {
  const n = specificArea.length;
  if (slope.length !== n) throw new RangeError(`slope has ${slope.length} cells, specific area ${n}`);
  const minimumArea = options.minimumSpecificAreaM;
  if (!(minimumArea > 0)) throw new RangeError('minimumSpecificAreaM must be > 0');
  const minimumTan = options.minimumTanSlope ?? 1e-3;
  const tangent = options.slopeUnit === 'tangent';
  const out = options.out ?? new Float64Array(n);
  if (out.length !== n) throw new RangeError('out has the wrong length');
  for (let i = 0; i < n; i++) {
    const a = specificArea[i]!;
    const s = slope[i]!;
    if (Number.isNaN(a) || Number.isNaN(s)) {
      out[i] = NaN;
      continue;
    }
    const tanSlope = Math.max(tangent ? Math.abs(s) : Math.abs(Math.tan(s)), minimumTan);
    const lambda = Math.log(Math.max(a, minimumArea) / tanSlope);
    out[i] = lambda > 0 ? lambda : 0;
  }
  return out;
}

/** Mean of the finite values of a wetness index λ̄ [-] (NaN when there is none). @see eemt-model.md §2.2 P6 */
export function meanWetnessIndex(wetnessIndex: CellArray): number {
  let sum = 0;
  let count = 0;
  for (let i = 0; i < wetnessIndex.length; i++) {
    const v = wetnessIndex[i]!;
    if (Number.isFinite(v)) {
      sum += v;
      count++;
    }
  }
  return count > 0 ? sum / count : NaN;
}

/**
 * Mass-conserving wetness index α_i = λ_i / λ̄ [-], so that the mean of α over the valid cells is 1.
 * When λ̄ = 0 (every λ clamped to 0) water is not redistributed: α = 1 on every valid cell. NaN stays NaN.
 * @param wetnessIndex λ ≥ 0 (see topographicWetnessIndex)
 * @see eemt-model.md §2.2 P6; Rasmussen et al. 2015 (VZJ) Eq. 9 (normalised by the mean, not the median)
 */
export function massConservingWetnessIndex(wetnessIndex: CellArray, out?: Float64Array): Float64Array {
  const n = wetnessIndex.length;
  const alpha = out ?? new Float64Array(n);
  if (alpha.length !== n) throw new RangeError('out has the wrong length');
  const mean = meanWetnessIndex(wetnessIndex);
  for (let i = 0; i < n; i++) {
    const v = wetnessIndex[i]!;
    alpha[i] = Number.isFinite(v) ? (mean > 0 ? v / mean : 1) : NaN;
  }
  return alpha;
}
