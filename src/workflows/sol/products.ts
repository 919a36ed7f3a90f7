/** File names of the `sol` products, relative to the output folder (SERVICE_SPEC.md, "Output products"). */

export const MONTH_NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] as const;
export type MonthName = (typeof MONTH_NAMES)[number];

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
