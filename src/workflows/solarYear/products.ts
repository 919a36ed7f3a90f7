/** File names of the `sol` products, relative to the output folder (docs/service-contract.md, "Output products"). */

export const MONTH_NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] as const;

/** Days per month of the 365-day year the model uses. */
export const MONTH_LENGTHS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

/** Number of days the model computes: a 365-day year (day 366 does not exist, as in r.sun and Daymet). */
export const DAYS_PER_YEAR = 365;

/** Month index 0–11 of day of year 1–365. */
export function monthOfDay(day: number): number {
  let remaining = day;
  for (let m = 0; m < 12; m++) {
    if (remaining <= MONTH_LENGTHS[m]!) return m;
    remaining -= MONTH_LENGTHS[m]!;
  }
  throw new RangeError(`day ${day} is outside 1–365`);
}

export const dailyGlobalPath = (day: number) => `global/daily/total_sun_day_${day}.tif`;
export const dailyHoursPath = (day: number) => `insol/daily/hours_sun_day_${day}.tif`;
export const monthlyGlobalPath = (month: number) => `global/monthly/total_sun_${MONTH_NAMES[month]}_sum.tif`;
/** Monthly sums for a horizontal, unshaded surface (S_flat of EEMT-Topo); written by the eemt workflow only. */
export const monthlyFlatGlobalPath = (month: number) => `global/monthly/flat_total_sun_${MONTH_NAMES[month]}_sum.tif`;

/**
 * Folder (under the output folder) of the beam parts of the monthly sums, which eemt's solar phase writes for its
 * real-sky radiation and removes once the real-sky maps are made: they are not products.
 */
export const BEAM_PARTS_FOLDER = '.beam-parts';
/** Beam part of `monthlyGlobalPath` (the beam on the surface and the ground reflection of the horizontal beam). */
export const monthlyBeamPartPath = (month: number) => `${BEAM_PARTS_FOLDER}/total_sun_${MONTH_NAMES[month]}_beam_sum.tif`;
/** Beam part of `monthlyFlatGlobalPath` (the clear-sky beam on a horizontal unshaded surface). */
export const monthlyFlatBeamPath = (month: number) => `${BEAM_PARTS_FOLDER}/flat_total_sun_${MONTH_NAMES[month]}_beam_sum.tif`;

/** Last day of year (1–365) of month 0–11. */
export function lastDayOfMonth(month: number): number {
  let day = 0;
  for (let m = 0; m <= month; m++) day += MONTH_LENGTHS[m]!;
  return day;
}

/** Months (0–11) all of whose days are in `days`. */
export function completeMonths(days: readonly number[]): number[] {
  const set = new Set(days);
  const months: number[] = [];
  for (let m = 0, first = 1; m < 12; first += MONTH_LENGTHS[m]!, m++) {
    let complete = true;
    for (let d = first; d < first + MONTH_LENGTHS[m]!; d++) if (!set.has(d)) complete = false;
    if (complete) months.push(m);
  }
  return months;
}
