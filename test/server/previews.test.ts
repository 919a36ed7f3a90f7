// Needs: gdal
/**
 * Map previews over HTTP: a completed job whose products were written by the service's own GeoTIFF writer
 * (known values), its PNGs decoded and its legends compared with the maps, the on-disk cache, and the errors.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { PNG } from 'pngjs';
import { readDem } from '../../src/raster/readGeoTiff.js';
import type { GridSpec } from '../../src/raster/types.js';
import { writeFloat32GeoTiff } from '../../src/raster/writeGeoTiff.js';
import { dailyGlobalPath, dailyHoursPath, monthlyGlobalPath } from '../../src/workflows/sol/products.js';
import { FIXTURE_DEM } from '../raster/gdal.js';
import { getJson, startTestService, type TestService } from './helpers.js';

let svc: TestService;
let grid: GridSpec;
let valid: boolean[];
const PARAMS = { step: 15, linke_value: 3, albedo_value: 0.2, num_threads: 1 };

/** Day-1 global map: a ramp over the valid cells of the DEM. */
const dayValue = (i: number) => 1000 + (i % 228) * 3.5 + Math.floor(i / 228) * 0.25;
const monthValue = (m: number, i: number) => (m + 1) * 100 + (i % 50);

before(async () => {
  svc = await startTestService({ env: { EEMT_RUNTIME: 'process' } });
  const dem = await readDem(FIXTURE_DEM);
  grid = dem.grid;
  valid = Array.from(dem.elevation, (z) => !Number.isNaN(z));
});
after(() => svc.stop());

/** A completed sol job with the day-1 maps and the 12 monthly maps (other products missing). */
async function completedJob(): Promise<string> {
  const id = randomUUID();
  svc.store.create({ id, workflow_type: 'sol', parameters: PARAMS, dem_filename: 'mcn_10m.tif' });
  mkdirSync(svc.paths.uploadDir(id), { recursive: true });
  copyFileSync(FIXTURE_DEM, svc.paths.demPath(id));
  const out = svc.paths.outputDir(id);
  const map = (f: (i: number) => number) => Float32Array.from({ length: grid.width * grid.height }, (_, i) => (valid[i] ? f(i) : NaN));
  await writeFloat32GeoTiff(join(out, dailyGlobalPath(1)), grid, map(dayValue));
  await writeFloat32GeoTiff(join(out, dailyHoursPath(1)), grid, map((i) => (i % 7) * 1.5));
  for (let m = 0; m < 12; m++) await writeFloat32GeoTiff(join(out, monthlyGlobalPath(m)), grid, map((i) => monthValue(m, i)));
  svc.store.markRunning(id, 'process', 10, 'running');
  svc.store.complete(id);
  return id;
}

function expectedStats(f: (i: number) => number) {
  let min = Infinity, max = -Infinity, sum = 0, n = 0;
  valid.forEach((ok, i) => {
    if (!ok) return;
    const v = f(i);
    min = Math.min(min, v);
    max = Math.max(max, v);
    sum += v;
    n++;
  });
  return { min, max, mean: sum / n, n };
}

test('legend: unit, min/max/mean of the full map, colour stops and the PNG path; the PNG is the map in viridis', async () => {
  const id = await completedJob();
  const legend = await getJson(`${svc.base}/api/jobs/${id}/preview/day-1.json`);
  assert.equal(legend.status, 200, JSON.stringify(legend.body));
  const want = expectedStats((i) => Math.fround(dayValue(i)));
  assert.equal(legend.body.product, 'day-1');
  assert.equal(legend.body.unit, 'Wh m-2 day-1');
  assert.equal(legend.body.min, want.min);
  assert.equal(legend.body.max, want.max);
  assert.ok(Math.abs(legend.body.mean - want.mean) < 1e-9 * want.mean);
  assert.equal(legend.body.valid_cells, want.n);
  assert.deepEqual([legend.body.width, legend.body.height, legend.body.map_width, legend.body.map_height], [228, 211, 228, 211]);
  assert.equal(legend.body.stops.length, 9);
  assert.equal(legend.body.stops[0].value, want.min);
  assert.equal(legend.body.stops[0].color, '#440154');
  assert.equal(legend.body.stops.at(-1).color, '#fde725');
  assert.equal(legend.body.png, `/api/jobs/${id}/preview/day-1.png`);

  const res = await fetch(`${svc.base}${legend.body.png}`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'image/png');
  const png = PNG.sync.read(Buffer.from(await res.arrayBuffer()));
  assert.deepEqual([png.width, png.height], [228, 211]);
  const alpha = (i: number) => png.data[4 * i + 3];
  valid.forEach((ok, i) => assert.equal(alpha(i), ok ? 255 : 0, `cell ${i}`));
  // the ramp's west end is dark blue, its east end yellow-green: red grows from west to east
  const row = 100 * 228;
  const westmost = valid.indexOf(true, row);
  assert.ok(png.data[4 * westmost]! < png.data[4 * (row + 220)]!);

  const shaded = await fetch(`${svc.base}/api/jobs/${id}/preview/day-1.png?hillshade=1`);
  assert.equal(shaded.status, 200);
  const shadedPng = PNG.sync.read(Buffer.from(await shaded.arrayBuffer()));
  let darker = 0;
  for (let i = 0; i < 228 * 211; i++) if (valid[i] && shadedPng.data[4 * i + 1]! < png.data[4 * i + 1]!) darker++;
  assert.ok(darker > want.n / 2, `the hillshade darkens most cells (${darker} of ${want.n})`);

  // cached in the job's folder, and removed with the job
  const cache = join(svc.paths.jobDir(id), 'previews');
  assert.deepEqual(readdirSync(cache).sort(), ['day-1-hillshade.png', 'day-1.json', 'day-1.png']);
  assert.equal((await fetch(`${svc.base}/api/jobs/${id}`, { method: 'DELETE' })).status, 200);
  assert.equal(existsSync(cache), false);
});

test('annual is the sum of the 12 monthly maps; month-{name}, hours-day-{n}', async () => {
  const id = await completedJob();
  const annual = await getJson(`${svc.base}/api/jobs/${id}/preview/annual.json`);
  assert.equal(annual.status, 200, JSON.stringify(annual.body));
  const want = expectedStats((i) => Array.from({ length: 12 }, (_, m) => monthValue(m, i)).reduce((a, b) => a + b));
  assert.equal(annual.body.min, want.min);
  assert.equal(annual.body.max, want.max);
  assert.equal(annual.body.unit, 'Wh m-2 yr-1');
  const june = await getJson(`${svc.base}/api/jobs/${id}/preview/month-jun.json`);
  assert.deepEqual([june.body.min, june.body.max, june.body.unit], [600, 649, 'Wh m-2 month-1']);
  const hours = await getJson(`${svc.base}/api/jobs/${id}/preview/hours-day-1.json`);
  assert.deepEqual([hours.body.min, hours.body.max, hours.body.unit], [0, 9, 'h']);
  const png = await fetch(`${svc.base}/api/jobs/${id}/preview/annual.png`);
  assert.equal(png.status, 200);
  assert.equal(PNG.sync.read(Buffer.from(await png.arrayBuffer())).width, 228);
});

test('errors: unknown job, unknown product, unfinished job, missing product, deleted results', async () => {
  const id = await completedJob();
  const detail = async (path: string) => {
    const res = await getJson(`${svc.base}${path}`);
    return [res.status, res.body.detail];
  };
  assert.deepEqual(await detail(`/api/jobs/${randomUUID()}/preview/annual.png`), [404, 'Job not found']);
  for (const bad of ['day-366', 'day-0', 'month-foo', 'twi', 'eemt-topo-annual', 'nonsense']) {
    const [status, text] = await detail(`/api/jobs/${id}/preview/${bad}.json`);
    assert.equal(status, 404, bad);
    assert.match(text, /^Unknown preview product .*annual, day-\{1\.\.365\}, hours-day-\{1\.\.365\}, month-\{jan\.\.dec\}$/, bad);
  }
  assert.deepEqual(await detail(`/api/jobs/${id}/preview/day-2.png`), [404, 'Results not found: the job has no global/daily/total_sun_day_2.tif']);

  const pending = randomUUID();
  svc.store.create({ id: pending, workflow_type: 'sol', parameters: PARAMS, dem_filename: 'x.tif' });
  assert.deepEqual(await detail(`/api/jobs/${pending}/preview/annual.json`), [400, 'Job not completed']);

  svc.store.markDataDeleted(id);
  assert.deepEqual(await detail(`/api/jobs/${id}/preview/day-1.json`), [404, 'Results not found']);
  const gone = await completedJob();
  rmSync(svc.paths.outputDir(gone), { recursive: true });
  assert.deepEqual(await detail(`/api/jobs/${gone}/preview/day-1.png`), [404, 'Results not found']);
});

test('a link planted in the cache folder is not followed: the legend is computed from the map', async () => {
  const id = await completedJob();
  const cache = join(svc.paths.jobDir(id), 'previews');
  mkdirSync(cache);
  const fake = join(svc.root, 'fake-legend.json');
  writeFileSync(fake, JSON.stringify({ product: 'day-1', title: 'fake', unit: 'x', min: -1, max: -1, mean: -1, validCells: 0, width: 1, height: 1, map_width: 1, map_height: 1, stops: [] }));
  symlinkSync(fake, join(cache, 'day-1.json'));
  const legend = await getJson(`${svc.base}/api/jobs/${id}/preview/day-1.json`);
  assert.equal(legend.status, 200);
  assert.equal(legend.body.min, expectedStats((i) => Math.fround(dayValue(i))).min);
});

test('the OpenAPI document describes the preview endpoints and the legend', async () => {
  const doc = (await getJson(`${svc.base}/docs/json`)).body;
  assert.ok(doc.paths['/api/jobs/{job_id}/preview/{product}.png'], Object.keys(doc.paths).join(' '));
  const json = doc.paths['/api/jobs/{job_id}/preview/{product}.json'].get;
  const schema = JSON.stringify(json.responses['200']);
  for (const field of ['min', 'max', 'mean', 'unit', 'stops', 'png']) assert.match(schema, new RegExp(`"${field}"`));
});
