/**
 * Hillshade for map previews: the illumination of each cell's surface by a light at azimuth 315° (north-west)
 * and altitude 45°, the cartographic convention (Burrough & McDonnell 1998, "Principles of GIS", §8.3; the
 * formula of `gdaldem hillshade` and ESRI's Hillshade):
 *
 *   dz/dx = ((c + 2f + i) − (a + 2d + g)) / (8 Δx),   dz/dy = ((g + 2h + i) − (a + 2b + c)) / (8 Δy)
 *   slope = atan √(dz/dx² + dz/dy²),   aspect = atan2(dz/dy, −dz/dx)
 *   shade = cos Z cos slope + sin Z sin slope cos(A_math − aspect)
 *
 * over the 3 × 3 window a b c / d e f / g h i (row 0 north), Z = 90° − altitude, A_math = 90° − azimuth.
 * Neighbours off the grid or nodata take the centre's elevation. Display only: no physical quantity.
 */

/** Light of the hillshade: azimuth clockwise from north and altitude above the horizon [deg]. */
const HILLSHADE_LIGHT = { azimuthDeg: 315, altitudeDeg: 45 } as const;

/**
 * Shade in [0, 1] (0 facing away from the light, 1 facing it) of a `width` × `height` elevation grid [m]
 * with cells `cellSizeX(row)` × `cellSizeY(row)` metres; NaN where the elevation is NaN.
 */
export function hillshade(
  elevation: Float32Array,
  width: number,
  height: number,
  cellSizeM: (row: number) => { dx: number; dy: number },
  light: { azimuthDeg: number; altitudeDeg: number } = HILLSHADE_LIGHT,
): Float32Array {
  const zenith = ((90 - light.altitudeDeg) * Math.PI) / 180;
  const azimuthMath = ((90 - light.azimuthDeg) * Math.PI) / 180;
  const cosZ = Math.cos(zenith);
  const sinZ = Math.sin(zenith);
  const out = new Float32Array(width * height);
  for (let r = 0; r < height; r++) {
    const { dx, dy } = cellSizeM(r);
    const up = Math.max(0, r - 1);
    const down = Math.min(height - 1, r + 1);
    for (let c = 0; c < width; c++) {
      const e = elevation[r * width + c]!;
      if (e !== e) {
        out[r * width + c] = NaN;
        continue;
      }
      const left = Math.max(0, c - 1);
      const right = Math.min(width - 1, c + 1);
      const z = (row: number, col: number): number => {
        const v = elevation[row * width + col]!;
        return v === v ? v : e;
      };
      const a = z(up, left), b = z(up, c), cc = z(up, right);
      const d = z(r, left), f = z(r, right);
      const g = z(down, left), h = z(down, c), i = z(down, right);
      const dzdx = (cc + 2 * f + i - (a + 2 * d + g)) / (8 * dx);
      const dzdy = (g + 2 * h + i - (a + 2 * b + cc)) / (8 * dy);
      const slope = Math.atan(Math.hypot(dzdx, dzdy));
      const aspect = Math.atan2(dzdy, -dzdx);
      const shade = cosZ * Math.cos(slope) + sinZ * Math.sin(slope) * Math.cos(azimuthMath - aspect);
      out[r * width + c] = Math.min(1, Math.max(0, shade));
    }
  }
  return out;
}
