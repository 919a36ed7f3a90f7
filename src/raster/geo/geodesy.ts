/**
 * Where the cells of a grid are on the earth: geodetic latitude/longitude of any pixel position, the
 * meridian convergence, true cell sizes, and the datum's ellipsoid.
 *
 * Coordinates stay on the CRS's own datum: the projection is inverted on its ellipsoid with proj4's raw
 * projection functions, never through proj4's datum transformation (which would route a datum with
 * +towgs84 through WGS 84). Longitudes are from Greenwich, in (-180, 180].
 * Pixel positions are fractional (col, row) with (0, 0) the north-west corner of cell (0, 0), so
 * (c + 0.5, r + 0.5) is the centre of cell (c, r).
 */
import proj4 from './proj4.js';
import type { GridSpec } from '../types.js';

export interface Geodesy {
  /** Geodetic latitude/longitude [deg] on the CRS's own datum (no datum shift) at fractional pixel position (col, row); (c + 0.5, r + 0.5) is the centre of cell (c, r). */
  latLon(col: number, row: number): { latDeg: number; lonDeg: number };
  /**
   * Meridian convergence at (col, row): the grid bearing of true north, radians clockwise from grid north
   * (0 for geographic grids). For a transverse Mercator grid in the northern hemisphere it is ≈ (λ0 − λ)·sin φ:
   * positive west of the central meridian (true north points to the right of grid north, e.g. +0.94° at
   * 106.6°W 35.8°N in UTM 13N, λ0 = 105°W), negative east of it. A direction with grid bearing β has true
   * azimuth β − convergenceRad.
   */
  convergenceRad(col: number, row: number): number;
  /** True ground size of a cell in `row` [m]: dx east-west, dy north-south. Projected: |pixel size| × metres per unit (constant). Geographic: N(φ)·cos φ·Δλ and M(φ)·Δφ at the row's centre latitude on the datum's ellipsoid. */
  cellSizeM(row: number): { dx: number; dy: number };
  /** Ellipsoid of the datum: semi-major axis [m] and first eccentricity squared. */
  readonly ellipsoid: { a: number; e2: number };
}

const D2R = Math.PI / 180;
const R2D = 180 / Math.PI;
/** Latitude step [rad] used to find the direction of true north (1e-4°, about 11 m). */
const NORTH_STEP = 1e-4 * D2R;

/** The parts of a proj4 projection object this module uses (proj4's typings do not list all of them). */
interface RawProjection {
  readonly a: number;
  readonly es: number;
  readonly to_meter?: number;
  readonly from_greenwich?: number;
  readonly axis?: string;
  forward(p: { x: number; y: number }): { x: number; y: number } | null | undefined;
  inverse(p: { x: number; y: number }): { x: number; y: number } | null | undefined;
}

/** Builds the geodesy of `grid` (projected grids: inverse projection on the CRS's own ellipsoid). */
export function createGeodesy(grid: GridSpec): Geodesy {
  const projection = proj4.Proj(grid.crs.proj4) as unknown as RawProjection;
  const ellipsoid = { a: projection.a, e2: projection.es };
  const [x0, dxPix, , y0, , dyPix] = grid.geoTransform;
  const pm = (projection.from_greenwich ?? 0) * R2D;

  if (grid.crs.kind === 'geographic') {
    const dLambda = Math.abs(dxPix) * D2R;
    const dPhi = Math.abs(dyPix) * D2R;
    return {
      ellipsoid,
      latLon: (col, row) => ({ latDeg: y0 + row * dyPix, lonDeg: wrapLongitude(x0 + col * dxPix + pm) }),
      convergenceRad: () => 0,
      cellSizeM: (row) => {
        const phi = (y0 + (row + 0.5) * dyPix) * D2R;
        const s = Math.sin(phi);
        const w = 1 - ellipsoid.e2 * s * s;
        const n = ellipsoid.a / Math.sqrt(w);
        const m = (ellipsoid.a * (1 - ellipsoid.e2)) / (w * Math.sqrt(w));
        return { dx: n * Math.cos(phi) * dLambda, dy: m * dPhi };
      },
    };
  }

  // GeoTIFF model space is x = easting-like, y = northing-like whatever the CRS's axis order; only
  // west- or south-oriented axes (e.g. South African Lo grids) flip a sign.
  const toMetre = projection.to_meter ?? 1;
  const axis = projection.axis ?? 'enu';
  const eastSign = axis.includes('w') ? -1 : 1;
  const northSign = axis.includes('s') ? -1 : 1;
  /** Grid coordinates → easting/northing in metres as the raw projection expects them. */
  const toEastNorth = (u: number, v: number) => ({ x: u * toMetre * eastSign, y: v * toMetre * northSign });
  const inverse = (col: number, row: number) => {
    const p = projection.inverse(toEastNorth(x0 + col * dxPix, y0 + row * dyPix));
    if (!p || !Number.isFinite(p.x) || !Number.isFinite(p.y)) {
      throw new RangeError(`Pixel (${col}, ${row}) lies outside the domain of the projection ${grid.crs.name}.`);
    }
    return p;
  };
  const cellSize = { dx: Math.abs(dxPix) * toMetre, dy: Math.abs(dyPix) * toMetre };
  return {
    ellipsoid,
    latLon: (col, row) => {
      const p = inverse(col, row);
      return { latDeg: p.y * R2D, lonDeg: wrapLongitude(p.x * R2D + pm) };
    },
    convergenceRad: (col, row) => {
      const p = inverse(col, row);
      // Step north (or south near the north pole) along the meridian and take the grid direction.
      const step = p.y + NORTH_STEP < Math.PI / 2 ? NORTH_STEP : -NORTH_STEP;
      const a = projection.forward({ x: p.x, y: p.y - step / 2 });
      const b = projection.forward({ x: p.x, y: p.y + step / 2 });
      if (!a || !b) throw new RangeError(`Pixel (${col}, ${row}) lies outside the domain of the projection ${grid.crs.name}.`);
      // Back to grid axes (east/north) with the same axis conventions.
      const de = (b.x - a.x) * eastSign;
      const dn = (b.y - a.y) * northSign;
      const bearing = Math.atan2(de, dn);
      return step > 0 ? bearing : wrapAngle(bearing + Math.PI);
    },
    cellSizeM: () => cellSize,
  };
}

/** Columns between exactly inverted cell centres in `cellCentreLatitudes`. */
const KNOT_SPACING = 8;
/** Largest accepted interpolation error [deg] at a segment's midpoint; worse segments are computed exactly. */
const INTERPOLATION_TOLERANCE_DEG = 1e-10;

/**
 * Latitude [deg] of every cell centre, row-major (index = row * width + col).
 * Projected grids invert the projection exactly at every 8th column (and the last) of each row and fill
 * the columns in between with the cubic through the four nearest exact points. Each segment is checked at
 * its midpoint against the exact value; where the cubic is off by more than 1e-10° (near a pole, say)
 * the whole segment is computed exactly. About 0.1–0.2 s for 1000×1000 cells.
 */
export function cellCentreLatitudes(grid: GridSpec): Float64Array {
  const { width, height } = grid;
  const out = new Float64Array(width * height);
  const geodesy = createGeodesy(grid);
  if (grid.crs.kind === 'geographic') {
    for (let r = 0; r < height; r++) out.fill(geodesy.latLon(0, r + 0.5).latDeg, r * width, (r + 1) * width);
    return out;
  }
  const knots: number[] = [];
  for (let c = 0; c < width; c += KNOT_SPACING) knots.push(c);
  if (knots[knots.length - 1] !== width - 1) knots.push(width - 1);
  const exact = new Float64Array(knots.length);
  // Weights of knots k-1, k, k+1, k+2 at offsets t = 0..7 inside a regular segment [k, k+1].
  const regular = Array.from({ length: KNOT_SPACING }, (_, t) => lagrangeWeights([-1, 0, 1, 2].map((j) => j * KNOT_SPACING), t));
  const half = KNOT_SPACING / 2;
  for (let r = 0; r < height; r++) {
    const row = r * width;
    const latAt = (c: number) => geodesy.latLon(c + 0.5, r + 0.5).latDeg;
    for (let k = 0; k < knots.length; k++) exact[k] = latAt(knots[k]!);
    for (let k = 0; k < knots.length; k++) out[row + knots[k]!] = exact[k]!;
    for (let k = 0; k + 1 < knots.length; k++) {
      const c0 = knots[k]!;
      const c1 = knots[k + 1]!;
      if (c1 - c0 < 2) continue;
      if (k >= 1 && k + 2 < knots.length && knots[k + 2]! - knots[k - 1]! === 3 * KNOT_SPACING) {
        const e0 = exact[k - 1]!;
        const e1 = exact[k]!;
        const e2 = exact[k + 1]!;
        const e3 = exact[k + 2]!;
        for (let t = 1; t < KNOT_SPACING; t++) {
          const w = regular[t]!;
          out[row + c0 + t] = w[0]! * e0 + w[1]! * e1 + w[2]! * e2 + w[3]! * e3;
        }
      } else {
        const lo = Math.max(0, Math.min(k - 1, knots.length - 4));
        const xs = knots.slice(lo, Math.min(knots.length, lo + 4));
        for (let c = c0 + 1; c < c1; c++) {
          const w = lagrangeWeights(xs, c);
          let sum = 0;
          for (let i = 0; i < w.length; i++) sum += w[i]! * exact[lo + i]!;
          out[row + c] = sum;
        }
      }
      const mid = c0 + Math.min(half, (c1 - c0) >> 1);
      const midExact = latAt(mid);
      if (Math.abs(out[row + mid]! - midExact) > INTERPOLATION_TOLERANCE_DEG) {
        for (let c = c0 + 1; c < c1; c++) out[row + c] = latAt(c);
      } else {
        out[row + mid] = midExact;
      }
    }
  }
  return out;
}

/** Lagrange interpolation weights of the nodes `xs` at `x`. */
function lagrangeWeights(xs: readonly number[], x: number): number[] {
  return xs.map((xi, i) => xs.reduce((w, xj, j) => (j === i ? w : (w * (x - xj)) / (xi - xj)), 1));
}

/** Longitude in (-180, 180]. */
function wrapLongitude(lon: number): number {
  if (lon > 180) return lon - 360 * Math.ceil((lon - 180) / 360);
  if (lon <= -180) return lon + 360 * (Math.floor((-180 - lon) / 360) + 1);
  return lon;
}

function wrapAngle(rad: number): number {
  return rad > Math.PI ? rad - 2 * Math.PI : rad <= -Math.PI ? rad + 2 * Math.PI : rad;
}
