/**
 * Monthly climate on the DEM grid, whichever its source: Daymet cells (nearest 1 km cell) or the user's
 * grids (reprojected bilinearly). The eemt workflow reads one month at a time through `ClimateOnDem`, and
 * records where the climate came from (`ClimateSource`) in README.txt and the job's parameters.
 */
import { resampleNearestToDem } from '../science/climate/downscale.js';
import { daymetCellKey } from './daymetGrid.js';
import type { DaymetForDem } from './daymetForDem.js';

/** One month on the DEM grid (Float32, row-major, NaN at DEM nodata), temperatures at the reference elevation. */
export interface ClimateMonthOnDem {
  /** Mean daily maximum temperature at the reference elevation [°C]. */
  readonly tmax: Float32Array;
  /** Mean daily minimum temperature at the reference elevation [°C]. */
  readonly tmin: Float32Array;
  /** Total precipitation [mm month⁻¹]. */
  readonly prcp: Float32Array;
  /** Mean vapour pressure [Pa]. */
  readonly vp: Float32Array;
}

/**
 * One month's observed shortwave radiation on the DEM grid (Float32, row-major, NaN at DEM nodata): the input of
 * eemt's real-sky maps.
 */
export interface ObservedRadiationMonth {
  /** Monthly sum of the observed daily global irradiation on a horizontal surface H [Wh m⁻² month⁻¹]. */
  readonly globalWhM2: Float32Array;
  /** Its diffuse part H_d [Wh m⁻² month⁻¹] (Erbs et al. 1982). */
  readonly diffuseWhM2: Float32Array;
}

/** Whether a climate carries observed shortwave radiation: how it reads it, or why it has none. */
export type ObservedRadiation =
  | {
      readonly available: true;
      /** Where it comes from and how it is split into beam and diffuse (README.txt). */
      readonly description: string;
      /** The month (0 = January) of `year` on the DEM grid. */
      radiationAt(year: number, month: number): Promise<ObservedRadiationMonth>;
    }
  | {
      readonly available: false;
      /** Why not, for README.txt and error messages. */
      readonly reason: string;
    };

/** A user file of the climate: its name inside the ZIP and the SHA-256 of its bytes. */
export interface ClimateFileRecord {
  readonly name: string;
  readonly sha256: string;
}

/** Where the climate of a run came from (README.txt and the job's `climate_source`). */
export type ClimateSource =
  | {
      readonly type: 'daymet';
      readonly server: string;
      /** Daymet cells used, `<x>_<y>` (cell centre in Daymet's LCC, m). */
      readonly cells: readonly string[];
    }
  | {
      readonly type: 'user';
      /** The uploaded ZIP's name (as the client or the command line gave it) and its SHA-256. */
      readonly archive: ClimateFileRecord;
      readonly layout: 'time-series' | 'climatology';
      readonly naming: 'plain' | 'worldclim';
      /** The grid files used (monthly grids and the elevation grid). */
      readonly files: readonly ClimateFileRecord[];
      /** Name of the reference-elevation grid, or null (no lapse-rate adjustment then). */
      readonly elevation: string | null;
      /** Whether the grids include the observed shortwave radiation (srad) of the real-sky maps (absent in older records: no). */
      readonly radiation?: boolean;
    };

export interface ClimateOnDem {
  readonly years: readonly number[];
  /**
   * Reference elevation z_ref of the climate values per DEM cell [m], from which temperatures are moved to the
   * DEM elevation along the lapse rate. Without one (user grids without elevation.tif) it is the DEM elevation
   * itself, so the adjustment is zero.
   */
  readonly referenceElevationM: Float32Array | Float64Array;
  /** False when `referenceElevationM` is the DEM itself (no lapse adjustment). */
  readonly lapseAdjusted: boolean;
  /** Folder of the job output holding the monthly grids: `daymet` or `climate`. */
  readonly gridFolder: 'daymet' | 'climate';
  readonly source: ClimateSource;
  /** The month (0 = January) of `year` on the DEM grid. */
  monthAt(year: number, month: number): Promise<ClimateMonthOnDem>;
  /** The observed shortwave radiation, when the climate has it (eemt's real-sky maps). */
  readonly radiation: ObservedRadiation;
}

/** Why a Daymet climate has no observed radiation: its cached files lack srad and dayl and downloads are off. */
export const DAYMET_WITHOUT_RADIATION =
  'the Daymet files in the cache lack srad and dayl (cached before they were downloaded, or fetched without them) and downloads are ' +
  'switched off; fetch them again (eemt climate prefetch downloads such files anew; docs/daymet-cache.md)';

/** Daymet data of a DEM as `ClimateOnDem`: every DEM cell takes its nearest Daymet cell. */
export function daymetClimateOnDem(daymet: DaymetForDem, demElevationM: ArrayLike<number>, server: string): ClimateOnDem {
  const idx = daymet.nearestCellIndex;
  return {
    years: daymet.years,
    referenceElevationM: resampleNearestToDem(Float64Array.from(daymet.cells, (c) => c.zRef), idx, demElevationM),
    lapseAdjusted: true,
    gridFolder: 'daymet',
    source: { type: 'daymet', server, cells: daymet.cells.map(daymetCellKey) },
    async monthAt(year, month) {
      const fields = monthFields(year, month);
      return {
        tmax: resampleNearestToDem(fields.tmax, idx, demElevationM),
        tmin: resampleNearestToDem(fields.tmin, idx, demElevationM),
        prcp: resampleNearestToDem(fields.prcp, idx, demElevationM),
        vp: resampleNearestToDem(fields.vp, idx, demElevationM),
      };
    },
    radiation: daymet.radiation
      ? {
          available: true,
          description:
            'Daymet V4 srad x dayl of each day (H, the observed global irradiation of a horizontal surface), split into beam and diffuse ' +
            'day by day with the daily correlation of Erbs et al. (1982) on the clearness index, summed over the month; nearest 1 km cell',
          async radiationAt(year, month) {
            const fields = monthFields(year, month);
            return {
              globalWhM2: resampleNearestToDem(fields.globalWhM2!, idx, demElevationM),
              diffuseWhM2: resampleNearestToDem(fields.diffuseWhM2!, idx, demElevationM),
            };
          },
        }
      : { available: false, reason: DAYMET_WITHOUT_RADIATION },
  };

  function monthFields(year: number, month: number) {
    const fields = daymet.monthly.find((y) => y.year === year)?.months[month];
    if (!fields) throw new RangeError(`no Daymet data for ${year}-${month + 1}`);
    return fields;
  }
}
