/**
 * Downscaling of per-Daymet-cell values to a DEM grid (eemt-model.md §3.2).
 *
 * Resampling is nearest neighbour: every DEM cell takes the value of the Daymet 1 km cell whose
 * centre is nearest (in Daymet's Lambert Conformal Conic plane), given as an index into the list of
 * Daymet cells (`nearestCellIndex`, −1 = no Daymet cell). Temperatures are then lapse-rate adjusted
 * from that cell's reference elevation z_ref to the DEM elevation (§3.2 step 3); precipitation and
 * vapour pressure are not adjusted (§3.2 steps 4–5). A DEM cell whose elevation is NaN (nodata)
 * or whose Daymet value is NaN gets NaN.
 */
import { DEFAULT_LAPSE_RATE_K_PER_KM } from './lapseRate.js';

function checkSameLength(nearestCellIndex: Int32Array, demElevation_m: ArrayLike<number> | undefined): void {
  if (demElevation_m !== undefined && demElevation_m.length !== nearestCellIndex.length) {
    throw new RangeError(
      `DEM elevation has ${demElevation_m.length} cells but the nearest-cell index has ${nearestCellIndex.length}`,
    );
  }
}

/**
 * Nearest-neighbour resampling without adjustment (prcp [mm month⁻¹], vp [Pa], …).
 * @param cellValues one value per Daymet cell (any units)
 * @param nearestCellIndex per DEM cell, the index into `cellValues` (−1 → NaN)
 * @param demElevation_m optional DEM elevations [m]; NaN (nodata) cells get NaN
 * @returns one value per DEM cell, same units
 */
export function resampleNearestToDem(
  cellValues: ArrayLike<number>,
  nearestCellIndex: Int32Array,
  demElevation_m?: ArrayLike<number>,
): Float32Array {
  checkSameLength(nearestCellIndex, demElevation_m);
  const out = new Float32Array(nearestCellIndex.length);
  for (let i = 0; i < out.length; i++) {
    const k = nearestCellIndex[i]!;
    out[i] = k < 0 || (demElevation_m !== undefined && Number.isNaN(demElevation_m[i]!)) ? Number.NaN : cellValues[k]!;
  }
  return out;
}

/**
 * Nearest-neighbour resampling of a temperature with lapse-rate adjustment:
 * T'(i) = T(k) − Γ·(z(i) − z_ref(k))/1000 with k = nearestCellIndex[i].
 * @param cellTemperature_C temperature per Daymet cell [°C]
 * @param cellElevation_m reference elevation z_ref per Daymet cell [m]
 * @param nearestCellIndex per DEM cell, the index of its Daymet cell (−1 → NaN)
 * @param demElevation_m DEM elevation per cell [m]; NaN → NaN
 * @param lapseRate_K_per_km Γ [K km⁻¹]
 * @returns temperature per DEM cell [°C]
 */
export function lapseAdjustedTemperatureToDem(
  cellTemperature_C: ArrayLike<number>,
  cellElevation_m: ArrayLike<number>,
  nearestCellIndex: Int32Array,
  demElevation_m: ArrayLike<number>,
  lapseRate_K_per_km: number = DEFAULT_LAPSE_RATE_K_PER_KM,
): Float32Array {
  checkSameLength(nearestCellIndex, demElevation_m);
  if (cellElevation_m.length !== cellTemperature_C.length) {
    throw new RangeError(
      `got ${cellTemperature_C.length} cell temperatures but ${cellElevation_m.length} cell elevations`,
    );
  }
  const perMetre = lapseRate_K_per_km / 1000;
  const out = new Float32Array(nearestCellIndex.length);
  for (let i = 0; i < out.length; i++) {
    const k = nearestCellIndex[i]!;
    out[i] = k < 0 ? Number.NaN : cellTemperature_C[k]! - perMetre * (demElevation_m[i]! - cellElevation_m[k]!);
  }
  return out;
}
