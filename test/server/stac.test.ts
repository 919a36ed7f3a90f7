// Needs: gdal, unzip
/**
 * STAC Items of a completed job over HTTP and inside the results ZIP, validated offline against the vendored
 * schemas (test/fixtures/stac/, see test/fixtures/README.md), and the files they point to: served with HTTP
 * range requests, read by GDAL over /vsicurl/ as Cloud Optimized GeoTIFFs.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { gdaltransform } from '../raster/gdal.js';
import { completedSolJob, fixtureDem, SOL_PARAMS, type FixtureDem } from './completedJob.js';
import { getJson, startTestService, type TestService } from './helpers.js';
import { zipEntries } from './zip.js';

const execFileAsync = promisify(execFile);
const SCHEMAS = new URL('../fixtures/stac/', import.meta.url).pathname;

let svc: TestService;
let dem: FixtureDem;
let id: string;
const validators: { name: string; validate: ValidateFunction }[] = [];

before(async () => {
  svc = await startTestService({ env: { EEMT_RUNTIME: 'process' } });
  dem = await fixtureDem();
  id = await completedSolJob(svc, dem);
  const ajv = new Ajv({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv) => void)(ajv);
  const schemas = readdirSync(SCHEMAS).map((f) => JSON.parse(readFileSync(join(SCHEMAS, f), 'utf8')) as { $id: string });
  for (const schema of schemas) ajv.addSchema(schema);
  for (const schema of schemas.filter((s) => !/Geometry|projjson/.test(s.$id))) validators.push({ name: schema.$id, validate: ajv.getSchema(schema.$id)! });
});
after(() => svc.stop());

/** Every schema's errors for `item` (none when valid). */
function schemaErrors(item: unknown): string[] {
  return validators.flatMap(({ name, validate }) => (validate(item) ? [] : [`${name}: ${JSON.stringify(validate.errors)}`]));
}

test('the vendored schemas reject what STAC forbids (so that passing means something)', async () => {
  const item = (await getJson(`${svc.base}/api/jobs/${id}/stac`)).body;
  assert.deepEqual(schemaErrors(item), []);
  const broken = (change: (copy: any) => void) => {
    const copy = structuredClone(item);
    change(copy);
    return schemaErrors(copy).length;
  };
  assert.ok(broken((c) => delete c.properties.datetime) > 0, 'datetime is required');
  assert.ok(broken((c) => (c.properties['proj:shape'] = [1, 2, 3])) > 0, 'proj:shape has two items');
  assert.ok(broken((c) => (Object.values<any>(c.assets)[0]['raster:bands'][0].data_type = 'real')) > 0, 'raster data types are listed');
  assert.ok(broken((c) => (c.stac_extensions = [])) > 0, 'proj: and raster: fields need their extensions declared');
  assert.ok(broken((c) => (c.geometry.coordinates[0] = c.geometry.coordinates[0].slice(0, 3))) > 0, 'a ring has at least 4 positions');
});

test('the job Item over HTTP: footprint in WGS 84, datetime, projection and raster fields, COG assets, daily Items', async () => {
  const job = (await getJson(`${svc.base}/api/jobs/${id}`)).body;
  const res = await getJson(`${svc.base}/api/jobs/${id}/stac`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type')!, /^application\/geo\+json/);
  const item = res.body;
  assert.deepEqual(schemaErrors(item), []);
  assert.equal(item.id, id);
  assert.equal(item.properties.datetime, job.completed_at);
  assert.equal(item.properties['proj:epsg'], 26913);
  assert.deepEqual(item.properties['proj:shape'], [211, 228]);
  const [x0, dx, , y0, , dy] = dem.grid.geoTransform;
  assert.deepEqual(item.properties['proj:transform'], [dx, 0, x0, 0, dy, y0]);

  // the footprint's corners are the grid's corners as GDAL transforms them to WGS 84
  const ring: number[][] = item.geometry.coordinates[0];
  const corners = gdaltransform('EPSG:26913', 'EPSG:4326', [[x0, y0], [x0, y0 + 211 * dy], [x0 + 228 * dx, y0 + 211 * dy], [x0 + 228 * dx, y0]]);
  for (const [k, [lon, lat]] of corners.entries()) {
    const p = ring[k * 16]!;
    assert.ok(Math.abs(p[0]! - lon) < 1e-7 && Math.abs(p[1]! - lat) < 1e-7, `corner ${k}: ${p} vs ${lon},${lat}`);
  }
  assert.deepEqual(ring.at(-1), ring[0]);
  assert.ok(item.bbox[0] < -106.6 && item.bbox[2] > -106.62 && item.bbox[1] < 35.82 && item.bbox[3] > 35.8, String(item.bbox));

  const june = item.assets['global/monthly/total_sun_jun_sum'];
  assert.equal(june.type, 'image/tiff; application=geotiff; profile=cloud-optimized');
  assert.deepEqual(june.roles, ['data']);
  assert.deepEqual(june['raster:bands'], [{ data_type: 'float32', nodata: 'nan', unit: 'Wh m-2 month-1' }]);
  assert.equal(june.href, `${svc.base}/api/jobs/${id}/files/global/monthly/total_sun_jun_sum.tif`);
  assert.equal(Object.keys(item.assets).filter((k) => k.startsWith('global/monthly/')).length, 12);
  assert.equal(item.assets['global/daily/total_sun_day_1'], undefined, 'daily maps are in their own Items');
  assert.equal(item.assets.archive.href, `${svc.base}/api/jobs/${id}/results`);
  assert.equal((await fetch(item.assets.thumbnail.href)).headers.get('content-type'), 'image/png');

  const related = item.links.filter((l: any) => l.rel === 'related').map((l: any) => l.href);
  assert.deepEqual(related, [`${svc.base}/api/jobs/${id}/stac/daily-global`, `${svc.base}/api/jobs/${id}/stac/daily-hours`]);
  const daily = (await getJson(related[0])).body;
  assert.deepEqual(schemaErrors(daily), []);
  assert.equal(daily.assets['global/daily/total_sun_day_1']['raster:bands'][0].unit, 'Wh m-2 day-1');
  assert.equal(daily.links.find((l: any) => l.rel === 'related').href, `${svc.base}/api/jobs/${id}/stac`);
  const hours = (await getJson(related[1])).body;
  assert.equal(hours.assets['insol/daily/hours_sun_day_1']['raster:bands'][0].unit, 'h');
});

test('asset files: whole, by byte range, and read by GDAL over HTTP as Cloud Optimized GeoTIFFs', async () => {
  const rel = 'global/monthly/total_sun_jun_sum.tif';
  const url = `${svc.base}/api/jobs/${id}/files/${rel}`;
  const bytes = readFileSync(join(svc.paths.outputDir(id), rel));
  const whole = await fetch(url);
  assert.equal(whole.status, 200);
  assert.equal(whole.headers.get('accept-ranges'), 'bytes');
  assert.deepEqual(Buffer.from(await whole.arrayBuffer()), bytes);
  const part = await fetch(url, { headers: { Range: 'bytes=100-199' } });
  assert.equal(part.status, 206);
  assert.equal(part.headers.get('content-range'), `bytes 100-199/${bytes.length}`);
  assert.deepEqual(Buffer.from(await part.arrayBuffer()), bytes.subarray(100, 200));
  const tail = await fetch(url, { headers: { Range: 'bytes=-10' } });
  assert.deepEqual(Buffer.from(await tail.arrayBuffer()), bytes.subarray(bytes.length - 10));
  assert.equal((await fetch(url, { headers: { Range: `bytes=${bytes.length}-` } })).status, 416);
  assert.equal((await getJson(`${svc.base}/api/jobs/${id}/files/global/monthly/nothing.tif`)).status, 404);
  assert.equal((await getJson(`${svc.base}/api/jobs/${id}/files/../../jobs.db`)).status, 404);
  // A 10 KB path, and a 5 KB range, are not echoed whole.
  const longPath = `global/${'x/'.repeat(5000)}a.tif`;
  assert.deepEqual((await getJson(`${url.replace(rel, longPath)}`)).body, { detail: `File not found: ${longPath.slice(0, 200)}… (${longPath.length} characters)` });
  const longRange = `bytes=${'9'.repeat(5000)}-`;
  assert.deepEqual((await getJson(url, { headers: { Range: longRange } })).body, { detail: `Range ${longRange.slice(0, 200)}… (${longRange.length} characters) is outside the file (${bytes.length} bytes)` });

  // asynchronously: the service answering GDAL runs in this process
  const { stdout } = await execFileAsync('gdalinfo', ['-json', '-stats', `/vsicurl/${url}`], { timeout: 60_000, env: { ...process.env, GDAL_PAM_ENABLED: 'NO', GDAL_DISABLE_READDIR_ON_OPEN: 'EMPTY_DIR' } });
  const info = JSON.parse(stdout);
  assert.equal(info.metadata.IMAGE_STRUCTURE.LAYOUT, 'COG');
  assert.equal(info.bands[0].maximum, 649);
});

test('the results ZIP holds the Items at its root with relative hrefs to its own entries', async () => {
  const zip = Buffer.from(await (await fetch(`${svc.base}/api/jobs/${id}/results`)).arrayBuffer());
  const names = new Set(zipEntries(zip).map((e) => e.name));
  for (const name of ['stac.json', 'stac/daily-global.json', 'stac/daily-hours.json']) assert.ok(names.has(name), name);
  const path = join(svc.root, 'results.zip');
  writeFileSync(path, zip);
  const read = (name: string) => JSON.parse(execFileSync('unzip', ['-p', path, name], { encoding: 'utf8' }));
  const item = read('stac.json');
  assert.deepEqual(schemaErrors(item), []);
  assert.equal(item.links.some((l: any) => l.rel === 'self'), false);
  for (const asset of Object.values<any>(item.assets)) assert.ok(names.has(asset.href.replace(/^\.\//, '')), asset.href);
  const daily = read('stac/daily-global.json');
  assert.deepEqual(schemaErrors(daily), []);
  for (const asset of Object.values<any>(daily.assets)) assert.ok(names.has(asset.href.replace(/^\.\.\//, '')), asset.href);
  assert.ok(item.links.some((l: any) => l.href === './stac/daily-global.json'));
});

test('STAC of jobs that are unknown, unfinished or without results', async () => {
  assert.deepEqual((await getJson(`${svc.base}/api/jobs/00000000-0000-4000-8000-000000000000/stac`)).body, { detail: 'Job not found' });
  const pending = randomUUID();
  svc.store.create({ id: pending, workflow_type: 'sol', parameters: SOL_PARAMS, dem_filename: 'x.tif' });
  assert.deepEqual((await getJson(`${svc.base}/api/jobs/${pending}/stac`)).body, { detail: 'Job not completed' });
  assert.equal((await getJson(`${svc.base}/api/jobs/${pending}/files/global/monthly/total_sun_jun_sum.tif`)).status, 400);
  const other = await completedSolJob(svc, dem);
  svc.store.markDataDeleted(other);
  const gone = await getJson(`${svc.base}/api/jobs/${other}/stac`);
  assert.deepEqual([gone.status, gone.body.detail], [404, 'Results not found']);
});
