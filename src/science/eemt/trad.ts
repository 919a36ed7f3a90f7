/**
 * EEMT-TRAD: the climate-only ("traditional") EEMT of one pixel and one month.
 * Water in kg m⁻² (= mm), energy in J m⁻², NPP in g dry matter m⁻², temperatures in °C.
 *
 * @see eemt-model.md §1 (steps T1–T8) and §0.4 (core identity EEMT = E_PPT + E_BIO)
 */
import { lapseRateAdjustedTemperature } from '../climate/lapseRate.js';
import { saturationVapourPressure } from './atmosphere.js';
import {
  BIOMASS_ENTHALPY_J_PER_KG,
  DAYS_IN_YEAR,
  SPECIFIC_HEAT_WATER_J_PER_KG_K,
  eemtMonthSetting,
  resolveEemtOptions,
  type EemtMonthSetting,
  type EemtOptionsInput,
  LIETH_MIAMI_COEFFICIENTS,
  type LiethCoefficients,
  type LiethNppGate,
  type PetMethod,
} from './constants.js';
import { monthlyMeanDaylightHours } from './daylength.js';

/** Monthly mean air temperature as the mean of the mean daily extremes, (Tmax + Tmin)/2 [°C]. @see eemt-model.md §1.2 T1 */
export function meanAirTemperature(tmaxC: number, tminC: number): number {
  return 0.5 * (tmaxC + tminC);
}

/**
 * Coefficient of Hamon's PET in Haith & Shoemaker's (1987) form E = k·H²·e_s/(T + 273), with E in cm day⁻¹, H the
 * day length [h] and e_s the saturation vapour pressure [mb] (Hamon 1961: 0.55·(H/12)²·ρ_sat/100 in day⁻¹ with the
 * saturated vapour density ρ_sat [g m⁻³]).
 * @see Haith, D.A., Shoemaker, L.L. (1987) Generalized watershed loading functions for stream flow nutrients.
 *   Water Resources Bulletin 23(3):471–478, Eq. for E_t
 */
export const HAITH_SHOEMAKER_COEFFICIENT_CM_PER_DAY = 0.021;
/** The Kelvin offset Haith & Shoemaker (1987) write in Hamon's PET, T + 273 [K]. */
export const HAITH_SHOEMAKER_KELVIN_OFFSET_K = 273;
/**
 * Coefficient of the linear Hamon form 29.8·D·e_s/(T + 273.2) [mm day⁻¹ h⁻¹ kPa⁻¹ K]: Hamon (1963) as written by
 * Lu et al. (2005, J. Am. Water Resour. Assoc. 41:621–633), 0.1651·(D/12)·ρ_sat with ρ_sat = 216.7·e_s[mb]/(T + 273.3);
 * reemt.sh L153 and this project's first default.
 */
export const HAMON_LINEAR_COEFFICIENT_MM_PER_DAY = 29.8;
/** The Kelvin offset of the linear Hamon form, T + 273.2 [K]. */
export const HAMON_LINEAR_KELVIN_OFFSET_K = 273.2;

/**
 * Hamon potential evapotranspiration of one day in Haith & Shoemaker's (1987) form [mm day⁻¹]:
 * E = 0.021·H²·e_s/(T + 273) cm day⁻¹ with e_s in mb, i.e. 2.1·H²·e_s[kPa]/(T + 273) mm day⁻¹. Zero when T ≤ 0 °C
 * (Haith & Shoemaker set E_t = 0 on days with T_t ≤ 0).
 * @param meanTemperatureC mean air temperature T [°C]
 * @param daylightHours day length H [h]
 * @see eemt-model.md §1.2 T3; Haith & Shoemaker (1987); Hamon (1961); cited by Rasmussen et al. 2015 (VZJ) for PET_H
 */
export function hamonDailyPotentialEvapotranspiration(meanTemperatureC: number, daylightHours: number): number {
  if (meanTemperatureC <= 0) return 0;
  const esMb = saturationVapourPressure(meanTemperatureC) * 10;
  const cmPerDay = (HAITH_SHOEMAKER_COEFFICIENT_CM_PER_DAY * daylightHours * daylightHours * esMb) / (meanTemperatureC + HAITH_SHOEMAKER_KELVIN_OFFSET_K);
  return cmPerDay * 10;
}

/**
 * Linear Hamon potential evapotranspiration of one day, 29.8·D·e_s(T)/(T + 273.2) [mm day⁻¹]; zero when T ≤ 0 °C.
 * @param meanTemperatureC mean air temperature T [°C]
 * @param daylightHours day length D [h]
 * @see eemt-model.md §1.2 T3; Lu et al. (2005); reemt.sh L153
 */
export function hamonLinearDailyPotentialEvapotranspiration(meanTemperatureC: number, daylightHours: number): number {
  if (meanTemperatureC <= 0) return 0;
  return (HAMON_LINEAR_COEFFICIENT_MM_PER_DAY * daylightHours * saturationVapourPressure(meanTemperatureC)) / (meanTemperatureC + HAMON_LINEAR_KELVIN_OFFSET_K);
}

/**
 * Hamon potential evapotranspiration of a month [mm month⁻¹] = daily value × days of the month, in Haith &
 * Shoemaker's quadratic form (`hamon`) or the linear form (`hamon-linear`).
 * @param meanTemperatureC monthly mean air temperature [°C]
 * @param daylightHours monthly mean day length [h]
 * @param days days in the month
 * @see eemt-model.md §1.2 T3 (the factor n_m that reemt.sh omits, §4 R4)
 */
export function hamonPotentialEvapotranspiration(
  meanTemperatureC: number,
  daylightHours: number,
  days: number,
  form: 'hamon' | 'hamon-linear' = 'hamon',
): number {
  const daily = form === 'hamon' ? hamonDailyPotentialEvapotranspiration(meanTemperatureC, daylightHours) : hamonLinearDailyPotentialEvapotranspiration(meanTemperatureC, daylightHours);
  return daily * days;
}

/**
 * Linear Hamon PET [mm month⁻¹] with e_s taken as the mean of e_s(Tmax) and e_s(Tmin), each set to 0 at or
 * below 0 °C, as the original reemt.sh script computes it. Compatibility variant only; zero when T ≤ 0 °C.
 * @see eemt-model.md §1.2 T3 and §4 R2
 */
export function hamonSaturationAveragePotentialEvapotranspiration(
  tmaxC: number,
  tminC: number,
  daylightHours: number,
  days: number,
): number {
  const meanTemperatureC = meanAirTemperature(tmaxC, tminC);
  if (meanTemperatureC <= 0) return 0;
  const esMax = tmaxC > 0 ? saturationVapourPressure(tmaxC) : 0;
  const esMin = tminC > 0 ? saturationVapourPressure(tminC) : 0;
  return ((HAMON_LINEAR_COEFFICIENT_MM_PER_DAY * daylightHours * 0.5 * (esMax + esMin)) / (meanTemperatureC + HAMON_LINEAR_KELVIN_OFFSET_K)) * days;
}

/** Exponent of Thornthwaite's monthly heat index i = (T/5)^1.514. @see Thornthwaite (1948), Appendix, p. 89 */
export const THORNTHWAITE_HEAT_INDEX_EXPONENT = 1.514;
/**
 * Mean temperature [°C] from which Thornthwaite's (1948) potential evapotranspiration no longer depends on the heat
 * index (his table for the highest temperatures); above it the parabola of Willmott, Rowe & Mintz (1985, J. Climatol.
 * 5:589–606), −415.85 + 32.24 T − 0.43 T² mm per 30 days of 12 h, is used.
 */
export const THORNTHWAITE_HOT_THRESHOLD_C = 26.5;

/**
 * Thornthwaite monthly heat index i = (max(T, 0)/5)^1.514 [-] of one monthly mean temperature (NaN stays NaN).
 * @see Thornthwaite (1948), Appendix
 */
export function thornthwaiteMonthlyHeatIndex(monthlyMeanTemperatureC: number): number {
  if (Number.isNaN(monthlyMeanTemperatureC)) return NaN;
  return monthlyMeanTemperatureC > 0 ? Math.pow(monthlyMeanTemperatureC / 5, THORNTHWAITE_HEAT_INDEX_EXPONENT) : 0;
}

/**
 * Thornthwaite annual heat index I = Σ (max(T_m, 0)/5)^1.514 over 12 monthly mean temperatures [-].
 * @see eemt-model.md §1.2 T3 (b); Thornthwaite (1948)
 */
export function thornthwaiteHeatIndex(monthlyMeanTemperaturesC: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < monthlyMeanTemperaturesC.length; i++) sum += thornthwaiteMonthlyHeatIndex(monthlyMeanTemperaturesC[i]!);
  return sum;
}

/**
 * Thornthwaite's exponent a = 6.75e-7 I³ − 7.71e-5 I² + 1.792e-2 I + 0.49239 of the heat index I [-].
 * @see Thornthwaite (1948), Appendix
 */
export function thornthwaiteExponent(heatIndex: number): number {
  return ((6.75e-7 * heatIndex - 7.71e-5) * heatIndex + 1.792e-2) * heatIndex + 0.49239;
}

/**
 * Thornthwaite's unadjusted potential evapotranspiration [mm per 30-day month of 12-hour days]:
 * 16·(10T/I)^a for 0 < T < 26.5 °C, −415.85 + 32.24T − 0.43T² from 26.5 °C, 0 at or below 0 °C.
 * @param heatIndex annual heat index I of the same 12 months (see {@link thornthwaiteHeatIndex})
 * @see Thornthwaite (1948), Appendix; Willmott et al. (1985) for T ≥ 26.5 °C
 */
export function thornthwaiteUnadjustedPotentialEvapotranspiration(meanTemperatureC: number, heatIndex: number): number {
  if (meanTemperatureC <= 0) return 0;
  if (meanTemperatureC >= THORNTHWAITE_HOT_THRESHOLD_C) return -415.85 + 32.24 * meanTemperatureC - 0.43 * meanTemperatureC * meanTemperatureC;
  return 16 * Math.pow((10 * meanTemperatureC) / heatIndex, thornthwaiteExponent(heatIndex));
}

/**
 * Thornthwaite potential evapotranspiration of a month [mm month⁻¹]: the unadjusted value corrected for the day
 * length and the number of days, × (D/12)·(n/30).
 * @param daylightHours monthly mean day length D [h]
 * @param days days in the month n
 * @param heatIndex annual heat index I of the same 12 months (see {@link thornthwaiteHeatIndex})
 * @see eemt-model.md §1.2 T3 (b); Thornthwaite (1948); Rasmussen et al. 2005 (SSSAJ); Zapata-Rios et al. 2016 Eq. 5
 */
export function thornthwaitePotentialEvapotranspiration(
  meanTemperatureC: number,
  daylightHours: number,
  days: number,
  heatIndex: number,
): number {
  if (meanTemperatureC <= 0) return 0;
  return thornthwaiteUnadjustedPotentialEvapotranspiration(meanTemperatureC, heatIndex) * (daylightHours / 12) * (days / 30);
}

/**
 * EEMT-TRAD potential evapotranspiration of a month by the chosen method [mm month⁻¹].
 * @param heatIndex only used by `thornthwaite`
 * @see eemt-model.md §1.2 T3
 */
export function tradPotentialEvapotranspiration(
  method: PetMethod,
  tmaxC: number,
  tminC: number,
  daylightHours: number,
  days: number,
  heatIndex = NaN,
): number {
  switch (method) {
    case 'thornthwaite':
      return thornthwaitePotentialEvapotranspiration(meanAirTemperature(tmaxC, tminC), daylightHours, days, heatIndex);
    case 'hamon':
    case 'hamon-linear':
      return hamonPotentialEvapotranspiration(meanAirTemperature(tmaxC, tminC), daylightHours, days, method);
    case 'hamon-linear-saturation-average':
      return hamonSaturationAveragePotentialEvapotranspiration(tmaxC, tminC, daylightHours, days);
  }
}

/**
 * Effective precipitation of EEMT-TRAD, Peff = max(PPT − PET, 0) [kg m⁻² month⁻¹ = mm month⁻¹].
 * @see eemt-model.md §1.2 T4
 */
export function effectivePrecipitation(precipitationMm: number, potentialEvapotranspirationMm: number): number {
  return Math.max(precipitationMm - potentialEvapotranspirationMm, 0);
}

/**
 * Lieth (1975) "Miami" temperature model of annual NPP, max/(1 + exp(offset − slope·T)) [g DM m⁻² yr⁻¹].
 * @param temperatureC mean air temperature [°C]
 * @see eemt-model.md §1.2 T6; Rasmussen et al. 2005 (SSSAJ) Eq. 3 (note the "+" sign)
 */
export function liethNetPrimaryProductivity(
  temperatureC: number,
  coefficients: LiethCoefficients = LIETH_MIAMI_COEFFICIENTS,
): number {
  return coefficients.maximumGPerM2Yr / (1 + Math.exp(coefficients.offset - coefficients.slopePerK * temperatureC));
}

/**
 * Whether Lieth's NPP counts in a month of mean temperature T under the gate: `temperature` only when T > 0 °C,
 * `none` always (NaN never).
 * @see eemt-model.md §1.2 T6
 */
export function liethNppMonthCounts(meanTemperatureC: number, gate: LiethNppGate): boolean {
  if (Number.isNaN(meanTemperatureC)) return false;
  return gate === 'none' || meanTemperatureC > 0;
}

/**
 * Lieth NPP assigned to one month [g DM m⁻² month⁻¹]: the annual rate at the month's mean temperature × n/365.
 * @see eemt-model.md §1.2 T6; Zapata-Rios et al. 2016 Eq. 6
 */
export function liethMonthlyNetPrimaryProductivity(meanTemperatureC: number, days: number, coefficients: LiethCoefficients = LIETH_MIAMI_COEFFICIENTS): number {
  return (liethNetPrimaryProductivity(meanTemperatureC, coefficients) * days) / DAYS_IN_YEAR;
}

/**
 * NPP assigned to one month by EEMT-TRAD [g DM m⁻² month⁻¹]: the Lieth rate × n/365 in months with
 * PPT > PET that the gate lets through (`temperature`: T > 0 °C only; `none`: every such month), else 0.
 * NaN in any input gives NaN.
 * @see eemt-model.md §1.2 T6
 */
export function tradMonthlyNetPrimaryProductivity(
  meanTemperatureC: number,
  precipitationMm: number,
  potentialEvapotranspirationMm: number,
  days: number,
  gate: LiethNppGate = 'temperature',
  coefficients: LiethCoefficients = LIETH_MIAMI_COEFFICIENTS,
): number {
  if (Number.isNaN(meanTemperatureC) || Number.isNaN(precipitationMm) || Number.isNaN(potentialEvapotranspirationMm)) {
    return NaN;
  }
  if (!(precipitationMm > potentialEvapotranspirationMm)) return 0;
  if (!liethNppMonthCounts(meanTemperatureC, gate)) return 0;
  return liethMonthlyNetPrimaryProductivity(meanTemperatureC, days, coefficients);
}

/**
 * Energy carried by a water flux, E_PPT = F · c_w · max(T − 0 °C, 0) [J m⁻² per period of F].
 * @param waterFluxKgPerM2 F [kg m⁻²] (= mm)
 * @param temperatureC air temperature at the time of the flux [°C]; frozen months (T ≤ 0) give 0
 * @param specificHeatWaterJPerKgK c_w [J kg⁻¹ K⁻¹]
 * @see eemt-model.md §0.4; Rasmussen et al. 2015 (VZJ) Eq. 4
 */
export function precipitationEnergy(waterFluxKgPerM2: number, temperatureC: number, specificHeatWaterJPerKgK = SPECIFIC_HEAT_WATER_J_PER_KG_K): number {
  return waterFluxKgPerM2 * specificHeatWaterJPerKgK * Math.max(temperatureC, 0);
}

/**
 * Energy of net primary production, E_BIO = NPP · h_BIO [J m⁻² per period of NPP].
 * @param netPrimaryProductionGPerM2 NPP [g DM m⁻²]
 * @param biomassEnthalpyJPerKg h_BIO [J kg⁻¹]
 * @see eemt-model.md §0.4, §1.2 T7; Rasmussen et al. 2015 (VZJ) Eq. 5
 */
export function biomassEnergy(netPrimaryProductionGPerM2: number, biomassEnthalpyJPerKg = BIOMASS_ENTHALPY_J_PER_KG): number {
  return (netPrimaryProductionGPerM2 / 1000) * biomassEnthalpyJPerKg;
}

/** Inputs of {@link eemtTradMonthPixel}: Daymet monthly values of one pixel and its position. */
export interface TradPixelInputs {
  /** Monthly mean daily maximum temperature at the Daymet cell [°C]. */
  readonly tmaxC: number;
  /** Monthly mean daily minimum temperature at the Daymet cell [°C]. */
  readonly tminC: number;
  /** Monthly precipitation total [mm month⁻¹]. */
  readonly prcpMm: number;
  /** Pixel elevation z [m]. */
  readonly elevationM: number;
  /** Daymet cell elevation z_ref [m]. */
  readonly referenceElevationM: number;
  /** Latitude [° north]; ignored when `daylightHours` is given. */
  readonly latitudeDeg: number;
  /** Monthly mean day length [h]; computed from the latitude when omitted. */
  readonly daylightHours?: number;
  /** Thornthwaite heat index I (only for `petMethod: 'thornthwaite'`). */
  readonly heatIndex?: number;
}

/** Every intermediate of EEMT-TRAD for one pixel and one month. */
export interface TradPixelMonth {
  readonly tmaxC: number;
  readonly tminC: number;
  readonly meanTemperatureC: number;
  readonly daylightHours: number;
  readonly petMm: number;
  readonly peffMm: number;
  readonly nppGPerM2: number;
  /** E_PPT [MJ m⁻² month⁻¹]. */
  readonly ePptMJ: number;
  /** E_BIO [MJ m⁻² month⁻¹]. */
  readonly eBioMJ: number;
  /** EEMT_TRAD [MJ m⁻² month⁻¹]. */
  readonly eemtMJ: number;
}

/**
 * EEMT-TRAD of one pixel and one month (steps T1–T8).
 * @param month 1 = January … 12 = December
 * @see eemt-model.md §1.2; §6.2 (worked example)
 */
export function eemtTradMonthPixel(month: number, inputs: TradPixelInputs, options: EemtOptionsInput = {}): TradPixelMonth {
  const opts = resolveEemtOptions(options);
  if (opts.petMethod === 'thornthwaite' && inputs.heatIndex === undefined) throw new TypeError("petMethod 'thornthwaite' needs the heatIndex input");
  const setting = eemtMonthSetting(month, opts);
  const daylight = inputs.daylightHours ?? monthlyMeanDaylightHours(inputs.latitudeDeg, month);
  const scratch = new Float64Array(TRAD_SCRATCH_LENGTH);
  tradCellInto(
    scratch,
    setting,
    inputs.tmaxC,
    inputs.tminC,
    inputs.prcpMm,
    inputs.elevationM,
    inputs.referenceElevationM,
    daylight,
    inputs.heatIndex ?? NaN,
  );
  return {
    tmaxC: scratch[0]!,
    tminC: scratch[1]!,
    meanTemperatureC: scratch[2]!,
    daylightHours: daylight,
    petMm: scratch[3]!,
    peffMm: scratch[4]!,
    nppGPerM2: scratch[5]!,
    ePptMJ: scratch[6]!,
    eBioMJ: scratch[7]!,
    eemtMJ: scratch[8]!,
  };
}

/** Length of the scratch buffer of {@link tradCellInto}. */
export const TRAD_SCRATCH_LENGTH = 9;

/**
 * The TRAD chain for one cell, written into `scratch`: [Tmax', Tmin', T, PET, Peff, NPP, E_PPT MJ, E_BIO MJ, EEMT MJ].
 * Shared by the scalar function and the grid kernel so that both do the same arithmetic (no allocation). What
 * the month's cells share comes as one record built once per month; the cell's own values stay positional
 * because the kernel calls this for every cell and month (no record to fill and read per cell).
 * @param tmax Tmax at the Daymet cell [°C]; @param tmin Tmin at the Daymet cell [°C]; @param prcp [mm month⁻¹]
 * @param z pixel elevation [m]; @param zRef Daymet cell elevation [m]; @param daylight day length [h]
 * @param heatIndex Thornthwaite heat index I (NaN unless `thornthwaite`)
 */
export function tradCellInto(
  scratch: Float64Array,
  month: EemtMonthSetting,
  tmax: number,
  tmin: number,
  prcp: number,
  z: number,
  zRef: number,
  daylight: number,
  heatIndex: number,
): void {
  if (Number.isNaN(tmax + tmin + prcp + z + zRef + daylight)) {
    scratch.fill(NaN);
    return;
  }
  const { options: opts, days } = month;
  const tmaxC = lapseRateAdjustedTemperature(tmax, z, zRef, month.lapseRateTmaxKPerKm);
  const tminC = lapseRateAdjustedTemperature(tmin, z, zRef, month.lapseRateTminKPerKm);
  const t = meanAirTemperature(tmaxC, tminC);
  const pet = tradPotentialEvapotranspiration(opts.petMethod, tmaxC, tminC, daylight, days, heatIndex);
  const peff = effectivePrecipitation(prcp, pet);
  const npp = tradMonthlyNetPrimaryProductivity(t, prcp, pet, days, opts.liethNppGate, opts.lieth);
  const ePpt = precipitationEnergy(peff, t, opts.specificHeatWaterJPerKgK) / 1e6;
  const eBio = biomassEnergy(npp, opts.biomassEnthalpyJPerKg) / 1e6;
  scratch[0] = tmaxC;
  scratch[1] = tminC;
  scratch[2] = t;
  scratch[3] = pet;
  scratch[4] = peff;
  scratch[5] = npp;
  scratch[6] = ePpt;
  scratch[7] = eBio;
  scratch[8] = ePpt + eBio;
}
