/**
 * The upper Jemez climatology of test/fixtures/climate/upper-jemez-zr16.json (built from the basin statistics of
 * Zapata-Rios et al. 2016; the file states every source) as a climate ZIP for an eemt run on mcn_10m: twelve
 * months of {tmin,tmax,prcp,vp}_{MM}.tif, uniform over a WGS 84 box around the DEM, and elevation.tif with the
 * basin's mean elevation, so that temperatures are lapse-adjusted to each DEM cell.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeGrids, zipOf, type GridSpecForTest } from './climateGrids.js';

export interface MonthlyNormal {
  readonly month: number;
  readonly tmax: number;
  readonly tmin: number;
  readonly prcp: number;
  readonly vp: number;
}

export interface ClimatologyFixture {
  readonly name: string;
  readonly provenance: readonly string[];
  readonly referenceElevationM: number;
  readonly months: readonly MonthlyNormal[];
}

const root = new URL('../../', import.meta.url).pathname;

/** The fixture's monthly normals and their provenance. */
export function upperJemezClimatology(): ClimatologyFixture {
  return JSON.parse(readFileSync(join(root, 'test/fixtures/climate/upper-jemez-zr16.json'), 'utf8')) as ClimatologyFixture;
}

/** A WGS 84 box of 0.01° cells around mcn_10m (35.787–35.813° N, 106.611–106.637° W). */
export const MCN_LONLAT_GRID: GridSpecForTest = { epsg: 4326, west: -106.66, north: 35.83, cell: 0.01, cols: 6, rows: 6 };

/**
 * Writes the climatology ZIP into `dir` and returns its path. `transform` may change the normals (e.g. another
 * distribution of the precipitation), month by month.
 */
export async function upperJemezClimateZip(
  dir: string,
  name = 'upper-jemez.zip',
  transform: (normals: readonly MonthlyNormal[]) => readonly MonthlyNormal[] = (normals) => normals,
): Promise<string> {
  const climate = upperJemezClimatology();
  const normals = transform(climate.months);
  const files: Record<string, string> = {};
  const batch: Parameters<typeof writeGrids>[0][number][] = [];
  for (const normal of normals) {
    const mm = String(normal.month).padStart(2, '0');
    for (const variable of ['tmin', 'tmax', 'prcp', 'vp'] as const) {
      const file = `${variable}_${mm}.tif`;
      files[file] = join(dir, file);
      batch.push({ path: join(dir, file), grid: MCN_LONLAT_GRID, value: () => normal[variable] });
    }
  }
  files['elevation.tif'] = join(dir, 'elevation.tif');
  batch.push({ path: join(dir, 'elevation.tif'), grid: MCN_LONLAT_GRID, value: () => climate.referenceElevationM });
  writeGrids(batch);
  return zipOf(join(dir, name), files);
}
