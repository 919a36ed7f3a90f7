/**
 * Physical constants, calendar and the tunable parameters of the EEMT models.
 *
 * @see eemt-model.md §0.2 (conventions), §0.3 (constants), §0.1b (decision summary)
 */
import { DAYS_IN_MONTH, DAYS_IN_YEAR, DAY_OF_YEAR_BEFORE_MONTH, SECONDS_PER_DAY, SECONDS_PER_HOUR } from '../calendar.js';
import { DEFAULT_LAPSE_RATE_K_PER_KM } from '../climate/lapseRate.js';

/** The calendar and time units of science/calendar.ts, part of the EEMT interface. */
export { DAYS_IN_MONTH, DAYS_IN_YEAR, DAY_OF_YEAR_BEFORE_MONTH, SECONDS_PER_DAY, SECONDS_PER_HOUR };

/** Specific heat of liquid water c_w [J kg⁻¹ K⁻¹]. @see eemt-model.md §0.3; Zapata-Rios et al. 2016 Eq. 3 */
export const SPECIFIC_HEAT_WATER_J_PER_KG_K = 4187;
/** Specific biomass enthalpy h_BIO [J kg⁻¹ dry matter] (= 22 kJ g⁻¹). @see eemt-model.md §0.3; Rasmussen et al. 2015 VZJ */
export const BIOMASS_ENTHALPY_J_PER_KG = 22e6;
/** Latent heat of vaporisation λ [J kg⁻¹]. @see FAO-56 (Allen et al. 1998) */
export const LATENT_HEAT_VAPORISATION_J_PER_KG = 2.45e6;
/** Specific heat of moist air at constant pressure c_p [J kg⁻¹ K⁻¹]. @see FAO-56 */
export const SPECIFIC_HEAT_AIR_J_PER_KG_K = 1013;
/** Specific gas constant of dry air R [J kg⁻¹ K⁻¹]. @see FAO-56 Annex 3 */
export const GAS_CONSTANT_DRY_AIR_J_PER_KG_K = 287;
/** Stefan–Boltzmann constant expressed per day [MJ K⁻⁴ m⁻² day⁻¹]. @see FAO-56 Eq. 39 */
export const STEFAN_BOLTZMANN_MJ_PER_K4_M2_DAY = 4.903e-9;
/** Offset between the Celsius and the Kelvin scale, T[K] = T[°C] + 273.15 [K]. @see BIPM SI Brochure (2019) §2.3.1 */
export const CELSIUS_ZERO_K = 273.15;
/** The Kelvin offset FAO-56 writes in its net longwave radiation, T + 273.16 [K]. @see FAO-56 Eq. 39 */
export const FAO56_LONGWAVE_KELVIN_OFFSET_K = 273.16;

/** Saturation vapour pressure at 0 °C of the Tetens form e_s(T) = 0.6108·exp(17.27 T/(T + 237.3)) [kPa]. @see FAO-56 Eq. 11 */
export const TETENS_VAPOUR_PRESSURE_AT_ZERO_KPA = 0.6108;
/** Coefficient a of the Tetens form exp(a·T/(T + b)) [-]. @see FAO-56 Eq. 11 */
export const TETENS_COEFFICIENT_A = 17.27;
/** Temperature b of the Tetens form exp(a·T/(T + b)) [°C]; also in its slope Δ = 4098 e_s/(T + b)² (FAO-56 Eq. 13). @see FAO-56 Eq. 11 */
export const TETENS_TEMPERATURE_B_C = 237.3;
/** The product a·b of the Tetens form (17.27 × 237.3, rounded) in the slope Δ = 4098·e_s/(T + 237.3)² [°C]. @see FAO-56 Eq. 13 */
export const TETENS_SLOPE_COEFFICIENT_C = 4098;

/** Sea-level pressure of FAO-56's standard atmosphere P₀ [kPa]. @see FAO-56 Eq. 7 */
export const STANDARD_SEA_LEVEL_PRESSURE_KPA = 101.3;
/** Sea-level temperature of FAO-56's standard atmosphere T₀ [K] (20 °C). @see FAO-56 Eq. 7 */
export const STANDARD_SEA_LEVEL_TEMPERATURE_K = 293;
/** Temperature lapse rate of FAO-56's standard atmosphere [K m⁻¹] (6.5 K km⁻¹; not the EEMT downscaling lapse rate). @see FAO-56 Eq. 7 */
export const STANDARD_ATMOSPHERE_LAPSE_RATE_K_PER_M = 0.0065;
/** Exponent g/(R·Γ) of FAO-56's standard-atmosphere pressure P = P₀·((T₀ − Γz)/T₀)^5.26 [-]. @see FAO-56 Eq. 7 */
export const STANDARD_ATMOSPHERE_PRESSURE_EXPONENT = 5.26;
/** Psychrometric constant per unit pressure, c_p/(ε·λ) = 0.665·10⁻³ [K⁻¹]. @see FAO-56 Eq. 8 */
export const PSYCHROMETRIC_COEFFICIENT_PER_K = 0.665e-3;

/** Number of days of `month` (1 = January … 12 = December) in the 365-day calendar. Throws on a bad month. */
export function daysInMonth(month: number): number {
  assertMonth(month);
  return DAYS_IN_MONTH[month - 1]!;
}

/** Throws a RangeError unless `month` is an integer 1..12. */
export function assertMonth(month: number): void {
  if (!Number.isInteger(month) || month < 1 || month > 12) {
    throw new RangeError(`month must be an integer 1..12, got ${month}`);
  }
}

/**
 * Potential evapotranspiration method of EEMT-TRAD (@see eemt-model.md §1.2 T3):
 * - `thornthwaite` (default): Thornthwaite (1948) monthly PET with the annual heat index and the day-length
 *   correction, as in Rasmussen et al. 2005 (SSSAJ), 2011 (Biogeochemistry), Rasmussen & Gallo 2013 and
 *   Zapata-Rios et al. 2016 (every published EEMT-TRAD figure of the Jemez and the USA);
 * - `hamon`: Hamon (1961) in the form of Haith & Shoemaker (1987), 0.021·H²·e_s/(T + 273) cm day⁻¹ (quadratic in
 *   the day length), the form Rasmussen et al. 2015 (VZJ) cite for their PET_H;
 * - `hamon-linear`: 29.8·D·e_s(T)/(T + 273.2) mm day⁻¹ (the linear form of Lu et al. 2005), this project's
 *   first default;
 * - `hamon-linear-saturation-average`: the linear form with e_s = mean of e_s(Tmax), e_s(Tmin), each taken as 0 at
 *   or below 0 °C (what the original reemt.sh script does; library only, for comparisons).
 */
export type PetMethod = 'thornthwaite' | 'hamon' | 'hamon-linear' | 'hamon-linear-saturation-average';

/** The PET methods a job may choose (parameter `pet_method`), default first. */
export const PET_METHODS = ['thornthwaite', 'hamon', 'hamon-linear'] as const satisfies readonly PetMethod[];

/**
 * NPP model of EEMT-TOPO (@see eemt-model.md §2.2 P9):
 * - `regression` (default): max(0.39 z + 346 n − 187, 100) g m⁻² yr⁻¹, Rasmussen et al. 2015 (VZJ) Eq. 11;
 * - `lieth`: Lieth's (1975) temperature model on the month's topographic mean temperature, × days/365, counted
 *   in the months the NPP gate lets through (see {@link LiethNppGate}).
 */
export type TopoNppModel = 'regression' | 'lieth';
export const TOPO_NPP_MODELS = ['regression', 'lieth'] as const satisfies readonly TopoNppModel[];

/**
 * Which monthly radiation grids are S_topo and S_flat of EEMT-TOPO's solar ratio S_i = S_topo / S_flat (the workflow
 * picks the grids; the science takes any pair of monthly sums):
 * - `unshaded` (default): the solar engine on the sloped surface without terrain shadows, as the ArcGIS radiation
 *   Rasmussen et al. 2015 used ("does not account for topographic shielding and shadowing", VZJ15 p. 5), over the
 *   clear-sky sums of a horizontal surface;
 * - `shaded`: the same with terrain shadows (the `sol` product `global/monthly/total_sun_{mon}_sum.tif`);
 * - `realsky`: the real-sky sums of the sloped, shaded surface over those of a horizontal surface (the climate's
 *   observed radiation; eemt-model.md §8), which needs a climate with observed shortwave radiation.
 */
export type TopoRadiation = 'unshaded' | 'shaded' | 'realsky';
export const TOPO_RADIATIONS = ['unshaded', 'shaded', 'realsky'] as const satisfies readonly TopoRadiation[];

/**
 * Months in which Lieth's temperature NPP counts (EEMT-TRAD always, EEMT-TOPO with `lieth`):
 * - `temperature` (default): only months with a mean temperature above 0 °C (besides PPT > PET for EEMT-TRAD);
 * - `none`: every month (EEMT-TRAD: every month with PPT > PET, frozen ones included).
 * @see eemt-model.md §1.2 T6
 */
export type LiethNppGate = 'temperature' | 'none';
export const LIETH_NPP_GATES = ['temperature', 'none'] as const satisfies readonly LiethNppGate[];

/** Net-radiation mode of the EEMT-TOPO Penman PET (@see eemt-model.md §2.2 P3). */
export type NetRadiationMode = 'net' | 'global';

/**
 * Surface albedo of the net shortwave radiation of EEMT-TOPO's Penman PET [-]: FAO-56's hypothetical reference
 * grass surface (Allen et al. 1998, Eq. 38). The VZJ15 Supplement, which held the paper's own value, is not
 * available; open water would be about 0.05–0.08.
 */
export const PENMAN_SURFACE_ALBEDO = 0.23;
/**
 * Wind speed at 2 m for EEMT-TOPO's Penman PET [m s⁻¹]: Daymet has no wind; FAO-56 (Allen et al. 1998, Ch. 3,
 * "Missing wind speed data") recommends 2 m s⁻¹ as the world-wide average where no wind data exist.
 */
export const PENMAN_WIND_SPEED_M_PER_S = 2;
/** Height of the wind and humidity measurements z_m [m] (FAO-56 standard height). */
export const PENMAN_MEASUREMENT_HEIGHT_M = 2;
/** Roughness length of an open water surface z₀ [m] (Thom & Oliver 1977; as in reemt.sh L169). */
export const OPEN_WATER_ROUGHNESS_LENGTH_M = 0.00137;

/** Lieth (1975) "Miami" temperature model NPP = max / (1 + exp(offset − slope · T)) [g m⁻² yr⁻¹]. */
export interface LiethCoefficients {
  /** Asymptotic NPP [g m⁻² yr⁻¹]. */
  readonly maximumGPerM2Yr: number;
  /** Constant in the exponent [-]. */
  readonly offset: number;
  /** Temperature coefficient [K⁻¹]. */
  readonly slopePerK: number;
}

/** Lieth (1975) Miami model coefficients (3000 g m⁻² yr⁻¹, 1.315, 0.119 K⁻¹). @see eemt-model.md §0.3 */
export const LIETH_MIAMI_COEFFICIENTS: LiethCoefficients = Object.freeze({ maximumGPerM2Yr: 3000, offset: 1.315, slopePerK: 0.119 });

/** Rasmussen et al. (2015) Eq. 11: NPP = max(a·z + b·n + c, floor) [g m⁻² yr⁻¹]. */
export interface TopoNppCoefficients {
  /** a [g m⁻² yr⁻¹ per m of elevation]. */
  readonly elevationGPerM2YrPerM: number;
  /** b [g m⁻² yr⁻¹ per unit northness]. */
  readonly northnessGPerM2Yr: number;
  /** c [g m⁻² yr⁻¹]. */
  readonly interceptGPerM2Yr: number;
  /** Lower bound [g m⁻² yr⁻¹]. */
  readonly floorGPerM2Yr: number;
}

/** Every tunable of EEMT-TRAD and EEMT-TOPO, with the defaults of eemt-model.md §0.1b. */
export interface EemtOptions {
  /** PET method of EEMT-TRAD. Default `thornthwaite`. */
  readonly petMethod: PetMethod;
  /** NPP model of EEMT-TOPO. Default `regression`. */
  readonly topoNppModel: TopoNppModel;
  /** Which radiation grid is S_topo of EEMT-TOPO (chosen by the workflow). Default `unshaded`. */
  readonly topoRadiation: TopoRadiation;
  /** Months in which Lieth's NPP counts. Default `temperature`. */
  readonly liethNppGate: LiethNppGate;
  /** Lapse rate Γ applied to Tmax [K km⁻¹]: one value, or 12 monthly values (January first). Default {@link DEFAULT_LAPSE_RATE_K_PER_KM}. */
  readonly lapseRateTmaxKPerKm: number | readonly number[];
  /** Lapse rate Γ applied to Tmin [K km⁻¹]: one value, or 12 monthly values (January first). Default {@link DEFAULT_LAPSE_RATE_K_PER_KM}. */
  readonly lapseRateTminKPerKm: number | readonly number[];
  /** Constant C of VZJ15 Eq. 6 [K]. Default 1. */
  readonly solarTemperatureCoefficientK: number;
  /** Lower clamp of the solar ratio S_topo/S_flat [-]. Default 0.1. */
  readonly minimumSolarRatio: number;
  /** Wind speed at 2 m, u₂ [m s⁻¹]. Default {@link PENMAN_WIND_SPEED_M_PER_S}. */
  readonly windSpeedMPerS: number;
  /** Wind/temperature measurement height z_m [m]. Default {@link PENMAN_MEASUREMENT_HEIGHT_M}. */
  readonly measurementHeightM: number;
  /** Roughness length of open water z₀ [m]. Default {@link OPEN_WATER_ROUGHNESS_LENGTH_M}. */
  readonly roughnessLengthM: number;
  /** Surface albedo for net shortwave [-]. Default {@link PENMAN_SURFACE_ALBEDO}. */
  readonly albedo: number;
  /** `net` (default): R_n = (1 − alb)·S_topo − R_nl; `global`: R_n = S_topo (reemt's intent). */
  readonly rnMode: NetRadiationMode;
  /** Shape parameter ω of the Fu/Zhang–Budyko curve [-]. Default 2.63. */
  readonly budykoOmega: number;
  /** Coefficients of the topographic NPP regression. Default (0.39, 346, −187, floor 100). */
  readonly topoNpp: TopoNppCoefficients;
  /** Coefficients of the Lieth temperature NPP model. Default (3000, 1.315, 0.119). */
  readonly lieth: LiethCoefficients;
  /** c_w [J kg⁻¹ K⁻¹]. Default 4187. */
  readonly specificHeatWaterJPerKgK: number;
  /** h_BIO [J kg⁻¹]. Default 22e6. */
  readonly biomassEnthalpyJPerKg: number;
}

/** The defaults of eemt-model.md §0.1b. */
export const DEFAULT_EEMT_OPTIONS: EemtOptions = Object.freeze({
  petMethod: 'thornthwaite',
  topoNppModel: 'regression',
  topoRadiation: 'unshaded',
  liethNppGate: 'temperature',
  lapseRateTmaxKPerKm: DEFAULT_LAPSE_RATE_K_PER_KM,
  lapseRateTminKPerKm: DEFAULT_LAPSE_RATE_K_PER_KM,
  solarTemperatureCoefficientK: 1,
  minimumSolarRatio: 0.1,
  windSpeedMPerS: PENMAN_WIND_SPEED_M_PER_S,
  measurementHeightM: PENMAN_MEASUREMENT_HEIGHT_M,
  roughnessLengthM: OPEN_WATER_ROUGHNESS_LENGTH_M,
  albedo: PENMAN_SURFACE_ALBEDO,
  rnMode: 'net',
  budykoOmega: 2.63,
  topoNpp: Object.freeze({
    elevationGPerM2YrPerM: 0.39,
    northnessGPerM2Yr: 346,
    interceptGPerM2Yr: -187,
    floorGPerM2Yr: 100,
  }),
  lieth: LIETH_MIAMI_COEFFICIENTS,
  specificHeatWaterJPerKgK: SPECIFIC_HEAT_WATER_J_PER_KG_K,
  biomassEnthalpyJPerKg: BIOMASS_ENTHALPY_J_PER_KG,
} satisfies EemtOptions);

/** Options as a caller gives them: any subset, nested coefficient objects partial too. */
export type EemtOptionsInput = Partial<Omit<EemtOptions, 'topoNpp' | 'lieth'>> & {
  readonly topoNpp?: Partial<TopoNppCoefficients>;
  readonly lieth?: Partial<LiethCoefficients>;
};

/** The defaults with some fields replaced (nested coefficient objects are merged field by field). */
export function resolveEemtOptions(overrides: EemtOptionsInput = {}): EemtOptions {
  const merged: EemtOptions = {
    ...DEFAULT_EEMT_OPTIONS,
    ...overrides,
    topoNpp: { ...DEFAULT_EEMT_OPTIONS.topoNpp, ...overrides.topoNpp },
    lieth: { ...DEFAULT_EEMT_OPTIONS.lieth, ...overrides.lieth },
  };
  checkChoice('petMethod', merged.petMethod, [...PET_METHODS, 'hamon-linear-saturation-average']);
  checkChoice('topoNppModel', merged.topoNppModel, TOPO_NPP_MODELS);
  checkChoice('topoRadiation', merged.topoRadiation, TOPO_RADIATIONS);
  checkChoice('liethNppGate', merged.liethNppGate, LIETH_NPP_GATES);
  for (const key of ['lapseRateTmaxKPerKm', 'lapseRateTminKPerKm'] as const) {
    const value = merged[key];
    if (typeof value !== 'number' && value.length !== 12) {
      throw new RangeError(`${key} must be a number or 12 monthly values`);
    }
  }
  return merged;
}

function checkChoice(key: string, value: string, allowed: readonly string[]): void {
  if (!allowed.includes(value)) throw new RangeError(`${key} must be one of ${allowed.join(', ')}; got ${String(value)}`);
}

/** The lapse rate of `month` (1..12) from a scalar or 12 monthly values [K km⁻¹]. */
export function lapseRateForMonth(lapseRate: number | readonly number[], month: number): number {
  assertMonth(month);
  return typeof lapseRate === 'number' ? lapseRate : lapseRate[month - 1]!;
}

/**
 * What every cell of one month shares in the EEMT chains: the options, the days of the month and its lapse
 * rates. Built once per month ({@link eemtMonthSetting}) and handed to every cell by the grid kernels.
 */
export interface EemtMonthSetting {
  readonly options: EemtOptions;
  /** Days of the month n (365-day calendar). */
  readonly days: number;
  /** Γ applied to Tmax in this month [K km⁻¹]. */
  readonly lapseRateTmaxKPerKm: number;
  /** Γ applied to Tmin in this month [K km⁻¹]. */
  readonly lapseRateTminKPerKm: number;
}

/** The {@link EemtMonthSetting} of `month` (1..12) under resolved options. */
export function eemtMonthSetting(month: number, options: EemtOptions): EemtMonthSetting {
  return {
    options,
    days: daysInMonth(month),
    lapseRateTmaxKPerKm: lapseRateForMonth(options.lapseRateTmaxKPerKm, month),
    lapseRateTminKPerKm: lapseRateForMonth(options.lapseRateTminKPerKm, month),
  };
}
