/**
 * Near-surface atmosphere: vapour pressure, pressure, psychrometric constant, air density and the
 * aerodynamic resistance of open water. Temperatures in °C, pressures in kPa.
 *
 * @see eemt-model.md §1.2 T3, §2.2 P3; Allen et al. (1998) FAO Irrigation and Drainage Paper 56 (FAO-56)
 */
import {
  CELSIUS_ZERO_K,
  GAS_CONSTANT_DRY_AIR_J_PER_KG_K,
  OPEN_WATER_ROUGHNESS_LENGTH_M,
  PENMAN_MEASUREMENT_HEIGHT_M,
  PSYCHROMETRIC_COEFFICIENT_PER_K,
  STANDARD_ATMOSPHERE_LAPSE_RATE_K_PER_M,
  STANDARD_ATMOSPHERE_PRESSURE_EXPONENT,
  STANDARD_SEA_LEVEL_PRESSURE_KPA,
  STANDARD_SEA_LEVEL_TEMPERATURE_K,
  TETENS_COEFFICIENT_A,
  TETENS_SLOPE_COEFFICIENT_C,
  TETENS_TEMPERATURE_B_C,
  TETENS_VAPOUR_PRESSURE_AT_ZERO_KPA,
} from './constants.js';

/**
 * Saturation vapour pressure over water e_s(T) [kPa] (Tetens form).
 * @param temperatureC air temperature [°C]
 * @see eemt-model.md §1.2 T3; FAO-56 Eq. 11
 */
export function saturationVapourPressure(temperatureC: number): number {
  return TETENS_VAPOUR_PRESSURE_AT_ZERO_KPA * Math.exp((TETENS_COEFFICIENT_A * temperatureC) / (temperatureC + TETENS_TEMPERATURE_B_C));
}

/**
 * Slope of the saturation vapour pressure curve Δ [kPa K⁻¹].
 * @param temperatureC air temperature [°C]
 * @see eemt-model.md §2.2 P3; FAO-56 Eq. 13
 */
export function saturationVapourPressureSlope(temperatureC: number): number {
  const t = temperatureC + TETENS_TEMPERATURE_B_C;
  return (TETENS_SLOPE_COEFFICIENT_C * saturationVapourPressure(temperatureC)) / (t * t);
}

/**
 * Mean saturation vapour pressure of a period from its mean daily extremes, [e_s(Tmax) + e_s(Tmin)]/2 [kPa].
 * @see eemt-model.md §2.2 P3; FAO-56 Eq. 12
 */
export function meanSaturationVapourPressure(tmaxC: number, tminC: number): number {
  return 0.5 * (saturationVapourPressure(tmaxC) + saturationVapourPressure(tminC));
}

/**
 * Atmospheric pressure of the standard atmosphere at an elevation [kPa].
 * @param elevationM elevation above sea level [m]
 * @see eemt-model.md §2.2 P3; FAO-56 Eq. 7
 */
export function atmosphericPressure(elevationM: number): number {
  // x^5.26 as exp(5.26·ln x): same value to ~1e-15, twice as fast as Math.pow in V8
  return (
    STANDARD_SEA_LEVEL_PRESSURE_KPA *
    Math.exp(
      STANDARD_ATMOSPHERE_PRESSURE_EXPONENT *
        Math.log((STANDARD_SEA_LEVEL_TEMPERATURE_K - STANDARD_ATMOSPHERE_LAPSE_RATE_K_PER_M * elevationM) / STANDARD_SEA_LEVEL_TEMPERATURE_K),
    )
  );
}

/**
 * Psychrometric constant γ = c_p·P/(ε·λ) = 0.665·10⁻³·P [kPa K⁻¹].
 * @param pressureKPa atmospheric pressure [kPa]
 * @see eemt-model.md §2.2 P3; FAO-56 Eq. 8
 */
export function psychrometricConstant(pressureKPa: number): number {
  return PSYCHROMETRIC_COEFFICIENT_PER_K * pressureKPa;
}

/**
 * Mean density of moist air ρ_a = P / (R · T_v), with virtual temperature T_v ≈ 1.01 (T + 273.15) [kg m⁻³].
 * @param pressureKPa atmospheric pressure [kPa]
 * @param temperatureC mean air temperature [°C]
 * @see eemt-model.md §2.2 P3; FAO-56 Annex 3 (Eqs. 3-5)
 */
export function airDensity(pressureKPa: number, temperatureC: number): number {
  return (pressureKPa * 1000) / (GAS_CONSTANT_DRY_AIR_J_PER_KG_K * 1.01 * (temperatureC + CELSIUS_ZERO_K));
}

/**
 * Aerodynamic resistance of an open-water surface r_a = 4.72·[ln(z_m/z₀)]² / (1 + 0.536·u₂) [s m⁻¹].
 * @param windSpeedMPerS wind speed u₂ at the measurement height [m s⁻¹]
 * @param measurementHeightM measurement height z_m [m] (default 2)
 * @param roughnessLengthM roughness length z₀ [m] (default 0.00137, open water)
 * @see eemt-model.md §2.2 P3; Thom & Oliver (1977)
 */
export function openWaterAerodynamicResistance(
  windSpeedMPerS: number,
  measurementHeightM = PENMAN_MEASUREMENT_HEIGHT_M,
  roughnessLengthM = OPEN_WATER_ROUGHNESS_LENGTH_M,
): number {
  const logRatio = Math.log(measurementHeightM / roughnessLengthM);
  return (4.72 * logRatio * logRatio) / (1 + 0.536 * windSpeedMPerS);
}
