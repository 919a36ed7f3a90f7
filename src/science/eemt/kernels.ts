/**
 * Grid kernels: one month of EEMT-TRAD or EEMT-TOPO over every cell of a grid.
 * Typed arrays in, typed arrays out; nothing is allocated per cell; NaN in any input of a cell gives NaN in
 * every output of that cell. Each cell runs exactly the arithmetic of the scalar functions in trad.ts and
 * topo.ts, so kernel and scalar results are identical.
 *
 * @see eemt-model.md §1.2, §2.2
 */
import { eemtMonthSetting, resolveEemtOptions, type EemtOptionsInput } from './constants.js';
import { monthlyMeanDaylightHours } from './daylength.js';
import { TOPO_SCRATCH_LENGTH, topoCellInto, topoMonthSetting } from './topo.js';
import { TRAD_SCRATCH_LENGTH, tradCellInto } from './trad.js';

/** A per-cell array of numbers. */
export type CellArray = Float64Array | Float32Array;

/** Per-cell inputs of {@link eemtTradMonth}; all arrays have the same length (the number of cells). */
export interface TradGridInputs {
  /** Daymet monthly mean Tmax at the Daymet cell [°C]. */
  readonly tmaxC: CellArray;
  /** Daymet monthly mean Tmin at the Daymet cell [°C]. */
  readonly tminC: CellArray;
  /** Monthly precipitation [mm month⁻¹]. */
  readonly prcpMm: CellArray;
  /** Pixel elevation z [m]. */
  readonly elevationM: CellArray;
  /** Daymet cell elevation z_ref [m]. */
  readonly referenceElevationM: CellArray;
  /** Latitude [° north]; needed unless `daylightHours` is given. Runs of equal values reuse the day length. */
  readonly latitudeDeg?: CellArray;
  /** Monthly mean day length [h]; overrides `latitudeDeg`. */
  readonly daylightHours?: CellArray;
  /** Thornthwaite heat index I (only for `petMethod: 'thornthwaite'`). */
  readonly heatIndex?: CellArray;
}

/** Per-cell outputs of {@link eemtTradMonth}. */
export interface TradGridMonth {
  /** E_PPT [MJ m⁻² month⁻¹]. */
  readonly ePptMJ: Float64Array;
  /** E_BIO [MJ m⁻² month⁻¹]. */
  readonly eBioMJ: Float64Array;
  /** EEMT_TRAD [MJ m⁻² month⁻¹]. */
  readonly eemtMJ: Float64Array;
  /** Diagnostic: PET [mm month⁻¹]. */
  readonly petMm: Float64Array;
}

/** Per-cell inputs of {@link eemtTopoMonth}; all arrays have the same length. */
export interface TopoGridInputs {
  readonly tmaxC: CellArray;
  readonly tminC: CellArray;
  readonly prcpMm: CellArray;
  /** Monthly mean vapour pressure [Pa]. */
  readonly vpPa: CellArray;
  readonly elevationM: CellArray;
  readonly referenceElevationM: CellArray;
  /** S_topo [Wh m⁻² month⁻¹]. */
  readonly topographicRadiationWhM2: CellArray;
  /** S_flat [Wh m⁻² month⁻¹]. */
  readonly flatRadiationWhM2: CellArray;
  /** α = λ/λ̄ [-]. */
  readonly wetnessRatio: CellArray;
  /** n = cos(aspect)·sin(slope) [-]. */
  readonly northness: CellArray;
}

/** Per-cell outputs of {@link eemtTopoMonth}. */
export interface TopoGridMonth {
  readonly ePptMJ: Float64Array;
  readonly eBioMJ: Float64Array;
  readonly eemtMJ: Float64Array;
  /** Diagnostic: Penman PET [mm month⁻¹]. */
  readonly petMm: Float64Array;
  /** Diagnostic: Fu/Budyko AET [mm month⁻¹]. */
  readonly aetMm: Float64Array;
  /** Diagnostic: number of valid cells whose solar ratio was clamped to the minimum. */
  readonly clampedSolarRatioCount: number;
  /**
   * Diagnostic: number of valid cells outside 700–3000 m, the elevation range the NPP_TOPO regression was
   * fitted on (eemt-model.md §2.2 P9 asks callers to warn about these); 0 unless `topoNppModel` is `regression`.
   */
  readonly nppElevationOutOfRangeCount: number;
}

/** Elevation range [m] of the data behind the NPP_TOPO regression (VZJ15 Eq. 11; eemt-model.md §2.2 P9). */
export const TOPO_NPP_ELEVATION_RANGE_M: readonly [number, number] = [700, 3000];

function cellCount(arrays: Record<string, CellArray | undefined>): number {
  let n = -1;
  for (const [name, array] of Object.entries(arrays)) {
    if (array === undefined) continue;
    if (n < 0) n = array.length;
    else if (array.length !== n) throw new RangeError(`input ${name} has ${array.length} cells, expected ${n}`);
  }
  return Math.max(n, 0);
}

function outputArray(given: Float64Array | undefined, n: number, name: string): Float64Array {
  if (given === undefined) return new Float64Array(n);
  if (given.length !== n) throw new RangeError(`output ${name} has ${given.length} cells, expected ${n}`);
  return given;
}

/**
 * EEMT-TRAD of one month over all cells (steps T1–T8).
 * @param month 1 = January … 12 = December
 * @param out optional preallocated outputs (reuse them across months to avoid allocation)
 * @see eemt-model.md §1.2
 */
export function eemtTradMonth(
  month: number,
  inputs: TradGridInputs,
  options: EemtOptionsInput = {},
  out: Partial<TradGridMonth> = {},
): TradGridMonth {
  const opts = resolveEemtOptions(options);
  const setting = eemtMonthSetting(month, opts);
  const { tmaxC, tminC, prcpMm, elevationM, referenceElevationM, latitudeDeg, daylightHours, heatIndex } = inputs;
  const n = cellCount({ tmaxC, tminC, prcpMm, elevationM, referenceElevationM, latitudeDeg, daylightHours, heatIndex });
  if (daylightHours === undefined && latitudeDeg === undefined) {
    throw new TypeError('eemtTradMonth needs latitudeDeg or daylightHours');
  }
  if (opts.petMethod === 'thornthwaite' && heatIndex === undefined) {
    throw new TypeError("petMethod 'thornthwaite' needs the heatIndex input");
  }
  const ePptMJ = outputArray(out.ePptMJ, n, 'ePptMJ');
  const eBioMJ = outputArray(out.eBioMJ, n, 'eBioMJ');
  const eemtMJ = outputArray(out.eemtMJ, n, 'eemtMJ');
  const petMm = outputArray(out.petMm, n, 'petMm');
  const scratch = new Float64Array(TRAD_SCRATCH_LENGTH);
  let lastLatitude = NaN;
  let lastDaylight = NaN;
  for (let i = 0; i < n; i++) {
    let daylight: number;
    if (daylightHours !== undefined) {
      daylight = daylightHours[i]!;
    } else {
      const latitude = latitudeDeg![i]!;
      if (latitude !== lastLatitude) {
        lastLatitude = latitude;
        lastDaylight = monthlyMeanDaylightHours(latitude, month);
      }
      daylight = lastDaylight;
    }
    tradCellInto(
      scratch,
      setting,
      tmaxC[i]!,
      tminC[i]!,
      prcpMm[i]!,
      elevationM[i]!,
      referenceElevationM[i]!,
      daylight,
      heatIndex === undefined ? NaN : heatIndex[i]!,
    );
    petMm[i] = scratch[3]!;
    ePptMJ[i] = scratch[6]!;
    eBioMJ[i] = scratch[7]!;
    eemtMJ[i] = scratch[8]!;
  }
  return { ePptMJ, eBioMJ, eemtMJ, petMm };
}

/**
 * EEMT-TOPO of one month over all cells (steps P1–P10).
 * @param month 1 = January … 12 = December
 * @param out optional preallocated outputs (reuse them across months to avoid allocation)
 * @see eemt-model.md §2.2
 */
export function eemtTopoMonth(
  month: number,
  inputs: TopoGridInputs,
  options: EemtOptionsInput = {},
  out: Partial<Omit<TopoGridMonth, 'clampedSolarRatioCount' | 'nppElevationOutOfRangeCount'>> = {},
): TopoGridMonth {
  const opts = resolveEemtOptions(options);
  const setting = topoMonthSetting(month, opts);
  const n = cellCount({ ...inputs });
  const ePptMJ = outputArray(out.ePptMJ, n, 'ePptMJ');
  const eBioMJ = outputArray(out.eBioMJ, n, 'eBioMJ');
  const eemtMJ = outputArray(out.eemtMJ, n, 'eemtMJ');
  const petMm = outputArray(out.petMm, n, 'petMm');
  const aetMm = outputArray(out.aetMm, n, 'aetMm');
  const { tmaxC, tminC, prcpMm, vpPa, elevationM, referenceElevationM } = inputs;
  const { topographicRadiationWhM2: sTopo, flatRadiationWhM2: sFlat, wetnessRatio, northness } = inputs;
  const scratch = new Float64Array(TOPO_SCRATCH_LENGTH);
  let clamped = 0;
  let outOfRange = 0;
  const [zLow, zHigh] = TOPO_NPP_ELEVATION_RANGE_M;
  const regression = opts.topoNppModel === 'regression';
  for (let i = 0; i < n; i++) {
    topoCellInto(
      scratch,
      setting,
      tmaxC[i]!,
      tminC[i]!,
      prcpMm[i]!,
      vpPa[i]!,
      elevationM[i]!,
      referenceElevationM[i]!,
      sTopo[i]!,
      sFlat[i]!,
      wetnessRatio[i]!,
      northness[i]!,
    );
    if (scratch[1] === 1) clamped++;
    const z = elevationM[i]!;
    if (regression && (z < zLow || z > zHigh) && !Number.isNaN(scratch[13]!)) outOfRange++;
    petMm[i] = scratch[6]!;
    aetMm[i] = scratch[7]!;
    ePptMJ[i] = scratch[11]!;
    eBioMJ[i] = scratch[12]!;
    eemtMJ[i] = scratch[13]!;
  }
  return {
    ePptMJ,
    eBioMJ,
    eemtMJ,
    petMm,
    aetMm,
    clampedSolarRatioCount: clamped,
    nppElevationOutOfRangeCount: outOfRange,
  };
}
