/**
 * A completed `sol` job made without running one: its record in the service's store, the fixture DEM as its
 * upload, and day-1 and monthly products written by the service's own GeoTIFF writer with known values.
 */
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { readDem } from '../../src/raster/readGeoTiff.js';
import type { GridSpec } from '../../src/raster/types.js';
import { writeFloat32GeoTiff } from '../../src/raster/writeGeoTiff.js';
import { dailyGlobalPath, dailyHoursPath, monthlyGlobalPath } from '../../src/workflows/sol/products.js';
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
