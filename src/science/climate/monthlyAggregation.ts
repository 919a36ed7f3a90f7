/**
 * Monthly aggregation of daily Daymet series (eemt-model.md §3.1 and §0.2).
 *
 * tmax, tmin [°C] and vp [Pa] are aggregated as the mean of the daily values; prcp [mm day⁻¹]
 * as the monthly total [mm month⁻¹ = kg m⁻² month⁻¹]. Months follow the 365-day calendar
 * (31, 28, 31, …, 31 days; see `calendar.ts`).
 *
 * Missing values: Daymet marks a missing day with −9999; NaN is treated the same way.
 * A month is aggregated from the days that are present when at least `minPresentFraction`
 * (default 0.8, i.e. at most 6 missing days in a 31-day month) of its days are present:
 * - means (tmax, tmin, vp): mean of the present days;
 * - totals (prcp): mean of the present days × days in the month, so the total is not biased low
 *   by the gaps.
 * Otherwise the month is NaN. In practice Daymet's gridded product has no gaps on land; −9999
 * appears for whole series (e.g. a water cell), which therefore yields NaN for every month.
 */
import { dailyDiffuseWhM2 } from '../solar/realSky.js';
import { DAYS_IN_MONTH, DAYS_IN_YEAR, DAY_OF_YEAR_BEFORE_MONTH, MONTHS_PER_YEAR, SECONDS_PER_HOUR } from '../calendar.js';

/** Daymet's marker for a missing value. */
export const DAYMET_MISSING_VALUE = -9999;

/** Default minimum fraction of a month's days that must be present for a monthly value. */
export const DEFAULT_MIN_PRESENT_FRACTION = 0.8;

/** How a daily variable becomes a monthly value. */
export type MonthlyAggregation = 'mean' | 'total';

/** True when a daily value counts as missing (−9999 or not finite). */
export function isMissingDaymetValue(value: number): boolean {
  return value === DAYMET_MISSING_VALUE || !Number.isFinite(value);
}

/**
 * Aggregates one 365-day series into 12 monthly values.
 * @param daily 365 daily values, index 0 = yday 1 (units of the variable, per day for totals).
 * @param how `mean` → monthly mean (same units); `total` → monthly sum (units × days).
 * @param minPresentFraction minimum fraction (0..1] of a month's days that must be present.
 * @returns 12 values, January first; NaN where too many days are missing.
 */
export function aggregateDailyToMonthly(
  daily: ArrayLike<number>,
  how: MonthlyAggregation,
  minPresentFraction: number = DEFAULT_MIN_PRESENT_FRACTION,
): Float64Array {
  if (daily.length !== DAYS_IN_YEAR) {
    throw new RangeError(`a Daymet year has 365 daily values, got ${daily.length}`);
  }
  if (!(minPresentFraction > 0 && minPresentFraction <= 1)) {
    throw new RangeError(`minPresentFraction must be in (0, 1], got ${minPresentFraction}`);
  }
  const monthly = new Float64Array(MONTHS_PER_YEAR);
  for (let m = 0; m < MONTHS_PER_YEAR; m++) {
    const start = DAY_OF_YEAR_BEFORE_MONTH[m]!;
    const days = DAYS_IN_MONTH[m]!;
    let sum = 0;
    let present = 0;
    for (let d = start; d < start + days; d++) {
      const v = daily[d]!;
      if (isMissingDaymetValue(v)) continue;
      sum += v;
      present++;
    }
    if (present === 0 || present < minPresentFraction * days) {
      monthly[m] = Number.NaN;
    } else {
      const mean = sum / present;
      monthly[m] = how === 'mean' ? mean : mean * days;
    }
  }
  return monthly;
}

/** Daily Daymet series of one cell and year, each 365 values (index 0 = yday 1). */
export interface DaymetDailyYear {
  /** Daily maximum 2 m air temperature [°C]. */
  readonly tmax: ArrayLike<number>;
  /** Daily minimum 2 m air temperature [°C]. */
  readonly tmin: ArrayLike<number>;
  /** Daily total precipitation [mm day⁻¹]. */
  readonly prcp: ArrayLike<number>;
  /** Daily mean water vapour pressure [Pa]. */
  readonly vp: ArrayLike<number>;
}

/** Monthly Daymet values of one cell and year, each 12 values (January first). */
export interface DaymetMonthlyYear {
  /** Mean of daily maximum temperature [°C]. */
  readonly tmax: Float64Array;
  /** Mean of daily minimum temperature [°C]. */
  readonly tmin: Float64Array;
  /** Monthly total precipitation [mm month⁻¹]. */
  readonly prcp: Float64Array;
  /** Mean water vapour pressure [Pa]. */
  readonly vp: Float64Array;
}

/** The four Daymet variables the EEMT model uses (eemt-model.md §3.1). */
export const DAYMET_EEMT_VARIABLES = ['tmax', 'tmin', 'prcp', 'vp'] as const;
export type DaymetEemtVariable = (typeof DAYMET_EEMT_VARIABLES)[number];

/** The Daymet variables of the observed radiation (eemt's real-sky maps): shortwave flux and day length. */
export const DAYMET_RADIATION_VARIABLES = ['srad', 'dayl'] as const;
export type DaymetRadiationVariable = (typeof DAYMET_RADIATION_VARIABLES)[number];

/** How each EEMT variable is aggregated to months (eemt-model.md §3.1). */
export const MONTHLY_AGGREGATION: Readonly<Record<DaymetEemtVariable, MonthlyAggregation>> = Object.freeze({
  tmax: 'mean',
  tmin: 'mean',
  prcp: 'total',
  vp: 'mean',
});

/** Aggregates one cell-year of daily tmax, tmin, prcp and vp to monthly values (see module doc). */
export function aggregateDaymetYearToMonthly(
  daily: DaymetDailyYear,
  minPresentFraction: number = DEFAULT_MIN_PRESENT_FRACTION,
): DaymetMonthlyYear {
  return {
    tmax: aggregateDailyToMonthly(daily.tmax, MONTHLY_AGGREGATION.tmax, minPresentFraction),
    tmin: aggregateDailyToMonthly(daily.tmin, MONTHLY_AGGREGATION.tmin, minPresentFraction),
    prcp: aggregateDailyToMonthly(daily.prcp, MONTHLY_AGGREGATION.prcp, minPresentFraction),
    vp: aggregateDailyToMonthly(daily.vp, MONTHLY_AGGREGATION.vp, minPresentFraction),
  };
}


/** Monthly observed horizontal irradiation of one cell and year, January first. */
export interface DaymetMonthlyRadiation {
  /** Monthly sum of the daily global irradiation H = srad × dayl on a horizontal surface [Wh m⁻² month⁻¹]. */
  readonly globalWhM2: Float64Array;
  /** Its diffuse part: the sum of each day's H_d by Erbs et al.'s daily correlation [Wh m⁻² month⁻¹]. */
  readonly diffuseWhM2: Float64Array;
}

/**
 * Monthly sums of a Daymet cell-year's observed horizontal global irradiation H = srad × dayl (srad: the shortwave
 * flux averaged over the daylight period [W m⁻²], dayl: the daylight period [s]) and of its diffuse part, each day
 * split by the daily correlation of Erbs et al. (1982) on its clearness index at `latitudeRad` (yday = day of year).
 * Missing days are handled as for totals: the mean of the present days × the days of the month, NaN when fewer
 * than `minPresentFraction` of them are present.
 */
export function aggregateDaymetRadiationToMonthly(
  srad: ArrayLike<number>,
  dayl: ArrayLike<number>,
  latitudeRad: number,
  minPresentFraction: number = DEFAULT_MIN_PRESENT_FRACTION,
): DaymetMonthlyRadiation {
  if (srad.length !== DAYS_IN_YEAR || dayl.length !== DAYS_IN_YEAR) {
    throw new RangeError(`a Daymet year has 365 daily values, got srad ${srad.length}, dayl ${dayl.length}`);
  }
  const global = new Float64Array(DAYS_IN_YEAR);
  const diffuse = new Float64Array(DAYS_IN_YEAR);
  for (let d = 0; d < DAYS_IN_YEAR; d++) {
    const flux = srad[d]!;
    const seconds = dayl[d]!;
    if (isMissingDaymetValue(flux) || isMissingDaymetValue(seconds)) {
      global[d] = Number.NaN;
      diffuse[d] = Number.NaN;
      continue;
    }
    const h = (Math.max(0, flux) * Math.max(0, seconds)) / SECONDS_PER_HOUR;
    global[d] = h;
    diffuse[d] = dailyDiffuseWhM2(h, latitudeRad, d + 1);
  }
  return {
    globalWhM2: aggregateDailyToMonthly(global, 'total', minPresentFraction),
    diffuseWhM2: aggregateDailyToMonthly(diffuse, 'total', minPresentFraction),
  };
}
