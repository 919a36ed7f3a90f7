/**
 * Reprojection of a climate grid onto the DEM grid without GDAL: every DEM cell centre is transformed
 * exactly into the climate grid's CRS with proj4 (one transform per target cell, done once per distinct
 * source grid and reused for every month), which gives its fractional pixel position in the source; the
 * value there is interpolated bilinearly from the four surrounding source cell centres (as gdalwarp
 * `-r bilinear` does when upsampling). Source nodata neighbours are left out and the weights of the others
 * renormalised, so cells along a coast keep a value; a position with no valid neighbour, or outside the
 * source raster, has none (NaN) and counts as uncovered.
 *
 * Geographic sources are also tried one turn (±360°) away, so a grid in 0…360° longitudes covers a DEM at
 * negative longitudes.
 */
import proj4 from '../raster/geo/proj4.js';
import type { GridSpec } from '../raster/types.js';

const WGS84_LONLAT = '+proj=longlat +datum=WGS84 +no_defs';

/** Fractional pixel position of each DEM cell centre in the source grid (0,0 = centre of the first source cell); NaN where the DEM has nodata or the transform fails. */
export interface SourcePositions {
  readonly col: Float64Array;
  readonly row: Float64Array;
}

/** Whether two grids are the same (then the positions of one serve the other). */
export function sameGrid(a: GridSpec, b: GridSpec): boolean {
  return a.width === b.width && a.height === b.height && a.crs.proj4 === b.crs.proj4 && a.geoTransform.every((v, i) => v === b.geoTransform[i]);
}

/**
 * The position of every DEM cell centre in `source` (see the module doc).
 * @param demElevationM per DEM cell; NaN cells are skipped (position NaN)
 */
export function sourcePixelPositions(dem: GridSpec, source: GridSpec, demElevationM: ArrayLike<number>): SourcePositions {
  const n = dem.width * dem.height;
  const col = new Float64Array(n).fill(Number.NaN);
  const row = new Float64Array(n).fill(Number.NaN);
  const identity = dem.crs.proj4 === source.crs.proj4;
  const converter = identity ? null : proj4(dem.crs.proj4, source.crs.proj4);
  const [dx0, ddx, , dy0, , ddy] = dem.geoTransform;
  const [sx0, sdx, , sy0, , sdy] = source.geoTransform;
  const geographic = source.crs.kind === 'geographic';
  const point = [0, 0];
  for (let r = 0; r < dem.height; r++) {
    const y = dy0 + (r + 0.5) * ddy;
    for (let c = 0; c < dem.width; c++) {
      const i = r * dem.width + c;
      if (Number.isNaN(demElevationM[i]!)) continue;
      point[0] = dx0 + (c + 0.5) * ddx;
      point[1] = y;
      let X: number, Y: number;
      if (converter) {
        try {
          const p = converter.forward(point);
          X = p[0]!;
          Y = p[1]!;
        } catch {
          continue;
        }
        if (!Number.isFinite(X) || !Number.isFinite(Y)) continue;
      } else {
        X = point[0]!;
        Y = point[1]!;
      }
      let fc = (X - sx0) / sdx - 0.5;
      if (geographic && (fc < -0.5 || fc > source.width - 0.5)) {
        const turn = 360 / sdx;
        if (fc + turn >= -0.5 && fc + turn <= source.width - 0.5) fc += turn;
        else if (fc - turn >= -0.5 && fc - turn <= source.width - 0.5) fc -= turn;
      }
      col[i] = fc;
      row[i] = (Y - sy0) / sdy - 0.5;
    }
  }
  return { col, row };
}

/**
 * Bilinear interpolation of `values` (a `width` × `height` source raster, NaN = nodata) at `positions`.
 * A position within half a cell outside the outer cell centres takes the border cells (the raster's own
 * extent is covered, as in GDAL); farther out it is NaN.
 */
export function bilinearAtPositions(values: ArrayLike<number>, width: number, height: number, positions: SourcePositions): Float32Array {
  const { col, row } = positions;
  const out = new Float32Array(col.length);
  for (let i = 0; i < out.length; i++) {
    const fc = col[i]!;
    const fr = row[i]!;
    if (!(fc >= -0.5 && fc <= width - 0.5 && fr >= -0.5 && fr <= height - 0.5)) {
      out[i] = Number.NaN;
      continue;
    }
    const cc = Math.min(Math.max(fc, 0), width - 1);
    const rr = Math.min(Math.max(fr, 0), height - 1);
    const c0 = Math.floor(cc), r0 = Math.floor(rr);
    const c1 = Math.min(c0 + 1, width - 1), r1 = Math.min(r0 + 1, height - 1);
    const tx = cc - c0, ty = rr - r0;
    let sum = 0, weight = 0;
    const add = (r: number, c: number, w: number) => {
      if (w <= 0) return;
      const v = values[r * width + c]!;
      if (Number.isNaN(v)) return;
      sum += w * v;
      weight += w;
    };
    add(r0, c0, (1 - tx) * (1 - ty));
    add(r0, c1, tx * (1 - ty));
    add(r1, c0, (1 - tx) * ty);
    add(r1, c1, tx * ty);
    out[i] = weight > 0 ? sum / weight : Number.NaN;
  }
  return out;
}

/** DEM cells with an elevation but no interpolated value, and the geographic box around them. */
export interface UncoveredCells {
  readonly count: number;
  readonly validCells: number;
  /** WGS84 box of the uncovered cells [degrees], null when all are covered. */
  readonly box: { readonly south: number; readonly north: number; readonly west: number; readonly east: number } | null;
}

/** Which valid DEM cells `sampled` leaves without a value. */
export function uncoveredCells(dem: GridSpec, demElevationM: ArrayLike<number>, sampled: ArrayLike<number>): UncoveredCells {
  let count = 0, validCells = 0;
  let c0 = Infinity, c1 = -Infinity, r0 = Infinity, r1 = -Infinity;
  for (let i = 0; i < sampled.length; i++) {
    if (Number.isNaN(demElevationM[i]!)) continue;
    validCells++;
    if (!Number.isNaN(sampled[i]!)) continue;
    count++;
    const r = Math.floor(i / dem.width), c = i - r * dem.width;
    c0 = Math.min(c0, c); c1 = Math.max(c1, c);
    r0 = Math.min(r0, r); r1 = Math.max(r1, r);
  }
  if (count === 0) return { count, validCells, box: null };
  const toLonLat = proj4(dem.crs.proj4, WGS84_LONLAT);
  const [x0, dx, , y0, , dy] = dem.geoTransform;
  const corners = [[c0, r0], [c1 + 1, r0], [c0, r1 + 1], [c1 + 1, r1 + 1]].map(([c, r]) => toLonLat.forward([x0 + c! * dx, y0 + r! * dy]));
  const lons = corners.map((p) => p[0]!), lats = corners.map((p) => p[1]!);
  return { count, validCells, box: { south: Math.min(...lats), north: Math.max(...lats), west: Math.min(...lons), east: Math.max(...lons) } };
}

const lat = (v: number) => `${Math.abs(v).toFixed(3)}°${v >= 0 ? 'N' : 'S'}`;
const lon = (v: number) => `${Math.abs(v).toFixed(3)}°${v >= 0 ? 'E' : 'W'}`;

/** "1200 of 40000 DEM cells, 45.100°N–45.200°N 7.000°E–7.100°E" */
export function describeUncovered(u: UncoveredCells): string {
  const where = u.box ? `, ${lat(u.box.south)}–${lat(u.box.north)} ${lon(u.box.west)}–${lon(u.box.east)}` : '';
  return `${u.count} of ${u.validCells} DEM cells${where}`;
}
