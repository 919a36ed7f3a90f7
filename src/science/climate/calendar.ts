/**
 * Daymet's 365-day calendar (eemt-model.md §0.2).
 *
 * Every Daymet year has exactly 365 days numbered `yday` = 1..365. In leap years Daymet keeps
 * 29 February and drops 31 December, so the month lengths of science/calendar.ts hold in every year: February has
 * 28 days of Daymet data even in a leap year (its 29th day is counted as 1 March, and every later
 * month is shifted by one day). This is the calendar the monthly aggregation uses; it matches the
 * `n_m` month lengths of the EEMT model.
 */
import { DAYS_IN_MONTH, DAYS_IN_YEAR, DAY_OF_YEAR_BEFORE_MONTH, MONTHS_PER_YEAR } from '../calendar.js';

export { DAYS_IN_MONTH, DAYS_IN_YEAR, DAY_OF_YEAR_BEFORE_MONTH, MONTHS_PER_YEAR };

/** Month (0 = January … 11 = December) of a Daymet `yday` (1..365). Throws outside 1..365. */
export function monthIndexOfYday(yday: number): number {
  if (!Number.isInteger(yday) || yday < 1 || yday > DAYS_IN_YEAR) {
    throw new RangeError(`yday must be an integer in 1..365, got ${yday}`);
  }
  let month = 0;
  while (month < 11 && yday > DAY_OF_YEAR_BEFORE_MONTH[month + 1]!) month++;
  return month;
}
