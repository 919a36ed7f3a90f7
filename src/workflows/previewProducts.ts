/**
 * The maps a finished job can be previewed as, by name, and the product GeoTIFFs each one is made from:
 *
 *   annual            sum of the 12 monthly global irradiation maps            Wh m-2 yr-1
 *   day-{1..365}      daily global irradiation                                  Wh m-2 day-1
 *   hours-day-{1..365} daily sunshine hours                                     h
 *   month-{jan..dec}  monthly sum of the daily global irradiation               Wh m-2 month-1
 *   eemt jobs also:
 *   realsky-annual    sum of the 12 monthly real-sky global irradiation maps   Wh m-2 yr-1
 *   realsky-month-{jan..dec}  monthly real-sky global irradiation            Wh m-2 month-1
 *                     (both only when the climate had observed radiation: a job without has no such files, 404)
 *   eemt-topo-annual, eemt-trad-annual   EEMT of the model, mean of the annual sums over the climate years
 *                     (the annual sum itself when the job has one year)        MJ m-2 yr-1
 *   twi               topographic wetness index                                 dimensionless
 *   slope             slope angle                                               degrees
 */
import { EEMT_ANNUAL_UNITS, eemtMeanPath, monthlyRealSkyGlobalPath, TOPO_SLOPE_PATH, TOPO_TWI_PATH, type EemtModel } from './eemt/products.js';
import { DAYS_PER_YEAR, MONTH_NAMES, dailyGlobalPath, dailyHoursPath, monthlyGlobalPath } from './solarYear/products.js';
import type { WorkflowParams, WorkflowType } from './types.js';

export interface PreviewProduct {
  readonly name: string;
  readonly title: string;
  readonly unit: string;
  /** Product GeoTIFFs (relative to the output folder) whose cell-by-cell sum is the map. */
  readonly files: readonly string[];
}

/** The product names, as a sentence for error messages. */
export function previewProductForms(workflow: WorkflowType): string {
  const sol = 'annual, day-{1..365}, hours-day-{1..365}, month-{jan..dec}';
  return workflow === 'eemt' ? `${sol}, realsky-annual, realsky-month-{jan..dec}, eemt-topo-annual, eemt-trad-annual, twi, slope` : sol;
}

/** The preview product `name` of a `workflow` job run with `params`, or null when there is no such product. */
export function previewProduct(workflow: WorkflowType, name: string, params: Pick<WorkflowParams, 'start_year' | 'end_year'>): PreviewProduct | null {
  if (name === 'annual') {
    return { name, title: 'Annual global irradiation (sum of the 12 monthly sums)', unit: 'Wh m-2 yr-1', files: MONTH_NAMES.map((_, m) => monthlyGlobalPath(m)) };
  }
  const day = /^(hours-)?day-([1-9][0-9]{0,2})$/.exec(name);
  if (day) {
    const n = Number(day[2]);
    if (n > DAYS_PER_YEAR) return null;
    return day[1]
      ? { name, title: `Sunshine hours, day ${n}`, unit: 'h', files: [dailyHoursPath(n)] }
      : { name, title: `Daily global irradiation, day ${n}`, unit: 'Wh m-2 day-1', files: [dailyGlobalPath(n)] };
  }
  const month = /^month-([a-z]{3})$/.exec(name);
  if (month) {
    const m = MONTH_NAMES.indexOf(month[1] as (typeof MONTH_NAMES)[number]);
    if (m < 0) return null;
    return { name, title: `Monthly global irradiation, ${month[1]}`, unit: 'Wh m-2 month-1', files: [monthlyGlobalPath(m)] };
  }
  if (workflow !== 'eemt') return null;
  if (name === 'realsky-annual') {
    return { name, title: 'Annual real-sky global irradiation (sum of the 12 monthly sums)', unit: 'Wh m-2 yr-1', files: MONTH_NAMES.map((_, m) => monthlyRealSkyGlobalPath(m)) };
  }
  const realSkyMonth = /^realsky-month-([a-z]{3})$/.exec(name);
  if (realSkyMonth) {
    const m = MONTH_NAMES.indexOf(realSkyMonth[1] as (typeof MONTH_NAMES)[number]);
    if (m < 0) return null;
    return { name, title: `Monthly real-sky global irradiation, ${realSkyMonth[1]}`, unit: 'Wh m-2 month-1', files: [monthlyRealSkyGlobalPath(m)] };
  }
  const model: EemtModel | null = name === 'eemt-topo-annual' ? 'Topo' : name === 'eemt-trad-annual' ? 'Trad' : null;
  if (model !== null) {
    const { start_year: start, end_year: end } = params;
    if (start === undefined || end === undefined) return null;
    const years = start === end ? `${start}` : `mean of ${start}–${end}`;
    return { name, title: `EEMT-${model.toUpperCase()}, annual (${years})`, unit: EEMT_ANNUAL_UNITS, files: [eemtMeanPath(model, start, end)] };
  }
  if (name === 'twi') return { name, title: 'Topographic wetness index', unit: 'dimensionless', files: [TOPO_TWI_PATH] };
  if (name === 'slope') return { name, title: 'Slope', unit: 'degrees', files: [TOPO_SLOPE_PATH] };
  return null;
}
