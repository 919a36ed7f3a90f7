/**
 * Real-sky irradiation from observed horizontal global irradiation (r.sun's real-sky approach with coefficients):
 *
 *  1. the observed horizontal global irradiation H is split into diffuse H_d and beam H_b = H − H_d by the
 *     clearness-index correlations of Erbs, Klein & Duffie (1982): the daily one on a day's K_T = H / H₀, or the
 *     monthly-average one on a month's K̄_T = H̄ / H̄₀;
 *  2. the real-sky coefficients c_b = H_b / B_clear,h and c_d = H_d / D_clear,h relate them to the clear-sky beam
 *     and diffuse of the solar engine on a horizontal unshaded surface (the coefficient rasters `coefbh`, `coefdh`
 *     of GRASS r.sun, Hofierka & Šúri 2002);
 *  3. the real-sky irradiation of a sloped, shaded surface is c_b × (its clear-sky beam and the ground reflection of
 *     the horizontal beam) + c_d × (its clear-sky diffuse and the ground reflection of the horizontal diffuse).
 *
 * Units: irradiation Wh m⁻² (per day or per month as named), angles rad, day of year 1–365.
 *
 * @see Erbs, D.G., Klein, S.A., Duffie, J.A. (1982) Estimation of the diffuse radiation fraction for hourly, daily
 *      and monthly-average global radiation. Solar Energy 28(4):293–302; as printed in Duffie, J.A., Beckman, W.A.
 *      (2013) Solar Engineering of Thermal Processes, 4th ed., Wiley: Eqs. 1.6.1a, 1.6.10, 1.10.3, 2.11.1, 2.12.1;
 *      Hofierka, J., Šúri, M. (2002) The solar radiation model for Open source GIS: implementation and
 *      applications. Proc. Open source GIS – GRASS users conference, Trento; docs/eemt-model.md §8
 */

import { DAYS_IN_MONTH } from '../calendar.js';
import { SOLAR_CONSTANT_W_PER_M2 } from './sunPosition.js';

const DEG = Math.PI / 180;

/**
 * Sunset hour angle that separates the two seasons of Erbs et al.'s daily and monthly correlations [rad]: 81.4°
 * (winter: ω_s ≤ 81.4°; spring, summer and autumn above).
 */
export const ERBS_SEASON_SUNSET_HOUR_ANGLE_RAD = 81.4 * DEG;

/** The range of monthly clearness indices the monthly-average correlation was fitted on (Erbs et al. 1982) [-]. */
export const ERBS_MONTHLY_CLEARNESS_RANGE: readonly [number, number] = [0.3, 0.8];

/**
 * The day of each month whose extraterrestrial irradiation is closest to the month's mean (Klein 1977, the
 * "recommended average day" of Duffie & Beckman 2013, Table 1.6.1), January first.
 */
export const AVERAGE_DAY_OF_MONTH: readonly number[] = Object.freeze([17, 47, 75, 105, 135, 162, 198, 228, 258, 288, 318, 344]);

/**
 * Solar declination δ [rad] of day `day` by Cooper (1969): δ = 23.45° sin(360° (284 + n) / 365).
 * @see Duffie & Beckman 2013, Eq. 1.6.1a
 */
export function cooperDeclination(day: number): number {
  return 23.45 * DEG * Math.sin((2 * Math.PI * (284 + day)) / 365);
}

/**
 * Sunset hour angle of a horizontal surface ω_s = arccos(−tan φ tan δ) [rad]; π in polar day, 0 in polar night.
 * @see Duffie & Beckman 2013, Eq. 1.6.10
 */
export function horizontalSunsetHourAngle(latitudeRad: number, declinationRad: number): number {
  const x = -Math.tan(latitudeRad) * Math.tan(declinationRad);
  return Math.acos(x < -1 ? -1 : x > 1 ? 1 : x);
}

/**
 * Day length N = 2 ω_s / 15° [h] of day `day` at latitude φ (sun centre above a flat horizon, no refraction).
 * @see Duffie & Beckman 2013, Eq. 1.6.11
 */
export function dayLengthHours(latitudeRad: number, day: number): number {
  return (24 / Math.PI) * horizontalSunsetHourAngle(latitudeRad, cooperDeclination(day));
}

/**
 * Daily extraterrestrial irradiation on a horizontal surface H₀ [Wh m⁻² day⁻¹]:
 * H₀ = (24/π) G_sc (1 + 0.033 cos(360° n / 365)) (cos φ cos δ sin ω_s + ω_s sin φ sin δ).
 * @see Duffie & Beckman 2013, Eq. 1.10.3 (there in J: × 3600)
 */
export function dailyExtraterrestrialHorizontalWhM2(latitudeRad: number, day: number): number {
  const declination = cooperDeclination(day);
  const omega = horizontalSunsetHourAngle(latitudeRad, declination);
  const distance = 1 + 0.033 * Math.cos((2 * Math.PI * day) / 365);
  const geometry = Math.cos(latitudeRad) * Math.cos(declination) * Math.sin(omega) + omega * Math.sin(latitudeRad) * Math.sin(declination);
  return (24 / Math.PI) * SOLAR_CONSTANT_W_PER_M2 * distance * Math.max(0, geometry);
}

/** Days of the months of the 365-day year, January first. */

/**
 * Monthly mean of the daily extraterrestrial irradiation on a horizontal surface H̄₀ [Wh m⁻² day⁻¹] of month
 * `month` (0 = January) of the 365-day year: the mean of H₀ over its days.
 * @see Duffie & Beckman 2013, Table 1.10.1 (these means, in MJ m⁻²)
 */
export function monthlyMeanExtraterrestrialHorizontalWhM2(latitudeRad: number, month: number): number {
  let first = 1;
  for (let m = 0; m < month; m++) first += DAYS_IN_MONTH[m]!;
  let sum = 0;
  for (let day = first; day < first + DAYS_IN_MONTH[month]!; day++) sum += dailyExtraterrestrialHorizontalWhM2(latitudeRad, day);
  return sum / DAYS_IN_MONTH[month]!;
}

/** Clearness index K_T = H / H₀ [-] (0 when H₀ is 0: polar night). @see Duffie & Beckman 2013, Eq. 2.9.1 */
export function clearnessIndex(globalWhM2: number, extraterrestrialWhM2: number): number {
  return extraterrestrialWhM2 > 0 ? globalWhM2 / extraterrestrialWhM2 : 0;
}

/**
 * Diffuse fraction of a day's horizontal global irradiation H_d / H [-] from the day's clearness index K_T and sunset
 * hour angle ω_s (Erbs et al. 1982, daily correlation):
 *   ω_s ≤ 81.4°: 1 − 0.2727 K_T + 2.4495 K_T² − 11.9514 K_T³ + 9.3879 K_T⁴ for K_T < 0.715, else 0.143;
 *   ω_s > 81.4°: 1 + 0.2832 K_T − 2.5557 K_T² + 0.8448 K_T³ for K_T < 0.722, else 0.175;
 * at most 1 (the second polynomial exceeds 1 below K_T ≈ 0.12, where all of H is diffuse).
 * @see Duffie & Beckman 2013, Eq. 2.11.1
 */
export function erbsDailyDiffuseFraction(clearness: number, sunsetHourAngleRad: number): number {
  const k = Math.max(0, clearness);
  if (sunsetHourAngleRad <= ERBS_SEASON_SUNSET_HOUR_ANGLE_RAD) {
    return k < 0.715 ? Math.min(1, 1 + k * (-0.2727 + k * (2.4495 + k * (-11.9514 + k * 9.3879)))) : 0.143;
  }
  return k < 0.722 ? Math.min(1, 1 + k * (0.2832 + k * (-2.5557 + k * 0.8448))) : 0.175;
}

/**
 * Diffuse fraction of a month's mean daily horizontal global irradiation H̄_d / H̄ [-] from the monthly clearness
 * index K̄_T and the sunset hour angle ω_s of the month's average day (Erbs et al. 1982, monthly-average correlation):
 *   ω_s ≤ 81.4°: 1.391 − 3.560 K̄_T + 4.189 K̄_T² − 2.137 K̄_T³;
 *   ω_s > 81.4°: 1.311 − 3.022 K̄_T + 3.427 K̄_T² − 1.821 K̄_T³,
 * fitted for 0.3 ≤ K̄_T ≤ 0.8: K̄_T outside is taken at the nearer end (ERBS_MONTHLY_CLEARNESS_RANGE).
 * @see Duffie & Beckman 2013, Eq. 2.12.1
 */
export function erbsMonthlyDiffuseFraction(clearness: number, sunsetHourAngleRad: number): number {
  const [low, high] = ERBS_MONTHLY_CLEARNESS_RANGE;
  const k = Math.min(high, Math.max(low, clearness));
  if (sunsetHourAngleRad <= ERBS_SEASON_SUNSET_HOUR_ANGLE_RAD) return 1.391 + k * (-3.56 + k * (4.189 - k * 2.137));
  return 1.311 + k * (-3.022 + k * (3.427 - k * 1.821));
}

/**
 * The diffuse part H_d = (H_d/H) H [Wh m⁻² day⁻¹] of a day's observed horizontal global irradiation H, by the daily
 * correlation (`erbsDailyDiffuseFraction`) on the day's clearness index.
 */
export function dailyDiffuseWhM2(globalWhM2: number, latitudeRad: number, day: number): number {
  const clearness = clearnessIndex(globalWhM2, dailyExtraterrestrialHorizontalWhM2(latitudeRad, day));
  return erbsDailyDiffuseFraction(clearness, horizontalSunsetHourAngle(latitudeRad, cooperDeclination(day))) * globalWhM2;
}

/** What the monthly correlation and the conversions of monthly grids need to know of a month at a latitude. */
export interface MonthGeometry {
  /** Days of the month (365-day year). */
  readonly days: number;
  /** Sum of the day lengths of its days (`dayLengthHours`) [h]. */
  readonly daylightHours: number;
  /** Monthly mean of the daily extraterrestrial irradiation on a horizontal surface H̄₀ [Wh m⁻² day⁻¹]. */
  readonly meanExtraterrestrialWhM2: number;
  /** Sunset hour angle of the month's average day (AVERAGE_DAY_OF_MONTH) [rad]. */
  readonly sunsetHourAngleRad: number;
}

/** The `MonthGeometry` of month `month` (0 = January) of the 365-day year at latitude φ. */
export function monthGeometry(latitudeRad: number, month: number): MonthGeometry {
  let first = 1;
  for (let m = 0; m < month; m++) first += DAYS_IN_MONTH[m]!;
  let daylightHours = 0;
  for (let day = first; day < first + DAYS_IN_MONTH[month]!; day++) daylightHours += dayLengthHours(latitudeRad, day);
  return {
    days: DAYS_IN_MONTH[month]!,
    daylightHours,
    meanExtraterrestrialWhM2: monthlyMeanExtraterrestrialHorizontalWhM2(latitudeRad, month),
    sunsetHourAngleRad: horizontalSunsetHourAngle(latitudeRad, cooperDeclination(AVERAGE_DAY_OF_MONTH[month]!)),
  };
}

/**
 * The diffuse part [Wh m⁻² month⁻¹] of a month's observed horizontal global irradiation (the month's sum), by the
 * monthly-average correlation (`erbsMonthlyDiffuseFraction`) on K̄_T = H̄ / H̄₀ and the sunset hour angle of the
 * month's average day.
 */
export function monthlyDiffuseWhM2(monthlyGlobalWhM2: number, month: MonthGeometry): number {
  const clearness = clearnessIndex(monthlyGlobalWhM2 / month.days, month.meanExtraterrestrialWhM2);
  return erbsMonthlyDiffuseFraction(clearness, month.sunsetHourAngleRad) * monthlyGlobalWhM2;
}

/**
 * A real-sky coefficient c = observed / clear-sky [-] (r.sun's `coefbh` or `coefdh`): how much of the clear-sky
 * beam (or diffuse) irradiation of a horizontal unshaded surface was observed. Not bounded by 1: under clouds the
 * observed diffuse commonly exceeds the clear-sky diffuse. 0 where the clear sky has none (polar night).
 */
export function realSkyCoefficient(observedWhM2: number, clearSkyWhM2: number): number {
  return clearSkyWhM2 > 0 ? observedWhM2 / clearSkyWhM2 : 0;
}

/**
 * Real-sky irradiation of a surface [Wh m⁻²]: c_b × its clear-sky beam-driven irradiation (the beam on the surface
 * and the ground reflection of the horizontal beam) + c_d × its clear-sky diffuse-driven irradiation (the sky
 * diffuse on the surface and the ground reflection of the horizontal diffuse). Never above the clear-sky sum when
 * c_b, c_d ≤ 1; on a horizontal unshaded surface it is the observed global irradiation.
 */
export function realSkyIrradiation(beamDrivenClearWhM2: number, diffuseDrivenClearWhM2: number, beamCoefficient: number, diffuseCoefficient: number): number {
  return beamCoefficient * beamDrivenClearWhM2 + diffuseCoefficient * diffuseDrivenClearWhM2;
}
