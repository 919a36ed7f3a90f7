/**
 * What one part of a job split across workers computes: a slice of the solar year's compute tiles, the assembly
 * of the solar year from the slices (or a share of its products), and for eemt which phases. The job layer plans parts (`jobs/partPlan.ts`),
 * the runtimes hand them to the job child, and the workflows run them (`WorkflowRun`).
 */
import type { EemtPhases, TileSlice } from './types.js';

/** Most tile slices of one job. */
export const MAX_TILE_SLICES = 256;

export interface PartWork {
  /** Compute only this slice of the solar year's tiles (`sol`, or an eemt part with `eemtPhases: 'solar'`). */
  readonly tileSlice?: TileSlice;
  /** Assemble the solar year from this many slices (`sol`: only that; eemt: first, with `eemtPhases: 'after-solar'`). */
  readonly assembleSlices?: number;
  /** With `assembleSlices`: assemble only this share of the products (`sol`), nothing else. */
  readonly assemblyShare?: TileSlice;
  /** eemt: the phases to run. */
  readonly eemtPhases?: EemtPhases;
}

/** The part-work fields of `value` that are set (nothing for a whole job). */
export function partWorkOf(value: PartWork | undefined): PartWork {
  if (!value) return {};
  return {
    ...(value.tileSlice ? { tileSlice: { index: value.tileSlice.index, count: value.tileSlice.count } } : {}),
    ...(value.assembleSlices !== undefined ? { assembleSlices: value.assembleSlices } : {}),
    ...(value.assemblyShare ? { assemblyShare: { index: value.assemblyShare.index, count: value.assemblyShare.count } } : {}),
    ...(value.eemtPhases ? { eemtPhases: value.eemtPhases } : {}),
  };
}

/** Whether `value` is a part of a split job (has any part work). */
export function isSplitPart(value: PartWork | undefined): boolean {
  return Object.keys(partWorkOf(value)).length > 0;
}
