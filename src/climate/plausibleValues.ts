/**
 * Units and plausible ranges of user climate grids, checked on the values that reach the DEM (so an ocean
 * fill value far from the DEM does not matter). A grid in the wrong unit is named with the unit it seems to
 * be in: temperatures in kelvin, a vapour pressure in kPa where Pa is expected (or the reverse for WorldClim).
 */
import type { StoredUnit } from './climateLayout.js';
import { ClimateInputError } from './errors.js';
import { echoed } from '../util/echoed.js';

/** Plausible monthly means on Earth, per stored unit [min, max]. */
export const PLAUSIBLE_RANGE: Readonly<Record<StoredUnit, readonly [number, number]>> = {
  /** Monthly mean daily extremes: Vostok winter ≈ −75 °C, Death Valley July ≈ 47 °C. */
  degC: [-90, 60],
  /** Monthly totals: the wettest month on record is about 9300 mm (Cherrapunji, July 1861). */
  mm: [0, 10_000],
  /** Saturation vapour pressure at 45 °C is 9.6 kPa. */
  Pa: [0, 10_000],
  kPa: [0, 10],
  /** Dead Sea shore to Everest. */
  m: [-500, 9000],
  /**
   * Shortwave flux averaged over the daylight period (Daymet's srad): the extraterrestrial flux on a horizontal
   * surface averages at most about 850 W m⁻² over a day's daylight.
   */
  'W m-2': [0, 1000],
  /** Daily irradiation (WorldClim's srad): the extraterrestrial irradiation of a horizontal surface stays below 48 MJ m⁻². */
  'kJ m-2 day-1': [0, 50_000],
};

const UNIT_NAME: Readonly<Record<StoredUnit, string>> = {
  degC: '°C',
  mm: 'mm per month',
  Pa: 'Pa',
  kPa: 'kPa',
  m: 'm',
  'W m-2': 'W m-2 (averaged over the daylight period)',
  'kJ m-2 day-1': 'kJ m-2 day-1',
};

/** Smallest and largest finite value. */
function extent(values: ArrayLike<number>): { min: number; max: number; count: number } {
  let min = Infinity, max = -Infinity, count = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (Number.isNaN(v)) continue;
    count++;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return { min, max, count };
}

const show = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(2));

/**
 * Throws ClimateInputError `UNITS` when the values of `path` (in `unit`) are not plausible; says which unit
 * they seem to be in when that is clear.
 */
export function checkPlausibleValues(path: string, unit: StoredUnit, values: ArrayLike<number>): void {
  const { min, max, count } = extent(values);
  if (count === 0) return;
  const [low, high] = PLAUSIBLE_RANGE[unit];
  if (min >= low && max <= high) {
    if (unit === 'Pa' && max < 20) {
      throw new ClimateInputError(
        'UNITS',
        `climate_file: ${path} has vapour pressures of ${show(min)}–${show(max)}, which look like kPa; vp grids must be in Pa (multiply by 1000)`,
      );
    }
    if (unit === 'kJ m-2 day-1' && max < 50) {
      throw new ClimateInputError('UNITS', `climate_file: ${path} has values of ${show(min)}–${show(max)}, which look like MJ m-2 day-1; WorldClim srad grids are in kJ m-2 day-1`);
    }
    return;
  }
  const got = `${show(min)}–${show(max)}`;
  let hint = '';
  if (unit === 'degC' && min > 150 && max < 350) hint = ': these look like kelvin; temperatures must be in °C (subtract 273.15)';
  else if (unit === 'kPa' && min >= 0 && max <= 10_000) hint = ': these look like Pa; WorldClim vapr grids are in kPa';
  else if (unit === 'W m-2' && min >= 0 && max <= 50_000) {
    hint = ': these look like a daily irradiation (kJ m-2 day-1); srad grids must be the flux averaged over the daylight period in W m-2, as Daymet\'s srad';
  }
  else hint = `; expected ${UNIT_NAME[unit]} within ${low}…${high}`;
  throw new ClimateInputError('UNITS', `climate_file: ${echoed(path)} has values of ${got} on the DEM${hint}`);
}
