/**
 * README.txt of an eemt output folder: every product with its path pattern, units and meaning, the
 * conventions, the parameters of the run, the diagnostics and the complete file list.
 */
import type { ClimateSource } from '../../climate/climateOnDem.js';
import type { EemtOptions } from '../../science/eemt/constants.js';
import type { EemtDiagnostics, ValueSummary } from './diagnostics.js';
import type { RealSkyResult } from './realSkyPhase.js';
import { modelChoiceLines } from './modelChoices.js';
import { CLIMATE_GRID_INFO, CLIMATE_GRID_VARIABLES, EEMT_ANNUAL_UNITS, EEMT_MONTHLY_UNITS, README_PATH } from './products.js';
import { DAYS_PER_YEAR } from '../solarYear/products.js';
import { dayRangesText, parseProductSelection } from '../solarYear/productSelection.js';

export interface ReadmeInputs {
  readonly demName: string;
  readonly width: number;
  readonly height: number;
  readonly crsName: string;
  readonly validCells: number;
  readonly years: readonly number[];
  /** Service/CLI parameters of the solar phase; `products` the solar products written, normalised. */
  readonly solar: {
    readonly step: number;
    readonly linke: number;
    readonly albedo: number;
    readonly threads: number;
    readonly horizonDirections: number;
    readonly products: string;
  };
  readonly eemt: EemtOptions;
  /** The real-sky maps and their coefficients, or why there are none. */
  readonly realSky: RealSkyResult;
  readonly climate: {
    readonly source: ClimateSource;
    /** Whether temperatures were lapse-adjusted (false: user grids without an elevation grid). */
    readonly lapseAdjusted: boolean;
    readonly gridFolder: 'daymet' | 'climate';
    /** Daymet only: cells used and downloaded, and the cache. */
    readonly daymet?: { readonly cells: number; readonly downloaded: number; readonly cacheDir: string };
  };
  readonly diagnostics: EemtDiagnostics;
  readonly warnings: readonly string[];
  /** Every file of the folder except README.txt, relative paths. */
  readonly files: readonly string[];
  readonly finishedAt: Date;
}

const fmt = (v: number, digits = 3) => (Number.isFinite(v) ? v.toFixed(digits) : String(v));
const signed = (v: number) => (v < 0 ? `- ${-v}` : `+ ${v}`);
const range = (s: ValueSummary) => `mean ${fmt(s.mean)}, min ${fmt(s.min)}, max ${fmt(s.max)}`;
const wholeRange = (s: ValueSummary) => `mean ${fmt(s.mean, 0)}, min ${fmt(s.min, 0)}, max ${fmt(s.max, 0)}`;

function table(rows: ReadonlyArray<readonly [string, string, string]>): string[] {
  const w0 = Math.max(...rows.map((r) => r[0].length));
  const w1 = Math.max(...rows.map((r) => r[1].length));
  return rows.map(([a, b, c]) => `  ${a.padEnd(w0)}  ${b.padEnd(w1)}  ${c}`);
}

/** The text of README.txt. */
export function eemtReadme(info: ReadmeInputs): string {
  const [start, end] = [info.years[0]!, info.years[info.years.length - 1]!];
  const years = info.years.join(', ');
  const o = info.eemt;
  const selection = parseProductSelection(info.solar.products);
  const daysOf = (days: readonly number[]) => (days.length === DAYS_PER_YEAR ? '{1..365}' : `{${dayRangesText(days)}}`);
  const products: Array<readonly [string, string, string]> = [
    ['path', 'units', 'meaning'],
    ...(selection.dailyGlobal.length > 0
      ? [[`global/daily/total_sun_day_${daysOf(selection.dailyGlobal)}.tif`, 'Wh m-2 day-1', 'daily global (beam + diffuse + reflected) clear-sky irradiation on the terrain, with terrain shadowing'] as const]
      : []),
    ...(selection.dailyHours.length > 0 ? [[`insol/daily/hours_sun_day_${daysOf(selection.dailyHours)}.tif`, 'h', 'daily duration of direct sunshine on the terrain'] as const] : []),
    ...(selection.monthly
      ? [['global/monthly/total_sun_{mon}_sum.tif', 'Wh m-2 month-1', `monthly sum of the daily global irradiation${o.topoRadiation === 'shaded' ? ': S_topo of EEMT-TOPO' : ''}`] as const]
      : []),
    ['global/monthly/flat_total_sun_{mon}_sum.tif', 'Wh m-2 month-1', `the same on a horizontal surface without terrain shadowing${o.topoRadiation === 'realsky' ? '' : ': S_flat of EEMT-TOPO'}`],
    ...(o.topoRadiation === 'unshaded'
      ? [['global/monthly_unshaded/total_sun_{mon}_sum.tif', 'Wh m-2 month-1', 'the same on the sloped surface without terrain shadowing: S_topo of EEMT-TOPO (topo_radiation=unshaded)'] as const]
      : []),
    ...(info.realSky.made
      ? ([
          [
            'global/monthly_realsky/total_sun_{mon}_sum.tif',
            'Wh m-2 month-1',
            `monthly REAL-SKY global irradiation on the terrain, with terrain shadowing (${start === end ? start : `mean of ${start}-${end}`})${o.topoRadiation === 'realsky' ? ': S_topo of EEMT-TOPO' : ''}`,
          ],
          [
            'global/monthly_realsky/flat_total_sun_{mon}_sum.tif',
            'Wh m-2 month-1',
            `the same on a horizontal surface without terrain shadowing: the observed irradiation${o.topoRadiation === 'realsky' ? '; S_flat of EEMT-TOPO' : ''}`,
          ],
        ] as const)
      : []),
    ['topo/slope.tif', 'degrees', 'slope angle (Horn 3x3 on true ground cell sizes)'],
    ['topo/aspect.tif', 'degrees', 'aspect, downslope direction clockwise from TRUE north (0 = N, 90 = E); NaN on flat cells'],
    ['topo/twi.tif', 'dimensionless', 'wetness index lambda = ln(a / tan slope), D-infinity specific catchment area a'],
    ...(info.climate.source.type === 'daymet'
      ? [['daymet/<x>_<y>/<year>.csv', '(Daymet CSV)', 'daily Daymet V4 single-pixel data of each 1 km cell used (x, y: cell centre in Daymet LCC, m)'] as const]
      : []),
    ...CLIMATE_GRID_VARIABLES.map(
      (v) => [`${info.climate.gridFolder}/${v}/${v}_{year}_{mon}.tif`, CLIMATE_GRID_INFO[v].units, `${CLIMATE_GRID_INFO[v].quantity}, on the DEM grid`] as const,
    ),
    ['eemt/EEMT_Topo_{mon}_{year}.tif', EEMT_MONTHLY_UNITS, 'EEMT-TOPO of the month (E_PPT + E_BIO)'],
    ['eemt/EEMT_Trad_{mon}_{year}.tif', EEMT_MONTHLY_UNITS, 'EEMT-TRAD of the month (E_PPT + E_BIO)'],
    ['eemt/EEMT_Topo_annual_{year}.tif', EEMT_ANNUAL_UNITS, 'EEMT-TOPO, sum of the 12 months'],
    ['eemt/EEMT_Trad_annual_{year}.tif', EEMT_ANNUAL_UNITS, 'EEMT-TRAD, sum of the 12 months'],
    [`eemt/EEMT_Topo_mean_${start}-${end}.tif`, EEMT_ANNUAL_UNITS, `EEMT-TOPO, mean of the annual sums of ${start}-${end}`],
    [`eemt/EEMT_Trad_mean_${start}-${end}.tif`, EEMT_ANNUAL_UNITS, `EEMT-TRAD, mean of the annual sums of ${start}-${end}`],
    [README_PATH, '', 'this file'],
  ];
  const lapse = (v: number | readonly number[]) => (typeof v === 'number' ? `${v}` : `[${v.join(', ')}] (Jan..Dec)`);
  const d = info.diagnostics;
  const lines = [
    'EEMT (Effective Energy and Mass Transfer) and terrain solar radiation products',
    '==============================================================================',
    '',
    `DEM: ${info.demName}, ${info.width} x ${info.height} cells, ${info.crsName}, ${info.validCells} valid cells`,
    `Climate years: ${years}`,
    `Finished: ${info.finishedAt.toISOString()}`,
    '',
    'Products',
    '--------',
    '{mon} = jan, feb, ..., dec; {year} = ' + years + '. All rasters are single-band Float32 GeoTIFFs on the DEM grid',
    'with the DEM georeferencing; NaN is nodata (every DEM nodata cell is NaN in every product). Each GeoTIFF',
    'carries a band description and the metadata items QUANTITY and UNITS.',
    '',
    ...table(products),
    '',
    'Conventions',
    '-----------',
    '* Year of 365 days (Daymet calendar; 31 December of leap years is dropped). Monthly EEMT = E_PPT + E_BIO',
    '  of the month; annual = sum of the 12 months; mean = mean of the annual sums.',
    ...climateConventions(info.climate),
    `* S_topo (${SOLAR_RATIO_GRIDS[o.topoRadiation].topo}) and S_flat (${SOLAR_RATIO_GRIDS[o.topoRadiation].flat}) are the monthly sums above in`,
    '  Wh m-2 month-1; the solar ratio S_i = S_topo / S_flat.',
    ...realSkyLines(info.realSky),
    '* Northness n = cos(aspect) sin(slope) with the aspect clockwise from TRUE north (grid aspect minus the',
    '  meridian convergence, which is below about 1 degree on projected DEMs), as the solar model uses true azimuths.',
    '* The wetness ratio alpha = lambda / mean(lambda) is normalised over all valid cells of the DEM.',
    '* Model specification: docs/eemt-model.md (EEMT), docs/solar-model.md (solar radiation) of eemt-service.',
    '',
    'Parameters',
    '----------',
    `Solar: step ${info.solar.step} min, Linke turbidity ${info.solar.linke}, ground albedo ${info.solar.albedo},`,
    `  ${info.solar.horizonDirections} horizon directions, ${info.solar.threads} threads`,
    `Solar products written: ${info.solar.products}` +
      (selection.monthly ? '' : ' (the monthly sums global/monthly/total_sun_{mon}_sum.tif were computed for the maps above, not kept)'),
    ...climateSourceLines(info.climate),
    'EEMT model (the choices of this run and their sources; docs/eemt-model.md §0.1c):',
    ...modelChoiceLines(o).map((line) => `  ${line}`),
    `EEMT-TRAD: Lieth NPP ${o.lieth.maximumGPerM2Yr}/(1 + exp(${o.lieth.offset} - ${o.lieth.slopePerK} T)) g m-2 yr-1 x days/365,` +
      ` counted only when PPT > PET${o.liethNppGate === 'temperature' ? ' and T > 0 C' : ''}`,
    `EEMT-TOPO: Penman PET (open water), net radiation mode '${o.rnMode}', albedo ${o.albedo}, wind u2 ${o.windSpeedMPerS} m/s,` +
      ` z_m ${o.measurementHeightM} m, z0 ${o.roughnessLengthM} m; Fu/Budyko omega ${o.budykoOmega};` +
      ` C ${o.solarTemperatureCoefficientK} K, minimum S_i ${o.minimumSolarRatio};` +
      (o.topoNppModel === 'regression'
        ? ` NPP max(${o.topoNpp.elevationGPerM2YrPerM} z + ${o.topoNpp.northnessGPerM2Yr} n ${signed(o.topoNpp.interceptGPerM2Yr)}, ${o.topoNpp.floorGPerM2Yr}) g m-2 yr-1`
        : ` NPP Lieth on the topographic temperature${o.liethNppGate === 'temperature' ? ', months with T > 0 C' : ''}`),
    `Both: lapse rate Tmax ${lapse(o.lapseRateTmaxKPerKm)} K/km, Tmin ${lapse(o.lapseRateTminKPerKm)} K/km;` +
      ` c_w ${o.specificHeatWaterJPerKgK} J kg-1 K-1; h_BIO ${o.biomassEnthalpyJPerKg} J kg-1`,
    '',
    'Results and checks',
    '------------------',
    ...d.annual.map((a) => `${a.year}: EEMT_Topo ${range(a.topo)}; EEMT_Trad ${range(a.trad)} [${EEMT_ANNUAL_UNITS}]`),
    `Wetness: mean lambda ${fmt(d.meanWetnessIndex)}; alpha ${range(d.wetnessRatio)}`,
    `Solar ratio S_topo/S_flat: min ${fmt(d.solarRatio.min)}, max ${fmt(d.solarRatio.max)}; ${d.clampedSolarRatioCellMonths} cell-months clamped`,
    `Invariant violations (must be 0): negative E_PPT/E_BIO ${d.negativeEnergyCellMonths}, AET outside [0, min(P, PET)] ${d.aetOutOfBoundsCellMonths}`,
    ...(info.warnings.length ? ['', 'Warnings', '--------', ...info.warnings.map((w) => `* ${w}`)] : []),
    '',
    `Files (${info.files.length + 1})`,
    '-----',
    ...[...info.files, README_PATH].sort(),
    '',
  ];
  return lines.join('\n');
}

/** Where S_topo and S_flat come from, per topo_radiation choice. */
const SOLAR_RATIO_GRIDS: Readonly<Record<EemtOptions['topoRadiation'], { readonly topo: string; readonly flat: string }>> = {
  unshaded: { topo: 'global/monthly_unshaded/', flat: 'global/monthly/flat_total_sun_*' },
  shaded: { topo: 'global/monthly/total_sun_*', flat: 'global/monthly/flat_total_sun_*' },
  realsky: { topo: 'global/monthly_realsky/total_sun_*', flat: 'global/monthly_realsky/flat_total_sun_*' },
};

/** The Conventions lines about the real-sky maps: how they are made and their coefficients, or why they were not made. */
function realSkyLines(realSky: RealSkyResult): string[] {
  if (!realSky.made) return [`* Real-sky radiation (global/monthly_realsky/): NOT made: ${realSky.reason}.`];
  const coefficient = (c: ValueSummary & { aboveOne: number }) => `mean ${fmt(c.mean)}, min ${fmt(c.min)}, max ${fmt(c.max)}, above 1 in ${c.aboveOne} cell-months`;
  return [
    '* Real-sky radiation (global/monthly_realsky/, docs/eemt-model.md §8): per cell and month, the observed horizontal',
    '  irradiation H and its diffuse part H_d give c_b = (H - H_d) / B_clear,h and c_d = H_d / D_clear,h over the',
    "  engine's clear-sky beam and diffuse of a horizontal unshaded surface; the map is c_b x (beam on the surface +",
    '  ground reflection of the horizontal beam) + c_d x (the rest of the clear-sky global), the mean of the years.',
    '  The coefficients are not clamped at 1 (on flat terrain the map is then the observed H; where c_b, c_d <= 1 it',
    '  stays below the clear-sky sum).',
    `  Observed radiation: ${realSky.source}.`,
    `  c_b: ${coefficient(realSky.beamCoefficient)}; c_d: ${coefficient(realSky.diffuseCoefficient)}.`,
    `  Annual sums [Wh m-2 yr-1]: terrain ${wholeRange(realSky.annualSloped)}; horizontal ${wholeRange(realSky.annualFlat)}.`,
  ];
}

/** The Conventions lines about the climate. */
function climateConventions(climate: ReadmeInputs['climate']): string[] {
  const lapse = climate.lapseAdjusted
    ? 'temperatures lapse-rate adjusted from the climate reference elevation to the DEM elevation.'
    : 'NO lapse-rate adjustment: the climate file has no elevation.tif, so temperatures are those of the grids.';
  if (climate.source.type === 'daymet') {
    return [
      '* Climate: Daymet V4 daily data aggregated to months (tmax, tmin, vp: means; prcp: total), nearest 1 km',
      `  cell; ${lapse}`,
    ];
  }
  const layout = climate.source.layout === 'time-series' ? 'a monthly time series' : 'a 12-month climatology applied to every year';
  return [
    `* Climate: the user's monthly grids (${layout}${climate.source.naming === 'worldclim' ? ', WorldClim 2.1 names, vapr converted from kPa to Pa' : ''}),`,
    '  reprojected to the DEM grid by bilinear interpolation (proj4 transform of every DEM cell centre);',
    `  ${lapse}`,
  ];
}

/** The Parameters lines saying where the climate came from (with checksums of user files). */
function climateSourceLines(climate: ReadmeInputs['climate']): string[] {
  const source = climate.source;
  if (source.type === 'daymet') {
    const d = climate.daymet;
    return [
      `Climate source: Daymet V4, ${source.cells.length} cells of 1 km${d ? ` (${d.downloaded} downloaded, ${d.cells - d.downloaded} from the cache)` : ''}`,
      `  server ${source.server}${d ? `, cache ${d.cacheDir}` : ''}`,
      `  cells (x_y, Daymet LCC m): ${source.cells.join(' ')}`,
    ];
  }
  return [
    `Climate source: user file ${source.archive.name} (sha256 ${source.archive.sha256}), ${source.layout}` +
      `${source.elevation ? `, reference elevation ${source.elevation}` : ', no elevation grid (no lapse-rate adjustment)'}`,
    ...source.files.map((f) => `  ${f.name}  sha256 ${f.sha256}`),
  ];
}
