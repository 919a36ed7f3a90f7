// Needs: gdal
/**
 * The `products` parameter through the real service process (the job child in the plain-process runtime): a sol job
 * writes exactly the files chosen, records the normalised value, estimates its outputs by them, and everything
 * downstream — the results ZIP, its STAC Items, the files route, the previews — has those files and no others.
 * The same through an OGC execution; bad values are refused naming the bad item.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { FIXTURES, getJson, submit, waitForStatus } from './helpers.js';
import { serviceEnv, startServiceProcess, type ServiceProcess } from './serviceProcess.js';
import { zipEntries } from './zip.js';

const GRAMMAR_START = 'products: unknown item';

describe('the products parameter, through a service process', () => {
  const root = mkdtempSync(join(tmpdir(), 'eemt-products-'));
  let service: ServiceProcess;
  let base: string;
  let dem: { name: string; bytes: Buffer };

  before(async () => {
    const path = join(root, 'small.tif');
    execFileSync('gdal_translate', ['-q', '-srcwin', '100', '100', '20', '16', fileURLToPath(new URL('mcn_10m.tif', FIXTURES)), path]);
    dem = { name: 'small.tif', bytes: readFileSync(path) };
    service = startServiceProcess(serviceEnv(join(root, 'data'), { CONTAINER_CPU_LIMIT: '2' }));
    base = await service.address(60_000);
  });
  after(async () => {
    if (service && !service.exited()) {
      process.kill(-service.pid, 'SIGTERM');
      await service.exit;
    }
    rmSync(root, { recursive: true, force: true });
  });

  /** Submits a sol job with `fields`, waits for it, and returns its detail and the names in its results ZIP. */
  async function solJob(fields: Record<string, string>) {
    const res = await submit(base, { workflow_type: 'sol', step: '60', num_threads: '2', ...fields }, dem);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const job = await waitForStatus(base, res.body.job_id, ['completed', 'failed'], 120_000);
    assert.equal(job.status, 'completed', job.error_message);
    const zip = Buffer.from(await (await fetch(`${base}/api/jobs/${job.id}/results`)).arrayBuffer());
    return { job, zip, names: zipEntries(zip).map((e) => e.name).sort() };
  }

  /** The cell values of `rel` in the ZIP `zip` as GDAL reads them. */
  function cells(zip: Buffer, rel: string): string {
    const path = join(root, `${Math.random().toString(36).slice(2)}.zip`);
    writeFileSync(path, zip);
    try {
      return execFileSync('gdal_translate', ['-q', '-of', 'XYZ', `/vsizip/${path}/${rel}`, '/vsistdout/'], { encoding: 'utf8' });
    } finally {
      rmSync(path);
    }
  }

  const MONTHLY = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'].map((m) => `global/monthly/total_sun_${m}_sum.tif`).sort();

  test('products=monthly: exactly the 12 monthly maps (and the STAC Item), their values those of a default job, a far smaller estimate', { timeout: 300_000 }, async () => {
    const all = await solJob({});
    const monthly = await solJob({ products: ' monthly ' });
    assert.equal(all.job.parameters.products, 'monthly,daily,hours', 'a job without the parameter records the default');
    assert.equal(monthly.job.parameters.products, 'monthly');
    assert.equal(all.names.filter((n) => n.endsWith('.tif')).length, 742);
    assert.deepEqual(monthly.names, ['stac.json', ...MONTHLY].sort());
    for (const rel of MONTHLY) assert.equal(cells(monthly.zip, rel), cells(all.zip, rel), rel);
    assert.ok(monthly.job.output_estimate_bytes * 20 < all.job.output_estimate_bytes, `${monthly.job.output_estimate_bytes} vs ${all.job.output_estimate_bytes}`);
    // the STAC Item (the ZIP's stac.json with relative links): the parameter among the properties, no daily Item,
    // the annual preview as thumbnail
    const item = (await getJson(`${base}/api/jobs/${monthly.job.id}/stac`)).body;
    assert.equal(item.properties['eemt:products'], 'monthly');
    assert.equal(item.properties['eemt:parameters'].products, 'monthly');
    assert.deepEqual(item.links.filter((l: { rel: string }) => l.rel === 'related'), []);
    assert.deepEqual(Object.keys(item.assets).filter((key) => key.startsWith('global/')).sort(), MONTHLY.map((rel) => rel.replace(/\.tif$/, '')));
    assert.ok(item.assets.thumbnail, 'the annual preview exists: a thumbnail');
    assert.equal((await getJson(`${base}/api/jobs/${monthly.job.id}/stac/daily-global`)).status, 404);
    assert.equal((await fetch(`${base}/api/jobs/${monthly.job.id}/preview/annual.png`)).status, 200);
    const missing = await getJson(`${base}/api/jobs/${monthly.job.id}/preview/day-172.json`);
    assert.equal(missing.status, 404);
    assert.match(missing.body.detail, /the job has no global\/daily\/total_sun_day_172\.tif/);
    assert.equal((await fetch(`${base}/api/jobs/${monthly.job.id}/files/global/daily/total_sun_day_1.tif`)).status, 404);
  });

  test('products=daily:172,hours:172: those two maps, a daily Item each titled by its day, no annual preview', { timeout: 300_000 }, async () => {
    const two = await solJob({ products: 'hours:172,daily:172' });
    assert.equal(two.job.parameters.products, 'daily:172,hours:172');
    assert.deepEqual(two.names, ['global/daily/total_sun_day_172.tif', 'insol/daily/hours_sun_day_172.tif', 'stac.json', 'stac/daily-global.json', 'stac/daily-hours.json']);
    const global = (await getJson(`${base}/api/jobs/${two.job.id}/stac/daily-global`)).body;
    assert.equal(global.properties.title, 'Daily global irradiation, day 172');
    assert.deepEqual(Object.keys(global.assets), ['global/daily/total_sun_day_172']);
    assert.equal((await getJson(`${base}/api/jobs/${two.job.id}/stac/daily-hours`)).body.properties.title, 'Daily sunshine hours, day 172');
    const api = (await getJson(`${base}/api/jobs/${two.job.id}/stac`)).body;
    assert.equal(api.assets.thumbnail, undefined, 'no monthly sums, no annual preview');
    assert.deepEqual(Object.keys(api.assets).filter((key) => key.startsWith('global/')), [], 'no summary product');
    assert.equal((await fetch(`${base}/api/jobs/${two.job.id}/preview/day-172.png`)).status, 200);
    const info = JSON.parse(execFileSync('gdalinfo', ['-json', `/vsicurl/${base}/api/jobs/${two.job.id}/files/insol/daily/hours_sun_day_172.tif`], { encoding: 'utf8' }));
    assert.equal(info.metadata['']['PRODUCTS'], 'daily:172,hours:172');
  });

  test('bad values are refused naming the bad item: 422 on /api, 400 on OGC; nothing is stored', async () => {
    const cases: [string, RegExp][] = [
      ['weekly', new RegExp(`^${GRAMMAR_START} "weekly"; products is a comma-separated list`)],
      ['monthly,,daily', /^products: item 2 of 3 is empty/],
      ['daily:0-3', /^products: day 0 in "daily:0-3" is outside 1–365$/],
      ['hours:300-200', /^products: "hours:300-200" runs backwards; write 200-300$/],
      ['', /^products names no product/],
    ];
    const before = (await getJson(`${base}/api/jobs`)).body.length;
    for (const [value, message] of cases) {
      const res = await submit(base, { workflow_type: 'sol', products: value }, dem);
      assert.equal(res.status, 422, `${JSON.stringify(value)}: ${JSON.stringify(res.body)}`);
      assert.match(res.body.detail, message);
      const ogc = await fetch(`${base}/ogc/processes/sol/execution`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Prefer: 'respond-async' },
        body: JSON.stringify({ inputs: { dem: { value: dem.bytes.toString('base64'), mediaType: 'image/tiff; application=geotiff' }, products: value } }),
      });
      const body = (await ogc.json()) as { detail: string };
      assert.equal(ogc.status, 400, JSON.stringify(body));
      assert.match(body.detail, message);
    }
    const wrongType = await fetch(`${base}/ogc/processes/sol/execution`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Prefer: 'respond-async' },
      body: JSON.stringify({ inputs: { dem: { value: dem.bytes.toString('base64') }, products: ['monthly'] } }),
    });
    assert.equal(wrongType.status, 400);
    assert.equal((await getJson(`${base}/api/jobs`)).body.length, before, 'no job was stored');
  });

  test('an OGC execution with the products input writes the files chosen', { timeout: 300_000 }, async () => {
    const described = (await getJson(`${base}/ogc/processes/sol`)).body;
    assert.deepEqual(described.inputs.products.schema, { type: 'string', default: 'monthly,daily,hours' });
    const res = await fetch(`${base}/ogc/processes/sol/execution`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Prefer: 'respond-async' },
      body: JSON.stringify({ inputs: { dem: { value: dem.bytes.toString('base64'), mediaType: 'image/tiff; application=geotiff' }, step: 60, products: { value: 'monthly,daily:1-2' } } }),
    });
    assert.equal(res.status, 201, await res.clone().text());
    const { jobID } = (await res.json()) as { jobID: string };
    const job = await waitForStatus(base, jobID, ['completed', 'failed'], 120_000);
    assert.equal(job.status, 'completed', job.error_message);
    assert.equal(job.parameters.products, 'monthly,daily:1-2');
    const zip = Buffer.from(await (await fetch(`${base}/api/jobs/${jobID}/results`)).arrayBuffer());
    const tifs = zipEntries(zip).map((e) => e.name).filter((n) => n.endsWith('.tif')).sort();
    assert.deepEqual(tifs, ['global/daily/total_sun_day_1.tif', 'global/daily/total_sun_day_2.tif', ...MONTHLY].sort());
  });
});
