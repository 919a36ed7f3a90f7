/**
 * Physical constants, calendar and the tunable parameters of the EEMT models.
 *
 * @see eemt-model.md §0.2 (conventions), §0.3 (constants), §0.1b (decision summary)
 */

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
/** Seconds in one day [s]. */
export const SECONDS_PER_DAY = 86400;
/** Seconds in one hour [s] (converts Wh to J). */
export const SECONDS_PER_HOUR = 3600;

/** Days of each month in Daymet's 365-day calendar (index 0 = January). @see eemt-model.md §0.2 */
export const DAYS_IN_MONTH: readonly number[] = Object.freeze([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]);
/** Day of year before the first day of each month (index 0 = January). */
export const DAY_OF_YEAR_BEFORE_MONTH: readonly number[] = Object.freeze([
  0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334,
]);
/** Days in the (365-day) year. */
export const DAYS_IN_YEAR = 365;

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
 * Hamon-type potential evapotranspiration used by EEMT-TRAD (@see eemt-model.md §1.2 T3):
 * - `linear` (default): 29.8 · D · e_s(T) / (T + 273.2) mm day⁻¹ (Haith & Shoemaker 1987 / Lu et al. 2005 form);
 * - `quadratic`: 2.1 · D² · e_s(T) / (T + 273.2) mm day⁻¹ (Hamon 1961);
 * - `saturationAverage`: the linear form with e_s = mean of e_s(Tmax), e_s(Tmin), each taken as 0 at or
 *   below 0 °C (what the original reemt.sh script does; compatibility only);
 * - `thornthwaite`: Thornthwaite (1948) monthly PET with the annual heat index (SSSAJ05, ZR16).
 */
export type PetVariant = 'linear' | 'quadratic' | 'saturationAverage' | 'thornthwaite';

/** Net-radiation mode of the EEMT-TOPO Penman PET (@see eemt-model.md §2.2 P3). */
export type NetRadiationMode = 'net' | 'global';

/** Lieth (1975) "Miami" temperature model NPP = max / (1 + exp(offset − slope · T)) [g m⁻² yr⁻¹]. */
export interface LiethCoefficients {
  /** Asymptotic NPP [g m⁻² yr⁻¹]. */
  readonly maximumGPerM2Yr: number;
  /** Constant in the exponent [-]. */
  readonly offset: number;
  /** Temperature coefficient [K⁻¹]. */
  readonly slopePerK: number;
}

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
  /** PET method of EEMT-TRAD. Default `linear`. */
  readonly petVariant: PetVariant;
  /** Lapse rate Γ applied to Tmax [K km⁻¹]: one value, or 12 monthly values (January first). Default 6.49. */
  readonly lapseRateTmaxKPerKm: number | readonly number[];
  /** Lapse rate Γ applied to Tmin [K km⁻¹]: one value, or 12 monthly values (January first). Default 6.49. */
  readonly lapseRateTminKPerKm: number | readonly number[];
  /** Constant C of VZJ15 Eq. 6 [K]. Default 1. */
  readonly solarTemperatureCoefficientK: number;
  /** Lower clamp of the solar ratio S_topo/S_flat [-]. Default 0.1. */
  readonly minimumSolarRatio: number;
  /** Wind speed at 2 m, u₂ [m s⁻¹]. Default 2. */
  readonly windSpeedMPerS: number;
  /** Wind/temperature measurement height z_m [m]. Default 2. */
  readonly measurementHeightM: number;
  /** Roughness length of open water z₀ [m]. Default 0.00137. */
  readonly roughnessLengthM: number;
  /** Surface albedo for net shortwave [-]. Default 0.23. */
  readonly albedo: number;
  /** `net` (default): R_n = (1 − alb)·S_topo − R_nl; `global`: R_n = S_topo (reemt's intent). */
  readonly rnMode: NetRadiationMode;
  /** Shape parameter ω of the Fu/Zhang–Budyko curve [-]. Default 2.63. */
  readonly budykoOmega: number;
  /** Coefficients of the topographic NPP regression. Default (0.39, 346, −187, floor 100). */
  readonly topoNpp: TopoNppCoefficients;
  /** Coefficients of the Lieth temperature NPP model. Default (3000, 1.315, 0.119). */
  readonly lieth: LiethCoefficients;
  /** EEMT-TRAD counts NPP only in months with T > 0 °C (besides PPT > PET). Default true. */
  readonly nppRequireTPos: boolean;
  /** c_w [J kg⁻¹ K⁻¹]. Default 4187. */
  readonly specificHeatWaterJPerKgK: number;
  /** h_BIO [J kg⁻¹]. Default 22e6. */
  readonly biomassEnthalpyJPerKg: number;
}

/** The defaults of eemt-model.md §0.1b. */
export const DEFAULT_EEMT_OPTIONS: EemtOptions = Object.freeze({
  petVariant: 'linear',
  lapseRateTmaxKPerKm: 6.49,
  lapseRateTminKPerKm: 6.49,
  solarTemperatureCoefficientK: 1,
  minimumSolarRatio: 0.1,
  windSpeedMPerS: 2,
  measurementHeightM: 2,
  roughnessLengthM: 0.00137,
  albedo: 0.23,
  rnMode: 'net',
  budykoOmega: 2.63,
  topoNpp: Object.freeze({
    elevationGPerM2YrPerM: 0.39,
    northnessGPerM2Yr: 346,
    interceptGPerM2Yr: -187,
    floorGPerM2Yr: 100,
  }),
  lieth: Object.freeze({ maximumGPerM2Yr: 3000, offset: 1.315, slopePerK: 0.119 }),
  nppRequireTPos: true,
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
  for (const key of ['lapseRateTmaxKPerKm', 'lapseRateTminKPerKm'] as const) {
    const value = merged[key];
    if (typeof value !== 'number' && value.length !== 12) {
      throw new RangeError(`${key} must be a number or 12 monthly values`);
    }
  }
  return merged;
}

/** The lapse rate of `month` (1..12) from a scalar or 12 monthly values [K km⁻¹]. */
export function lapseRateForMonth(lapseRate: number | readonly number[], month: number): number {
  assertMonth(month);
  return typeof lapseRate === 'number' ? lapseRate : lapseRate[month - 1]!;
}
