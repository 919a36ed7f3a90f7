/**
 * Completed jobs made without running one: the record in the service's store, the fixture DEM as the upload,
 * and day-1 and monthly products (for eemt jobs also an annual EEMT map) written by the service's own GeoTIFF
 * writer with known values, on the DEM's grid or on a small grid elsewhere.
 */
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { readDem } from '../../src/raster/geotiff/readGeoTiff.js';
import type { JobParameters } from '../../src/jobs/types.js';
import type { GridSpec } from '../../src/raster/types.js';
import type { WorkflowType } from '../../src/workflows/types.js';
import { writeFloat32GeoTiff } from '../../src/raster/geotiff/writeGeoTiff.js';
import { dailyGlobalPath, dailyHoursPath, monthlyGlobalPath } from '../../src/workflows/solarYear/products.js';
import { FIXTURE_DEM } from '../raster/gdal.js';
import type { TestService } from './helpers.js';

export const SOL_PARAMS = { step: 15, linke_value: 3, albedo_value: 0.2, num_threads: 1 };

/** Day-1 global map: a ramp over the valid cells of the DEM. */
export const dayValue = (i: number) => 1000 + (i % 228) * 3.5 + Math.floor(i / 228) * 0.25;
/** Day-1 sunshine hours. */
export const hoursValue = (i: number) => (i % 7) * 1.5;
/** Monthly map of month `m` (0 = January). */
export const monthValue = (m: number, i: number) => (m + 1) * 100 + (i % 50);

export interface FixtureDem {
  readonly grid: GridSpec;
  /** Valid (not nodata) cells of the DEM, row-major. */
  readonly valid: boolean[];
}

export async function fixtureDem(): Promise<FixtureDem> {
  const dem = await readDem(FIXTURE_DEM);
  return { grid: dem.grid, valid: Array.from(dem.elevation, (z) => !Number.isNaN(z)) };
}

/** A completed sol job with the day-1 maps and the 12 monthly maps (the other products missing). */
export async function completedSolJob(svc: TestService, { grid, valid }: FixtureDem): Promise<string> {
  const id = randomUUID();
  svc.store.create({ id, workflow_type: 'sol', parameters: SOL_PARAMS, dem_filename: 'mcn_10m.tif' });
  mkdirSync(svc.paths.uploadDir(id), { recursive: true });
  copyFileSync(FIXTURE_DEM, svc.paths.demPath(id));
  const out = svc.paths.outputDir(id);
  const map = (f: (i: number) => number) => Float32Array.from({ length: grid.width * grid.height }, (_, i) => (valid[i] ? f(i) : NaN));
  await writeFloat32GeoTiff(join(out, dailyGlobalPath(1)), grid, map(dayValue));
  await writeFloat32GeoTiff(join(out, dailyHoursPath(1)), grid, map(hoursValue));
  for (let m = 0; m < 12; m++) await writeFloat32GeoTiff(join(out, monthlyGlobalPath(m)), grid, map((i) => monthValue(m, i)));
  svc.store.markRunning(id, 'process', 10, 'running');
  svc.store.complete(id);
  return id;
}

/**
 * The fixture DEM's grid cut to `size`×`size` cells and moved by (`eastM`, `northM`) metres in its CRS
 * (NAD83 / UTM 13N): a place for a job elsewhere.
 */
export function movedGrid(grid: GridSpec, eastM: number, northM: number, size = 8): GridSpec {
  const [x0, dx, rx, y0, ry, dy] = grid.geoTransform;
  return { ...grid, width: size, height: size, geoTransform: [x0 + eastM, dx, rx, y0 + northM, ry, dy] };
}

/**
 * A completed job of `workflow` on `grid` (every cell valid) with the day-1 maps, the 12 monthly maps and, for
 * eemt, the annual EEMT-Trad map of `parameters.start_year`; completed at `completedAt` when given.
 */
export async function completedJobOn(
  svc: TestService,
  grid: GridSpec,
  options: { workflow?: WorkflowType; parameters?: Partial<JobParameters>; completedAt?: string } = {},
): Promise<string> {
  const id = randomUUID();
  const workflow = options.workflow ?? 'sol';
  const parameters: JobParameters = { ...SOL_PARAMS, ...options.parameters };
  svc.store.create({ id, workflow_type: workflow, parameters, dem_filename: 'mcn_10m.tif' });
  const out = svc.paths.outputDir(id);
  const map = (f: (i: number) => number) => Float32Array.from({ length: grid.width * grid.height }, (_, i) => f(i));
  await writeFloat32GeoTiff(join(out, dailyGlobalPath(1)), grid, map(dayValue));
  await writeFloat32GeoTiff(join(out, dailyHoursPath(1)), grid, map(hoursValue));
  for (let m = 0; m < 12; m++) await writeFloat32GeoTiff(join(out, monthlyGlobalPath(m)), grid, map((i) => monthValue(m, i)));
  if (workflow === 'eemt') await writeFloat32GeoTiff(join(out, `eemt/EEMT_Trad_annual_${parameters.start_year}.tif`), grid, map((i) => 20 + i));
  svc.store.markRunning(id, 'process', 10, 'running');
  svc.store.complete(id);
  if (options.completedAt) svc.store.db.prepare('UPDATE jobs SET completed_at = ? WHERE id = ?').run(options.completedAt, id);
  return id;
}
