/**
 * Checks of an eemt run against the invariants of eemt-model.md §5.4, counted over every valid cell and
 * month: E_PPT ≥ 0, E_BIO ≥ 0 (both models), 0 ≤ AET ≤ min(PPT, PET) (TOPO), mean α = 1; plus the
 * solar-ratio range and the cells the kernels flagged (S_i clamped, elevation outside the NPP_TOPO fit).
 */
import type { CellArray, TopoGridMonth, TradGridMonth } from '../../science/eemt/kernels.js';

/** Mean, minimum and maximum over the valid (non-NaN) cells; NaN when there are none. */
export interface ValueSummary {
  readonly mean: number;
  readonly min: number;
  readonly max: number;
  readonly validCells: number;
}

export function summarize(values: ArrayLike<number>): ValueSummary {
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  let count = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (Number.isNaN(v)) continue;
    sum += v;
    if (v < min) min = v;
    if (v > max) max = v;
    count++;
  }
  return count === 0 ? { mean: NaN, min: NaN, max: NaN, validCells: 0 } : { mean: sum / count, min, max, validCells: count };
}

export interface EemtDiagnostics {
  /** λ̄ over the valid cells [-]. */
  readonly meanWetnessIndex: number;
  /** α = λ/λ̄ over the valid cells [-] (mean 1 by construction). */
  readonly wetnessRatio: ValueSummary;
  /** Raw S_topo/S_flat over valid cells and months with S_flat > 0 [-] (before the 0.1 clamp). */
  readonly solarRatio: { readonly min: number; readonly max: number };
  /** Cell-months whose solar ratio was clamped to the minimum. */
  readonly clampedSolarRatioCellMonths: number;
  /** Valid cells outside 700–3000 m, the elevation range of the NPP_TOPO regression. */
  readonly nppElevationOutOfRangeCells: number;
  /** Cell-months with E_PPT < 0 or E_BIO < 0 in either model (must be 0). */
  readonly negativeEnergyCellMonths: number;
  /** Cell-months with AET < 0 or AET > min(PPT, PET) beyond rounding (must be 0). */
  readonly aetOutOfBoundsCellMonths: number;
  /** Annual EEMT statistics per year [MJ m⁻² yr⁻¹]. */
  readonly annual: ReadonlyArray<{ readonly year: number; readonly topo: ValueSummary; readonly trad: ValueSummary }>;
}

/** Relative slack of the AET bound check (the kernels compute in double precision). */
const AET_TOLERANCE = 1e-9;

/** Accumulates the checks month by month. */
export class EemtChecks {
  private solarMin = Infinity;
  private solarMax = -Infinity;
  private clamped = 0;
  private outOfRange = 0;
  private negativeEnergy = 0;
  private aetOutOfBounds = 0;

  constructor(
    private readonly wetnessRatio: Float64Array,
    private readonly meanWetnessIndex: number,
  ) {}

  addMonth(month: {
    prcpMm: CellArray;
    sTopo: CellArray;
    sFlat: CellArray;
    trad: TradGridMonth;
    topo: TopoGridMonth;
  }): void {
    const { prcpMm, sTopo, sFlat, trad, topo } = month;
    this.clamped += topo.clampedSolarRatioCount;
    this.outOfRange = Math.max(this.outOfRange, topo.nppElevationOutOfRangeCount);
    for (let i = 0; i < prcpMm.length; i++) {
      if (Number.isNaN(topo.eemtMJ[i]!)) continue;
      if (topo.ePptMJ[i]! < 0 || topo.eBioMJ[i]! < 0 || trad.ePptMJ[i]! < 0 || trad.eBioMJ[i]! < 0) this.negativeEnergy++;
      const aet = topo.aetMm[i]!;
      const bound = Math.min(prcpMm[i]!, topo.petMm[i]!);
      if (aet < 0 || aet > bound + AET_TOLERANCE * Math.max(1, Math.abs(bound))) this.aetOutOfBounds++;
      if (sFlat[i]! > 0) {
        const ratio = sTopo[i]! / sFlat[i]!;
        if (ratio < this.solarMin) this.solarMin = ratio;
        if (ratio > this.solarMax) this.solarMax = ratio;
      }
    }
  }

  result(annual: EemtDiagnostics['annual']): EemtDiagnostics {
    return {
      meanWetnessIndex: this.meanWetnessIndex,
      wetnessRatio: summarize(this.wetnessRatio),
      solarRatio: { min: this.solarMin === Infinity ? NaN : this.solarMin, max: this.solarMax === -Infinity ? NaN : this.solarMax },
      clampedSolarRatioCellMonths: this.clamped,
      nppElevationOutOfRangeCells: this.outOfRange,
      negativeEnergyCellMonths: this.negativeEnergy,
      aetOutOfBoundsCellMonths: this.aetOutOfBounds,
      annual,
    };
  }
}
