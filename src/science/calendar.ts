/**
 * The 365-day calendar of the models and the time units they convert with, each defined once for all of
 * science/ (eemt-model.md §0.2).
 *
 * Daymet's years have exactly 365 days: in leap years Daymet keeps 29 February and drops 31 December, so
 * these month lengths hold in every year (science/climate/calendar.ts); they are the month lengths n_m of the
 * EEMT model and the months over which the real-sky radiation is averaged (Duffie & Beckman 2013, Table 1.6.1).
 */

/** Days of each month in the 365-day calendar (index 0 = January) [days]. */
export const DAYS_IN_MONTH: readonly number[] = Object.freeze([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]);

/** Days in the 365-day year [days]. */
export const DAYS_IN_YEAR = 365;

/** Months in a year. */
export const MONTHS_PER_YEAR = 12;

/** Days of the year before the first day of each month (index 0 = January; 0-based day index of its 1st) [days]. */
export const DAY_OF_YEAR_BEFORE_MONTH: readonly number[] = Object.freeze(
  DAYS_IN_MONTH.map((_, m) => DAYS_IN_MONTH.slice(0, m).reduce((a, b) => a + b, 0)),
);

/** Seconds in one hour [s] (converts Wh to J). */
export const SECONDS_PER_HOUR = 3600;

/** Seconds in one day [s]. */
export const SECONDS_PER_DAY = 86400;
