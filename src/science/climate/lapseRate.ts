/**
 * Lapse-rate downscaling of Daymet temperature to DEM elevations (eemt-model.md §3.2 step 3).
 *
 *   T' = T − Γ · (z − z_ref) / 1000
 *
 * T [°C] is the Daymet value of the 1 km cell, z [m] the DEM elevation of the target cell,
 * z_ref [m] the elevation Daymet assigns to its 1 km cell (the `Elevation` line of the single-pixel
 * API; eemt-model.md §3.2 step 1) and Γ [K km⁻¹] the lapse rate. The default Γ = 6.49 K km⁻¹ for both
 * tmin and tmax follows reemt L139–142 (eemt-model.md §0.3, §4 R1); the paper used monthly,
 * separate lapse rates for tmin and tmax (VZJ15 L309–313), so 12 monthly values are accepted too.
 */
import { MONTHS_PER_YEAR } from './calendar.js';

/** Default temperature lapse rate Γ [K km⁻¹] (eemt-model.md §0.3). */
export const DEFAULT_LAPSE_RATE_K_PER_KM = 6.49;

/** A lapse rate [K km⁻¹] for every month, or 12 monthly values (January first). */
export type LapseRateSpec_K_per_km = number | readonly number[];

/**
 * Temperature at elevation `z_m`, moved from the reference elevation `zRef_m` along the lapse rate.
 * @param temperature_C temperature at zRef_m [°C]
 * @param z_m target elevation [m]
 * @param zRef_m elevation of the temperature value [m]
 * @param lapseRate_K_per_km Γ [K km⁻¹], positive when temperature falls with height
 * @returns T − Γ·(z − z_ref)/1000 [°C]
 */
export function lapseAdjustTemperature_C(
  temperature_C: number,
  z_m: number,
  zRef_m: number,
  lapseRate_K_per_km: number = DEFAULT_LAPSE_RATE_K_PER_KM,
): number {
  return temperature_C - (lapseRate_K_per_km * (z_m - zRef_m)) / 1000;
}

/**
 * The 12 monthly lapse rates [K km⁻¹] of a spec: a single number is used for every month.
 * Throws on a wrong count or a non-finite value.
 */
export function monthlyLapseRates_K_per_km(spec: LapseRateSpec_K_per_km = DEFAULT_LAPSE_RATE_K_PER_KM): Float64Array {
  const rates =
    typeof spec === 'number' ? new Float64Array(MONTHS_PER_YEAR).fill(spec) : Float64Array.from(spec);
  if (rates.length !== MONTHS_PER_YEAR) {
    throw new RangeError(`a monthly lapse rate needs 12 values (January first), got ${rates.length}`);
  }
  for (const r of rates) {
    if (!Number.isFinite(r)) throw new RangeError(`lapse rates must be finite numbers [K/km], got ${r}`);
  }
  return rates;
}
