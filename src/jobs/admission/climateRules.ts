/**
 * What makes a `climate_file` upload acceptable for an eemt job, as one function over the files: the rules
 * the submission check applies in its own process (`climateCheckChild.ts`, limits in `demCheck.ts`), never in
 * the service. The DEM has passed its own check already; the climate ZIP must pass the archive bounds, name
 * every grid the years need, and each grid must be a GeoTIFF within the DEM's cell limit that covers the DEM
 * with plausible values in the expected unit (`src/climate/userClimate.ts`).
 */
import type { ClimateSource } from '../../climate/climateOnDem.js';
import { ClimateInputError } from '../../climate/errors.js';
import { checkUserClimate } from '../../climate/userClimate.js';
import { readDem } from '../../raster/geotiff/readGeoTiff.js';
import { RasterFormatError } from '../../raster/types.js';
import { demReadLimits } from '../../workflows/demLimits.js';

export interface ClimateRuleLimits {
  /** Largest DEM and climate grid [cells] (`EEMT_MAX_DEM_CELLS`). */
  readonly maxCells: number;
  /** The job's years. */
  readonly years: readonly number[];
}

export type ClimateVerdict =
  | { readonly ok: true; readonly source: ClimateSource }
  | { readonly ok: false; readonly problem: string; readonly outOfMemory?: true };

/** The verdict on the climate ZIP at `zipPath` for the DEM at `demPath`. Throws only for faults (I/O). */
export async function judgeClimate(zipPath: string, demPath: string, limits: ClimateRuleLimits): Promise<ClimateVerdict> {
  const readLimits = demReadLimits(limits.maxCells);
  try {
    const dem = await readDem(demPath, readLimits);
    const source = await checkUserClimate(zipPath, dem, limits.years, { readLimits, archiveName: 'climate_file' });
    return { ok: true, source };
  } catch (error) {
    if (error instanceof ClimateInputError) return { ok: false, problem: error.message };
    if (error instanceof RasterFormatError) {
      return { ok: false, problem: `climate_file: ${error.message}`, ...(error.code === 'OUT_OF_MEMORY' ? { outOfMemory: true as const } : {}) };
    }
    throw error;
  }
}
