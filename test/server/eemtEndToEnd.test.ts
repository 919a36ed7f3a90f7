// Needs: bwrap, gdal
/**
 * End to end: an `eemt` job on the real DEM for one year through the HTTP API, against a local Daymet server
 * that answers in the single-pixel API's format (synthetic climate for the mcn_10m site). The annual maps
 * must be plausible for a ~2,500 m mixed-conifer site: tens of MJ m⁻² yr⁻¹, not thousands.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startDaymetServer, type DaymetTestServer } from '../helpers/daymetServer.js';
import { fixture, getJson, startTestService, submit, type TestService } from './helpers.js';
import { invalidCogs } from '../raster/gdal.js';
import { zipEntries } from './zip.js';

let daymet: DaymetTestServer;
let svc: TestService;
const previousUrl = process.env.EEMT_DAYMET_URL;

before(async () => {
  daymet = await startDaymetServer();
  process.env.EEMT_DAYMET_URL = daymet.url; // the service passes it on to the job
  svc = await startTestService({ env: { EEMT_RUNTIME: 'bubblewrap', CONTAINER_CPU_LIMIT: '2', CONTAINER_MEMORY_LIMIT: '2G' } });
});
after(async () => {
  await svc.stop();
  await daymet.close();
  if (previousUrl === undefined) delete process.env.EEMT_DAYMET_URL;
  else process.env.EEMT_DAYMET_URL = previousUrl;
});

function annualStatistics(zipPath: string, entry: string): { min: number; max: number; mean: number } {
  const info = JSON.parse(execFileSync('gdalinfo', ['-json', '-stats', `/vsizip/${zipPath}/${entry}`], { encoding: 'utf8' }));
  const band = info.bands[0];
  return { min: band.minimum, max: band.maximum, mean: band.mean };
}

test('an eemt job on mcn_10m for 2020 completes through the API with plausible annual EEMT maps', { timeout: 900_000 }, async () => {
  const res = await submit(
    svc.base,
    { workflow_type: 'eemt', step: '60', num_threads: '2', start_year: '2020', end_year: '2020', pet_method: 'hamon', topo_npp: 'lieth', topo_radiation: 'shaded' },
    { name: 'mcn_10m.tif', bytes: fixture('mcn_10m.tif') },
  );
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const id = res.body.job_id as string;
  let last = -1;
  let job: any;
  for (;;) {
    job = (await getJson(`${svc.base}/api/jobs/${id}`)).body;
    assert.ok(job.progress >= last, 'progress never goes back');
    last = job.progress;
    if (job.status === 'completed' || job.status === 'failed') break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  if (job.status === 'failed') {
    const logs = (await getJson(`${svc.base}/api/jobs/${id}/logs?tail=40`)).body.lines.join('\n');
    assert.fail(`job failed: ${job.error_message}\n${logs}`);
  }
  assert.equal(job.progress, 100);
  assert.equal(job.parameters.start_year, 2020);
  assert.equal(job.parameters.end_year, 2020);
  // the model choices as submitted, the one left out with its default
  assert.deepEqual(
    [job.parameters.pet_method, job.parameters.topo_npp, job.parameters.topo_radiation, job.parameters.lieth_npp_gate],
    ['hamon', 'lieth', 'shaded', 'temperature'],
  );
  assert.ok(daymet.requests.length > 0, 'the climate came from the local Daymet server');

  const download = await fetch(`${svc.base}/api/jobs/${id}/results`);
  assert.equal(download.status, 200);
  const zip = Buffer.from(await download.arrayBuffer());
  const names = zipEntries(zip).map((e) => e.name);
  assert.equal(names.filter((n) => /^global\/daily\/total_sun_day_\d+\.tif$/.test(n)).length, 365);
  assert.equal(names.filter((n) => /^global\/monthly\/flat_total_sun_[a-z]+_sum\.tif$/.test(n)).length, 12);
  for (const name of ['topo/slope.tif', 'topo/aspect.tif', 'topo/twi.tif', 'README.txt', 'eemt/EEMT_Topo_annual_2020.tif', 'eemt/EEMT_Trad_annual_2020.tif']) {
    assert.ok(names.includes(name), `${name} in the ZIP`);
  }
  assert.equal(names.filter((n) => /^eemt\/EEMT_Topo_[a-z]{3}_2020\.tif$/.test(n)).length, 12);
  assert.ok(names.some((n) => /^daymet\/tmax\/tmax_2020_[a-z]{3}\.tif$/.test(n)));
  assert.ok(names.some((n) => n.startsWith('daymet/') && n.endsWith('.csv')), 'the downloaded CSVs are kept');
  // Daymet's srad and dayl: the real-sky maps, sloped and horizontal, and no working file of them
  assert.equal(names.filter((n) => /^global\/monthly_realsky\/(flat_)?total_sun_[a-z]{3}_sum\.tif$/.test(n)).length, 24);
  assert.ok(!names.some((n) => n.startsWith('.beam-parts/')));

  const zipPath = join(svc.root, 'eemt.zip');
  writeFileSync(zipPath, zip);
  const topo = annualStatistics(zipPath, 'eemt/EEMT_Topo_annual_2020.tif');
  const trad = annualStatistics(zipPath, 'eemt/EEMT_Trad_annual_2020.tif');
  console.log(`EEMT_Topo 2020: mean ${topo.mean.toFixed(2)} (${topo.min.toFixed(2)}–${topo.max.toFixed(2)}); EEMT_Trad: mean ${trad.mean.toFixed(2)} (${trad.min.toFixed(2)}–${trad.max.toFixed(2)}) MJ m-2 yr-1`);
  // mixed conifer at ~2,500 m (docs/eemt-model.md §5): tens of MJ m-2 yr-1
  assert.ok(topo.min >= 2.2 && topo.max < 100 && topo.mean > 5 && topo.mean < 60, JSON.stringify(topo));
  assert.ok(trad.min >= 0 && trad.max < 100 && trad.mean > 2 && trad.mean < 60, JSON.stringify(trad));

  // every GeoTIFF of the archive is a Cloud Optimized GeoTIFF for GDAL's validator
  const tiffs = names.filter((n) => n.endsWith('.tif')).map((n) => `/vsizip/${zipPath}/${n}`);
  assert.deepEqual(await invalidCogs(tiffs), {});
  // the legend of the EEMT preview holds the map's own minimum and maximum; the STAC Item has the climate years
  const legend = (await getJson(`${svc.base}/api/jobs/${id}/preview/eemt-topo-annual.json`)).body;
  // (gdalinfo -json prints statistics to 3 decimals)
  assert.ok(Math.abs(legend.min - topo.min) < 1e-3 && Math.abs(legend.max - topo.max) < 1e-3, `${legend.min}–${legend.max} vs ${topo.min}–${topo.max}`);
  assert.equal(legend.unit, 'MJ m-2 yr-1');
  const png = await fetch(`${svc.base}${legend.png}?hillshade=1`);
  assert.equal(png.headers.get('content-type'), 'image/png');
  for (const product of ['twi', 'slope', 'eemt-trad-annual', 'annual', 'realsky-annual', 'realsky-month-jul']) {
    assert.equal((await fetch(`${svc.base}/api/jobs/${id}/preview/${product}.png`)).status, 200, product);
  }
  const stac = (await getJson(`${svc.base}/api/jobs/${id}/stac`)).body;
  assert.deepEqual([stac.properties.start_datetime, stac.properties.end_datetime], ['2020-01-01T00:00:00Z', '2020-12-31T23:59:59Z']);
  assert.equal(stac.assets['eemt/EEMT_Topo_annual_2020']['raster:bands'][0].unit, 'MJ m-2 yr-1');
  assert.ok(names.includes('stac.json'));
  // the job's model in its STAC Item and README.txt; shaded radiation: no sums without shadows
  assert.equal(stac.properties['eemt:pet_method'], 'hamon');
  assert.match(stac.properties['eemt:pet_method_source'], /Haith & Shoemaker \(1987/);
  assert.equal(stac.properties['eemt:topo_npp'], 'lieth');
  assert.equal(stac.properties['eemt:topo_radiation'], 'shaded');
  assert.equal(stac.properties['eemt:lieth_npp_gate'], 'temperature');
  assert.equal(stac.assets['global/monthly_realsky/total_sun_jul_sum']['raster:bands'][0].unit, 'Wh m-2 month-1');
  assert.match(stac.assets['global/monthly_realsky/flat_total_sun_jul_sum'].title, /real-sky global irradiation on a horizontal unshaded surface/);
  assert.match(stac.properties['eemt:realsky_radiation'], /Erbs, Klein & Duffie \(1982/);
  assert.equal(names.filter((n) => n.startsWith('global/monthly_unshaded/')).length, 0);
  const readme = execFileSync('/usr/bin/python3', ['-c', 'import sys, zipfile; sys.stdout.write(zipfile.ZipFile(sys.argv[1]).read("README.txt").decode())', zipPath], { encoding: 'utf8' });
  assert.match(readme, /pet_method = hamon: /);
  assert.match(readme, /topo_npp = lieth: Lieth \(1975\)/);
  assert.match(readme, /topo_radiation = shaded: /);
  assert.match(readme, /Observed radiation: Daymet V4 srad x dayl of each day/);
  const metadata = JSON.parse(execFileSync('gdalinfo', ['-json', `/vsizip/${zipPath}/eemt/EEMT_Trad_annual_2020.tif`], { encoding: 'utf8' })).metadata[''];
  assert.equal(metadata.EEMT_PET_METHOD, 'hamon');
  assert.equal(metadata.EEMT_TOPO_NPP, 'lieth');
});

test('an eemt submission for a DEM outside Daymet coverage is refused at once with a clear 400', async () => {
  const europe = join(svc.root, 'alps.tif');
  execFileSync('gdal_translate', ['-q', '-a_srs', 'EPSG:4326', '-a_ullr', '7.0', '46.0', '7.01', '45.99', '-outsize', '12', '12', new URL('../fixtures/mcn_10m.tif', import.meta.url).pathname, europe]);
  const res = await submit(svc.base, { workflow_type: 'eemt', start_year: '2020', end_year: '2020' }, { name: 'alps.tif', bytes: readFileSync(europe) });
  assert.equal(res.status, 400, JSON.stringify(res.body));
  assert.match(res.body.detail, /Daymet/);
  assert.match(res.body.detail, /upload monthly climate grids as climate_file/);
  const jobs = (await getJson(`${svc.base}/api/jobs`)).body as any[];
  assert.ok(!jobs.some((j) => j.dem_filename === 'alps.tif'), 'no job row left behind');
});
