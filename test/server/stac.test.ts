// Needs: gdal, unzip
/**
 * STAC Items of a completed job over HTTP and inside the results ZIP, validated offline against the official
 * schemas of the versions they declare (vendored in test/fixtures/stac/, see test/fixtures/README.md), and the
 * files they point to: served with HTTP range requests, read by GDAL over /vsicurl/ as Cloud Optimized GeoTIFFs.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { gdaltransform } from '../raster/gdal.js';
import { completedSolJob, fixtureDem, SOL_PARAMS, type FixtureDem } from './completedJob.js';
import { getJson, startTestService, type TestService } from './helpers.js';
import { StacSchemas } from './stacSchemas.js';
import { zipEntries } from './zip.js';

const execFileAsync = promisify(execFile);

let svc: TestService;
let dem: FixtureDem;
let id: string;
let schemas: StacSchemas;

before(async () => {
  svc = await startTestService({ env: { EEMT_RUNTIME: 'process' } });
  dem = await fixtureDem();
  id = await completedSolJob(svc, dem);
  schemas = new StacSchemas();
});
after(() => svc.stop());

/** Errors of `item` against the official schemas of STAC 1.0.0 and of each extension it declares (none when valid). */
function schemaErrors(item: unknown): string[] {
  return schemas.stacErrors(item as object);
}

test('the vendored schemas reject what STAC forbids (so that passing means something)', async () => {
  const item = (await getJson(`${svc.base}/api/jobs/${id}/stac`)).body;
  assert.deepEqual(schemaErrors(item), []);
  assert.deepEqual(item.stac_extensions, [
    'https://stac-extensions.github.io/projection/v1.1.0/schema.json',
    'https://stac-extensions.github.io/raster/v1.1.0/schema.json',
  ]);
  const broken = (change: (copy: any) => void) => {
    const copy = structuredClone(item);
    change(copy);
    return schemaErrors(copy).length;
  };
  assert.ok(broken((c) => delete c.properties.datetime) > 0, 'datetime is required');
  assert.ok(broken((c) => (c.properties['proj:shape'] = [1, 2, 3])) > 0, 'proj:shape has two items');
  assert.ok(broken((c) => (Object.values<any>(c.assets)[0]['raster:bands'][0].data_type = 'real')) > 0, 'raster data types are listed');
  for (const extension of item.stac_extensions) {
    const copy = { ...item, stac_extensions: [] };
    assert.ok(schemas.errors(extension, copy).length > 0, `${extension}: its fields need it declared`);
  }
  assert.ok(broken((c) => (c.geometry.coordinates[0] = c.geometry.coordinates[0].slice(0, 3))) > 0, 'a ring has at least 4 positions');
  assert.ok(broken((c) => (Object.values<any>(c.assets)[0]['raster:bands'][0].nodata = 'none')) > 0, 'nodata is a number, "nan", "inf" or "-inf"');
  assert.ok(broken((c) => (c.links = c.links.filter((l: any) => l.rel !== 'collection'))) > 0, 'a collection field needs its link');
  assert.ok(broken((c) => (c.stac_extensions = ['https://stac-extensions.github.io/raster/v1.0.0/schema.json'])) > 0, 'undeclared or unknown versions fail');
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

  // the same Item as the catalogue's: in the sol collection, linked to it
  const items = `${svc.base}/api/stac/collections/sol/items`;
  assert.equal(item.collection, 'sol');
  const link = (rel: string) => item.links.filter((l: any) => l.rel === rel).map((l: any) => l.href);
  assert.deepEqual([link('self'), link('parent'), link('collection'), link('root')], [[`${items}/${id}`], [`${svc.base}/api/stac/collections/sol`], [`${svc.base}/api/stac/collections/sol`], [`${svc.base}/api/stac`]]);
  assert.deepEqual((await getJson(`${items}/${id}`)).body, item);

  const related = link('related');
  assert.deepEqual(related, [`${items}/${id}-daily-global`, `${items}/${id}-daily-hours`]);
  const daily = (await getJson(related[0])).body;
  assert.deepEqual(schemaErrors(daily), []);
  assert.equal(daily.assets['global/daily/total_sun_day_1']['raster:bands'][0].unit, 'Wh m-2 day-1');
  assert.equal(daily.links.find((l: any) => l.rel === 'related').href, `${items}/${id}`);
  assert.deepEqual(daily, (await getJson(`${svc.base}/api/jobs/${id}/stac/daily-global`)).body);
  const hours = (await getJson(related[1])).body;
  assert.deepEqual(schemaErrors(hours), []);
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

test('asset files and the results ZIP carry validators: 304 when unchanged, If-Range, 416 with the size, invalid ranges ignored', async () => {
  const rel = 'global/monthly/total_sun_jun_sum.tif';
  const url = `${svc.base}/api/jobs/${id}/files/${rel}`;
  const bytes = readFileSync(join(svc.paths.outputDir(id), rel));
  const whole = await fetch(url);
  await whole.arrayBuffer();
  const etag = whole.headers.get('etag')!;
  const lastModified = whole.headers.get('last-modified')!;
  assert.match(etag, /^"[0-9a-f]+-[0-9a-f]+"$/, 'a strong entity tag');
  assert.equal(new Date(lastModified).getTime(), Math.floor(statSync(join(svc.paths.outputDir(id), rel)).mtimeMs / 1000) * 1000);

  const cached = await fetch(url, { headers: { 'If-None-Match': etag } });
  assert.equal(cached.status, 304);
  assert.equal((await cached.arrayBuffer()).byteLength, 0);
  assert.equal(cached.headers.get('etag'), etag);
  assert.equal((await fetch(url, { headers: { 'If-None-Match': `"other", W/${etag}` } })).status, 304, 'a list, weak comparison');
  const other = await fetch(url, { headers: { 'If-None-Match': '"other"' } });
  assert.equal(other.status, 200);
  assert.equal((await other.arrayBuffer()).byteLength, bytes.length);
  assert.equal((await fetch(url, { headers: { 'If-Modified-Since': lastModified } })).status, 304);
  assert.equal((await fetch(url, { headers: { 'If-Modified-Since': new Date(Date.parse(lastModified) - 1000).toUTCString() } })).status, 200);
  assert.equal((await fetch(url, { headers: { 'If-None-Match': '"other"', 'If-Modified-Since': lastModified } })).status, 200, 'If-None-Match decides');

  const ranged = async (headers: Record<string, string>) => {
    const response = await fetch(url, { headers: { Range: 'bytes=10-19', ...headers } });
    return { status: response.status, body: Buffer.from(await response.arrayBuffer()), contentRange: response.headers.get('content-range') };
  };
  assert.equal((await ranged({ 'If-Range': etag })).status, 206);
  assert.equal((await ranged({ 'If-Range': lastModified })).status, 206);
  const stale = await ranged({ 'If-Range': '"changed-1"' });
  assert.equal(stale.status, 200, 'a validator that no longer matches: the whole file');
  assert.deepEqual(stale.body, bytes);
  assert.equal((await ranged({ 'If-Range': `W/${etag}` })).status, 200, 'a weak tag never matches If-Range');
  assert.equal((await ranged({ 'If-Range': new Date(Date.parse(lastModified) - 1000).toUTCString() })).status, 200);

  for (const range of [`bytes=${bytes.length}-`, `bytes=${bytes.length + 5}-${bytes.length + 9}`, 'bytes=-0']) {
    const outside = await fetch(url, { headers: { Range: range } });
    assert.equal(outside.status, 416, range);
    assert.equal(outside.headers.get('content-range'), `bytes */${bytes.length}`, range);
  }
  const clipped = await fetch(url, { headers: { Range: `bytes=${bytes.length - 4}-${bytes.length + 100}` } });
  assert.equal(clipped.status, 206);
  assert.equal(clipped.headers.get('content-range'), `bytes ${bytes.length - 4}-${bytes.length - 1}/${bytes.length}`);
  assert.deepEqual(Buffer.from(await clipped.arrayBuffer()), bytes.subarray(bytes.length - 4));
  for (const range of ['bytes=5-2', 'bytes=x-3', 'bytes=-', 'items=0-5', 'bytes=0-1,5-9']) {
    const ignored = await fetch(url, { headers: { Range: range } });
    assert.equal(ignored.status, 200, range);
    assert.equal((await ignored.arrayBuffer()).byteLength, bytes.length, range);
  }

  const results = `${svc.base}/api/jobs/${id}/results`;
  const first = await fetch(results);
  const zip1 = Buffer.from(await first.arrayBuffer());
  const zipTag = first.headers.get('etag')!;
  assert.ok(zipTag && first.headers.get('last-modified'));
  const second = await fetch(results);
  assert.equal(second.headers.get('etag'), zipTag);
  assert.deepEqual(Buffer.from(await second.arrayBuffer()), zip1, 'the same archive, byte for byte');
  const notModified = await fetch(results, { headers: { 'If-None-Match': zipTag } });
  assert.equal(notModified.status, 304);
  assert.equal((await notModified.arrayBuffer()).byteLength, 0);
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
  assert.equal(item.collection, undefined, 'the archive holds no Collection');
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
