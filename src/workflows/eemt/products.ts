/**
 * File names of the products the `eemt` workflow adds to the `sol` products, relative to the output
 * folder, and what each one holds (for GeoTIFF metadata and README.txt).
 *
 * Months are named as in the `sol` products (`jan` … `dec`, see ../solarYear/products.ts).
 */
import type { TopoRadiation } from '../../science/eemt/constants.js';
import { MONTH_NAMES, monthlyFlatGlobalPath, monthlyGlobalPath } from '../solarYear/products.js';

/** The Daymet variables written as monthly grids on the DEM grid. */
export const CLIMATE_GRID_VARIABLES = ['tmax', 'tmin', 'prcp', 'vp'] as const;
export type ClimateGridVariable = (typeof CLIMATE_GRID_VARIABLES)[number];

/** The two EEMT models. */
export const EEMT_MODELS = ['Topo', 'Trad'] as const;
export type EemtModel = (typeof EEMT_MODELS)[number];

export const TOPO_SLOPE_PATH = 'topo/slope.tif';
export const TOPO_ASPECT_PATH = 'topo/aspect.tif';
export const TOPO_TWI_PATH = 'topo/twi.tif';
export const README_PATH = 'README.txt';

/** A downloaded Daymet CSV inside the job folder (`name` as `DaymetForDem.csvFiles`: `<x>_<y>/<year>.csv`). */
export const daymetCsvPath = (name: string) => `daymet/${name.split('\\').join('/')}`;

/** Monthly climate grid on the DEM grid; `month` 0 = January; folder `daymet` (Daymet) or `climate` (user grids). */
export const climateGridPath = (variable: ClimateGridVariable, year: number, month: number, folder: 'daymet' | 'climate' = 'daymet') =>
  `${folder}/${variable}/${variable}_${year}_${MONTH_NAMES[month]}.tif`;

/** Monthly EEMT map [MJ m⁻² month⁻¹]; `month` 0 = January. */
export const eemtMonthlyPath = (model: EemtModel, year: number, month: number) => `eemt/EEMT_${model}_${MONTH_NAMES[month]}_${year}.tif`;

/** Annual EEMT map (sum of the 12 months) [MJ m⁻² yr⁻¹]. */
export const eemtAnnualPath = (model: EemtModel, year: number) => `eemt/EEMT_${model}_annual_${year}.tif`;

/** Mean of the annual EEMT maps of `start`…`end` [MJ m⁻² yr⁻¹] (written for a single year too). */
export const eemtMeanPath = (model: EemtModel, start: number, end: number) => `eemt/EEMT_${model}_mean_${start}-${end}.tif`;

/**
 * Monthly sum of the daily global irradiation on the sloped surface WITHOUT terrain shadows [Wh m⁻² month⁻¹]
 * (EEMT-TOPO's S_topo with `topo_radiation=unshaded`); `month` 0 = January.
 */
export const monthlyUnshadedGlobalPath = (month: number) => `global/monthly_unshaded/total_sun_${MONTH_NAMES[month]}_sum.tif`;

/**
 * Monthly real-sky global irradiation on the sloped surface with terrain shadows [Wh m⁻² month⁻¹]: the clear-sky
 * beam and diffuse parts scaled by the climate's observed radiation (realSkyPhase.ts); `month` 0 = January.
 */
export const monthlyRealSkyGlobalPath = (month: number) => `global/monthly_realsky/total_sun_${MONTH_NAMES[month]}_sum.tif`;

/**
 * Monthly real-sky global irradiation on a horizontal surface without terrain shadows [Wh m⁻² month⁻¹]: the climate's
 * observed horizontal irradiation on the DEM grid (S_flat of EEMT-TOPO with `topo_radiation=realsky`).
 */
export const monthlyRealSkyFlatGlobalPath = (month: number) => `global/monthly_realsky/flat_total_sun_${MONTH_NAMES[month]}_sum.tif`;

/**
 * The two monthly radiation grids of EEMT-TOPO's solar ratio S_i = S_topo / S_flat for a `topo_radiation` choice.
 * A new choice (another S_topo, or another S_flat beside it) is a new entry here and a phase that writes its grids.
 */
export function solarRatioGridPaths(choice: TopoRadiation, month: number): { readonly topographic: string; readonly flat: string } {
  switch (choice) {
    case 'shaded':
      return { topographic: monthlyGlobalPath(month), flat: monthlyFlatGlobalPath(month) };
    case 'unshaded':
      return { topographic: monthlyUnshadedGlobalPath(month), flat: monthlyFlatGlobalPath(month) };
    case 'realsky':
      return { topographic: monthlyRealSkyGlobalPath(month), flat: monthlyRealSkyFlatGlobalPath(month) };
  }
}

/** Units and a one-line description of a climate grid. */
export const CLIMATE_GRID_INFO: Readonly<Record<ClimateGridVariable, { readonly units: string; readonly quantity: string }>> = {
  tmax: { units: 'degC', quantity: 'monthly mean of daily maximum air temperature, lapse-rate adjusted to the DEM elevation' },
  tmin: { units: 'degC', quantity: 'monthly mean of daily minimum air temperature, lapse-rate adjusted to the DEM elevation' },
  prcp: { units: 'mm month-1', quantity: 'monthly total precipitation' },
  vp: { units: 'Pa', quantity: 'monthly mean water vapour pressure' },
};

/** Units strings written into the EEMT GeoTIFFs (metadata item UNITS). */
export const EEMT_MONTHLY_UNITS = 'MJ m-2 month-1';
export const EEMT_ANNUAL_UNITS = 'MJ m-2 yr-1';

/** Long names of the models for descriptions. */
export const EEMT_MODEL_NAMES: Readonly<Record<EemtModel, string>> = {
  Topo: 'EEMT-TOPO (topographic: solar-modified temperature, Penman PET with Fu/Budyko AET, wetness redistribution, topographic NPP)',
  Trad: 'EEMT-TRAD (climate only: lapse-rate temperature, temperature-based PET, Lieth NPP)',
};
