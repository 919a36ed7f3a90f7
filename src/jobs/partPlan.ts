/**
 * How a job is split into parts for the distributed queue. A large `sol` job is split by ranges of whole months:
 * each part computes its days (the `days` option of the solar year) and writes their daily maps and the monthly
 * sums of its months, so the parts together write exactly the files of a single run, with the same values.
 * A large `eemt` job splits its solar phase the same way (the parts also write the flat-surface sums); one more
 * part, `after-solar`, runs after them and does the rest of the job (climate, terrain, EEMT maps, README) with the
 * solar year they wrote. DEMs under the split threshold are one part.
 */
import { MONTH_LENGTHS } from '../workflows/sol/products.js';
import { eemtSolarShare } from '../workflows/eemt/progress.js';
import type { EemtPhases, WorkflowType } from '../workflows/types.js';

/** Default of `EEMT_SPLIT_MIN_CELLS`: DEMs from this many cells (about 700 × 700) are split. */
export const DEFAULT_SPLIT_MIN_CELLS = 500_000;
/**
 * Default of `EEMT_SPLIT_PARTS`: parts of a split job. Each part recomputes the terrain horizons: about 40 % of
 * a whole 10 m year, 80 % of a quarter-year part on a 2.5 m DEM (docs/scale-out.md, Fan-out).
 */
export const DEFAULT_SPLIT_PARTS = 4;

export interface PartPlan {
  /** Unique within the job: `all`, or the month range such as `m01-03`. */
  readonly name: string;
  /** Days of year 1–365 of the part; null for the whole workflow. */
  readonly days: readonly number[] | null;
  /** Share of the job's work (the days' share of the year, times the solar phase's share for eemt), for the combined progress. */
  readonly weight: number;
  /** eemt: the phases the part runs ('solar' for its days, 'after-solar' for the rest); absent for a sol part or a whole job. */
  readonly eemtPhases?: EemtPhases;
}

/** Name of the part of a split eemt job that runs after its solar parts. */
export const AFTER_SOLAR_PART = 'after-solar';

export interface SplitSettings {
  readonly minCells: number;
  readonly parts: number;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** Contiguous month ranges (0-based, inclusive) with day counts as equal as whole months allow. */
export function monthRanges(parts: number): [number, number][] {
  const count = Math.max(1, Math.min(12, Math.floor(parts)));
  const ranges: [number, number][] = [];
  let first = 0;
  let cumulative = 0;
  for (let month = 0; month < 12; month++) {
    cumulative += MONTH_LENGTHS[month]!;
    const target = ((ranges.length + 1) * 365) / count;
    const monthsLeft = 11 - month;
    const rangesLeft = count - ranges.length - 1;
    // Close the range at the month end nearest its share of the year, keeping a month for every later range.
    const closeHere = month === 11 || monthsLeft === rangesLeft || (rangesLeft > 0 && Math.abs(cumulative - target) <= Math.abs(cumulative + MONTH_LENGTHS[month + 1]! - target));
    if (closeHere) {
      ranges.push([first, month]);
      first = month + 1;
    }
  }
  return ranges;
}

/**
 * The parts of a job of `type` on a DEM of `cells` cells; `yearCount` is an eemt job's number of climate years.
 * A split eemt job lists its solar parts first and `after-solar` last (it runs once they have all finished).
 */
export function planParts(type: WorkflowType, cells: number, split: SplitSettings, yearCount = 1): PartPlan[] {
  if (cells < split.minCells || split.parts <= 1) return [{ name: 'all', days: null, weight: 1 }];
  const solarShare = type === 'eemt' ? eemtSolarShare(yearCount) : 1;
  const startDay = (month: number) => MONTH_LENGTHS.slice(0, month).reduce((a, b) => a + b, 0) + 1;
  const parts: PartPlan[] = monthRanges(split.parts).map(([first, last]) => {
    const start = startDay(first);
    const end = startDay(last + 1) - 1;
    const days = Array.from({ length: end - start + 1 }, (_, i) => start + i);
    const name = `m${pad(first + 1)}-${pad(last + 1)}`;
    const weight = (days.length / 365) * solarShare;
    return type === 'eemt' ? { name, days, weight, eemtPhases: 'solar' } : { name, days, weight };
  });
  if (type === 'eemt') parts.push({ name: AFTER_SOLAR_PART, days: null, weight: 1 - solarShare, eemtPhases: 'after-solar' });
  return parts;
}
