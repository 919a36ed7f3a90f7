// Needs: gdal
/**
 * The eemt workflow on a DEM in the Alps (outside Daymet) with the user's climate grids: a time series through
 * the library, and a WorldClim climatology with an elevation grid through the CLI. Plausible maps, the climate
 * grids on the DEM grid, lapse adjustment only with an elevation grid, README.txt naming the files and their
 * checksums; a bad grid ends the job before the solar phase.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRaster } from '../../../src/raster/index.js';
import { runEemtWorkflow, type EemtWorkflowResult } from '../../../src/workflows/eemt/index.js';
import { alpineMonth, climateFiles, europeDem, zipOf } from '../../helpers/climateGrids.js';
import { stats } from './helpers.js';

const root = new URL('../../../', import.meta.url).pathname;
let work = '';
let dem = '';
let seriesZip = '';
let result: EemtWorkflowResult;

const params = { step: 30, linke_value: 3, albedo_value: 0.2, num_threads: 2, start_year: 2020, end_year: 2021 };

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'eemt-user-climate-'));
  dem = europeDem(work);
  seriesZip = await zipOf(join(work, 'series.zip'), climateFiles(mkdtempSync(join(work, 'ts-')), 'time-series', { years: [2020, 2021] }));
  result = await runEemtWorkflow({ demPath: dem, outDir: join(work, 'out'), params, climateFile: seriesZip, climateFileName: 'my grids.zip', daymetBaseUrl: 'http://127.0.0.1:9' });
});
after(() => rmSync(work, { recursive: true, force: true }));

test('a time series gives plausible EEMT maps for a DEM in the Alps, with the climate grids under climate/', async () => {
  const out = join(work, 'out');
  assert.ok(result.files.includes('eemt/EEMT_Topo_mean_2020-2021.tif'));
  assert.ok(result.files.includes('climate/tmax/tmax_2021_jul.tif'));
  assert.ok(!result.files.some((f) => f.startsWith('daymet/')));
  for (const model of ['Topo', 'Trad']) {
    const s = stats((await readRaster(join(out, `eemt/EEMT_${model}_annual_2020.tif`))).values);
    assert.ok(s.min > 0 && s.max < 200, `${model} annual ${s.min}–${s.max} MJ m-2 yr-1`);
  }
  // no elevation grid: no lapse adjustment, the written tmax is the grid's own value
  const july = (await readRaster(join(out, 'climate/tmax/tmax_2021_jul.tif'))).values;
  const expected = (alpineMonth(7).tmax + 0.5) * (1 + (0.01 * (7.7095 - 7.6)) / 0.25);
  assert.ok(Math.abs(july[0]! - expected) < 0.01, `tmax ${july[0]} expected ${expected}`);
  const vp = (await readRaster(join(out, 'climate/vp/vp_2020_jan.tif'))).values;
  assert.ok(vp[0]! > 100 && vp[0]! < 2000, `vp ${vp[0]} Pa`);
});

test('README.txt and the result name the climate file, its layout and every grid with its SHA-256', () => {
  const readme = readFileSync(join(work, 'out/README.txt'), 'utf8');
  const zipSha = createHash('sha256').update(readFileSync(seriesZip)).digest('hex');
  assert.match(readme, new RegExp(`Climate source: user file my grids\\.zip \\(sha256 ${zipSha}\\), time-series, no elevation grid`));
  assert.match(readme, /NO lapse-rate adjustment: the climate file has no elevation\.tif/);
  assert.match(readme, /  tmin_2021_12\.tif  sha256 [0-9a-f]{64}/);
  assert.match(readme, /climate\/tmax\/tmax_\{year\}_\{mon\}\.tif/);
  assert.equal(result.climateSource.type, 'user');
  if (result.climateSource.type === 'user') assert.equal(result.climateSource.files.length, 96);
});

test('CLI: a WorldClim climatology (vapr in kPa) with an elevation grid; temperatures lapse-adjusted from it', async () => {
  const files = climateFiles(mkdtempSync(join(work, 'wc-')), 'worldclim', { elevation: 1000 });
  const zip = await zipOf(join(work, 'wc.zip'), files);
  const out = join(work, 'out-wc');
  const run = spawnSync(process.execPath, [join(root, 'bin/eemt.js'), 'eemt', dem, '--out', out, '--climate-file', zip, '--start-year', '2020', '--end-year', '2020', '--step', '30', '--threads', '2'], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^eemt: \d+ files in .* annual EEMT_Topo mean [\d.]+/);
  const readme = readFileSync(join(out, 'README.txt'), 'utf8');
  assert.match(readme, /WorldClim 2\.1 names, vapr converted from kPa to Pa/);
  assert.match(readme, /reference elevation wc2\.1_10m_elev\.tif/);
  const z = (await readRaster(dem)).values;
  const tmax = (await readRaster(join(out, 'climate/tmax/tmax_2020_jan.tif'))).values;
  const grid = alpineMonth(1).tmax * (1 + (0.01 * (7.7095 - 7.6)) / 0.25);
  // T' = T − 6.49 K/km × (z − 1000 m)
  assert.ok(Math.abs(tmax[0]! - (grid - (6.49 * (z[0]! - 1000)) / 1000)) < 0.01, `tmax ${tmax[0]} at z ${z[0]}`);
  const vp = (await readRaster(join(out, 'climate/vp/vp_2020_jan.tif'))).values;
  assert.ok(Math.abs(vp[0]! / (alpineMonth(1).vp * (1 + (0.01 * (7.7095 - 7.6)) / 0.25)) - 1) < 1e-3, `vp ${vp[0]} Pa`);
});

test('CLI: a grid that does not cover the DEM is one line, exit 2, before any solar work', async () => {
  const files = climateFiles(mkdtempSync(join(work, 'far-')), 'climatology', { grid: { epsg: 4326, west: 10, north: 47, cell: 0.05, cols: 10, rows: 10 } });
  const zip = await zipOf(join(work, 'far.zip'), files);
  const out = join(work, 'out-far');
  const run = spawnSync(process.execPath, [join(root, 'bin/eemt.js'), 'eemt', dem, '--out', out, '--climate-file', zip], { encoding: 'utf8' });
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /^eemt: climate_file: tmin_01\.tif does not cover the DEM: 320 of 320 DEM cells, 45\.95\d°N–45\.95\d°N 7\.71\d°E–7\.71\d°E lie outside the grid/m);
  assert.equal(existsSync(out), false);
});
