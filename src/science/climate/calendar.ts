/**
 * Daymet's 365-day calendar (eemt-model.md §0.2).
 *
 * Every Daymet year has exactly 365 days numbered `yday` = 1..365. In leap years Daymet keeps
 * 29 February and drops 31 December, so the month lengths below hold in every year: February has
 * 28 days of Daymet data even in a leap year (its 29th day is counted as 1 March, and every later
 * month is shifted by one day). This is the calendar the monthly aggregation uses; it matches the
 * `n_m` month lengths of the EEMT model.
 */

/** Days in each month of the 365-day calendar, January first [days]. */
export const DAYS_IN_MONTH_365: readonly number[] = Object.freeze([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]);

/** Number of days in a Daymet year [days]. */
export const DAYS_PER_DAYMET_YEAR = 365;

/** Number of months in a year. */
export const MONTHS_PER_YEAR = 12;

/** Zero-based day-of-year index of the first day of each month (0 = 1 January) [days]. */
export const MONTH_START_DAY_INDEX: readonly number[] = Object.freeze(
  DAYS_IN_MONTH_365.map((_, m) => DAYS_IN_MONTH_365.slice(0, m).reduce((a, b) => a + b, 0)),
);

/** Month (0 = January … 11 = December) of a Daymet `yday` (1..365). Throws outside 1..365. */
export function monthIndexOfYday(yday: number): number {
  if (!Number.isInteger(yday) || yday < 1 || yday > DAYS_PER_DAYMET_YEAR) {
    throw new RangeError(`yday must be an integer in 1..365, got ${yday}`);
  }
  let month = 0;
  while (month < 11 && yday > MONTH_START_DAY_INDEX[month + 1]!) month++;
  return month;
}
