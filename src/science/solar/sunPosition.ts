/**
 * Sun position for the r.sun daily model: declination, extraterrestrial irradiance, hour angle,
 * altitude, azimuth and the horizontal-plane sunrise/sunset.
 *
 * Conventions: angles in radians unless a name ends in `Deg`; the day of year runs 1–365; time is local
 * solar time of the cell (solar noon = 12:00, no equation of time), as in r.sun's daily mode.
 *
 * @see docs/solar-model.md §2 (Hofierka & Šúri 2002, "The solar radiation model for Open source GIS")
 */

const TWO_PI = 2 * Math.PI;

/**
 * Solar constant I₀ [W m⁻²] of r.sun (Hofierka & Šúri 2002), the same value Duffie & Beckman (2013, §1.2) use for
 * their extraterrestrial tables (Table 1.10.1).
 */
export const SOLAR_CONSTANT_W_PER_M2 = 1367;

/** Day angle of a 365.25-day year [rad] for day of year `day` (r.sun's convention). */
export function dayAngle(day: number): number {
  return (TWO_PI * day) / 365.25;
}

/**
 * Solar declination δ [rad], positive north.
 * δ = asin(0.3978 · sin(j′ − 1.4 + 0.0355 · sin(j′ − 0.0489))), j′ = 2π·day/365.25.
 * @see Hofierka & Šúri 2002, eq. 1 (Gruter 1984); solar-model.md §2.1
 */
export function solarDeclination(day: number): number {
  const d = dayAngle(day);
  return Math.asin(0.3978 * Math.sin(d - 1.4 + 0.0355 * Math.sin(d - 0.0489)));
}

/**
 * Extraterrestrial irradiance normal to the beam G₀ [W m⁻²], corrected for the earth–sun distance.
 * G₀ = I₀ · (1 + 0.03344 · cos(j′ − 0.048869)).
 * @param solarConstantWM2 I₀ [W m⁻²], {@link SOLAR_CONSTANT_W_PER_M2} by default (r.sun)
 * @see Šúri & Hofierka 2004, eq. 1; solar-model.md §2.1
 */
export function extraterrestrialIrradiance(day: number, solarConstantWM2 = SOLAR_CONSTANT_W_PER_M2): number {
  return solarConstantWM2 * (1 + 0.03344 * Math.cos(dayAngle(day) - 0.048869));
}

/** Hour angle T [rad] of local solar time `solarHour` [h]: (t − 12) · 15°/h, negative in the morning. */
export function hourAngle(solarHour: number): number {
  return ((solarHour - 12) * Math.PI) / 12;
}

/**
 * Sine of the geometric solar altitude h (no refraction): sin h = cos φ cos δ cos T + sin φ sin δ.
 * @param latitudeRad φ [rad]; @param declinationRad δ [rad]; @param hourAngleRad T [rad]
 */
export function sinSolarAltitude(latitudeRad: number, declinationRad: number, hourAngleRad: number): number {
  return (
    Math.cos(latitudeRad) * Math.cos(declinationRad) * Math.cos(hourAngleRad) +
    Math.sin(latitudeRad) * Math.sin(declinationRad)
  );
}

/**
 * Solar azimuth [rad], clockwise from true north (0 = N, π/2 = E, π = S), of the sun at hour angle T.
 * From the horizontal direction to the sun: east = −cos δ sin T, north = cos φ sin δ − sin φ cos δ cos T.
 * Returns 0 when the sun is exactly at the zenith.
 * @see solar-model.md §2.3
 */
export function solarAzimuth(latitudeRad: number, declinationRad: number, hourAngleRad: number): number {
  const east = -Math.cos(declinationRad) * Math.sin(hourAngleRad);
  const north =
    Math.cos(latitudeRad) * Math.sin(declinationRad) -
    Math.sin(latitudeRad) * Math.cos(declinationRad) * Math.cos(hourAngleRad);
  const azimuth = Math.atan2(east, north);
  return azimuth < 0 ? azimuth + TWO_PI : azimuth;
}

/**
 * Sunset hour angle ω₀ [rad] of a horizontal plane: acos(−tan φ tan δ); π in polar day, 0 in polar night.
 * Sunrise and sunset are at 12 ∓ ω₀·12/π local solar hours.
 * @see solar-model.md §2.4
 */
export function sunsetHourAngle(latitudeRad: number, declinationRad: number): number {
  const x = -Math.tan(latitudeRad) * Math.tan(declinationRad);
  if (x <= -1) return Math.PI;
  if (x >= 1) return 0;
  return Math.acos(x);
}

/** Unit vector from the ground to the sun in a local east-north-up frame (true north). */
export function sunDirection(
  latitudeRad: number,
  declinationRad: number,
  hourAngleRad: number,
): { east: number; north: number; up: number } {
  const cosDec = Math.cos(declinationRad);
  return {
    east: -cosDec * Math.sin(hourAngleRad),
    north: Math.cos(latitudeRad) * Math.sin(declinationRad) - Math.sin(latitudeRad) * cosDec * Math.cos(hourAngleRad),
    up: sinSolarAltitude(latitudeRad, declinationRad, hourAngleRad),
  };
}
