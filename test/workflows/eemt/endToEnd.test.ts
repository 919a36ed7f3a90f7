// Needs: gdal
/**
 * The eemt workflow end to end on a 60×60 crop of mcn_10m (with nodata cells) for two years against the
 * local Daymet server: every product, GDAL readability, nodata, units, README, plausibility (§5),
 * invariants (§5.4), annual = Σ months, mean = average of the annual maps, progress.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cellCentreLatitudes, readDem, writeFloat32GeoTiffSync } from '../../../src/raster/index.js';
import { dailyIrradiation } from '../../../src/science/solar/dailyIrradiation.js';
import { MONTH_NAMES } from '../../../src/workflows/solarYear/products.js';
import { runEemtWorkflow, EEMT_PHASE_LABELS, type EemtWorkflowResult } from '../../../src/workflows/eemt/index.js';
import type { ProgressUpdate } from '../../../src/workflows/types.js';
import { startDaymetServer, type DaymetTestServer } from '../../helpers/daymetServer.js';
import { gdalinfoAsync, tempDir, validateCog } from '../../raster/gdal.js';
import { cropMcn, listFiles, readValues, stats } from './helpers.js';

const YEARS = [2019, 2020] as const;
const { dir, cleanup } = tempDir('eemt-e2e');
const outDir = join(dir, 'out');
let server: DaymetTestServer;
let result: EemtWorkflowResult;
let demElevation: Float64Array;
let demGrid: Awaited<ReturnType<typeof readDem>>['grid'];
const updates: ProgressUpdate[] = [];

/** Nodata cells of the test DEM: a 4×4 block in the north-west corner and one interior cell. */
function isNodata(col: number, row: number): boolean {
  return (col < 4 && row < 4) || (col === 30 && row === 30);
}

before(async () => {
  server = await startDaymetServer();
  const crop = cropMcn(dir, 80, 80, 60, 60);
  const dem = await readDem(crop);
  demGrid = dem.grid;
  demElevation = dem.elevation.map((z, i) => (isNodata(i % 60, Math.floor(i / 60)) ? NaN : z));
  const demPath = join(dir, 'dem.tif');
  writeFloat32GeoTiffSync(demPath, dem.grid, demElevation);
  result = await runEemtWorkflow({
    demPath,
    outDir,
    cacheDir: join(dir, 'cache'),
    daymetBaseUrl: server.url,
    params: { step: 15, linke_value: 3, albedo_value: 0.2, num_threads: 2, start_year: YEARS[0], end_year: YEARS[1] },
    onProgress: (u) => updates.push(u),
  });
});

after(async () => {
  await server.close();
  cleanup();
});

test('writes every product with the expected names, and reports exactly the files on disk', () => {
  const files = listFiles(outDir);
  assert.deepEqual([...result.files].sort(), files);
  const cells = files.filter((f) => /^daymet\/-?\d+_-?\d+\/\d{4}\.csv$/.test(f)).length / YEARS.length;
  assert.ok(cells >= 1 && cells <= 4, `${cells} Daymet cells`);
  const expected: string[] = ['README.txt', 'topo/aspect.tif', 'topo/slope.tif', 'topo/twi.tif'];
  for (let day = 1; day <= 365; day++) expected.push(`global/daily/total_sun_day_${day}.tif`, `insol/daily/hours_sun_day_${day}.tif`);
  // the default topo_radiation=unshaded adds the monthly sums without terrain shadows
  // and the Daymet climate's observed radiation the real-sky maps
  for (const mon of MONTH_NAMES) {
    expected.push(`global/monthly/total_sun_${mon}_sum.tif`, `global/monthly/flat_total_sun_${mon}_sum.tif`, `global/monthly_unshaded/total_sun_${mon}_sum.tif`);
    expected.push(`global/monthly_realsky/total_sun_${mon}_sum.tif`, `global/monthly_realsky/flat_total_sun_${mon}_sum.tif`);
  }
  for (const year of YEARS) {
    for (const mon of MONTH_NAMES) {
      for (const v of ['tmax', 'tmin', 'prcp', 'vp']) expected.push(`daymet/${v}/${v}_${year}_${mon}.tif`);
      expected.push(`eemt/EEMT_Topo_${mon}_${year}.tif`, `eemt/EEMT_Trad_${mon}_${year}.tif`);
    }
    expected.push(`eemt/EEMT_Topo_annual_${year}.tif`, `eemt/EEMT_Trad_annual_${year}.tif`);
  }
  expected.push('eemt/EEMT_Topo_mean_2019-2020.tif', 'eemt/EEMT_Trad_mean_2019-2020.tif');
  const tifs = files.filter((f) => !f.endsWith('.csv'));
  assert.deepEqual(tifs, expected.sort());
  assert.equal(files.length, expected.length + cells * YEARS.length);
  assert.deepEqual(result.years, [...YEARS]);
  assert.equal(result.cells, 3600);
  assert.equal(result.validCells, 3600 - 17);
});

test('GDAL opens the products; they carry units, descriptions, the DEM grid and NaN nodata', async () => {
  const expectations: Array<[string, string]> = [
    ['eemt/EEMT_Topo_annual_2020.tif', 'MJ m-2 yr-1'],
    ['eemt/EEMT_Trad_annual_2019.tif', 'MJ m-2 yr-1'],
    ['eemt/EEMT_Topo_mean_2019-2020.tif', 'MJ m-2 yr-1'],
    ['eemt/EEMT_Trad_jul_2020.tif', 'MJ m-2 month-1'],
    ['eemt/EEMT_Topo_jan_2019.tif', 'MJ m-2 month-1'],
    ['topo/slope.tif', 'degrees'],
    ['topo/aspect.tif', 'degrees'],
    ['topo/twi.tif', 'dimensionless'],
    ['daymet/tmax/tmax_2020_jul.tif', 'degC'],
    ['daymet/prcp/prcp_2019_aug.tif', 'mm month-1'],
    ['daymet/vp/vp_2020_dec.tif', 'Pa'],
    ['global/monthly/flat_total_sun_jun_sum.tif', 'Wh m-2 month-1'],
  ];
  const infos = await Promise.all(expectations.map(([path]) => gdalinfoAsync(join(outDir, path))));
  infos.forEach((info, k) => {
    const [path, units] = expectations[k]!;
    assert.deepEqual(info.size, [60, 60], path);
    assert.equal(info.bands[0]!.type, 'Float32', path);
    assert.equal(String(info.bands[0]!.noDataValue), 'NaN', path);
    assert.equal(info.metadata['']!['UNITS'], units, path);
    assert.ok((info.bands[0]!.description ?? '').length > 10, path);
    assert.equal(info.metadata['IMAGE_STRUCTURE']!['LAYOUT'], 'COG', path);
  });
  // every kind of GeoTIFF the workflow writes is a valid Cloud Optimized GeoTIFF
  for (const path of ['eemt/EEMT_Topo_annual_2020.tif', 'topo/twi.tif', 'daymet/vp/vp_2020_dec.tif', 'global/monthly/flat_total_sun_jun_sum.tif', 'global/daily/total_sun_day_172.tif']) {
    const check = await validateCog(join(outDir, path));
    assert.ok(check.valid, `${path}: ${check.report}`);
  }
});

test('nodata cells of the DEM are NaN in every raster product, valid cells are finite', async () => {
  const paths = [
    'eemt/EEMT_Topo_annual_2019.tif',
    'eemt/EEMT_Trad_annual_2020.tif',
    'eemt/EEMT_Topo_mean_2019-2020.tif',
    'eemt/EEMT_Topo_mar_2020.tif',
    'eemt/EEMT_Trad_feb_2019.tif',
    'topo/slope.tif',
    'topo/twi.tif',
    'daymet/tmin/tmin_2019_jan.tif',
    'daymet/vp/vp_2020_jul.tif',
    'global/monthly/flat_total_sun_dec_sum.tif',
  ];
  for (const path of paths) {
    const values = await readValues(outDir, path);
    for (let i = 0; i < values.length; i++) {
      assert.equal(Number.isNaN(values[i]!), Number.isNaN(demElevation[i]!), `${path} cell ${i}`);
    }
  }
});

test('annual EEMT is plausible for a ~2,500 m mixed-conifer site: tens of MJ m-2 yr-1 (§5)', async () => {
  for (const year of YEARS) {
    const topo = stats(await readValues(outDir, `eemt/EEMT_Topo_annual_${year}.tif`));
    const trad = stats(await readValues(outDir, `eemt/EEMT_Trad_annual_${year}.tif`));
    assert.ok(topo.min >= 2.2 - 1e-4, `TOPO min ${topo.min} (the NPP floor gives ≥ 2.2)`);
    assert.ok(topo.max < 100 && topo.mean > 5 && topo.mean < 60, `TOPO ${JSON.stringify(topo)}`);
    assert.ok(trad.min >= 1 && trad.max < 66 + 20 && trad.mean < 60, `TRAD ${JSON.stringify(trad)}`);
    const summary = result.diagnostics.annual.find((a) => a.year === year)!;
    assert.ok(Math.abs(summary.topo.mean - topo.mean) < 1e-4 * topo.mean);
  }
});

test('the sums without terrain shadows (S_topo of the default topo_radiation=unshaded) are the scalar model without a horizon', async () => {
  // The scalar r.sun day (dailyIrradiation) with no horizon function, summed over January, at cells of every aspect
  // (slope and true-north aspect as the workflow wrote them); the engine samples the sun at its tiles' centres.
  const unshaded = await readValues(outDir, 'global/monthly_unshaded/total_sun_jan_sum.tif');
  const slope = await readValues(outDir, 'topo/slope.tif');
  const aspect = await readValues(outDir, 'topo/aspect.tif');
  const latitude = cellCentreLatitudes(demGrid);
  const deg = Math.PI / 180;
  for (const cell of [49, 500, 1234, 1811, 2400, 3050, 3599]) {
    const surface = {
      latitudeRad: latitude[cell]! * deg,
      elevationM: demElevation[cell]!,
      slopeRad: slope[cell]! * deg,
      aspectRad: Number.isNaN(aspect[cell]!) ? 0 : aspect[cell]! * deg,
    };
    let january = 0;
    for (let day = 1; day <= 31; day++) january += dailyIrradiation(day, surface, { stepMinutes: 15, linkeTurbidity: 3, albedo: 0.2 }).globalWhM2;
    assert.ok(Math.abs(unshaded[cell]! / january - 1) < 0.005, `cell ${cell}: ${unshaded[cell]} vs scalar ${january}`);
  }
  // nodata stays nodata; over the map there is more sun without shadows, in winter at many cells
  for (const [month, mon] of MONTH_NAMES.entries()) {
    const without = await readValues(outDir, `global/monthly_unshaded/total_sun_${mon}_sum.tif`);
    const shaded = await readValues(outDir, `global/monthly/total_sun_${mon}_sum.tif`);
    let more = 0;
    let sumWithout = 0;
    let sumShaded = 0;
    for (let i = 0; i < shaded.length; i++) {
      assert.equal(Number.isNaN(without[i]!), Number.isNaN(shaded[i]!), `${mon} cell ${i} nodata`);
      if (Number.isNaN(shaded[i]!)) continue;
      if (without[i]! > shaded[i]! * 1.01) more++;
      sumWithout += without[i]!;
      sumShaded += shaded[i]!;
    }
    assert.ok(sumWithout >= sumShaded, `${mon}: map mean without shadows below the shaded one`);
    if (month === 0 || month === 11) assert.ok(more > 0, `${mon}: no cell gains without shadows`);
  }
});

test('invariants of §5.4 hold on the real run: E_PPT ≥ 0, E_BIO ≥ 0, 0 ≤ AET ≤ min(P, PET), mean α = 1', () => {
  const d = result.diagnostics;
  assert.equal(d.negativeEnergyCellMonths, 0);
  assert.equal(d.aetOutOfBoundsCellMonths, 0);
  assert.ok(Math.abs(d.wetnessRatio.mean - 1) < 1e-9, `mean α ${d.wetnessRatio.mean}`);
  assert.equal(d.wetnessRatio.validCells, 3600 - 17);
  assert.ok(d.wetnessRatio.min >= 0 && d.wetnessRatio.max < 10);
  assert.ok(d.solarRatio.min > 0 && d.solarRatio.max < 5, JSON.stringify(d.solarRatio));
  assert.deepEqual(result.warnings, []);
});

test('annual = Σ 12 months, and the multi-year mean = average of the annual maps', async () => {
  for (const model of ['Topo', 'Trad']) {
    const annual = await Promise.all(YEARS.map((y) => readValues(outDir, `eemt/EEMT_${model}_annual_${y}.tif`)));
    const mean = await readValues(outDir, `eemt/EEMT_${model}_mean_2019-2020.tif`);
    const months = await Promise.all(MONTH_NAMES.map((m) => readValues(outDir, `eemt/EEMT_${model}_${m}_2020.tif`)));
    for (let i = 0; i < mean.length; i++) {
      if (Number.isNaN(mean[i]!)) continue;
      const average = (annual[0]![i]! + annual[1]![i]!) / 2;
      assert.ok(Math.abs(mean[i]! - average) <= 2e-6 * Math.abs(average), `${model} mean cell ${i}`);
      const sum = months.reduce((s, m) => s + m[i]!, 0);
      assert.ok(Math.abs(annual[1]![i]! - sum) <= 1e-5 * Math.abs(sum), `${model} annual cell ${i}`);
    }
    assert.notDeepEqual(annual[0], annual[1], 'two different years of weather');
  }
});

test('README.txt names every product with its units and the parameters used', async () => {
  const readme = await readFile(join(outDir, 'README.txt'), 'utf8');
  for (const pattern of [
    'eemt/EEMT_Topo_{mon}_{year}.tif',
    'eemt/EEMT_Trad_{mon}_{year}.tif',
    'eemt/EEMT_Topo_annual_{year}.tif',
    'eemt/EEMT_Trad_annual_{year}.tif',
    'eemt/EEMT_Topo_mean_2019-2020.tif',
    'eemt/EEMT_Trad_mean_2019-2020.tif',
    'topo/slope.tif',
    'topo/aspect.tif',
    'topo/twi.tif',
    'daymet/tmax/tmax_{year}_{mon}.tif',
    'daymet/vp/vp_{year}_{mon}.tif',
    'global/monthly/flat_total_sun_{mon}_sum.tif',
    'global/monthly_unshaded/total_sun_{mon}_sum.tif',
    'global/daily/total_sun_day_{1..365}.tif',
    'insol/daily/hours_sun_day_{1..365}.tif',
  ]) {
    assert.ok(readme.includes(pattern), pattern);
  }
  for (const units of ['MJ m-2 month-1', 'MJ m-2 yr-1', 'Wh m-2 month-1', 'Wh m-2 day-1', 'degC', 'mm month-1', 'Pa', 'degrees']) {
    assert.ok(readme.includes(units), units);
  }
  for (const parameter of ['pet_method = thornthwaite', 'topo_npp = regression', 'topo_radiation = unshaded', 'lieth_npp_gate = temperature', 'step 15 min', 'Linke turbidity 3', 'ground albedo 0.2', 'omega 2.63', 'wind u2 2 m/s', 'albedo 0.23', 'lapse rate Tmax 6.49', 'Climate years: 2019, 2020']) {
    assert.ok(readme.includes(parameter), parameter);
  }
  assert.match(readme, /clockwise from TRUE north/);
  for (const file of result.files) assert.ok(readme.includes(`\n${file}\n`), file);
});

test('progress never decreases, reaches 1, and reports every phase', () => {
  assert.ok(updates.length > 365);
  for (let k = 1; k < updates.length; k++) assert.ok(updates[k]!.fraction >= updates[k - 1]!.fraction, `update ${k}`);
  assert.equal(updates[0]!.fraction, 0);
  assert.equal(updates.at(-1)!.fraction, 1);
  for (const label of Object.values(EEMT_PHASE_LABELS)) {
    assert.ok(updates.some((u) => u.message.startsWith(`${label}: `)), label);
  }
  // The solar phase owns most of the bar.
  const solar = updates.filter((u) => u.message.startsWith(`${EEMT_PHASE_LABELS.solar}: `));
  assert.ok(solar.at(-1)!.fraction - solar[0]!.fraction > 0.7);
});
