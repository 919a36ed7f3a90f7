// Measures the compressed size of the products per DEM cell, per kind of product, on real DEMs — the numbers behind
// OUTPUT_BYTES_PER_CELL and OUTPUT_FILE_BYTES in src/workflows/outputSize.ts. Run from the repository:
//
//   node --import tsx bench/output-size.bench.mjs [--steps 3,15,60] [--eemt-step 60] [--no-eemt]
//
// DEMs (made in a temp folder with GDAL): mcn_10m (the real 10 m DEM of test/fixtures); `smooth`, the 2.5 m
// resample window test/fixtures/oracle/fine/ne_2m5.tif (steep, but smooth from cell to cell); `rough`, mcn_10m
// resampled to 30 m (coarser cells: more change from cell to cell); `noisy`, mcn_10m plus ±2 m of uniform noise (a
// surface model with vegetation and rocks: the hardest case for the predictor); `tiny`, an 8 × 8 window (the size of
// a file whose cells cost nothing: its header, tags and tile tables).
// For each DEM the sol workflow runs the whole year at each step; the eemt workflow runs one and two years (Daymet
// from the synthetic local server of the tests). Per kind of product: files, apparent bytes, the mean bytes per
// file and (size − header) / cells. Prints one JSON document.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const { values: args } = parseArgs({
  options: { steps: { type: 'string', default: '3,15,60' }, 'eemt-step': { type: 'string', default: '60' }, 'no-eemt': { type: 'boolean', default: false } },
});
const steps = args.steps.split(',').map(Number);
const { runWorkflow } = await import(here('../src/workflows/index.ts'));
const { outputKindOf } = await import(here('../src/workflows/outputSize.ts'));
const { startDaymetServer } = await import(here('../test/helpers/daymetServer.ts'));

const dir = mkdtempSync(join(tmpdir(), 'eemt-output-size-'));
const mcn = here('../test/fixtures/mcn_10m.tif');
const gdal = (tool, ...argv) => execFileSync(tool, ['-q', ...argv]);
const dems = {
  tiny: join(dir, 'tiny.tif'),
  mcn_10m: mcn,
  smooth: here('../test/fixtures/oracle/fine/ne_2m5.tif'),
  rough: join(dir, 'mcn_30m.tif'),
  noisy: join(dir, 'noisy.tif'),
};
gdal('gdal_translate', '-srcwin', '100', '100', '8', '8', mcn, dems.tiny);
gdal('gdalwarp', '-tr', '30', '30', '-r', 'average', mcn, dems.rough);
execFileSync('/usr/bin/python3', [
  '-c',
  `import numpy as np
from osgeo import gdal
src = gdal.Open(${JSON.stringify(mcn)})
z = src.GetRasterBand(1).ReadAsArray().astype('float32')
z += np.random.default_rng(1).uniform(-2, 2, z.shape).astype('float32')
out = gdal.GetDriverByName('GTiff').Create(${JSON.stringify(dems.noisy)}, src.RasterXSize, src.RasterYSize, 1, gdal.GDT_Float32)
out.SetGeoTransform(src.GetGeoTransform()); out.SetProjection(src.GetProjection())
out.GetRasterBand(1).SetNoDataValue(float('nan')); out.GetRasterBand(1).WriteArray(z); out = None`,
]);

function cellsOf(path) {
  const info = JSON.parse(execFileSync('gdalinfo', ['-json', path], { encoding: 'utf8' }));
  return { width: info.size[0], height: info.size[1] };
}

function filesUnder(root) {
  const out = [];
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else {
        const stats = statSync(path);
        out.push({ rel: relative(root, path).split('\\').join('/'), bytes: stats.size, diskBytes: stats.blocks * 512 });
      }
    }
  };
  walk(root);
  return out;
}

/** Per kind: files, bytes, mean bytes per file; and the totals (apparent and on disk). */
function summarise(files) {
  const kinds = {};
  let bytes = 0;
  let diskBytes = 0;
  for (const file of files) {
    const kind = outputKindOf(file.rel) ?? 'other';
    const k = (kinds[kind] ??= { files: 0, bytes: 0 });
    k.files++;
    k.bytes += file.bytes;
    bytes += file.bytes;
    diskBytes += file.diskBytes;
  }
  for (const k of Object.values(kinds)) k.mean_file_bytes = Math.round(k.bytes / k.files);
  return { files: files.length, bytes, disk_bytes: diskBytes, kinds };
}

async function run(type, demPath, params) {
  const outDir = join(dir, 'out');
  rmSync(outDir, { recursive: true, force: true });
  const started = performance.now();
  await runWorkflow(type, { demPath, outDir, params: { linke_value: 3, albedo_value: 0.2, num_threads: 2, ...params } });
  const summary = summarise(filesUnder(outDir));
  rmSync(outDir, { recursive: true, force: true });
  return { ...summary, seconds: Math.round((performance.now() - started) / 100) / 10 };
}

const report = { dems: {}, sol: {}, eemt: {}, header_bytes: {}, bytes_per_cell: {} };
for (const [name, path] of Object.entries(dems)) report.dems[name] = cellsOf(path);

for (const [name, path] of Object.entries(dems)) {
  for (const step of steps) report.sol[`${name} step ${step}`] = await run('sol', path, { step });
}

let server = null;
if (!args['no-eemt']) {
  server = await startDaymetServer();
  process.env.EEMT_DAYMET_URL = server.url;
  process.env.EEMT_CACHE_DIR = join(dir, 'cache');
  const step = Number(args['eemt-step']);
  for (const name of ['tiny', 'mcn_10m', 'smooth', 'rough', 'noisy']) {
    report.eemt[`${name} 2020`] = await run('eemt', dems[name], { step, start_year: 2020, end_year: 2020 });
  }
  report.eemt['mcn_10m 2019-2020'] = await run('eemt', mcn, { step, start_year: 2019, end_year: 2020 });
  await server.close();
}

// The header of a file of each kind: the mean file of the 8 × 8 DEM (its 64 cells cost a few hundred bytes at most).
for (const [runName, result] of [...Object.entries(report.sol), ...Object.entries(report.eemt)]) {
  if (!runName.startsWith('tiny')) continue;
  for (const [kind, k] of Object.entries(result.kinds)) report.header_bytes[kind] = Math.max(report.header_bytes[kind] ?? 0, k.mean_file_bytes);
}
// (mean file − header of its kind) / cells, per run and kind
for (const [group, runs] of [['sol', report.sol], ['eemt', report.eemt]]) {
  for (const [runName, result] of Object.entries(runs)) {
    if (runName.startsWith('tiny')) continue;
    const { width, height } = report.dems[runName.split(' ')[0]];
    for (const [kind, k] of Object.entries(result.kinds)) {
      if (kind === 'daymet-csv' || kind === 'readme' || kind === 'other') continue;
      const perCell = (k.mean_file_bytes - (report.header_bytes[kind] ?? 0)) / (width * height);
      report.bytes_per_cell[`${group} ${runName} ${kind}`] = Math.round(perCell * 1000) / 1000;
    }
  }
}
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify(report, null, 2));
