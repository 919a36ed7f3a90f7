import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BubblewrapRuntime } from '../../src/runtime/bubblewrap.js';
import { DockerRuntime } from '../../src/runtime/docker.js';
import { ProcessRuntime } from '../../src/runtime/process.js';
import { fixture, getJson, startTestService, STUB_CHILD, submit, waitForStatus, type TestService } from './helpers.js';
import { skipUnless } from '../helpers/systemTools.js';
import { zipEntries } from './zip.js';
import { jobEntries } from '../helpers/dataFolders.js';

const DEM = { name: 'mcn_10m.tif', bytes: fixture('mcn_10m.tif') };

describe('HTTP API (stub job child in real processes)', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({
      runtime: (c) => new ProcessRuntime({ limits: { cpus: c.cpuLimit, memoryBytes: c.memoryBytes }, childEntry: STUB_CHILD }),
    });
  });
  after(() => svc.stop());

  test('a sol job runs to completion and its results download as a streamed ZIP', { skip: skipUnless('gdal') }, async () => {
    // the EEMT model choices are checked but not kept for sol, like the years
    const res = await submit(svc.base, { workflow_type: 'sol', step: '10', num_threads: '8', pet_method: 'hamon', start_year: '2001' }, DEM);
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'submitted');
    assert.match(res.body.job_id, /^[0-9a-f-]{36}$/);
    const id = res.body.job_id as string;

    const pending = (await getJson(`${svc.base}/api/jobs/${id}`)).body;
    assert.ok(['pending', 'running'].includes(pending.status));
    const job = await waitForStatus(svc.base, id, ['completed', 'failed']);
    assert.equal(job.status, 'completed', job.error_message);
    assert.equal(job.progress, 100);
    assert.equal(job.error_message, null);
    assert.equal(job.dem_filename, 'mcn_10m.tif');
    assert.deepEqual(job.parameters, { step: 10, linke_value: 3, albedo_value: 0.2, num_threads: 8, products: 'monthly,daily,hours' });
    for (const key of ['created_at', 'started_at', 'completed_at']) assert.match(job[key], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(existsSync(join(svc.paths.uploadDir(id), 'dem.tif')), 'stored under the job id, not the client name');

    const res2 = await fetch(`${svc.base}/api/jobs/${id}/results`);
    assert.equal(res2.status, 200);
    assert.equal(res2.headers.get('content-type'), 'application/zip');
    assert.equal(res2.headers.get('content-disposition'), `attachment; filename="eemt_results_${id}.zip"`);
    const zip = Buffer.from(await res2.arrayBuffer());
    assert.equal(Number(res2.headers.get('content-length')), zip.length);
    const entries = zipEntries(zip);
    assert.deepEqual(entries.map((e) => e.name).sort(), [
      'global/daily/total_sun_day_001.tif',
      'global/monthly/total_sun_jan_sum.tif',
      'insol/daily/hours_sun_day_001.tif',
      'stac.json',
      'stac/daily-global.json',
      'stac/daily-hours.json',
    ]);
    for (const e of entries) assert.equal(e.method, 0, `${e.name} is stored without recompression`);
    const zipPath = join(svc.root, 'results.zip');
    writeFileSync(zipPath, zip);
    const info = execFileSync('gdalinfo', [`/vsizip/${zipPath}/global/daily/total_sun_day_001.tif`], { encoding: 'utf8' });
    assert.match(info, /Size is 228, 211/);

    const logs = (await getJson(`${svc.base}/api/v1/jobs/${id}/logs?tail=3`)).body;
    assert.equal(logs.lines.length, 3);
    assert.match(logs.lines.at(-1), /completed/);
  });

  test('the job list is newest first, filters by status and limits', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) ids.push((await submit(svc.base, { workflow_type: 'sol', linke_value: '7.5' }, DEM)).body.job_id);
    for (const id of ids) await waitForStatus(svc.base, id, ['failed']);
    const all = (await getJson(`${svc.base}/api/jobs`)).body;
    assert.deepEqual(all.slice(0, 2).map((j: any) => j.id), [ids[1], ids[0]]);
    assert.deepEqual(Object.keys(all[0]).sort(), ['created_at', 'dem_filename', 'id', 'progress', 'status', 'workflow_type']);
    const failed = (await getJson(`${svc.base}/api/jobs?status=failed&limit=1`)).body;
    assert.deepEqual(failed.map((j: any) => j.id), [ids[1]]);
    const detail = (await getJson(`${svc.base}/api/jobs/${ids[0]}`)).body;
    assert.equal(detail.error_message, 'DEM has no valid cells');
    assert.ok(detail.progress < 100);
    assert.equal((await getJson(`${svc.base}/api/jobs?status=bogus`)).status, 422);
    assert.equal((await getJson(`${svc.base}/api/jobs?limit=0`)).status, 422);
  });

  test('unknown jobs, unfinished jobs and missing results', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid', '..%2F..%2Fetc']) {
      const r = await getJson(`${svc.base}/api/jobs/${id}`);
      assert.equal(r.status, 404);
      assert.deepEqual(r.body, { detail: 'Job not found' });
      assert.deepEqual((await getJson(`${svc.base}/api/jobs/${id}/results`)).body, { detail: 'Job not found' });
    }
    const failed = svc.store.list({ status: 'failed' })[0]!;
    const r = await getJson(`${svc.base}/api/jobs/${failed.id}/results`);
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, { detail: 'Job not completed' });

    const done =
      svc.store.list({ status: 'completed' })[0] ??
      (await waitForStatus(svc.base, (await submit(svc.base, { workflow_type: 'sol' }, DEM)).body.job_id, ['completed']));
    const cleaned = await getJson(`${svc.base}/api/cleanup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ success_retention_days: 0, failed_retention_hours: 1000 }),
    });
    assert.equal(cleaned.status, 200);
    assert.ok(cleaned.body.summary.job_details.some((d: any) => d.job_id === done.id && d.data_deleted));
    const gone = await getJson(`${svc.base}/api/jobs/${done.id}/results`);
    assert.equal(gone.status, 404);
    assert.deepEqual(gone.body, { detail: 'Results not found' });
    assert.equal((await getJson(`${svc.base}/api/jobs/${done.id}`)).body.status, 'completed', 'the record is preserved');
  });

  test('bad submissions are refused with {detail} and leave nothing behind', async () => {
    const count = svc.store.list().length;
    const uploads = jobEntries(svc.paths.dirs.uploadDir).length;
    const truncated = DEM.bytes.subarray(0, 5000);
    const cases: [Record<string, string>, { name: string; bytes: Uint8Array } | undefined, number, RegExp][] = [
      [{}, DEM, 400, /^workflow_type is required$/],
      [{ workflow_type: '' }, DEM, 400, /^workflow_type is required$/],
      [{ workflow_type: 'solar' }, DEM, 400, /Unknown workflow_type "solar"/],
      [{ workflow_type: 'sol' }, undefined, 400, /^dem_file is required$/],
      [{ workflow_type: 'sol' }, { name: 'dem.png', bytes: DEM.bytes }, 400, /^DEM file must be a GeoTIFF \(\.tif\)$/],
      [{ workflow_type: 'sol' }, { name: 'dem.tif', bytes: Buffer.from('hello, not a tiff') }, 400, /^DEM file must be a GeoTIFF \(\.tif\): the file is not a TIFF image$/],
      [{ workflow_type: 'sol' }, { name: 'dem.tif', bytes: Buffer.alloc(0) }, 400, /the file is empty/],
      [{ workflow_type: 'sol' }, { name: 'dem.tif', bytes: truncated }, 400, /^DEM file must be a GeoTIFF \(\.tif\): .*truncated/],
      [{ workflow_type: 'sol' }, { name: 'flat.tif', bytes: fixture('nogeo_20x20.tif') }, 400, /not georeferenced/],
      [{ workflow_type: 'sol' }, { name: 'rgb.tif', bytes: fixture('rgb_20x20.tif') }, 400, /3 bands/],
      [{ workflow_type: 'sol', step: '2' }, DEM, 422, /^step must be a number from 3 to 60, got 2$/],
      [{ workflow_type: 'sol', step: '61' }, DEM, 422, /^step must be a number from 3 to 60/],
      [{ workflow_type: 'sol', step: 'fast' }, DEM, 422, /^step must be a number from 3 to 60, got "fast"$/],
      [{ workflow_type: 'sol', linke_value: '0.5' }, DEM, 422, /^linke_value must be a number from 1 to 8/],
      [{ workflow_type: 'sol', albedo_value: '1.5' }, DEM, 422, /^albedo_value must be a number from 0 to 1/],
      [{ workflow_type: 'sol', num_threads: '2.5' }, DEM, 422, /^num_threads must be an integer from 1 to 32/],
      [{ workflow_type: 'sol', num_threads: '64' }, DEM, 422, /^num_threads must be an integer from 1 to 32/],
      [{ workflow_type: 'sol', start_year: '1970' }, DEM, 422, /^start_year must be an integer from 1980 to 2024/],
      [{ workflow_type: 'eemt', start_year: '2021', end_year: '2020' }, DEM, 422, /^end_year \(2020\) must not be before start_year \(2021\)$/],
      [{ workflow_type: 'eemt', pet_method: 'penman' }, DEM, 422, /^pet_method \(PET method of EEMT-Trad\) must be one of thornthwaite, hamon, hamon-linear; got "penman"$/],
      [{ workflow_type: 'eemt', topo_npp: 'miami' }, DEM, 422, /^topo_npp \(NPP model of EEMT-Topo\) must be one of regression, lieth; got "miami"$/],
      [{ workflow_type: 'eemt', topo_radiation: 'cloudy' }, DEM, 422, /^topo_radiation \(.*\) must be one of unshaded, shaded, realsky; got "cloudy"$/],
      [{ workflow_type: 'eemt', lieth_npp_gate: 'snow' }, DEM, 422, /^lieth_npp_gate \(.*\) must be one of temperature, none; got "snow"$/],
      [{ workflow_type: 'sol', pet_method: 'Thornthwaite' }, DEM, 422, /^pet_method .* must be one of thornthwaite, hamon, hamon-linear; got "Thornthwaite"$/],
    ];
    for (const [fields, file, status, detail] of cases) {
      const res = await submit(svc.base, fields, file);
      assert.equal(res.status, status, `${JSON.stringify(fields)} ${file?.name}: ${JSON.stringify(res.body)}`);
      assert.deepEqual(Object.keys(res.body), ['detail']);
      assert.match(res.body.detail, detail);
    }
    const notMultipart = await getJson(`${svc.base}/api/submit-job`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"workflow_type":"sol"}' });
    assert.equal(notMultipart.status, 400);
    assert.deepEqual(Object.keys(notMultipart.body), ['detail']);
    assert.equal(svc.store.list().length, count);
    assert.equal(jobEntries(svc.paths.dirs.uploadDir).length, uploads);
  });

  test('.tiff uploads are accepted; the client file name is never a path', async () => {
    const res = await submit(svc.base, { workflow_type: 'sol' }, { name: '../../../evil name.TIFF', bytes: DEM.bytes });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const job = await waitForStatus(svc.base, res.body.job_id, ['completed', 'failed']);
    assert.equal(job.dem_filename, 'evil name.TIFF', 'only the base name is kept');
    assert.deepEqual(readdirSync(svc.paths.uploadDir(job.id)), ['dem.tif']);
    assert.ok(!existsSync(join(svc.root, 'evil name.TIFF')));
  });

  test('cancel stops a running job; delete is refused while it runs', async () => {
    const { body } = await submit(svc.base, { workflow_type: 'sol', step: '60' }, DEM);
    const id = body.job_id;
    await waitForStatus(svc.base, id, ['running']);
    const del = await getJson(`${svc.base}/api/jobs/${id}`, { method: 'DELETE' });
    assert.equal(del.status, 400);
    assert.match(del.body.detail, /running/);
    const cancel = await getJson(`${svc.base}/api/jobs/${id}/cancel`, { method: 'POST' });
    assert.equal(cancel.status, 200);
    const job = (await getJson(`${svc.base}/api/jobs/${id}`)).body;
    assert.equal(job.status, 'failed');
    assert.equal(job.error_message, 'Cancelled by user');
    assert.equal((await getJson(`${svc.base}/api/jobs/${id}/cancel`, { method: 'POST' })).status, 400);
    await svc.scheduler.idle();
    const deleted = await getJson(`${svc.base}/api/v1/jobs/${id}`, { method: 'DELETE' });
    assert.equal(deleted.status, 200);
    assert.equal((await getJson(`${svc.base}/api/jobs/${id}`)).status, 404);
    assert.ok(!existsSync(svc.paths.jobDir(id)) && !existsSync(svc.paths.uploadDir(id)));
  });

  test('system status, cleanup status and health', async () => {
    const status = (await getJson(`${svc.base}/api/system/status`)).body;
    assert.equal(status.container_available, true);
    assert.equal(status.runtime, 'process');
    assert.equal(status.isolated, false);
    assert.equal(status.image_name, 'eemt:ubuntu24.04');
    assert.equal(typeof status.container_stats.total_containers, 'number');
    assert.ok(Array.isArray(status.container_stats.running_jobs));
    assert.ok(status.container_stats.system_stats.memory > 1024 ** 3, 'memory in bytes');
    assert.ok(status.container_stats.system_stats.cpus >= 1);
    // the data folders with the size and free space of their file systems (others write to this disk meanwhile)
    assert.deepEqual(
      status.storage.map((f: { name: string; path: string }) => [f.name, f.path]),
      [
        ['uploads', svc.paths.dirs.uploadDir],
        ['results', svc.paths.dirs.resultsDir],
        ['temp', svc.paths.dirs.tempDir],
        ['cache', svc.paths.dirs.cacheDir],
        ['database', svc.root],
      ],
    );
    for (const folder of status.storage as { path: string; free_bytes: number; total_bytes: number }[]) {
      const fs = statfsSync(folder.path);
      assert.equal(folder.total_bytes, fs.blocks * fs.bsize, folder.path);
      assert.ok(Math.abs(folder.free_bytes - fs.bavail * fs.bsize) < 512 * 1024 ** 2, `${folder.path}: ${folder.free_bytes} free, statfs says ${fs.bavail * fs.bsize}`);
    }

    const cs = (await getJson(`${svc.base}/api/cleanup/status`)).body;
    assert.deepEqual(Object.keys(cs).sort(), ['auto_cleanup_enabled', 'disk_usage', 'last_run', 'next_scheduled', 'retention_settings']);
    assert.doesNotMatch(cs.last_run, /Z$/);
    assert.equal(cs.auto_cleanup_enabled, false);

    const dry = await getJson(`${svc.base}/api/cleanup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"dry_run": true}' });
    assert.equal(dry.status, 200);
    assert.equal(dry.body.summary.dry_run, true);
    const empty = await getJson(`${svc.base}/api/cleanup`, { method: 'POST' });
    assert.equal(empty.status, 200);
    const bad = await getJson(`${svc.base}/api/cleanup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"success_retention_days": -1}' });
    assert.equal(bad.status, 422);
    assert.match(bad.body.detail, /success_retention_days/);
    const broken = await getJson(`${svc.base}/api/cleanup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{nope' });
    assert.equal(broken.status, 400);
    assert.deepEqual(Object.keys(broken.body), ['detail']);

    const health = (await getJson(`${svc.base}/health`)).body;
    assert.equal(health.status, 'ok');
    assert.equal(health.runtime, 'process');
    assert.equal((await getJson(`${svc.base}/api/nothing-here`)).status, 404);
  });

  test('the OpenAPI document describes the API once, without the /api/v1 aliases', async () => {
    const doc = (await getJson(`${svc.base}/openapi.json`)).body;
    assert.match(doc.openapi, /^3\./);
    for (const path of ['/api/submit-job', '/api/jobs', '/api/jobs/{job_id}', '/api/jobs/{job_id}/results', '/api/system/status', '/api/cleanup', '/api/cleanup/status', '/health']) {
      assert.ok(doc.paths[path], `${path} documented`);
    }
    assert.ok(!Object.keys(doc.paths).some((p) => p.startsWith('/api/v1')));
    const form = doc.paths['/api/submit-job'].post.requestBody.content['multipart/form-data'].schema;
    assert.equal(form.properties.step.minimum, 3);
    assert.equal(form.properties.step.maximum, 60);
    assert.equal(form.properties.climate_file.format, 'binary');
    assert.match(form.properties.climate_file.description, /wc2\.1_\{res\}_\{tmin,tmax,prec,vapr\}_\{MM\}\.tif/);
    assert.ok(!form.required.includes('climate_file'));
    const detail = doc.paths['/api/jobs/{job_id}'].get.responses['200'].content['application/json'].schema;
    const parameters = detail.properties?.parameters ?? doc.components?.schemas?.[detail.$ref?.split('/').pop()]?.properties?.parameters;
    assert.ok(parameters?.properties?.climate_source, 'the job detail documents climate_source');
    const docs = await fetch(`${svc.base}/docs`);
    assert.equal(docs.status, 200);
    assert.match(await docs.text(), /swagger/i);
    const redoc = await fetch(`${svc.base}/redoc`);
    assert.match(await redoc.text(), /redoc\.standalone\.js/);
    const bundle = await fetch(`${svc.base}/redoc/redoc.standalone.js`);
    assert.equal(bundle.status, 200);
    assert.ok((await bundle.arrayBuffer()).byteLength > 100_000);
  });
});

describe('HTTP API with an unavailable runtime', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({
      runtime: (c) => new DockerRuntime({ limits: { cpus: c.cpuLimit, memoryBytes: c.memoryBytes }, image: c.containerImage, socketPath: '/nonexistent/docker.sock' }),
    });
  });
  after(() => svc.stop());

  test('submissions fail with 500 "Container execution failed" and leave nothing; status says why', async () => {
    const res = await submit(svc.base, { workflow_type: 'sol' }, DEM);
    assert.equal(res.status, 500);
    assert.deepEqual(res.body, { detail: 'Container execution failed: docker not available' });
    assert.equal(svc.store.list().length, 0);
    assert.equal(jobEntries(svc.paths.dirs.uploadDir).length, 0);
    const status = (await getJson(`${svc.base}/api/system/status`)).body;
    assert.equal(status.container_available, false);
    assert.equal(status.image_name, 'eemt:ubuntu24.04');
    assert.match(status.error, /not reachable/);
    assert.equal(status.container_stats, undefined);
  });
});

describe('HTTP API with the bubblewrap runtime', { skip: skipUnless('bwrap') }, () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({
      runtime: (c) =>
        new BubblewrapRuntime({
          limits: { cpus: c.cpuLimit, memoryBytes: c.memoryBytes },
          hiddenPaths: [c.uploadDir, c.resultsDir, c.tempDir, c.dbPath],
          childEntry: STUB_CHILD,
        }),
    });
  });
  after(() => svc.stop());

  test('a job runs in the sandbox and completes', async () => {
    const res = await submit(svc.base, { workflow_type: 'sol' }, DEM);
    const job = await waitForStatus(svc.base, res.body.job_id, ['completed', 'failed']);
    assert.equal(job.status, 'completed', job.error_message);
    assert.equal(job.runtime, 'bubblewrap');
    const status = (await getJson(`${svc.base}/api/system/status`)).body;
    assert.equal(status.runtime, 'bubblewrap');
    assert.equal(status.isolated, true);
  });
});
