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
export type LapseRateSpecKPerKm = number | readonly number[];

/**
 * Temperature moved from a reference elevation to a target elevation along a constant lapse rate [°C]:
 * T' = T − Γ·(z − z_ref)/1000.
 * @param temperatureC temperature at the reference elevation [°C]
 * @param elevationM target elevation z [m]
 * @param referenceElevationM elevation z_ref the temperature refers to (Daymet cell) [m]
 * @param lapseRateKPerKm Γ [K km⁻¹], positive when temperature falls with height
 * @see eemt-model.md §1.2 T1, §3.2 step 3; Rasmussen et al. 2015 (VZJ) Eq. 6, first two terms
 */
export function lapseRateAdjustedTemperature(
  temperatureC: number,
  elevationM: number,
  referenceElevationM: number,
  lapseRateKPerKm: number = DEFAULT_LAPSE_RATE_K_PER_KM,
): number {
  return temperatureC - (lapseRateKPerKm * (elevationM - referenceElevationM)) / 1000;
}

/**
 * The 12 monthly lapse rates [K km⁻¹] of a spec: a single number is used for every month.
 * Throws on a wrong count or a non-finite value.
 */
export function monthlyLapseRatesKPerKm(spec: LapseRateSpecKPerKm = DEFAULT_LAPSE_RATE_K_PER_KM): Float64Array {
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
