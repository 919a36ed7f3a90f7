// Needs: bwrap, gdal
/**
 * `climate_file` through the HTTP API: eemt jobs for a DEM in the Alps (outside Daymet) with a time series and
 * with WorldClim grids complete in the bubblewrap sandbox with the Daymet server unreachable; broken ZIPs (a
 * missing month, a grid that misses the DEM, kelvin, a member that is not a GeoTIFF, a ZIP bomb) are 400s that
 * name the problem, leaving no job and no file.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import yazl from 'yazl';
import { alpineRadiation, climateFiles, europeDem, zipOf } from '../helpers/climateGrids.js';
import { getJson, startTestService, submit, waitForStatus, type TestService } from './helpers.js';
import { zipEntries } from './zip.js';
import { jobEntries } from '../helpers/dataFolders.js';

let svc: TestService;
let work = '';
let dem: Buffer;
let seriesFiles: Record<string, string>;
const previousUrl = process.env.EEMT_DAYMET_URL;

before(async () => {
  process.env.EEMT_DAYMET_URL = 'http://127.0.0.1:9'; // nothing listens: the jobs must not need Daymet
  svc = await startTestService({ env: { EEMT_RUNTIME: 'bubblewrap', CONTAINER_CPU_LIMIT: '2', CONTAINER_MEMORY_LIMIT: '2G' } });
  work = mkdtempSync(join(tmpdir(), 'climate-api-'));
  dem = readFileSync(europeDem(work));
  seriesFiles = climateFiles(mkdtempSync(join(work, 'ts-')), 'time-series', { years: [2020] });
});
after(async () => {
  await svc.stop();
  rmSync(work, { recursive: true, force: true });
  if (previousUrl === undefined) delete process.env.EEMT_DAYMET_URL;
  else process.env.EEMT_DAYMET_URL = previousUrl;
});

const eemtFields = { workflow_type: 'eemt', step: '60', num_threads: '2', start_year: '2020', end_year: '2020' };

function annualMean(zip: Buffer, entry: string): { min: number; max: number; mean: number } {
  const path = join(work, `results-${Math.random()}.zip`);
  writeFileSync(path, zip);
  const band = JSON.parse(execFileSync('gdalinfo', ['-json', '-stats', `/vsizip/${path}/${entry}`], { encoding: 'utf8' })).bands[0];
  return { min: band.minimum, max: band.maximum, mean: band.mean };
}

async function runToEnd(climate: { name: string; bytes: Buffer }, fields: Record<string, string> = {}): Promise<{ job: any; zip: Buffer }> {
  const res = await submit(svc.base, { ...eemtFields, ...fields }, { name: 'alps.tif', bytes: dem }, climate);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const job = await waitForStatus(svc.base, res.body.job_id, ['completed', 'failed'], 300_000);
  if (job.status === 'failed') {
    const logs = (await getJson(`${svc.base}/api/jobs/${job.id}/logs?tail=30`)).body.lines.join('\n');
    assert.fail(`job failed: ${job.error_message}\n${logs}`);
  }
  const zip = Buffer.from(await (await fetch(`${svc.base}/api/jobs/${job.id}/results`)).arrayBuffer());
  return { job, zip };
}

test('eemt jobs outside Daymet complete from a time series and from WorldClim grids, recording their source', { timeout: 600_000 }, async () => {
  const series = await runToEnd({ name: 'alps-series.zip', bytes: readFileSync(await zipOf(join(work, 'series.zip'), seriesFiles)) });
  const source = series.job.parameters.climate_source;
  assert.equal(source.type, 'user');
  assert.equal(source.layout, 'time-series');
  assert.equal(source.archive.name, 'alps-series.zip');
  assert.equal(source.files.length, 48);
  assert.match(source.files[0].sha256, /^[0-9a-f]{64}$/);
  const names = zipEntries(series.zip).map((e) => e.name);
  assert.ok(names.includes('climate/vp/vp_2020_dec.tif'));
  assert.ok(!names.some((n) => n.startsWith('daymet/')));
  const readme = zipEntries(series.zip).find((e) => e.name === 'README.txt')!;
  assert.ok(readme);
  // no srad grids: no real-sky maps
  assert.equal(source.radiation, false);
  assert.ok(!names.some((n) => n.startsWith('global/monthly_realsky/')));
  for (const model of ['Topo', 'Trad']) {
    const s = annualMean(series.zip, `eemt/EEMT_${model}_annual_2020.tif`);
    assert.ok(s.min > 0 && s.max < 200 && s.mean > 1, `${model} ${JSON.stringify(s)}`);
  }

  // WorldClim with its srad (kJ m-2 day-1), and S_i from the real-sky sums
  const wc = climateFiles(mkdtempSync(join(work, 'wc-')), 'worldclim', { elevation: 1800, srad: true });
  const worldclim = await runToEnd({ name: 'wc2.1_10m.zip', bytes: readFileSync(await zipOf(join(work, 'wc.zip'), wc)) }, { topo_radiation: 'realsky' });
  assert.equal(worldclim.job.parameters.climate_source.naming, 'worldclim');
  assert.equal(worldclim.job.parameters.climate_source.elevation, 'wc2.1_10m_elev.tif');
  assert.equal(worldclim.job.parameters.climate_source.radiation, true);
  assert.equal(worldclim.job.parameters.topo_radiation, 'realsky');
  assert.ok(worldclim.job.parameters.climate_source.files.some((f: { name: string }) => f.name === 'wc2.1_10m_srad_07.tif'));
  const wcNames = zipEntries(worldclim.zip).map((e) => e.name);
  assert.equal(wcNames.filter((n) => n.startsWith('global/monthly_realsky/')).length, 24);
  const realSky = annualMean(worldclim.zip, 'global/monthly_realsky/flat_total_sun_jul_sum.tif');
  // the horizontal real-sky sums are WorldClim's July srad of the test climate (kJ m-2 day-1, 1 % gradient) × 31 days, in Wh m-2
  assert.ok(Math.abs(realSky.mean / (((alpineRadiation(7).daily * 1.00438 * 1000) / 3600) * 31) - 1) < 0.005, JSON.stringify(realSky));
  const s = annualMean(worldclim.zip, 'eemt/EEMT_Topo_annual_2020.tif');
  assert.ok(s.min > 0 && s.max < 200, JSON.stringify(s));
});

async function bombZip(): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  zip.addBuffer(Buffer.alloc(64 * 1024 ** 2), 'tmin_01.tif');
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

test('broken climate files are 400s naming the problem, with nothing stored', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(work, 'bad-'));
  const { ['prcp_2020_09.tif']: _gone, ...missing } = seriesFiles;
  const far = climateFiles(mkdtempSync(join(dir, 'far-')), 'climatology', { grid: { epsg: 4326, west: 7.711, north: 46, cell: 0.01, cols: 10, rows: 10 } });
  const kelvin = climateFiles(mkdtempSync(join(dir, 'k-')), 'climatology', { tweak: (v, _m, x) => (v.startsWith('t') ? x + 273.15 : x) });
  const cases: Array<[string, Buffer, RegExp]> = [
    ['missing.zip', readFileSync(await zipOf(join(dir, 'missing.zip'), missing)), /^climate_file lacks 1 grid needed for the years 2020–2020: prcp_2020_09\.tif$/],
    ['far.zip', readFileSync(await zipOf(join(dir, 'far.zip'), far)), /^climate_file: tmin_01\.tif does not cover the DEM: \d+ of 320 DEM cells, 45\.95\d°N–45\.95\d°N 7\.710°E–7\.711°E lie outside/],
    ['kelvin.zip', readFileSync(await zipOf(join(dir, 'kelvin.zip'), kelvin)), /^climate_file: tmin_01\.tif has values of 2\d\d–2\d\d on the DEM: these look like kelvin/],
    ['text.zip', readFileSync(await zipOf(join(dir, 'text.zip'), { ...seriesFiles, 'tmax_2020_02.tif': Buffer.from('<html>not a raster</html>') })), /^climate_file: tmax_2020_02\.tif is not a usable GeoTIFF/],
    ['bomb.zip', await bombZip(), /^climate_file is not an acceptable ZIP archive: tmin_01\.tif expands \d+× .*ZIP bomb/],
    ['grids.tar', Buffer.from('x'), /^climate_file must be a ZIP archive \(\.zip\)/],
    [
      'some-srad.zip',
      readFileSync(await zipOf(join(dir, 'some-srad.zip'), climateFiles(mkdtempSync(join(dir, 's-')), 'climatology', { srad: [6, 7, 8] }))),
      /^climate_file has srad grids for some months but lacks 9: srad_01\.tif, srad_02\.tif/,
    ],
  ];
  const listed = (await getJson(`${svc.base}/api/jobs`)).body as any[];
  const jobsBefore = listed.length;
  const jobIds = new Set(listed.map((j) => j.id as string));
  for (const [name, bytes, expected] of cases) {
    const res = await submit(svc.base, eemtFields, { name: 'alps.tif', bytes: dem }, { name, bytes });
    assert.equal(res.status, 400, `${name}: ${JSON.stringify(res.body)}`);
    assert.match(res.body.detail, expected, name);
  }
  // S_i from the real-sky sums with grids that have no srad
  const realsky = await submit(svc.base, { ...eemtFields, topo_radiation: 'realsky' }, { name: 'alps.tif', bytes: dem }, { name: 'series.zip', bytes: readFileSync(join(work, 'series.zip')) });
  assert.equal(realsky.status, 400, JSON.stringify(realsky.body));
  assert.match(realsky.body.detail, /^climate_file: topo_radiation=realsky needs the climate's observed shortwave radiation, but the climate file has no srad grids \(srad_\{MM\}\.tif/);
  const sol = await submit(svc.base, { workflow_type: 'sol' }, { name: 'alps.tif', bytes: dem }, { name: 'series.zip', bytes: readFileSync(join(work, 'series.zip')) });
  assert.equal(sol.status, 400);
  assert.equal(sol.body.detail, 'climate_file is used by eemt jobs only');
  assert.deepEqual(jobEntries(svc.config.uploadDir).filter((d) => !jobIds.has(d)), [], 'no upload is kept');
  assert.equal((await getJson(`${svc.base}/api/jobs`)).body.length, jobsBefore, 'no job row is left');
});
