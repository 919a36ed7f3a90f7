// Needs: bwrap, gdal
/**
 * End to end: a real `sol` job through the HTTP API, the bubblewrap sandbox, the job child and the solar
 * pipeline, then the results ZIP checked entry by entry and opened with GDAL.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fixture, getJson, startTestService, submit, type TestService } from './helpers.js';
import { PNG } from 'pngjs';
import { invalidCogs } from '../raster/gdal.js';
import { zipEntries } from './zip.js';

let svc: TestService;
before(async () => {
  svc = await startTestService({ env: { EEMT_RUNTIME: 'bubblewrap', CONTAINER_CPU_LIMIT: '2', CONTAINER_MEMORY_LIMIT: '2G' } });
});
after(() => svc.stop());

test('a sol job on the real DEM produces the 742 products of the spec', { timeout: 600_000 }, async () => {
  const res = await submit(svc.base, { workflow_type: 'sol', step: '60', num_threads: '2' }, { name: 'mcn_10m.tif', bytes: fixture('mcn_10m.tif') });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const id = res.body.job_id as string;
  let last = -1;
  const deadline = Date.now() + 580_000;
  let job: any;
  for (;;) {
    job = (await getJson(`${svc.base}/api/jobs/${id}`)).body;
    assert.ok(job.progress >= last, 'progress never goes back');
    last = job.progress;
    if (job.status === 'completed' || job.status === 'failed') break;
    assert.ok(Date.now() < deadline, `still ${job.status} at ${job.progress}%`);
    await new Promise((r) => setTimeout(r, 500));
  }
  if (job.status === 'failed') {
    const logs = (await getJson(`${svc.base}/api/jobs/${id}/logs?tail=30`)).body.lines.join('\n');
    assert.fail(`job failed: ${job.error_message}\n${logs}`);
  }
  assert.equal(job.progress, 100);
  assert.equal(job.runtime, 'bubblewrap');
  // The detail carries the estimate made at submission; the outputs took no more than it, and not much less.
  const onDisk = Number(execFileSync('du', ['-s', '--block-size=1', svc.paths.outputDir(id)], { encoding: 'utf8' }).split('\t')[0]);
  assert.ok(Number.isInteger(job.output_estimate_bytes), `output_estimate_bytes: ${job.output_estimate_bytes}`);
  assert.ok(job.output_estimate_bytes >= onDisk && job.output_estimate_bytes < 1.5 * onDisk, `estimated ${job.output_estimate_bytes}, on disk ${onDisk}`);
  if (process.getuid!() === 0) {
    // The service runs as root here: the job ran as the unprivileged job user and wrote its outputs as it.
    assert.equal(statSync(join(svc.paths.outputDir(id), 'global', 'daily', 'total_sun_day_1.tif')).uid, 65534);
  }

  const download = await fetch(`${svc.base}/api/jobs/${id}/results`);
  assert.equal(download.status, 200);
  const zip = Buffer.from(await download.arrayBuffer());
  const names = zipEntries(zip).map((e) => e.name);
  assert.equal(names.filter((n) => /^global\/daily\/total_sun_day_\d+\.tif$/.test(n)).length, 365);
  assert.equal(names.filter((n) => /^global\/monthly\/total_sun_[a-z]+_sum\.tif$/.test(n)).length, 12);
  assert.equal(names.filter((n) => /^insol\/daily\/hours_sun_day_\d+\.tif$/.test(n)).length, 365);
  for (const e of zipEntries(zip)) if (e.name.endsWith('.tif')) assert.equal(e.method, 0, `${e.name} stored`);
  const zipPath = join(svc.root, 'sol.zip');
  writeFileSync(zipPath, zip);
  const daily = names.find((n) => n.startsWith('global/daily/'))!;
  const info = execFileSync('gdalinfo', ['-stats', `/vsizip/${zipPath}/${daily}`], { encoding: 'utf8' });
  assert.match(info, /Size is 228, 211/);
  assert.match(info, /NAD83 \/ UTM zone 13N/);

  // every GeoTIFF of the archive is a Cloud Optimized GeoTIFF for GDAL's validator
  assert.deepEqual(await invalidCogs(names.filter((n) => n.endsWith('.tif')).map((n) => `/vsizip/${zipPath}/${n}`)), {});
  // previews: the legend holds the map's own minimum and maximum, the PNG is the map's size and not blank
  const stats = JSON.parse(execFileSync('gdalinfo', ['-json', '-stats', `/vsizip/${zipPath}/global/daily/total_sun_day_172.tif`], { encoding: 'utf8' })).bands[0];
  const legend = (await getJson(`${svc.base}/api/jobs/${id}/preview/day-172.json`)).body;
  // (gdalinfo -json prints statistics to 3 decimals)
  assert.ok(Math.abs(legend.min - stats.minimum) < 1e-3 && Math.abs(legend.max - stats.maximum) < 1e-3, `${legend.min}–${legend.max} vs ${stats.minimum}–${stats.maximum}`);
  assert.equal(legend.unit, 'Wh m-2 day-1');
  const png = PNG.sync.read(Buffer.from(await (await fetch(`${svc.base}/api/jobs/${id}/preview/annual.png?hillshade=1`)).arrayBuffer()));
  assert.deepEqual([png.width, png.height], [228, 211]);
  const colours = new Set<number>();
  for (let i = 0; i < png.data.length; i += 4) colours.add(png.data.readUInt32BE(i));
  assert.ok(colours.size > 100, `${colours.size} colours`);
  assert.ok(names.includes('stac.json'));
  assert.equal((await getJson(`${svc.base}/api/jobs/${id}/stac`)).body.id, id);
});
