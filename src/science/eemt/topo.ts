/**
 * EEMT-TOPO: the topographic EEMT of one pixel and one month (radiation-adjusted temperature, Penman PET,
 * Fu/Zhang–Budyko AET, wetness-index redistribution, elevation/northness NPP).
 * Water in kg m⁻² (= mm), energy in J m⁻², radiation sums in Wh m⁻² month⁻¹ (r.sun), temperatures in °C.
 *
 * @see eemt-model.md §2 (steps P1–P10); Rasmussen et al. 2015 (VZJ), Eqs. 6–11
 */
import { lapseRateAdjustedTemperature } from '../climate/lapseRate.js';
import {
  airDensity,
  atmosphericPressure,
  meanSaturationVapourPressure,
  openWaterAerodynamicResistance,
  psychrometricConstant,
  saturationVapourPressureSlope,
} from './atmosphere.js';
import {
  DAYS_IN_YEAR,
  FAO56_LONGWAVE_KELVIN_OFFSET_K,
  LATENT_HEAT_VAPORISATION_J_PER_KG,
  SECONDS_PER_DAY,
  SECONDS_PER_HOUR,
  SPECIFIC_HEAT_AIR_J_PER_KG_K,
  STEFAN_BOLTZMANN_MJ_PER_K4_M2_DAY,
  eemtMonthSetting,
  resolveEemtOptions,
  type EemtMonthSetting,
  type EemtOptions,
  type EemtOptionsInput,
  PENMAN_SURFACE_ALBEDO,
  type NetRadiationMode,
  type TopoNppCoefficients,
} from './constants.js';
import {
  biomassEnergy,
  liethMonthlyNetPrimaryProductivity,
  liethNppMonthCounts,
  meanAirTemperature,
  precipitationEnergy,
} from './trad.js';

/**
 * Solar ratio S_i = S_topo / S_flat of two monthly radiation sums [-], with the guards of the spec:
 * 1 when S_flat ≤ 0 (no sun at all, e.g. polar night), and at least `minimumRatio` (deep shade).
 * NaN in either input gives NaN.
 * @param topographicRadiation S_topo, e.g. r.sun global radiation on the real surface [Wh m⁻² month⁻¹]
 * @param flatRadiation S_flat, the same on a horizontal unshaded surface [same units]
 * @see eemt-model.md §2.2 P1; VZJ15 L245–252
 */
export function solarRatio(topographicRadiation: number, flatRadiation: number, minimumRatio = 0.1): number {
  if (Number.isNaN(topographicRadiation) || Number.isNaN(flatRadiation)) return NaN;
  if (flatRadiation <= 0) return 1;
  const ratio = topographicRadiation / flatRadiation;
  return ratio < minimumRatio ? minimumRatio : ratio;
}

/** True when {@link solarRatio} clamps the raw ratio up to `minimumRatio` (for counting and logging). */
export function isSolarRatioClamped(topographicRadiation: number, flatRadiation: number, minimumRatio = 0.1): boolean {
  return flatRadiation > 0 && topographicRadiation / flatRadiation < minimumRatio;
}

/**
 * Radiation term of VZJ15 Eq. 6, C·(S_i − 1/S_i) [K], added to the lapse-adjusted Tmax.
 * @param solarRatioValue S_i [-] (> 0)
 * @param coefficientK C [K] (default 1)
 * @see eemt-model.md §2.2 P2; VZJ15 Eq. 6
 */
export function solarTemperatureOffset(solarRatioValue: number, coefficientK = 1): number {
  return coefficientK * (solarRatioValue - 1 / solarRatioValue);
}

/**
 * Topographic maximum temperature Tmax' = Tmax − Γ(z − z_ref)/1000 + C(S_i − 1/S_i) [°C].
 * @see eemt-model.md §2.2 P2; VZJ15 Eq. 6 (without the LAI factor)
 */
export function topographicMaxTemperature(
  tmaxC: number,
  elevationM: number,
  referenceElevationM: number,
  lapseRateKPerKm: number,
  solarRatioValue: number,
  coefficientK = 1,
): number {
  return (
    lapseRateAdjustedTemperature(tmaxC, elevationM, referenceElevationM, lapseRateKPerKm) +
    solarTemperatureOffset(solarRatioValue, coefficientK)
  );
}

/**
 * Cloudiness factor of the net longwave radiation, 1.35·R_s/R_so − 0.35 [-] (1 under a clear sky, R_s = R_so).
 * @param relativeShortwave R_s/R_so, the shortwave radiation relative to its clear-sky value (≤ 1)
 * @see FAO-56 Eq. 39
 */
export function longwaveCloudinessFactor(relativeShortwave: number): number {
  return 1.35 * relativeShortwave - 0.35;
}

/**
 * Net outgoing longwave radiation of one day [MJ m⁻² day⁻¹]:
 * σ·[(Tmax+273.16)⁴ + (Tmin+273.16)⁴]/2 · (0.34 − 0.14 √e_a) · cloudiness.
 * @param eaKPa actual vapour pressure [kPa] (negative values treated as 0)
 * @param cloudiness 1.35 R_s/R_so − 0.35 (see {@link longwaveCloudinessFactor}); 1 under a clear sky
 * @see FAO-56 Eq. 39
 */
export function netLongwaveRadiation(tmaxC: number, tminC: number, eaKPa: number, cloudiness = 1): number {
  const tx = tmaxC + FAO56_LONGWAVE_KELVIN_OFFSET_K;
  const tn = tminC + FAO56_LONGWAVE_KELVIN_OFFSET_K;
  const tx2 = tx * tx;
  const tn2 = tn * tn;
  return STEFAN_BOLTZMANN_MJ_PER_K4_M2_DAY * 0.5 * (tx2 * tx2 + tn2 * tn2) * (0.34 - 0.14 * Math.sqrt(Math.max(eaKPa, 0))) * cloudiness;
}

/**
 * Clear-sky net outgoing longwave radiation of one day [MJ m⁻² day⁻¹]: {@link netLongwaveRadiation} with the
 * cloudiness factor 1.35 R_s/R_so − 0.35 = 1 (the r.sun radiation is clear-sky).
 * @see eemt-model.md §2.2 P3; FAO-56 Eq. 39
 */
export function clearSkyNetLongwaveRadiation(tmaxC: number, tminC: number, eaKPa: number): number {
  return netLongwaveRadiation(tmaxC, tminC, eaKPa, 1);
}

/**
 * Net radiation of a month [J m⁻² month⁻¹] from the r.sun global radiation on the real surface.
 * - `net`: R_n = (1 − alb)·3600·S_topo − n·10⁶·R_nl (clear-sky FAO-56 longwave)
 * - `global`: R_n = 3600·S_topo (no albedo, no longwave; the reemt.sh intent, compatibility only)
 * @param topographicRadiationWhM2 S_topo [Wh m⁻² month⁻¹]
 * @param eaKPa actual vapour pressure [kPa]
 * @param days days in the month
 * @param cloudiness longwave cloudiness factor 1.35 R_s/R_so − 0.35 (default 1: the clear sky of the r.sun radiation)
 * @see eemt-model.md §2.2 P3; FAO-56 Eqs. 38–40
 */
export function monthlyNetRadiation(
  topographicRadiationWhM2: number,
  tmaxC: number,
  tminC: number,
  eaKPa: number,
  days: number,
  albedo = PENMAN_SURFACE_ALBEDO,
  mode: NetRadiationMode = 'net',
  cloudiness = 1,
): number {
  if (mode === 'global') return topographicRadiationWhM2 * SECONDS_PER_HOUR;
  const shortwave = (1 - albedo) * topographicRadiationWhM2 * SECONDS_PER_HOUR;
  return shortwave - netLongwaveRadiation(tmaxC, tminC, eaKPa, cloudiness) * 1e6 * days;
}

/**
 * Monthly Penman potential evaporation with zero surface resistance (open water / "pan") [mm month⁻¹]:
 * [Δ·R_n + ρ_a·c_p·VPD·t/r_a] / [λ·(Δ + γ)], floored at 0, with Δ at the mean temperature,
 * e_s from the extremes, e_a = vp, VPD ≥ 0 and t the seconds of the month.
 * @param tmaxC, tminC monthly mean daily extremes at the pixel [°C]
 * @param vapourPressurePa actual vapour pressure (Daymet vp) [Pa]
 * @param elevationM pixel elevation (for pressure) [m]
 * @param netRadiationJPerM2 R_n of the month [J m⁻² month⁻¹]
 * @param days days in the month
 * @param aerodynamicResistanceSPerM r_a [s m⁻¹] (see {@link openWaterAerodynamicResistance})
 * @param surfaceResistanceSPerM r_s [s m⁻¹]: 0 for EEMT-TOPO (open water); the denominator becomes
 *   λ·(Δ + γ(1 + r_s/r_a)), FAO-56 Eq. 3 (with r_s = 70, r_a = 208/u₂ the FAO-56 grass reference ET₀)
 * @see eemt-model.md §2.2 P3; FAO-56 Eq. 3 with r_s = 0; Penman (1948)
 */
export function penmanOpenWaterPotentialEvapotranspiration(
  tmaxC: number,
  tminC: number,
  vapourPressurePa: number,
  elevationM: number,
  netRadiationJPerM2: number,
  days: number,
  aerodynamicResistanceSPerM: number,
  surfaceResistanceSPerM = 0,
): number {
  const t = meanAirTemperature(tmaxC, tminC);
  const delta = saturationVapourPressureSlope(t);
  const pressure = atmosphericPressure(elevationM);
  const gamma = psychrometricConstant(pressure);
  const vpd = Math.max(meanSaturationVapourPressure(tmaxC, tminC) - vapourPressurePa / 1000, 0);
  const rho = airDensity(pressure, t);
  const seconds = SECONDS_PER_DAY * days;
  const numerator = delta * netRadiationJPerM2 + ((rho * SPECIFIC_HEAT_AIR_J_PER_KG_K * vpd) / aerodynamicResistanceSPerM) * seconds;
  const denominator = delta + (surfaceResistanceSPerM === 0 ? gamma : gamma * (1 + surfaceResistanceSPerM / aerodynamicResistanceSPerM));
  return Math.max(numerator / (LATENT_HEAT_VAPORISATION_J_PER_KG * denominator), 0);
}

/**
 * Actual evapotranspiration from the Fu / Zhang–Budyko curve [same units as the inputs, mm month⁻¹]:
 * AET = P·[1 + φ − (1 + φ^ω)^(1/ω)], φ = PET/P; 0 when P ≤ 0 or PET ≤ 0. The result is also clipped to
 * [0, min(P, PET)] against floating-point rounding. NaN in gives NaN.
 * @param omega shape parameter ω (default 2.63)
 * @see eemt-model.md §2.2 P4; VZJ15 Eq. 8; Fu (1981); Zhang et al. (2004)
 */
export function fuBudykoActualEvapotranspiration(precipitationMm: number, potentialEvapotranspirationMm: number, omega = 2.63): number {
  if (Number.isNaN(precipitationMm) || Number.isNaN(potentialEvapotranspirationMm)) return NaN;
  if (precipitationMm <= 0 || potentialEvapotranspirationMm <= 0) return 0;
  const phi = potentialEvapotranspirationMm / precipitationMm;
  // powers as exp/log (φ > 0): same value to ~1e-15, twice as fast as Math.pow in V8
  const aet = precipitationMm * (1 + phi - Math.exp(Math.log(1 + Math.exp(omega * Math.log(phi))) / omega));
  const upper = Math.min(precipitationMm, potentialEvapotranspirationMm);
  return aet < 0 ? 0 : aet > upper ? upper : aet;
}

/**
 * Effective precipitation of EEMT-TOPO, Peff = PPT − AET [mm month⁻¹] (never negative).
 * @see eemt-model.md §2.2 P5
 */
export function budykoEffectivePrecipitation(precipitationMm: number, actualEvapotranspirationMm: number): number {
  return Math.max(precipitationMm - actualEvapotranspirationMm, 0);
}

/**
 * Water flux redistributed by the mass-conserving wetness index, F = α·Peff [kg m⁻² month⁻¹].
 * @param wetnessRatio α = λ/λ̄ [-] (see terrain/wetness.ts)
 * @see eemt-model.md §2.2 P6; VZJ15 Eq. 10
 */
export function redistributedWaterFlux(wetnessRatio: number, effectivePrecipitationMm: number): number {
  return wetnessRatio * effectivePrecipitationMm;
}

/**
 * Northness n = cos(aspect) · sin(slope) [-], −1 (south-facing cliff) … +1 (north-facing cliff), 0 when flat.
 * @param slopeRad slope angle β [rad]
 * @param aspectRad aspect θ, clockwise from north [rad]
 * @see eemt-model.md §2.2 P8; VZJ15 L399–403
 */
export function northness(slopeRad: number, aspectRad: number): number {
  if (slopeRad === 0) return 0;
  return Math.cos(aspectRad) * Math.sin(slopeRad);
}

/**
 * Annual NPP of the topographic regression, max(a·z + b·n + c, floor) [g DM m⁻² yr⁻¹]
 * (default a = 0.39, b = 346, c = −187, floor = 100; fitted in the Santa Catalina Mountains, ~800–2800 m).
 * @param elevationM z [m]
 * @param northnessValue n [-]
 * @see eemt-model.md §2.2 P9; VZJ15 Eq. 11
 */
export function topographicNetPrimaryProductivity(
  elevationM: number,
  northnessValue: number,
  coefficients: TopoNppCoefficients = {
    elevationGPerM2YrPerM: 0.39,
    northnessGPerM2Yr: 346,
    interceptGPerM2Yr: -187,
    floorGPerM2Yr: 100,
  },
): number {
  const npp =
    coefficients.elevationGPerM2YrPerM * elevationM +
    coefficients.northnessGPerM2Yr * northnessValue +
    coefficients.interceptGPerM2Yr;
  return Math.max(npp, coefficients.floorGPerM2Yr);
}

/** Share of an annual amount assigned to a month of `days` days, amount · days/365. @see eemt-model.md §2.2 P9 */
export function monthlyShare(annualAmount: number, days: number): number {
  return (annualAmount * days) / DAYS_IN_YEAR;
}

/**
 * NPP of EEMT-TOPO assigned to one month [g DM m⁻² month⁻¹] by the chosen model:
 * - `regression`: max(0.39 z + 346 n − 187, 100) × n_m/365 (VZJ15 Eq. 11), every month;
 * - `lieth`: Lieth's rate at the month's topographic mean temperature T × n_m/365, in the months the gate lets
 *   through (`temperature`: T > 0 °C). No water condition: EEMT-TOPO's water balance is the Budyko step.
 * @param meanTemperatureC the month's mean temperature at the pixel, with the solar term of Eq. 6 [°C]
 * @see eemt-model.md §2.2 P9
 */
export function topoMonthlyNetPrimaryProductivity(
  opts: Pick<EemtOptions, 'topoNppModel' | 'topoNpp' | 'lieth' | 'liethNppGate'>,
  elevationM: number,
  northnessValue: number,
  meanTemperatureC: number,
  days: number,
): number {
  if (opts.topoNppModel === 'regression') return monthlyShare(topographicNetPrimaryProductivity(elevationM, northnessValue, opts.topoNpp), days);
  if (Number.isNaN(meanTemperatureC)) return NaN;
  return liethNppMonthCounts(meanTemperatureC, opts.liethNppGate) ? liethMonthlyNetPrimaryProductivity(meanTemperatureC, days, opts.lieth) : 0;
}

/** Inputs of {@link eemtTopoMonthPixel}: Daymet monthly values, terrain and radiation of one pixel. */
export interface TopoPixelInputs {
  /** Monthly mean daily maximum temperature at the Daymet cell [°C]. */
  readonly tmaxC: number;
  /** Monthly mean daily minimum temperature at the Daymet cell [°C]. */
  readonly tminC: number;
  /** Monthly precipitation total [mm month⁻¹]. */
  readonly prcpMm: number;
  /** Monthly mean vapour pressure [Pa]. */
  readonly vpPa: number;
  /** Pixel elevation z [m]. */
  readonly elevationM: number;
  /** Daymet cell elevation z_ref [m]. */
  readonly referenceElevationM: number;
  /** Monthly global radiation on the real (sloped, shaded) surface [Wh m⁻² month⁻¹]. */
  readonly topographicRadiationWhM2: number;
  /** Monthly global radiation on a flat unshaded surface [Wh m⁻² month⁻¹]. */
  readonly flatRadiationWhM2: number;
  /** Mass-conserving wetness index α = λ/λ̄ [-]. */
  readonly wetnessRatio: number;
  /** Northness n = cos(aspect)·sin(slope) [-]. */
  readonly northness: number;
}

/** Every intermediate of EEMT-TOPO for one pixel and one month. */
export interface TopoPixelMonth {
  readonly solarRatio: number;
  readonly solarRatioClamped: boolean;
  readonly tmaxC: number;
  readonly tminC: number;
  readonly meanTemperatureC: number;
  readonly netRadiationMJ: number;
  readonly petMm: number;
  readonly aetMm: number;
  readonly peffMm: number;
  readonly waterFluxMm: number;
  readonly nppGPerM2: number;
  /** E_PPT [MJ m⁻² month⁻¹]. */
  readonly ePptMJ: number;
  /** E_BIO [MJ m⁻² month⁻¹]. */
  readonly eBioMJ: number;
  /** EEMT_TOPO [MJ m⁻² month⁻¹]. */
  readonly eemtMJ: number;
}

/**
 * EEMT-TOPO of one pixel and one month (steps P1–P10).
 * @param month 1 = January … 12 = December
 * @see eemt-model.md §2.2; §6.3 (worked example)
 */
export function eemtTopoMonthPixel(month: number, inputs: TopoPixelInputs, options: EemtOptionsInput = {}): TopoPixelMonth {
  const opts = resolveEemtOptions(options);
  const scratch = new Float64Array(TOPO_SCRATCH_LENGTH);
  topoCellInto(
    scratch,
    topoMonthSetting(month, opts),
    inputs.tmaxC,
    inputs.tminC,
    inputs.prcpMm,
    inputs.vpPa,
    inputs.elevationM,
    inputs.referenceElevationM,
    inputs.topographicRadiationWhM2,
    inputs.flatRadiationWhM2,
    inputs.wetnessRatio,
    inputs.northness,
  );
  return {
    solarRatio: scratch[0]!,
    solarRatioClamped: scratch[1] === 1,
    tmaxC: scratch[2]!,
    tminC: scratch[3]!,
    meanTemperatureC: scratch[4]!,
    netRadiationMJ: scratch[5]!,
    petMm: scratch[6]!,
    aetMm: scratch[7]!,
    peffMm: scratch[8]!,
    waterFluxMm: scratch[9]!,
    nppGPerM2: scratch[10]!,
    ePptMJ: scratch[11]!,
    eBioMJ: scratch[12]!,
    eemtMJ: scratch[13]!,
  };
}

/** Length of the scratch buffer of {@link topoCellInto}. */
export const TOPO_SCRATCH_LENGTH = 14;

/** What every cell of one month shares in the TOPO chain: {@link EemtMonthSetting} and the aerodynamic resistance. */
export interface TopoMonthSetting extends EemtMonthSetting {
  /** r_a of the open-water Penman PET [s m⁻¹] (see {@link openWaterAerodynamicResistance}). */
  readonly aerodynamicResistanceSPerM: number;
}

/** The {@link TopoMonthSetting} of `month` (1..12) under resolved options. */
export function topoMonthSetting(month: number, options: EemtOptions): TopoMonthSetting {
  const { days, lapseRateTmaxKPerKm, lapseRateTminKPerKm } = eemtMonthSetting(month, options);
  const aerodynamicResistanceSPerM = openWaterAerodynamicResistance(options.windSpeedMPerS, options.measurementHeightM, options.roughnessLengthM);
  // one object literal: a fixed shape, read fast by every cell
  return { options, days, lapseRateTmaxKPerKm, lapseRateTminKPerKm, aerodynamicResistanceSPerM };
}

/**
 * The TOPO chain for one cell, written into `scratch`: [S_i, clamped (0/1), Tmax', Tmin', T, R_n MJ, PET, AET,
 * Peff, F, NPP_m, E_PPT MJ, E_BIO MJ, EEMT MJ]. Shared by the scalar function and the kernel so both do the same
 * arithmetic (no allocation). What the month's cells share comes as one record built once per month; the cell's
 * own values stay positional because the kernel calls this for every cell and month (no record to fill and read
 * per cell).
 * @param tmax, tmin Daymet temperatures [°C]; @param prcp [mm month⁻¹]; @param vp vapour pressure [Pa]
 * @param z pixel elevation [m]; @param zRef Daymet cell elevation [m]
 * @param sTopo, sFlat monthly radiation sums S_topo, S_flat [Wh m⁻² month⁻¹]
 * @param alpha wetness ratio α [-]; @param north northness [-]
 */
export function topoCellInto(
  scratch: Float64Array,
  month: TopoMonthSetting,
  tmax: number,
  tmin: number,
  prcp: number,
  vp: number,
  z: number,
  zRef: number,
  sTopo: number,
  sFlat: number,
  alpha: number,
  north: number,
): void {
  if (Number.isNaN(tmax + tmin + prcp + vp + z + zRef + sTopo + sFlat + alpha + north)) {
    scratch.fill(NaN);
    return;
  }
  const { options: opts, days } = month;
  const ratio = solarRatio(sTopo, sFlat, opts.minimumSolarRatio);
  const tmaxC = topographicMaxTemperature(tmax, z, zRef, month.lapseRateTmaxKPerKm, ratio, opts.solarTemperatureCoefficientK);
  const tminC = lapseRateAdjustedTemperature(tmin, z, zRef, month.lapseRateTminKPerKm);
  const t = meanAirTemperature(tmaxC, tminC);
  const rn = monthlyNetRadiation(sTopo, tmaxC, tminC, vp / 1000, days, opts.albedo, opts.rnMode);
  const pet = penmanOpenWaterPotentialEvapotranspiration(tmaxC, tminC, vp, z, rn, days, month.aerodynamicResistanceSPerM);
  const aet = fuBudykoActualEvapotranspiration(prcp, pet, opts.budykoOmega);
  const peff = budykoEffectivePrecipitation(prcp, aet);
  const flux = redistributedWaterFlux(alpha, peff);
  const npp = topoMonthlyNetPrimaryProductivity(opts, z, north, t, days);
  const ePpt = precipitationEnergy(flux, t, opts.specificHeatWaterJPerKgK) / 1e6;
  const eBio = biomassEnergy(npp, opts.biomassEnthalpyJPerKg) / 1e6;
  scratch[0] = ratio;
  scratch[1] = isSolarRatioClamped(sTopo, sFlat, opts.minimumSolarRatio) ? 1 : 0;
  scratch[2] = tmaxC;
  scratch[3] = tminC;
  scratch[4] = t;
  scratch[5] = rn / 1e6;
  scratch[6] = pet;
  scratch[7] = aet;
  scratch[8] = peff;
  scratch[9] = flux;
  scratch[10] = npp;
  scratch[11] = ePpt;
  scratch[12] = eBio;
  scratch[13] = ePpt + eBio;
}
