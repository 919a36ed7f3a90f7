/**
 * Clear-sky beam, diffuse and ground-reflected irradiance of the ESRA model as used by GRASS r.sun.
 * Angles in radians; irradiances in W m⁻²; elevation in metres.
 *
 * @see Rigollier, Bauer & Wald 2000 (ESRA clear-sky model); Šúri & Hofierka 2004 ("A new GIS-based solar
 *      radiation model and its application to photovoltaic assessments", Transactions in GIS 8(2));
 *      docs/solar-model.md §3–§5
 */

const DEG_PER_RAD = 180 / Math.PI;

/** Model parameters of a clear-sky run (the scalar model and the fast kernel). */
export interface ClearSkyParams {
  /** Time step [minutes]. */
  readonly stepMinutes: number;
  /** Linke turbidity T_L [-]. */
  readonly linkeTurbidity: number;
  /** Ground albedo ρ_g [-]. */
  readonly albedo: number;
  /** Solar constant I₀ [W m⁻²], default `SOLAR_CONSTANT_W_PER_M2` of sunPosition.ts. */
  readonly solarConstantWM2?: number;
}

/** Scale height of the atmosphere used for the elevation correction of the air mass [m]. */
export const AIR_MASS_SCALE_HEIGHT_M = 8434.5;

/**
 * Refraction correction Δh [rad] of the solar altitude (used only for the air mass).
 * Δh = 0.061359 · (0.1594 + 1.123 h + 0.065656 h²) / (1 + 28.9344 h + 277.3971 h²)
 * @param solarAltitudeRad geometric altitude h [rad]
 * @see Šúri & Hofierka 2004, eq. 4
 */
export function refractionCorrection(solarAltitudeRad: number): number {
  const h = solarAltitudeRad;
  return (0.061359 * (0.1594 + h * (1.123 + 0.065656 * h))) / (1 + h * (28.9344 + 277.3971 * h));
}

/** Station pressure ratio p/p₀ = exp(−z / 8434.5) [-] at elevation `elevationM` [m]. */
export function pressureRatio(elevationM: number): number {
  return Math.exp(-elevationM / AIR_MASS_SCALE_HEIGHT_M);
}

/**
 * Relative optical air mass at sea level m₀ [-] (Kasten & Young 1989) for the refracted altitude.
 * m₀ = 1 / (sin h_r + 0.50572 · (h_r° + 6.07995)^−1.6364), h_r = h + Δh.
 * Multiply by `pressureRatio(z)` for the air mass at elevation z.
 * @param solarAltitudeRad geometric altitude h [rad]
 * @see Šúri & Hofierka 2004, eq. 3
 */
export function seaLevelAirMass(solarAltitudeRad: number): number {
  const hr = solarAltitudeRad + refractionCorrection(solarAltitudeRad);
  return 1 / (Math.sin(hr) + 0.50572 * Math.pow(hr * DEG_PER_RAD + 6.07995, -1.6364));
}

/**
 * Relative optical air mass corrected for site elevation m [-].
 * @param solarAltitudeRad geometric altitude h [rad]; @param elevationM site elevation [m]
 * @see Šúri & Hofierka 2004, eq. 3–5; docs/solar-model.md §3
 */
export function relativeAirMass(solarAltitudeRad: number, elevationM: number): number {
  return pressureRatio(elevationM) * seaLevelAirMass(solarAltitudeRad);
}

/**
 * Air mass at which the Rayleigh optical thickness changes formula [-]. The two published branches do not meet:
 * τ_b jumps by up to 2e-4 there.
 * @see Šúri & Hofierka 2004, eq. 6
 */
export const RAYLEIGH_BRANCH_AIR_MASS = 20;

/**
 * Rayleigh optical thickness δ_R(m) [-] at relative air mass m (Kasten 1996 as in ESRA).
 * @see Šúri & Hofierka 2004, eq. 6
 */
export function rayleighOpticalThickness(airMass: number): number {
  const m = airMass;
  if (m <= RAYLEIGH_BRANCH_AIR_MASS) return 1 / (6.6296 + m * (1.7513 + m * (-0.1202 + m * (0.0065 - m * 0.00013))));
  return 1 / (10.4 + 0.718 * m);
}

/**
 * Beam transmittance of the clear atmosphere τ_b = exp(−0.8662 · T_L · m · δ_R(m)) [-].
 * It is also the beam clearness index K_b = B_h / (G₀ sin h) of the Muneer diffuse model.
 * @param linkeTurbidity T_L (air mass 2) [-]; @param airMass elevation-corrected m [-]
 * @see Šúri & Hofierka 2004, eq. 2
 */
export function beamTransmittance(linkeTurbidity: number, airMass: number): number {
  return Math.exp(-0.8662 * linkeTurbidity * airMass * rayleighOpticalThickness(airMass));
}

/**
 * Clear-sky beam irradiance on a horizontal surface B_h [W m⁻²]: G₀ · sin h · τ_b.
 * @param extraterrestrialWM2 G₀ [W m⁻²]; @param solarAltitudeRad h [rad]; @param elevationM z [m]
 * @see Šúri & Hofierka 2004, eq. 2; docs/solar-model.md §3
 */
export function beamHorizontal(
  extraterrestrialWM2: number,
  solarAltitudeRad: number,
  elevationM: number,
  linkeTurbidity: number,
): number {
  if (solarAltitudeRad <= 0) return 0;
  const m = relativeAirMass(solarAltitudeRad, elevationM);
  return extraterrestrialWM2 * Math.sin(solarAltitudeRad) * beamTransmittance(linkeTurbidity, m);
}

/** Coefficients of the ESRA diffuse model for one Linke turbidity. */
export interface DiffuseCoefficients {
  /** Diffuse transmission at zenith T_n [-]. */
  readonly tn: number;
  /** Coefficients of the diffuse solar-altitude function F_d = a1 + a2 sin h + a3 sin²h. */
  readonly a1: number;
  readonly a2: number;
  readonly a3: number;
}

/**
 * Diffuse transmission T_n and the coefficients A₁–A₃ of F_d(h) for Linke turbidity T_L.
 * A₁ is raised to 0.0022 / T_n where A₁·T_n < 0.0022 (T_L > 5.82).
 * @see Šúri & Hofierka 2004, eq. 7–9; docs/solar-model.md §4
 */
export function diffuseCoefficients(linkeTurbidity: number): DiffuseCoefficients {
  const tl = linkeTurbidity;
  const tn = -0.015843 + tl * (0.030543 + 0.0003797 * tl);
  let a1 = 0.26463 + tl * (-0.061581 + 0.0031408 * tl);
  if (a1 * tn < 0.0022) a1 = 0.0022 / tn;
  const a2 = 2.0402 + tl * (0.018945 - 0.011161 * tl);
  const a3 = -1.3025 + tl * (0.039231 + 0.0085079 * tl);
  return { tn, a1, a2, a3 };
}

/**
 * Clear-sky diffuse irradiance on a horizontal surface D_h = G₀ · T_n · F_d(h) [W m⁻²].
 * @see Šúri & Hofierka 2004, eq. 7
 */
export function diffuseHorizontal(extraterrestrialWM2: number, sinSolarAltitude: number, c: DiffuseCoefficients): number {
  if (sinSolarAltitude <= 0) return 0;
  const s = sinSolarAltitude;
  return extraterrestrialWM2 * c.tn * (c.a1 + s * (c.a2 + c.a3 * s));
}

/** Isotropic sky-view term r_sky = (1 + cos β)/2 [-] of a surface with slope β [rad]. */
export function skyViewFactor(slopeRad: number): number {
  return (1 + Math.cos(slopeRad)) / 2;
}

/** Muneer's slope function f_g = sin β − β cos β − π sin²(β/2) [-] for slope β [rad]. */
export function muneerSlopeFunction(slopeRad: number): number {
  const b = slopeRad;
  const half = Math.sin(b / 2);
  return Math.sin(b) - b * Math.cos(b) - Math.PI * half * half;
}

/**
 * Muneer's coefficient N = 0.00263 − 0.712 K_b − 0.6883 K_b² [-] of the slope function in the diffuse factor of a
 * sunlit surface.
 * @param beamClearness K_b = B_h / (G₀ sin h) [-]
 * @see Muneer 1990; Šúri & Hofierka 2004, eq. 13
 */
export function muneerSunlitCoefficient(beamClearness: number): number {
  return 0.00263 - beamClearness * (0.712 + 0.6883 * beamClearness);
}

/** Solar altitude below which Muneer's circumsolar term uses the low-sun form [rad]. @see Šúri & Hofierka 2004, eq. 15 */
export const MUNEER_LOW_SUN_ALTITUDE_RAD = 0.1;

/** Denominator 0.1 − 0.008 h of Muneer's low-sun circumsolar term [-]. @see Šúri & Hofierka 2004, eq. 15 */
export function muneerLowSunDenominator(solarAltitudeRad: number): number {
  return MUNEER_LOW_SUN_ALTITUDE_RAD - 0.008 * solarAltitudeRad;
}

/** Muneer's coefficient N of the slope function for a surface in shadow [-]. @see Muneer 1990; Šúri & Hofierka 2004, eqs. 11–13 */
export const MUNEER_SHADED_COEFFICIENT = 0.252271;

/** Muneer's F_x for a surface in shadow (terrain shadow or sun behind the plane): r_sky + 0.252271 f_g. */
export function diffuseSlopeFactorShaded(slopeRad: number): number {
  return skyViewFactor(slopeRad) + MUNEER_SHADED_COEFFICIENT * muneerSlopeFunction(slopeRad);
}

/**
 * Muneer's F_x for a sunlit inclined surface: the ratio of diffuse irradiance on the plane to D_h.
 * h ≥ 0.1 rad: (r_sky + N f_g)(1 − K_b) + K_b · sinIncidence / sin h;
 * h < 0.1 rad: (r_sky + N f_g)(1 − K_b) + K_b · sin β cos(A_LN) / (0.1 − 0.008 h),
 * with N = 0.00263 − 0.712 K_b − 0.6883 K_b² and A_LN = sun azimuth − surface aspect.
 * @param beamClearness K_b = B_h / (G₀ sin h) [-]
 * @param sinIncidence sine of the sun's elevation above the plane (cosine of the incidence angle) [-]
 * @param azimuthMinusAspectRad A_LN [rad]
 * @see Muneer 1990; Šúri & Hofierka 2004, eq. 11–15; docs/solar-model.md §4
 */
export function diffuseSlopeFactorSunlit(
  slopeRad: number,
  beamClearness: number,
  solarAltitudeRad: number,
  sinIncidence: number,
  azimuthMinusAspectRad: number,
): number {
  const kb = beamClearness;
  const n = muneerSunlitCoefficient(kb);
  const isotropic = (skyViewFactor(slopeRad) + n * muneerSlopeFunction(slopeRad)) * (1 - kb);
  if (solarAltitudeRad >= MUNEER_LOW_SUN_ALTITUDE_RAD) return isotropic + (kb * sinIncidence) / Math.sin(solarAltitudeRad);
  return isotropic + (kb * Math.sin(slopeRad) * Math.cos(azimuthMinusAspectRad)) / muneerLowSunDenominator(solarAltitudeRad);
}

/**
 * Ground-reflected irradiance on an inclined surface R = ρ_g (B_h + D_h)(1 − cos β)/2 [W m⁻²].
 * B_h is 0 when the surface is in shadow (r.sun's convention).
 * @see Šúri & Hofierka 2004, eq. 16
 */
export function groundReflected(albedo: number, beamHorizontalWM2: number, diffuseHorizontalWM2: number, slopeRad: number): number {
  return (albedo * (beamHorizontalWM2 + diffuseHorizontalWM2) * (1 - Math.cos(slopeRad))) / 2;
}
