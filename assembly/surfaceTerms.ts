/**
 * The surface terms of a tile's cells from the kernel's elevation window and their Horn gradient
 * (assembly/dailyKernel.ts): `surfaceTerms` of src/science/solar/surface.ts, statement for statement — the same
 * IEEE operations on the same values and JavaScript's own Math functions (imported), so the same terms to the bit
 * (test/science/solar/surfaceTermsWasm.test.ts). A tile's terms ran in JavaScript that V8 had not optimised yet
 * (about 1 µs a cell: 10–14 ms of a 100 × 100 run's single tile).
 */

import { jsAtan, jsCos, jsExp, jsHypot, jsSin } from './javascriptMath';

/**
 * Writes the terms of the tileWidth × tileRows cells whose elevations (f32, NaN = nodata) start at cell
 * (row0, col0) of the window at `window` (`width` cells a row), with the gradient at fallEast and fallNorth (f64,
 * tile-local), into the tile-local arrays: valid and inclined (u8), the normal, r_sky, Muneer's f_g and shaded F_x,
 * the ground's view and p/p₀ (f64). Nodata cells get 0 everywhere. `scaleHeightM`: AIR_MASS_SCALE_HEIGHT_M,
 * `shadedCoefficient`: MUNEER_SHADED_COEFFICIENT (src/science/solar/clearSky.ts).
 */
export function surfaceTermsOfWindow(
  window: usize,
  width: i32,
  row0: i32,
  col0: i32,
  tileWidth: i32,
  tileRows: i32,
  fallEast: usize,
  fallNorth: usize,
  valid: usize,
  inclined: usize,
  normalEast: usize,
  normalNorth: usize,
  normalUp: usize,
  skyView: usize,
  muneerSlope: usize,
  shadedDiffuseFactor: usize,
  groundView: usize,
  pressureRatio: usize,
  scaleHeightM: f64,
  shadedCoefficient: f64,
): void {
  for (let r = 0; r < tileRows; r++) {
    const windowRow = window + ((<usize>(row0 + r) * <usize>width + <usize>col0) << 2);
    for (let c = 0; c < tileWidth; c++) {
      const i = <usize>(r * tileWidth + c);
      const at = i << 3;
      const z = <f64>load<f32>(windowRow + (<usize>c << 2));
      const e = load<f64>(fallEast + at);
      const north = load<f64>(fallNorth + at);
      if (isNaN(z) || isNaN(e) || isNaN(north)) {
        store<u8>(valid + i, 0);
        store<u8>(inclined + i, 0);
        store<f64>(normalEast + at, 0);
        store<f64>(normalNorth + at, 0);
        store<f64>(normalUp + at, 0);
        store<f64>(skyView + at, 0);
        store<f64>(muneerSlope + at, 0);
        store<f64>(shadedDiffuseFactor + at, 0);
        store<f64>(groundView + at, 0);
        store<f64>(pressureRatio + at, 0);
        continue;
      }
      const norm = Math.sqrt(1 + e * e + north * north);
      const slope = jsAtan(jsHypot(e, north));
      // skyViewFactor, muneerSlopeFunction and diffuseSlopeFactorShaded of clearSky.ts (each the same value
      // however often JavaScript computes it)
      const cosSlope = jsCos(slope);
      const half = jsSin(slope / 2);
      const sky = (1 + cosSlope) / 2;
      const fg = jsSin(slope) - slope * cosSlope - Math.PI * half * half;
      store<u8>(valid + i, 1);
      store<u8>(inclined + i, e != 0 || north != 0 ? 1 : 0);
      store<f64>(normalEast + at, e / norm);
      store<f64>(normalNorth + at, north / norm);
      store<f64>(normalUp + at, 1 / norm);
      store<f64>(skyView + at, sky);
      store<f64>(muneerSlope + at, fg);
      store<f64>(shadedDiffuseFactor + at, sky + shadedCoefficient * fg);
      store<f64>(groundView + at, (1 - cosSlope) / 2);
      store<f64>(pressureRatio + at, jsExp(-z / scaleHeightM));
    }
  }
}
