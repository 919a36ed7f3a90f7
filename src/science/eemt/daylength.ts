/**
 * Astronomical day length for a flat horizon (no terrain).
 *
 * @see eemt-model.md §1.2 T2; FAO-56 Eqs. 24, 25, 34
 */
import { DAY_OF_YEAR_BEFORE_MONTH, DAYS_IN_MONTH, assertMonth } from './constants.js';

/**
 * Solar declination δ = 0.409·sin(2πJ/365 − 1.39) [rad].
 * @param dayOfYear day of the year J (1 = 1 January)
 * @see FAO-56 Eq. 24
 */
export function solarDeclination(dayOfYear: number): number {
  return 0.409 * Math.sin((2 * Math.PI * dayOfYear) / 365 - 1.39);
}

/**
 * Sunset hour angle ω_s = arccos(−tan φ · tan δ) [rad], clamped to [0, π] for polar day and night.
 * @param latitudeRad latitude φ [rad]
 * @param declinationRad solar declination δ [rad]
 * @see FAO-56 Eq. 25
 */
export function sunsetHourAngle(latitudeRad: number, declinationRad: number): number {
  const x = -Math.tan(latitudeRad) * Math.tan(declinationRad);
  return Math.acos(x < -1 ? -1 : x > 1 ? 1 : x);
}

/**
 * Astronomical day length N = 24/π · ω_s [h].
 * @param latitudeDeg latitude [° north]
 * @param dayOfYear day of the year J (1 = 1 January)
 * @see FAO-56 Eq. 34
 */
export function daylightHours(latitudeDeg: number, dayOfYear: number): number {
  return (24 / Math.PI) * sunsetHourAngle((latitudeDeg * Math.PI) / 180, solarDeclination(dayOfYear));
}

/**
 * Mean astronomical day length over the days of a month of the 365-day calendar, D_m [h].
 * @param latitudeDeg latitude [° north]
 * @param month 1 = January … 12 = December
 * @see eemt-model.md §1.2 T2
 */
export function monthlyMeanDaylightHours(latitudeDeg: number, month: number): number {
  assertMonth(month);
  const first = DAY_OF_YEAR_BEFORE_MONTH[month - 1]!;
  const days = DAYS_IN_MONTH[month - 1]!;
  let sum = 0;
  for (let k = 1; k <= days; k++) sum += daylightHours(latitudeDeg, first + k);
  return sum / days;
}
