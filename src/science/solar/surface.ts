/**
 * Per-cell surface terms of the daily kernel, computed once per DEM from the Horn gradient.
 * Vectors are in the grid frame (x = grid east, y = grid north, z = up); the kernel turns the sun into
 * the same frame with the meridian convergence, which is how aspects become true azimuths.
 */
import { pressureRatio, diffuseSlopeFactorShaded, muneerSlopeFunction, skyViewFactor } from './clearSky.js';

export interface SurfaceTerms {
  readonly cellCount: number;
  /** 1 for cells with an elevation, 0 for nodata. */
  readonly valid: Uint8Array;
  /** 1 for an inclined surface (non-zero gradient), 0 for an exactly horizontal one (r.sun's flat case). */
  readonly inclined: Uint8Array;
  /** Unit upward surface normal [-] in the grid frame: n = (−∂z/∂x, −∂z/∂y, 1)/|…|. */
  readonly normalEast: Float64Array;
  readonly normalNorth: Float64Array;
  readonly normalUp: Float64Array;
  /** r_sky = (1 + cos β)/2 [-]. */
  readonly skyView: Float64Array;
  /** Muneer's f_g [-]. */
  readonly muneerSlope: Float64Array;
  /** Muneer's F_x for shaded surfaces [-]. */
  readonly shadedDiffuseFactor: Float64Array;
  /** (1 − cos β)/2 [-], the ground's share of the view. */
  readonly groundView: Float64Array;
  /** p/p₀ = exp(−z/8434.5) [-]. */
  readonly pressureRatio: Float64Array;
}

/** Allocation hook so the pipeline can place the arrays in shared memory for its worker threads. */
export type ArrayAllocator = <T extends Float64Array | Uint8Array>(kind: 'f64' | 'u8', length: number) => T;

const heapAllocator: ArrayAllocator = <T extends Float64Array | Uint8Array>(kind: 'f64' | 'u8', length: number) =>
  (kind === 'f64' ? new Float64Array(length) : new Uint8Array(length)) as T;

/**
 * Surface terms from elevations [m] and the Horn downslope gradient (fallEast = −∂z/∂x, fallNorth = −∂z/∂y).
 * Nodata cells (NaN elevation or gradient) are marked invalid.
 */
export function surfaceTerms(
  elevationM: Float64Array,
  fallEast: Float64Array,
  fallNorth: Float64Array,
  allocate: ArrayAllocator = heapAllocator,
): SurfaceTerms {
  const n = elevationM.length;
  const terms = {
    cellCount: n,
    valid: allocate<Uint8Array>('u8', n),
    inclined: allocate<Uint8Array>('u8', n),
    normalEast: allocate<Float64Array>('f64', n),
    normalNorth: allocate<Float64Array>('f64', n),
    normalUp: allocate<Float64Array>('f64', n),
    skyView: allocate<Float64Array>('f64', n),
    muneerSlope: allocate<Float64Array>('f64', n),
    shadedDiffuseFactor: allocate<Float64Array>('f64', n),
    groundView: allocate<Float64Array>('f64', n),
    pressureRatio: allocate<Float64Array>('f64', n),
  };
  for (let i = 0; i < n; i++) {
    const z = elevationM[i]!;
    const e = fallEast[i]!;
    const north = fallNorth[i]!;
    if (Number.isNaN(z) || Number.isNaN(e) || Number.isNaN(north)) continue;
    const norm = Math.sqrt(1 + e * e + north * north);
    const slope = Math.atan(Math.hypot(e, north));
    terms.valid[i] = 1;
    terms.inclined[i] = e !== 0 || north !== 0 ? 1 : 0;
    terms.normalEast[i] = e / norm;
    terms.normalNorth[i] = north / norm;
    terms.normalUp[i] = 1 / norm;
    terms.skyView[i] = skyViewFactor(slope);
    terms.muneerSlope[i] = muneerSlopeFunction(slope);
    terms.shadedDiffuseFactor[i] = diffuseSlopeFactorShaded(slope);
    terms.groundView[i] = (1 - Math.cos(slope)) / 2;
    terms.pressureRatio[i] = pressureRatio(z);
  }
  return terms;
}
