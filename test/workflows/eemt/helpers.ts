/** Helpers of the eemt workflow tests: small DEMs (crops of mcn_10m and synthetic terrain), runs, reads. */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import proj4 from 'proj4';
import { DAYMET_LCC_PROJ4, daymetCellContaining } from '../../../src/climate/daymetGrid.js';
import { readDem, readRaster, writeFloat32GeoTiffSync } from '../../../src/raster/index.js';
import type { WorkflowParams } from '../../../src/workflows/types.js';
import { after, before } from 'node:test';
import { startDaymetServer, type DaymetTestServer } from '../../helpers/daymetServer.js';
import { FIXTURE_DEM, tempDir, translate } from '../../raster/gdal.js';

export { FIXTURE_DEM };

/** Fast solar settings for tests: hourly steps are plenty to check the pipeline. */
export function testParams(startYear: number, endYear = startYear): WorkflowParams {
  return { step: 60, linke_value: 3, albedo_value: 0.2, num_threads: 2, start_year: startYear, end_year: endYear };
}

/** A `width`×`height` crop of mcn_10m starting at (col, row). */
export function cropMcn(dir: string, col: number, row: number, width: number, height: number): string {
  return translate(FIXTURE_DEM, join(dir, `mcn_${col}_${row}_${width}x${height}.tif`), ['-srcwin', `${col}`, `${row}`, `${width}`, `${height}`]);
}

const UTM13N = '+proj=utm +zone=13 +ellps=GRS80 +units=m +no_defs';

/**
 * UTM 13N coordinates of the centre of the Daymet cell that holds mcn_10m's centre (35.80°N 106.63°W):
 * a DEM of a few hundred metres centred there lies inside one Daymet cell, so every DEM cell has the
 * same climate (up to the lapse rate).
 */
export function singleDaymetCellCentreUtm(): [number, number] {
  const cell = daymetCellContaining(-106.6263, 35.8057);
  const [lon, lat] = proj4(DAYMET_LCC_PROJ4, 'WGS84', [cell.x, cell.y]) as [number, number];
  return proj4('WGS84', UTM13N, [lon, lat]) as [number, number];
}

/**
 * A synthetic DEM of `width`×`height` 10 m cells in NAD83 / UTM 13N (the CRS of mcn_10m) centred on
 * (cx, cy), with elevation `z(col, row)` (NaN = nodata). Written with our GeoTIFF writer on the grid of
 * a georeference-shifted mcn_10m crop, so it carries the fixture's GeoKeys.
 */
export async function syntheticDem(
  dir: string,
  name: string,
  width: number,
  height: number,
  z: (col: number, row: number) => number,
  centre: [number, number] = singleDaymetCellCentreUtm(),
): Promise<string> {
  const [cx, cy] = centre;
  const x0 = Math.round(cx - (width * 10) / 2);
  const y0 = Math.round(cy + (height * 10) / 2);
  const template = translate(FIXTURE_DEM, join(dir, `${name}.template.tif`), [
    '-srcwin', '0', '0', `${width}`, `${height}`,
    '-a_ullr', `${x0}`, `${y0}`, `${x0 + width * 10}`, `${y0 - height * 10}`,
  ]);
  const { grid } = await readDem(template);
  const values = new Float64Array(width * height);
  for (let row = 0; row < height; row++) for (let col = 0; col < width; col++) values[row * width + col] = z(col, row);
  const path = join(dir, `${name}.tif`);
  writeFloat32GeoTiffSync(path, grid, values);
  return path;
}

/** Every file under `dir`, relative, with forward slashes, sorted. */
export function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.push(relative(dir, path).split('\\').join('/'));
    }
  };
  walk(dir);
  return out.sort();
}

/** Band values of an output GeoTIFF (NaN = nodata). */
export async function readValues(dir: string, path: string): Promise<Float64Array> {
  return (await readRaster(join(dir, path))).values;
}

/** Mean, min, max over the non-NaN values (the workflow's own summary). */
export { summarize as stats } from '../../../src/workflows/eemt/diagnostics.js';

/**
 * A temporary folder and a local Daymet server for the tests of one file: the server starts before them, and both
 * go after. `server()` is the running server.
 */
export function daymetTestBed(name: string): { dir: string; server: () => DaymetTestServer } {
  const { dir, cleanup } = tempDir(name);
  let server: DaymetTestServer | undefined;
  before(async () => {
    server = await startDaymetServer();
  });
  after(async () => {
    await server?.close();
    cleanup();
  });
  return {
    dir,
    server: () => {
      if (!server) throw new Error('the Daymet test server is not running');
      return server;
    },
  };
}
