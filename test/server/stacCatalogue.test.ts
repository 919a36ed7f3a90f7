// Needs: gdal
/**
 * The STAC API catalogue of completed jobs at /api/stac, black-box over HTTP on a real service: every document
 * it serves validates against the official STAC and STAC API v1.0.0 schemas (vendored, offline); a client walks
 * it as pystac-client does, down to a COG read by GDAL; Item Search filters, pages and refuses bad parameters.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { completedJobOn, fixtureDem, movedGrid, SOL_PARAMS } from './completedJob.js';
import { getJson, startTestService, type TestService } from './helpers.js';
import { API_SCHEMAS, SCHEMA_DIR, StacSchemas } from './stacSchemas.js';

const execFileAsync = promisify(execFile);

let svc: TestService;
let schemas: StacSchemas;
let stac: string;
/** The jobs, oldest first: home (sol), north (sol, 500 km north), climate (eemt, 1990–1991, at home), east (sol, 300 km east). */
const jobs = { home: '', north: '', climate: '', east: '' };
/** Every Item id in the catalogue's order: newest job first, then the job's own Item, daily-global, daily-hours. */
let allIds: string[];

const itemIds = (job: string) => [job, `${job}-daily-global`, `${job}-daily-hours`];

before(async () => {
  svc = await startTestService({ env: { EEMT_RUNTIME: 'process' } });
  stac = `${svc.base}/api/stac`;
  schemas = new StacSchemas();
  const { grid } = await fixtureDem();
  jobs.home = await completedJobOn(svc, movedGrid(grid, 0, 0), { completedAt: '2024-03-01T12:00:00.000Z' });
  jobs.north = await completedJobOn(svc, movedGrid(grid, 0, 500_000), { completedAt: '2024-06-01T12:00:00.000Z' });
  jobs.climate = await completedJobOn(svc, movedGrid(grid, 0, 0), {
    workflow: 'eemt',
    parameters: { start_year: 1990, end_year: 1991 },
    completedAt: '2024-09-01T00:00:00.000Z',
  });
  jobs.east = await completedJobOn(svc, movedGrid(grid, 300_000, 0), { completedAt: '2025-01-01T00:00:00.000Z' });
  // neither unfinished nor failed jobs are in the catalogue
  svc.store.create({ id: randomUUID(), workflow_type: 'sol', parameters: SOL_PARAMS, dem_filename: 'x.tif' });
  const failed = randomUUID();
  svc.store.create({ id: failed, workflow_type: 'sol', parameters: SOL_PARAMS, dem_filename: 'x.tif' });
  svc.store.fail(failed, 'test');
  allIds = [jobs.east, jobs.climate, jobs.north, jobs.home].flatMap(itemIds);
});
after(() => svc.stop());

function assertValid(errors: string[]): void {
  assert.deepEqual(errors, [], errors.slice(0, 5).join('\n'));
}

/** GET (or POST with `body`) of a page of Items, checked against the STAC API and STAC Item schemas. */
async function page(url: string, body?: unknown): Promise<any> {
  const res = await getJson(url, body === undefined ? undefined : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.match(res.headers.get('content-type')!, /^application\/geo\+json/);
  assertValid(schemas.itemCollectionErrors(res.body));
  assert.equal(res.body.numberReturned, res.body.features.length);
  return res.body;
}

const ids = (body: any): string[] => body.features.map((f: any) => f.id);
const href = (doc: any, rel: string) => doc.links.find((l: any) => l.rel === rel)?.href;

/** Every Item of a search or items URL, following next links (GET or POST as they say), at most `maxPages` pages. */
async function walk(url: string, body?: unknown, maxPages = 20): Promise<{ ids: string[]; pages: number[]; matched: number[] }> {
  const out = { ids: [] as string[], pages: [] as number[], matched: [] as number[] };
  let next: { href: string; method?: string; body?: unknown } | undefined = { href: url, ...(body !== undefined ? { method: 'POST', body } : {}) };
  while (next && out.pages.length < maxPages) {
    const current = await page(next.href, next.method === 'POST' ? next.body : undefined);
    out.ids.push(...ids(current));
    out.pages.push(current.features.length);
    out.matched.push(current.numberMatched);
    next = current.links.find((l: any) => l.rel === 'next');
  }
  assert.equal(next, undefined, 'the walk ended');
  return out;
}

test('landing page, conformance and collections validate against STAC and STAC API v1.0.0 and link what clients follow', async () => {
  const res = await getJson(stac);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type')!, /^application\/json/);
  const landing = res.body;
  assertValid(schemas.stacErrors(landing));
  assertValid(schemas.errors(API_SCHEMAS.landingPage, landing));
  for (const rel of ['self', 'root', 'data', 'conformance', 'search', 'service-desc']) assert.ok(href(landing, rel), rel);
  assert.deepEqual(
    landing.links.filter((l: any) => l.rel === 'search').map((l: any) => [l.method, l.type]),
    [['GET', 'application/geo+json'], ['POST', 'application/geo+json']],
  );
  assert.equal(href(landing, 'self'), stac);
  assert.equal((await getJson(`${stac}/`)).body.id, landing.id, 'with a trailing slash too');
  for (const root of ['/stac', '/stac/']) {
    const moved = await fetch(`${svc.base}${root}`, { redirect: 'manual' });
    assert.equal(moved.status, 308, root);
    assert.equal(moved.headers.get('location'), '/api/stac', root);
  }
  assert.equal((await getJson(`${svc.base}/stac`)).body.id, landing.id, 'a client following the redirect lands on the catalogue');
  // pystac-client's conformance checks: https://api.stacspec.org/v1.0.<anything>/<class>
  for (const cls of ['core', 'collections', 'ogcapi-features', 'item-search']) {
    assert.ok(landing.conformsTo.some((uri: string) => new RegExp(`^https://api\\.stacspec\\.org/v1\\.0\\.[^/]*/${cls}$`).test(uri)), cls);
  }
  const conformance = (await getJson(href(landing, 'conformance'))).body;
  assertValid(schemas.errors(API_SCHEMAS.conformance, conformance));
  assert.deepEqual(conformance.conformsTo, landing.conformsTo);

  // the service description is the service's OpenAPI document, which describes the catalogue
  const openapi = await getJson(href(landing, 'service-desc'));
  assert.equal(openapi.status, 200);
  assert.match(openapi.body.openapi, /^3\.0/);
  for (const path of ['/api/stac/', '/api/stac/search', '/api/stac/collections/{collectionId}/items']) assert.ok(openapi.body.paths[path], path);

  // browser clients of other origins (STAC Browser) may read it and search by POST
  assert.equal(res.headers.get('access-control-allow-origin'), '*');
  const preflight = await fetch(`${stac}/search`, {
    method: 'OPTIONS',
    headers: { origin: 'https://browser.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
  });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
  assert.match(preflight.headers.get('access-control-allow-methods')!, /POST/);
  assert.match(preflight.headers.get('access-control-allow-headers')!, /content-type/);
  assert.equal((await fetch(`${svc.base}/api/jobs`)).headers.get('access-control-allow-origin'), null, 'only the catalogue');

  const collections = (await getJson(href(landing, 'data'))).body;
  assertValid(schemas.errors(API_SCHEMAS.collections, collections));
  assert.deepEqual(collections.collections.map((c: any) => c.id), ['sol', 'eemt']);
  for (const collection of collections.collections) {
    assertValid(schemas.stacErrors(collection));
    assertValid(schemas.errors(API_SCHEMAS.collection, collection));
    assert.deepEqual((await getJson(href(collection, 'self'))).body, collection);
    assert.equal(href(collection, 'items'), `${stac}/collections/${collection.id}/items`);
    assert.equal(href(collection, 'root'), stac);
  }
  const [sol, eemt] = collections.collections;
  // extents from the jobs: the sol jobs' boxes and completion times; the eemt job's climate years and completion
  const solItems = await page(`${stac}/collections/sol/items?limit=100`);
  const boxes = solItems.features.map((f: any) => f.bbox);
  const [west, south, east, north] = [0, 1, 2, 3].map((k) => (k < 2 ? Math.min : Math.max)(...boxes.map((b: number[]) => b[k]!)));
  assert.deepEqual(sol.extent.spatial.bbox, [[west, south, east, north]]);
  assert.ok(north - south > 4 && east - west > 3, `three places: ${sol.extent.spatial.bbox}`);
  assert.deepEqual(sol.extent.temporal.interval, [['2024-03-01T12:00:00.000Z', '2025-01-01T00:00:00.000Z']]);
  assert.deepEqual(eemt.extent.temporal.interval, [['1990-01-01T00:00:00.000Z', '2024-09-01T00:00:00.000Z']]);
  assert.equal(sol.license, 'various');
});

test('every Item served validates against the schemas it declares and carries its collection and links', async () => {
  const all = await walk(`${stac}/search?limit=100`);
  assert.deepEqual(all.ids, allIds);
  for (const id of allIds) {
    const collection = id.startsWith(jobs.climate) ? 'eemt' : 'sol';
    const url = `${stac}/collections/${collection}/items/${id}`;
    const res = await getJson(url);
    assert.equal(res.status, 200, id);
    assert.match(res.headers.get('content-type')!, /^application\/geo\+json/);
    const item = res.body;
    assertValid(schemas.stacErrors(item));
    assertValid(schemas.errors(API_SCHEMAS.item, item));
    assert.equal(item.collection, collection);
    assert.deepEqual(
      ['self', 'parent', 'collection', 'root'].map((rel) => href(item, rel)),
      [url, `${stac}/collections/${collection}`, `${stac}/collections/${collection}`, stac],
    );
    // the job Item and its daily Items name each other
    const job = id.slice(0, 36);
    const related = item.links.filter((l: any) => l.rel === 'related').map((l: any) => l.href);
    assert.deepEqual(related, id === job ? [`${url}-daily-global`, `${url}-daily-hours`] : [`${stac}/collections/${collection}/items/${job}`]);
  }
  const climate = (await getJson(`${stac}/collections/eemt/items/${jobs.climate}`)).body;
  assert.equal(climate.properties.start_datetime, '1990-01-01T00:00:00Z');
  assert.ok(climate.assets['eemt/EEMT_Trad_annual_1990']);
  // an Item is only in its own collection
  assert.equal((await getJson(`${stac}/collections/sol/items/${jobs.climate}`)).status, 404);
  const missing = await getJson(`${stac}/collections/sol/items/nothing`);
  assert.equal(missing.status, 404);
  assertValid(schemas.errors(API_SCHEMAS.exception, missing.body));
  assert.match(missing.body.description, /Item not found: nothing/);
});

test('a client walks root → collections → items (next links) → an Item → its COG, read by GDAL over HTTP', async () => {
  const root = (await getJson(stac)).body;
  const collectionsUrl = href(root, 'data');
  // as pystac-client's get_collection: the data link joined with the collection id
  const sol = (await getJson(`${collectionsUrl.replace(/\/?$/, '/')}sol`)).body;
  assert.equal(sol.id, 'sol');
  const walked = await walk(`${href(sol, 'items')}?limit=4`);
  assert.deepEqual(walked.pages, [4, 4, 1]);
  assert.deepEqual(walked.matched, [9, 9, 9]);
  assert.deepEqual(walked.ids, [jobs.east, jobs.north, jobs.home].flatMap(itemIds));
  const first = await page(`${href(sol, 'items')}?limit=4`);
  assert.equal(href(first, 'collection'), `${stac}/collections/sol`);
  assert.equal(href(first, 'root'), stac);

  const item = (await getJson(`${href(sol, 'items')}/${jobs.north}`)).body;
  const june = item.assets['global/monthly/total_sun_jun_sum'];
  assert.equal(june.type, 'image/tiff; application=geotiff; profile=cloud-optimized');
  const archive = await fetch(item.assets.archive.href, { method: 'HEAD' });
  assert.equal(archive.status, 200);
  // asynchronously: the service answering GDAL runs in this process
  const { stdout } = await execFileAsync('gdalinfo', ['-json', '-stats', `/vsicurl/${june.href}`], {
    timeout: 60_000,
    env: { ...process.env, GDAL_PAM_ENABLED: 'NO', GDAL_DISABLE_READDIR_ON_OPEN: 'EMPTY_DIR' },
  });
  const info = JSON.parse(stdout);
  assert.equal(info.metadata.IMAGE_STRUCTURE.LAYOUT, 'COG');
  assert.deepEqual(info.size, [8, 8]);
  // June's map holds 600 + (i mod 50) over the 64 cells
  assert.equal(info.bands[0].minimum, 600);
  assert.equal(info.bands[0].maximum, 649);
  // the Item's footprint is where GDAL places the file
  const [west, south, east, north] = item.bbox;
  const corners = [info.wgs84Extent.coordinates[0]].flat().map((p: number[]) => p);
  for (const [lon, lat] of corners) assert.ok(lon >= west - 1e-6 && lon <= east + 1e-6 && lat >= south - 1e-6 && lat <= north + 1e-6, `${lon},${lat}`);
});

test('search by bbox: intersecting footprints, a point, the antimeridian, 3D boxes', async () => {
  const home = (await getJson(`${stac}/collections/sol/items/${jobs.home}`)).body;
  const atHome = [jobs.climate, jobs.home].flatMap(itemIds);
  const search = async (bbox: string) => ids(await page(`${stac}/search?limit=100&bbox=${bbox}`));
  assert.deepEqual(await search('-107,35,-106,36'), atHome);
  assert.deepEqual(await search('-107,35,-102,36'), [jobs.east, jobs.climate, jobs.home].flatMap(itemIds));
  assert.deepEqual(await search('-107,40,-106,41'), itemIds(jobs.north));
  assert.deepEqual(await search('0,0,1,1'), []);
  const [w, s, e, n] = home.bbox;
  assert.deepEqual(await search([(w + e) / 2, (s + n) / 2, (w + e) / 2, (s + n) / 2].join(',')), atHome, 'a point');
  assert.deepEqual(await search([e + 1e-6, s, e + 0.01, n].join(',')), [], 'just east of it');
  assert.deepEqual(await search('170,35,-106.5,36'), atHome, 'across the antimeridian');
  assert.deepEqual(await search('170,35,-107,36'), []);
  assert.deepEqual(await search('-107,35,-1000,-106,36,5000'), atHome, 'with elevations');
  const posted = await page(`${stac}/search`, { bbox: [-107, 35, -106, 36], limit: 100 });
  assert.deepEqual(ids(posted), atHome);
  // the items of a collection take bbox too
  assert.deepEqual(ids(await page(`${stac}/collections/sol/items?bbox=-107,35,-106,36`)), itemIds(jobs.home));
});

/** Whether `point` lies inside the ring (ray casting), to check the catalogue's answers independently of its library. */
function insideRing([x, y]: number[], ring: number[][]): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i]!;
    const [xj, yj] = ring[j]!;
    if (yi! > y! !== yj! > y! && x! < ((xj! - xi!) * (y! - yi!)) / (yj! - yi!) + xi!) inside = !inside;
  }
  return inside;
}

test('search by intersects: points, lines, polygons and collections meet the footprints themselves, not their boxes', async () => {
  const home = (await getJson(`${stac}/collections/sol/items/${jobs.home}`)).body;
  const north = (await getJson(`${stac}/collections/sol/items/${jobs.north}`)).body;
  const east = (await getJson(`${stac}/collections/sol/items/${jobs.east}`)).body;
  const atHome = [jobs.climate, jobs.home].flatMap(itemIds);
  const search = async (geometry: unknown) => ids(await page(`${stac}/search`, { intersects: geometry, limit: 100 }));
  const centre = (item: any) => [(item.bbox[0] + item.bbox[2]) / 2, (item.bbox[1] + item.bbox[3]) / 2];

  assert.deepEqual(await search({ type: 'Point', coordinates: centre(home) }), atHome);
  // the footprint is a projected grid, turned in longitude/latitude: a corner of its box lies outside it
  const ring: number[][] = home.geometry.coordinates[0];
  const [w, s, e, n] = home.bbox;
  const outside = [[w, s], [w, n], [e, s], [e, n]].find((c) => !insideRing(c, ring) && !ring.some((p) => Math.hypot(p[0]! - c[0]!, p[1]! - c[1]!) < 1e-7))!;
  assert.ok(outside, 'a corner of the box outside the footprint');
  assert.deepEqual(ids(await page(`${stac}/search?limit=100&bbox=${[...outside, ...outside].join(',')}`)), atHome, 'the box holds it');
  assert.deepEqual(await search({ type: 'Point', coordinates: outside }), [], 'the footprint does not');

  const [cx, cy] = centre(home);
  assert.deepEqual(await search({ type: 'LineString', coordinates: [[cx!, cy! + 1], [cx!, cy! - 1]] }), atHome, 'a line across it');
  assert.deepEqual(await search({ type: 'LineString', coordinates: [[cx! + 1, cy! + 1], [cx! + 1, cy! - 1]] }), [], 'a line beside it');
  const around = (item: any, margin: number) => {
    const [w, s, e, n] = item.bbox;
    return [[[w - margin, s - margin], [e + margin, s - margin], [e + margin, n + margin], [w - margin, n + margin], [w - margin, s - margin]]];
  };
  assert.deepEqual(await search({ type: 'Polygon', coordinates: around(north, 0.01) }), itemIds(jobs.north));
  assert.deepEqual(await search({ type: 'Polygon', coordinates: [...around(north, 1), ...around(north, 0.5)] }), [], 'a hole holding it');
  assert.deepEqual(await search({ type: 'MultiPolygon', coordinates: [around(north, 0.01), around(east, 0.01)] }), [jobs.east, jobs.north].flatMap(itemIds));
  assert.deepEqual(
    await search({ type: 'GeometryCollection', geometries: [{ type: 'Point', coordinates: centre(home) }, { type: 'MultiPoint', coordinates: [centre(east)] }] }),
    [jobs.east, jobs.climate, jobs.home].flatMap(itemIds),
  );

  // GET: the geometry as JSON text, kept by the next link
  const geometry = JSON.stringify({ type: 'Polygon', coordinates: around(home, 0.01) });
  const first = await page(`${stac}/search?limit=4&intersects=${encodeURIComponent(geometry)}`);
  assert.deepEqual([ids(first), first.numberMatched], [atHome.slice(0, 4), 6]);
  assert.equal(new URL(href(first, 'next')).searchParams.get('intersects'), geometry);
  assert.deepEqual((await walk(`${stac}/search?limit=4&intersects=${encodeURIComponent(geometry)}`)).ids, atHome);
  const posted = await page(`${stac}/search`, { intersects: JSON.parse(geometry), limit: 4 });
  const next = posted.links.find((l: any) => l.rel === 'next');
  assert.deepEqual(next.body.intersects, JSON.parse(geometry));
  assertValid(schemas.errors(API_SCHEMAS.searchBody, next.body));
});

test('search by datetime: instants and intervals meet each Item’s datetime or its start–end range', async () => {
  const search = async (datetime: string) => ids(await page(`${stac}/search?limit=100&datetime=${encodeURIComponent(datetime)}`));
  assert.deepEqual(await search('2024-03-01T12:00:00Z'), itemIds(jobs.home));
  assert.deepEqual(await search('2024-03-01T13:00:00+01:00'), itemIds(jobs.home), 'an offset');
  assert.deepEqual(await search('2024-03-01t12:00:00.000z'), itemIds(jobs.home), 'lower case');
  assert.deepEqual(await search('2024-03-01T12:00:00.001Z'), []);
  assert.deepEqual(await search('2024-05-01T00:00:00Z/2024-12-31T23:59:59Z'), [jobs.climate, jobs.north].flatMap(itemIds));
  assert.deepEqual(await search('../2024-03-01T12:00:00Z'), [jobs.climate, jobs.home].flatMap(itemIds), 'open start; the climate years too');
  assert.deepEqual(await search('2024-07-01T00:00:00Z/..'), [jobs.east, jobs.climate].flatMap(itemIds));
  assert.deepEqual(await search('2024-07-01T00:00:00Z/'), [jobs.east, jobs.climate].flatMap(itemIds), 'an empty end is open');
  assert.deepEqual(await search('1990-06-01T00:00:00Z'), itemIds(jobs.climate), 'inside the climate years');
  assert.deepEqual(await search('1991-12-31T23:59:59Z/2000-01-01T00:00:00Z'), itemIds(jobs.climate), 'the end is inclusive');
  assert.deepEqual(await search('1991-12-31T23:59:59.0001Z/2000-01-01T00:00:00Z'), [], 'to a tenth of a millisecond');
  const posted = await page(`${stac}/search`, { datetime: '2024-05-01T00:00:00Z/2024-12-31T23:59:59Z', collections: ['sol'] });
  assert.deepEqual(ids(posted), itemIds(jobs.north));
});

test('search by collections and ids, with limit and paging by GET and POST', async () => {
  assert.deepEqual(ids(await page(`${stac}/search?collections=eemt`)), itemIds(jobs.climate));
  assert.deepEqual(ids(await page(`${stac}/search?collections=sol,eemt&limit=100`)), allIds);
  assert.deepEqual(ids(await page(`${stac}/search?ids=${jobs.home},${jobs.east}-daily-global,nothing`)), [`${jobs.east}-daily-global`, jobs.home]);
  assert.deepEqual(ids(await page(`${stac}/search?ids=${jobs.home}&collections=eemt`)), []);

  const first = await page(`${stac}/search`);
  assert.equal(first.features.length, 10, 'ten by default');
  assert.equal(first.numberMatched, 12);
  const big = await page(`${stac}/search?limit=100000`);
  assert.equal(big.features.length, 12, 'a limit over the maximum is served as the maximum');
  assert.equal(href(big, 'next'), undefined);

  const get = await walk(`${stac}/search?limit=5&collections=sol,eemt`);
  assert.deepEqual(get, { ids: allIds, pages: [5, 5, 2], matched: [12, 12, 12] });
  const next = new URL(href(await page(`${stac}/search?limit=5&collections=sol,eemt`), 'next'));
  assert.deepEqual([next.searchParams.get('limit'), next.searchParams.get('collections')], ['5', 'sol,eemt'], 'the next link keeps the search');

  const post = await walk(`${stac}/search`, { limit: 4, collections: ['sol'] });
  assert.deepEqual(post, { ids: [jobs.east, jobs.north, jobs.home].flatMap(itemIds), pages: [4, 4, 1], matched: [9, 9, 9] });
  const firstPost = await page(`${stac}/search`, { limit: 4, collections: ['sol'] });
  const nextPost = firstPost.links.find((l: any) => l.rel === 'next');
  assert.equal(nextPost.method, 'POST');
  assert.deepEqual(nextPost.body.collections, ['sol']);
  assertValid(schemas.errors(API_SCHEMAS.searchBody, nextPost.body));
  assert.deepEqual(ids(await page(`${stac}/search`, {})), allIds.slice(0, 10), 'an empty body searches everything');
});

test('bad search parameters are refused with 400 and a STAC API exception naming the problem', async () => {
  const cases: [string, RegExp][] = [
    ['bbox=1,2,3', /bbox must be 4 or 6 numbers/],
    ['bbox=a,b,c,d', /bbox must be 4 or 6 numbers/],
    ['bbox=1,2,3,4&bbox=1,2,3,4', /^bbox must be string/],
    ['bbox=0,10,1,5', /south must not be greater than north/],
    ['bbox=0,0,200,1', /longitudes must be within/],
    ['bbox=0,-91,1,1', /latitudes must be within/],
    ['datetime=2024-01-01', /not an RFC 3339 date-time/],
    ['datetime=2024-13-01T00:00:00Z', /not a valid date and time/],
    ['datetime=2024-02-30T00:00:00Z', /not a valid date and time/],
    ['datetime=../..', /only one end of an interval may be open/],
    ['datetime=2024-02-01T00:00:00Z/2024-01-01T00:00:00Z', /ends before it starts/],
    ['datetime=2024-01-01T00:00:00Z/2024-02-01T00:00:00Z/2024-03-01T00:00:00Z', /neither a date-time nor an interval/],
    ['limit=0', /limit must be a positive integer/],
    ['limit=-3', /limit must be a positive integer/],
    ['limit=ten', /limit must be a positive integer/],
    ['limit=1.5', /limit must be a positive integer/],
    ['collections=landsat', /unknown collection "landsat"/],
    ['collections=', /collections must be a non-empty list/],
    ['token=xyz', /not a paging token/],
    ['intersects=%7B%7D', /intersects: unknown geometry type/],
    ['intersects=point', /intersects: not JSON/],
    [`bbox=0,0,1,1&intersects=${encodeURIComponent('{"type":"Point","coordinates":[0,0]}')}`, /Only one of bbox and intersects/],
    ['sortby=-datetime', /sortby is not supported/],
  ];
  for (const [query, message] of cases) {
    const res = await getJson(`${stac}/search?${query}`);
    assert.equal(res.status, 400, query);
    assertValid(schemas.errors(API_SCHEMAS.exception, res.body));
    assert.equal(res.body.code, 'BadRequest');
    assert.match(res.body.description, message, query);
    assert.equal(res.body.detail, res.body.description, 'the service’s detail too');
  }
  const items = await getJson(`${stac}/collections/sol/items?datetime=yesterday`);
  assert.deepEqual([items.status, items.body.code], [400, 'BadRequest']);
  const bodies: [unknown, RegExp][] = [
    [[1], /body must be a JSON object/],
    [{ bbox: '1,2,3,4' }, /bbox must be 4 or 6 numbers/],
    [{ bbox: [1, 2, 3, null] }, /bbox must be 4 or 6 numbers/],
    [{ limit: 1.5 }, /limit must be a positive integer/],
    [{ limit: '10' }, /limit must be a positive integer/],
    [{ collections: 'sol' }, /collections must be a non-empty list/],
    [{ ids: [1] }, /ids must be a non-empty list/],
    [{ datetime: 2024 }, /datetime must be a string/],
    [{ intersects: { type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0.5]]] } }, /intersects: a ring must end where it starts/],
    [{ intersects: { type: 'Point', coordinates: [200, 0] } }, /intersects: position 200,0 is outside/],
    [{ intersects: { type: 'LineString', coordinates: [[0, 0]] } }, /intersects: LineString needs at least 2 positions/],
    [{ intersects: { type: 'Point', coordinates: ['0', 0] } }, /intersects: a position is 2 or 3 numbers/],
    [{ intersects: { type: 'Circle', coordinates: [0, 0] } }, /intersects: unknown geometry type "Circle"/],
  ];
  for (const [body, message] of bodies) {
    const res = await getJson(`${stac}/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.match(res.body.description, message, JSON.stringify(body));
  }
  const broken = await getJson(`${stac}/search`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"limit": ' });
  assert.deepEqual([broken.status, broken.body.code], [400, 'BadRequest']);
  for (const url of [`${stac}/collections/landsat`, `${stac}/collections/landsat/items`, `${stac}/nothing`]) {
    const res = await getJson(url);
    assert.equal(res.status, 404, url);
    assertValid(schemas.errors(API_SCHEMAS.exception, res.body));
  }
});

test('the catalogue follows the jobs: new completions appear, deleted data and jobs go; /api/v1 links stay under /api/v1', async () => {
  const before = (await page(`${stac}/search`)).numberMatched;
  const { grid } = await fixtureDem();
  const late = await completedJobOn(svc, movedGrid(grid, 0, -200_000));
  const withLate = await page(`${stac}/search?limit=3`);
  assert.equal(withLate.numberMatched, before + 3);
  assert.deepEqual(ids(withLate), itemIds(late));
  svc.store.markDataDeleted(late);
  assert.equal((await page(`${stac}/search`)).numberMatched, before);
  assert.equal((await getJson(`${stac}/collections/sol/items/${late}`)).status, 404);
  svc.store.delete(late);
  const rows = svc.store.db.prepare('SELECT COUNT(*) AS n FROM stac_items WHERE job_id = ?').get(late) as { n: number };
  assert.equal(rows.n, 0, 'the index rows of a deleted job go with it');

  const v1 = (await getJson(`${svc.base}/api/v1/stac`)).body;
  assert.ok(v1.links.every((l: any) => l.href.startsWith(`${svc.base}/api/v1/`) || l.href.startsWith(`${svc.base}/openapi.json`) || l.href.startsWith(`${svc.base}/docs`)), JSON.stringify(v1.links));
  const v1Item = (await getJson(`${svc.base}/api/v1/stac/collections/sol/items/${jobs.home}`)).body;
  assert.equal(href(v1Item, 'self'), `${svc.base}/api/v1/stac/collections/sol/items/${jobs.home}`);
  assert.ok(v1Item.assets['global/monthly/total_sun_jun_sum'].href.startsWith(`${svc.base}/api/v1/jobs/${jobs.home}/files/`));
});

/** Runs stac-node-validator on `targets` (URLs or files) with the vendored schemas in place of the network. */
async function stacNodeValidator(targets: string[]): Promise<{ code: number; output: string }> {
  const cli = createRequire(import.meta.url).resolve('stac-node-validator/bin/cli.js');
  const map = {
    'https://geojson.org/schema/Feature.json': 'geojson.org/schema/Feature.json',
    'https://geojson.org/schema/Geometry.json': 'geojson.org/schema/Geometry.json',
    'https://stac-extensions.github.io/projection/v1.1.0/schema.json': 'stac-extensions/projection/v1.1.0/schema.json',
    'https://stac-extensions.github.io/raster/v1.1.0/schema.json': 'stac-extensions/raster/v1.1.0/schema.json',
    'https://proj.org/schemas/v0.5/projjson.schema.json': 'proj.org/schemas/v0.5/projjson.schema.json',
  };
  const schemaMap = Object.entries(map).map(([url, file]) => `${url}=${join(SCHEMA_DIR, file)}`).join(';');
  const args = [cli, '--verbose', '--schemas', join(SCHEMA_DIR, 'stac-spec/v1.0.0'), '--schemaMap', schemaMap, ...targets];
  // only loopback: no proxy; a schema that is not vendored would have to come from the network, which fails
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/_proxy$/i.test(name)));
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, args, { timeout: 120_000, env });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

test('stac-node-validator finds the catalogue valid, offline with the vendored schemas, and finds a broken Item invalid', async () => {
  const targets = [
    stac,
    `${stac}/collections`,
    `${stac}/collections/sol`,
    `${stac}/collections/eemt`,
    `${stac}/search?limit=100`,
    `${stac}/collections/eemt/items/${jobs.climate}`,
    `${stac}/collections/sol/items/${jobs.home}-daily-global`,
    `${svc.base}/api/jobs/${jobs.north}/stac`,
  ];
  const valid = await stacNodeValidator(targets);
  assert.equal(valid.code, 0, valid.output);
  assert.match(valid.output, new RegExp(`Valid: ${targets.length}\\b`));
  assert.match(valid.output, /Invalid: 0\b/);
  // every object, also those inside the lists: 1 Catalog, 2 + 2 Collections, 12 + 3 Items, each with its extensions
  const count = (what: string) => valid.output.split('\n').filter((line) => line === `--- ${what}: valid`).length;
  assert.deepEqual([count('Catalog'), count('Collection'), count('Item')], [1, 4, 15], valid.output);
  assert.equal(count('https://stac-extensions.github.io/raster/v1.1.0/schema.json'), 15);

  const dir = mkdtempSync(join(tmpdir(), 'stac-'));
  try {
    const item = (await getJson(`${stac}/collections/sol/items/${jobs.home}`)).body;
    item.assets['global/monthly/total_sun_jun_sum']['raster:bands'][0].nodata = 'none';
    writeFileSync(join(dir, 'broken.json'), JSON.stringify(item));
    const broken = await stacNodeValidator([join(dir, 'broken.json')]);
    assert.equal(broken.code, 1, broken.output);
    assert.match(broken.output, /raster\/v1\.1\.0\/schema\.json: invalid/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
