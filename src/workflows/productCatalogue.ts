/**
 * What a file of a job's output tree is, from its path (the paths of ./solarYear/products.ts and ./eemt/products.ts):
 * a title, the unit of its values (GeoTIFFs) and the group it belongs to — the 365 daily global maps and the
 * 365 daily sunshine-hour maps form groups of their own; everything else is a summary product.
 */
import { CLIMATE_GRID_INFO, EEMT_ANNUAL_UNITS, EEMT_MONTHLY_UNITS, README_PATH, type ClimateGridVariable } from './eemt/products.js';

export type ProductGroup = 'summary' | 'daily-global' | 'daily-hours';

export interface ProductInfo {
  readonly title: string;
  /** Unit of the values (GeoTIFFs), as in the product tables; null for other files. */
  readonly unit: string | null;
  readonly group: ProductGroup;
}

const RULES: readonly [RegExp, (m: RegExpExecArray) => ProductInfo][] = [
  [/^global\/daily\/total_sun_day_(\d+)\.tif$/, (m) => ({ title: `Daily global irradiation, day ${m[1]}`, unit: 'Wh m-2 day-1', group: 'daily-global' })],
  [/^insol\/daily\/hours_sun_day_(\d+)\.tif$/, (m) => ({ title: `Sunshine hours, day ${m[1]}`, unit: 'h', group: 'daily-hours' })],
  [/^global\/monthly\/total_sun_([a-z]{3})_sum\.tif$/, (m) => summary(`Monthly global irradiation, ${m[1]}`, 'Wh m-2 month-1')],
  [
    /^global\/monthly\/flat_total_sun_([a-z]{3})_sum\.tif$/,
    (m) => summary(`Monthly global irradiation on a horizontal unshaded surface, ${m[1]}`, 'Wh m-2 month-1'),
  ],
  [
    /^global\/monthly_unshaded\/total_sun_([a-z]{3})_sum\.tif$/,
    (m) => summary(`Monthly global irradiation without terrain shadows, ${m[1]}`, 'Wh m-2 month-1'),
  ],
  [/^global\/monthly_realsky\/total_sun_([a-z]{3})_sum\.tif$/, (m) => summary(`Monthly real-sky global irradiation, ${m[1]}`, 'Wh m-2 month-1')],
  [
    /^global\/monthly_realsky\/flat_total_sun_([a-z]{3})_sum\.tif$/,
    (m) => summary(`Monthly real-sky global irradiation on a horizontal unshaded surface (observed), ${m[1]}`, 'Wh m-2 month-1'),
  ],
  [/^eemt\/EEMT_(Topo|Trad)_([a-z]{3})_(\d{4})\.tif$/, (m) => summary(`EEMT-${m[1]!.toUpperCase()}, ${m[2]} ${m[3]}`, EEMT_MONTHLY_UNITS)],
  [/^eemt\/EEMT_(Topo|Trad)_annual_(\d{4})\.tif$/, (m) => summary(`EEMT-${m[1]!.toUpperCase()}, annual ${m[2]}`, EEMT_ANNUAL_UNITS)],
  [/^eemt\/EEMT_(Topo|Trad)_mean_(\d{4})-(\d{4})\.tif$/, (m) => summary(`EEMT-${m[1]!.toUpperCase()}, mean annual ${m[2]}–${m[3]}`, EEMT_ANNUAL_UNITS)],
  [/^topo\/slope\.tif$/, () => summary('Slope', 'degrees')],
  [/^topo\/aspect\.tif$/, () => summary('Aspect (clockwise from true north)', 'degrees')],
  [/^topo\/twi\.tif$/, () => summary('Topographic wetness index', 'dimensionless')],
  [
    /^daymet\/(tmax|tmin|prcp|vp)\/[a-z]+_(\d{4})_([a-z]{3})\.tif$/,
    (m) => summary(`Daymet ${m[1]}, ${m[3]} ${m[2]}`, CLIMATE_GRID_INFO[m[1] as ClimateGridVariable].units),
  ],
];

function summary(title: string, unit: string): ProductInfo {
  return { title, unit, group: 'summary' };
}

/** What the output file at `rel` (relative path, forward slashes) is; null for files that are not products. */
export function productInfo(rel: string): ProductInfo | null {
  for (const [pattern, info] of RULES) {
    const m = pattern.exec(rel);
    if (m) return info(m);
  }
  if (rel === README_PATH) return { title: 'Description of the products', unit: null, group: 'summary' };
  return null;
}
