/**
 * Deterministic generator of SYNTHETIC Daymet single-pixel responses (see test/fixtures/daymet/README.md).
 *
 * Daily values follow the monthly normals of `jemezClimatology.ts` smoothly (first two annual
 * harmonics), shifted to the cell's elevation, plus day-to-day weather from a generator seeded by the
 * year (so neighbouring cells share the same weather, as real cells do): an AR(1) temperature anomaly,
 * wet days with exponential amounts, vp = saturation vapour pressure at (tmin − dew-point depression).
 * Values are rounded to 2 decimals like the API's.
 */
import {
  PRCP_ELEVATION_GRADIENT_PER_M,
  PRCP_NORMAL_MM,
  REFERENCE_ELEVATION_M,
  SYNTHETIC_LAPSE_RATE_K_PER_KM,
  TMAX_NORMAL_C,
  TMIN_NORMAL_C,
  WET_DAY_FRACTION,
  syntheticCellElevationM,
} from '../fixtures/daymet/jemezClimatology.js';

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const MONTH_OF_DAY: number[] = DAYS.flatMap((n, m) => new Array<number>(n).fill(m));

/** All variables of the single-pixel API, in the order it writes them, with their header units. */
export const DAYMET_COLUMNS = [
  ['dayl', 's'],
  ['prcp', 'mm/day'],
  ['srad', 'W/m^2'],
  ['swe', 'kg/m^2'],
  ['tmax', 'deg c'],
  ['tmin', 'deg c'],
  ['vp', 'Pa'],
] as const;
export type SyntheticVariable = (typeof DAYMET_COLUMNS)[number][0];

/** mulberry32: a small seeded PRNG returning floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(rand: () => number): number {
  const u = Math.max(rand(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}

/** Smooth daily curve through monthly normals: mean + first two harmonics. */
function smoothDaily(normals: readonly number[]): Float64Array {
  const coef: Array<[number, number]> = [];
  for (let k = 1; k <= 2; k++) {
    let a = 0, b = 0;
    normals.forEach((v, m) => {
      const phase = (2 * Math.PI * k * (m + 0.5)) / 12;
      a += (v * Math.cos(phase)) / 6;
      b += (v * Math.sin(phase)) / 6;
    });
    coef.push([a, b]);
  }
  const mean = normals.reduce((s, v) => s + v, 0) / 12;
  return Float64Array.from({ length: 365 }, (_, d) => {
    const t = (d + 0.5) / 365;
    let v = mean;
    coef.forEach(([a, b], i) => {
      const phase = 2 * Math.PI * (i + 1) * t;
      v += a * Math.cos(phase) + b * Math.sin(phase);
    });
    return v;
  });
}

const TMAX_SMOOTH = smoothDaily(TMAX_NORMAL_C);
const TMIN_SMOOTH = smoothDaily(TMIN_NORMAL_C);

function saturationVapourPressurePa(temperatureC: number): number {
  return 610.78 * Math.exp((17.27 * temperatureC) / (temperatureC + 237.3));
}

function dayLengthSeconds(latDeg: number, yday: number): number {
  const phi = (latDeg * Math.PI) / 180;
  const dec = 0.409 * Math.sin((2 * Math.PI * yday) / 365 - 1.39);
  const x = Math.max(-1, Math.min(1, -Math.tan(phi) * Math.tan(dec)));
  return (24 / Math.PI) * Math.acos(x) * 3600;
}

/** Daily extraterrestrial radiation on a horizontal surface [J m⁻² day⁻¹] (FAO-56 Eq. 21, G_sc 0.0820 MJ m⁻² min⁻¹). */
function extraterrestrialJPerM2(latDeg: number, yday: number): number {
  const phi = (latDeg * Math.PI) / 180;
  const dec = 0.409 * Math.sin((2 * Math.PI * yday) / 365 - 1.39);
  const dr = 1 + 0.033 * Math.cos((2 * Math.PI * yday) / 365);
  const ws = Math.acos(Math.max(-1, Math.min(1, -Math.tan(phi) * Math.tan(dec))));
  return ((24 * 60) / Math.PI) * 0.082e6 * dr * (ws * Math.sin(phi) * Math.sin(dec) + Math.cos(phi) * Math.cos(dec) * Math.sin(ws));
}

/** Clearness index (global / extraterrestrial irradiation) of a dry and of a wet synthetic day. */
const CLEARNESS = { dry: 0.7, wet: 0.4 };

const round2 = (v: number) => Math.round(v * 100) / 100;

/**
 * One synthetic Daymet year of a cell: 365 values per variable, rounded to 2 decimals.
 * @param cell LCC centre [m] (sets the elevation) and latitude [degrees] (sets the day length)
 */
export function syntheticDaymetYear(cell: { x: number; y: number; lat: number }, year: number): Record<SyntheticVariable, Float64Array> {
  const z = syntheticCellElevationM(cell.x, cell.y);
  const dT = (-SYNTHETIC_LAPSE_RATE_K_PER_KM * (z - REFERENCE_ELEVATION_M)) / 1000;
  const pFactor = 1 + PRCP_ELEVATION_GRADIENT_PER_M * (z - REFERENCE_ELEVATION_M);
  const rand = seededRandom(year * 7919 + 17);
  const out = Object.fromEntries(DAYMET_COLUMNS.map(([v]) => [v, new Float64Array(365)])) as Record<SyntheticVariable, Float64Array>;
  let anomaly = 0;
  let swe = 0;
  for (let d = 0; d < 365; d++) {
    const m = MONTH_OF_DAY[d]!;
    anomaly = 0.7 * anomaly + 2.0 * gaussian(rand);
    const wet = rand() < WET_DAY_FRACTION[m]!;
    const meanWet = PRCP_NORMAL_MM[m]! / (DAYS[m]! * WET_DAY_FRACTION[m]!);
    const prcp = wet ? -Math.log(Math.max(rand(), 1e-9)) * meanWet * pFactor : 0;
    let tmax = TMAX_SMOOTH[d]! + dT + anomaly + 1.0 * gaussian(rand) - (wet ? 2 : 0);
    const tmin = TMIN_SMOOTH[d]! + dT + 0.8 * anomaly + 1.0 * gaussian(rand);
    if (tmax < tmin + 1) tmax = tmin + 1;
    const vp = saturationVapourPressurePa(tmin - (wet ? 0.5 : 2.0));
    const dayl = dayLengthSeconds(cell.lat, d + 1);
    // the daylight-average flux of a day whose global irradiation is the clearness index × the extraterrestrial
    const srad = ((wet ? CLEARNESS.wet : CLEARNESS.dry) * extraterrestrialJPerM2(cell.lat, d + 1)) / dayl;
    if (wet && tmax < 3) swe += prcp;
    swe = Math.max(0, swe - Math.max(0, tmax) * 1.5);
    out.dayl[d] = round2(dayl);
    out.prcp[d] = round2(prcp);
    out.srad[d] = round2(srad);
    out.swe[d] = round2(swe);
    out.tmax[d] = round2(tmax);
    out.tmin[d] = round2(tmin);
    out.vp[d] = round2(vp);
  }
  return out;
}

/** Elevation line value of a synthetic cell [m]. */
export { syntheticCellElevationM };

/**
 * A complete single-pixel CSV, as the API writes it for `lat`/`lon` (echoed verbatim), the cell
 * centred at (x, y), the given years and variables (null or an unknown name → all variables).
 */
export function syntheticDaymetCsv(query: {
  latText: string;
  lonText: string;
  queryX: number;
  queryY: number;
  cell: { x: number; y: number; lat: number };
  years: readonly number[];
  vars: readonly string[] | null;
}): string {
  const known = DAYMET_COLUMNS.map(([v]) => v) as readonly string[];
  const wanted = query.vars && query.vars.length > 0 && query.vars.every((v) => known.includes(v)) ? query.vars : known;
  const columns = DAYMET_COLUMNS.filter(([v]) => wanted.includes(v));
  const lines = [
    `Latitude: ${query.latText}  Longitude: ${query.lonText}`,
    `X & Y on Lambert Conformal Conic: ${query.queryX.toFixed(2)} ${query.queryY.toFixed(2)}`,
    `Tile: ${11000 + (Math.floor(query.cell.x / 200000) & 0xff)}`,
    `Elevation: ${syntheticCellElevationM(query.cell.x, query.cell.y)} meters`,
    'All years; all variables; Daymet Software Version 4.0; Daymet Data Version 4.0.',
    'How to cite: Thornton; M.M.; R. Shrestha; Y. Wei; P.E. Thornton; S-C. Kao; and B.E. Wilson. 2022. Daymet: Daily Surface Weather Data on a 1-km Grid for North America; Version 4 R1. ORNL DAAC; Oak Ridge; Tennessee; USA. https://doi.org/10.3334/ORNLDAAC/2129',
    ['year', 'yday', ...columns.map(([v, u]) => `${v} (${u})`)].join(','),
  ];
  for (const year of query.years) {
    const data = syntheticDaymetYear(query.cell, year);
    for (let d = 0; d < 365; d++) {
      lines.push([year, d + 1, ...columns.map(([v]) => data[v][d]!.toFixed(2))].join(','));
    }
  }
  return lines.join('\n') + '\n';
}
