/**
 * How a job is split into parts for the distributed queue. A large `sol` job is split into tile slices: each part
 * computes a share of the compute tiles for every day (no part repeats another's horizons) and leaves their
 * compressed tiles on the shared storage; the part `assemble-products` runs after them and writes the products from
 * the slices' tiles — the files of a single run, byte for byte (`workflows/solarYear/slices.ts`). The products are
 * assembled in as many shares as there are slices (dealt by size): `assemble-products` adds the other shares to the queue when it
 * starts, so the workers assemble side by side, and completes once they have all finished. A large `eemt`
 * job splits its solar phase the same way; its last part, `after-solar`, assembles the solar year and does the
 * rest of the job (climate, terrain, EEMT maps, README). DEMs under the split threshold are one part.
 */
import { eemtSolarShare } from '../../workflows/eemt/progress.js';
import { MAX_TILE_SLICES } from '../../workflows/partWork.js';
import { WHOLE_RUN, type RunMode, type WorkflowType } from '../../workflows/types.js';

/** Default of `EEMT_SPLIT_MIN_CELLS`: DEMs from this many cells (about 700 × 700) are split. */
export const DEFAULT_SPLIT_MIN_CELLS = 500_000;
/**
 * Default of `EEMT_SPLIT_PARTS`: tile slices of a split job. Each slice costs a fixed start (reading the DEM,
 * its pyramid and sun plan: seconds) and balances to within one compute tile, so a few slices per worker keep the
 * workers evenly busy; set it to a multiple of the workers (docs/scale-out.md, Fan-out).
 */
export const DEFAULT_SPLIT_PARTS = 4;

/**
 * Share of a split `sol` job's work in the assembly (reading the slices' tiles and writing the 742 COGs with their
 * overviews): measured 35 s of 364 s on one worker for the 912 × 844 DEM at step 15 (bench/scale-out.bench.mjs);
 * smaller on finer DEMs, whose horizons cost more per cell.
 */
export const ASSEMBLY_SHARE = 0.08;

export interface PartPlan {
  /** Unique within the job: `all`, `tiles-K-of-N`, `assemble-products[-K-of-N]` or `after-solar`. */
  readonly name: string;
  /** What the part computes. */
  readonly mode: RunMode;
  /** Share of the job's work, for the combined progress. */
  readonly weight: number;
  /**
   * Added by the job's last part when it starts (`assemble-products` adds the other shares of the assembly, so
   * every idle worker helps); not in the queue before, as they need every slice.
   */
  readonly addedByLastPart?: boolean;
}

/** Name of the part of a split sol job that assembles the products from the slices. */
export const ASSEMBLE_PART = 'assemble-products';
/** Name of the part of a split eemt job that runs after its solar parts. */
export const AFTER_SOLAR_PART = 'after-solar';

export interface SplitSettings {
  readonly minCells: number;
  readonly parts: number;
}

/** Whether `part` is the last part of its job's flow: it starts once every slice has finished (it assembles them). */
export function runsLast(part: PartPlan): boolean {
  return part.mode.kind === 'assemble' && !part.addedByLastPart;
}

/**
 * The parts of a job of `type` on a DEM of `cells` cells; `yearCount` is an eemt job's number of climate years.
 * A split job lists its tile slices first and the part that assembles them last (it runs once they have all finished).
 */
export function planParts(type: WorkflowType, cells: number, split: SplitSettings, yearCount = 1): PartPlan[] {
  const count = Math.min(MAX_TILE_SLICES, Math.floor(split.parts));
  if (cells < split.minCells || !(count > 1)) return [{ name: 'all', weight: 1, mode: WHOLE_RUN }];
  const solarShare = type === 'eemt' ? eemtSolarShare(yearCount) : 1 - ASSEMBLY_SHARE;
  const parts: PartPlan[] = Array.from({ length: count }, (_, index) => ({
    name: `tiles-${index + 1}-of-${count}`,
    weight: solarShare / count,
    mode: { kind: 'slice', slice: { index, count } },
  }));
  if (type === 'eemt') {
    // its last part assembles the solar year, then runs the rest of the job
    parts.push({ name: AFTER_SOLAR_PART, weight: 1 - solarShare, mode: { kind: 'assemble', slices: count } });
    return parts;
  }
  // the assembly in `count` shares: the first is the flow's last part, which adds the others when it starts
  for (let index = 0; index < count; index++) {
    parts.push({
      name: index === 0 ? ASSEMBLE_PART : `${ASSEMBLE_PART}-${index + 1}-of-${count}`,
      weight: ASSEMBLY_SHARE / count,
      mode: { kind: 'assemble', slices: count, share: { index, count } },
      ...(index > 0 ? { addedByLastPart: true } : {}),
    });
  }
  return parts;
}
