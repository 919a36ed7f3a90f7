/**
 * The far sectors in which the sun samples of a run's days stand for a compute tile's sun tiles, compiled:
 * `sunSectors` of src/science/solar/dailyKernel.ts, statement for statement — the sample hours and the sun's
 * direction as assembly/sunSamples.ts computes them, with JavaScript's Math functions (imported), so the same
 * sectors (test/science/solar/sunSectorsWasm.test.ts). A tile's sectors ran in JavaScript that V8 had not
 * optimised yet: 7–10 ms of a 100 × 100 run's single tile (49 sun tiles, three days).
 */

import { jsCos, jsSin } from './javascriptMath';
import { firstSampleHour, gridAzimuth, sectorOf, sunsetHourAngle } from './sunSamples';

/**
 * Marks with 1, in the `directions` bytes at `sectors` (left as they are elsewhere), the far sectors in which a
 * sample of the `dayCount` days (their declinations, f64 at `declinations` [rad]) stands above the horizontal
 * for one of the `tileCount` sun tiles (latitudes and meridian convergences, f64 at `latitudes` and
 * `convergences` [rad]), every `stepHours` from the day's first sample; a sample within `slack` (of a sector) of
 * a boundary also marks the sector beyond it.
 */
export function sunSectorsOfDays(
  declinations: usize,
  dayCount: i32,
  latitudes: usize,
  convergences: usize,
  tileCount: i32,
  stepHours: f64,
  directions: i32,
  slack: f64,
  sectors: usize,
): void {
  const stepAngle = (stepHours * Math.PI) / 12;
  for (let d = 0; d < dayCount; d++) {
    const declination = load<f64>(declinations + (<usize>d << 3));
    const cosDec = jsCos(declination);
    const sinDec = jsSin(declination);
    for (let t = 0; t < tileCount; t++) {
      const latitude = load<f64>(latitudes + (<usize>t << 3));
      const convergence = load<f64>(convergences + (<usize>t << 3));
      const omega0 = sunsetHourAngle(latitude, declination);
      const firstHour = firstSampleHour(omega0, stepHours);
      const cosLat = jsCos(latitude);
      const sinLat = jsSin(latitude);
      let hourAngle = ((firstHour - 12) * Math.PI) / 12;
      for (let k = 0; ; k++) {
        const hour = firstHour + <f64>k * stepHours;
        const T = ((hour - 12) * Math.PI) / 12;
        const cosT = jsCos(T);
        if (cosLat * cosDec * cosT + sinLat * sinDec > 0) {
          const azimuth = gridAzimuth(-cosDec * jsSin(T), cosLat * sinDec - sinLat * cosDec * cosT, convergence);
          const sector = sectorOf(azimuth, directions);
          store<u8>(sectors + <usize>sector, 1);
          const within = (azimuth / (2 * Math.PI)) * <f64>directions - <f64>sector;
          if (within < slack) store<u8>(sectors + <usize>((sector + directions - 1) % directions), 1);
          if (within > 1 - slack) store<u8>(sectors + <usize>((sector + 1) % directions), 1);
        }
        hourAngle += stepAngle;
        if (hourAngle > omega0) break;
      }
    }
  }
}
