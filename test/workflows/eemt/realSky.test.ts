// Needs: gdal
/**
 * The real-sky maps of the eemt workflow (global/monthly_realsky/):
 * - on flat terrain (one Daymet cell, so one climate) every cell's monthly real-sky sum is the climate's
 *   Σ srad × dayl of the month, read from the job's own Daymet CSV, within 1 %; with topo_radiation=realsky
 *   EEMT-Topo takes S_topo and S_flat from these sums;
 * - on real terrain in the Alps with a climate file whose srad makes both coefficients at most 1 (a dark sky over
 *   a turbid clear sky), the real-sky sums never exceed the clear-sky sums, and the horizontal ones are the srad
 *   times the day lengths (FAO-56's, not the code's) within 1 %;
 * - a climate file without srad: no real-sky maps (README.txt says why), and topo_radiation=realsky is refused
 *   before any solar work (the library's ClimateInputError, the CLI's exit 2).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ClimateInputError } from '../../../src/climate/index.js';
import { readDem, writeFloat32GeoTiffSync } from '../../../src/raster/index.js';
import { eemtTopoMonth } from '../../../src/science/eemt/index.js';
import { runEemtWorkflow } from '../../../src/workflows/eemt/index.js';
import { MONTH_LENGTHS, MONTH_NAMES } from '../../../src/workflows/solarYear/products.js';
import { climateFiles, europeDem, zipOf } from '../../helpers/climateGrids.js';
import { daymetTestBed, listFiles, readValues, stats, syntheticDem, testParams } from './helpers.js';

const root = new URL('../../../', import.meta.url).pathname;
const bed = daymetTestBed('eemt-realsky');
const { dir } = bed;

/** First day of year of each month (365-day year). */
const FIRST_DAY = MONTH_LENGTHS.map((_, m) => 1 + MONTH_LENGTHS.slice(0, m).reduce((a, b) => a + b, 0));

/** The monthly Σ srad × dayl / 3600 [Wh m⁻²] of a Daymet single-pixel CSV (one year), read column by column. */
function observedMonthlySums(csv: string): number[] {
  const lines = csv.split('\n');
  const header = lines.findIndex((line) => line.startsWith('year,yday'));
  const columns = lines[header]!.split(',');
  const srad = columns.indexOf('srad (W/m^2)');
  const dayl = columns.indexOf('dayl (s)');
  assert.ok(srad > 0 && dayl > 0, `columns ${columns.join(',')}`);
  const sums = new Array<number>(12).fill(0);
  for (const line of lines.slice(header + 1)) {
    if (!line.trim()) continue;
    const cells = line.split(',');
    const yday = Number(cells[1]);
    const month = FIRST_DAY.findLastIndex((first) => yday >= first);
    sums[month]! += (Number(cells[srad]) * Number(cells[dayl])) / 3600;
  }
  return sums;
}

/** FAO-56 (Eqs. 21, 24, 25, 34): extraterrestrial irradiation [Wh m⁻² day⁻¹] and day length [h] of a day. */
function fao56Day(latitudeDeg: number, day: number): { extraterrestrialWh: number; dayHours: number } {
  const phi = (latitudeDeg * Math.PI) / 180;
  const delta = 0.409 * Math.sin((2 * Math.PI * day) / 365 - 1.39);
  const dr = 1 + 0.033 * Math.cos((2 * Math.PI * day) / 365);
  const ws = Math.acos(-Math.tan(phi) * Math.tan(delta));
  const raMJ = ((24 * 60) / Math.PI) * 0.082 * dr * (ws * Math.sin(phi) * Math.sin(delta) + Math.cos(phi) * Math.cos(delta) * Math.sin(ws));
  return { extraterrestrialWh: (raMJ * 1e6) / 3600, dayHours: (24 / Math.PI) * ws };
}

/** Sum of the FAO-56 day lengths of a month [h]. */
function monthDayHours(latitudeDeg: number, month: number): number {
  let hours = 0;
  for (let day = FIRST_DAY[month]!; day < FIRST_DAY[month]! + MONTH_LENGTHS[month]!; day++) hours += fao56Day(latitudeDeg, day).dayHours;
  return hours;
}

test('flat DEM with Daymet, two years: every real-sky monthly sum is the mean of the month’s Σ srad × dayl within 1 %; topo_radiation=realsky uses them for S_i', async () => {
  const z = 2400;
  const demPath = await syntheticDem(dir, 'flat', 12, 12, () => z);
  const out = join(dir, 'flat-out');
  const result = await runEemtWorkflow({
    demPath,
    outDir: out,
    cacheDir: join(dir, 'cache'),
    daymetBaseUrl: bed.server().url,
    params: { ...testParams(2019, 2020), topo_radiation: 'realsky' },
  });
  assert.ok(result.realSky.made);
  const files = listFiles(out);
  for (const month of MONTH_NAMES) {
    for (const path of [`global/monthly_realsky/total_sun_${month}_sum.tif`, `global/monthly_realsky/flat_total_sun_${month}_sum.tif`]) {
      assert.ok(files.includes(path) && result.files.includes(path), path);
    }
  }
  // the beam parts of the monthly sums were working files: gone, and never listed
  assert.ok(!existsSync(join(out, '.beam-parts')));
  assert.ok(!result.files.some((f) => f.startsWith('.beam-parts')));
  assert.deepEqual(result.files, files);

  const csvs = files.filter((f) => f.startsWith('daymet/') && f.endsWith('.csv'));
  assert.equal(csvs.length, 2, 'the DEM lies in one Daymet cell: one CSV per year');
  // the mean of the two years' sums
  const [first, second] = csvs.map((csv) => observedMonthlySums(readFileSync(join(out, csv), 'utf8')));
  const observed = first!.map((sum, m) => (sum + second![m]!) / 2);
  assert.ok(first!.some((sum, m) => Math.abs(sum / second![m]! - 1) > 0.02), 'the years differ');
  for (let month = 0; month < 12; month++) {
    for (const path of [`global/monthly_realsky/total_sun_${MONTH_NAMES[month]}_sum.tif`, `global/monthly_realsky/flat_total_sun_${MONTH_NAMES[month]}_sum.tif`]) {
      const values = await readValues(out, path);
      for (let i = 0; i < values.length; i++) {
        assert.ok(Math.abs(values[i]! / observed[month]! - 1) < 0.01, `${path} cell ${i}: ${values[i]} vs srad × dayl ${observed[month]}`);
      }
    }
    // real skies are darker than the clear sky of the engine
    const clear = await readValues(out, `global/monthly/total_sun_${MONTH_NAMES[month]}_sum.tif`);
    assert.ok(observed[month]! < clear[0]!, `${MONTH_NAMES[month]}: observed ${observed[month]} vs clear ${clear[0]}`);
  }
  // the synthetic Daymet's days are clear (K_T 0.7) or cloudy (0.4): more diffuse than the clear sky's in some months
  assert.ok(result.realSky.diffuseCoefficient.aboveOne > 0);
  assert.ok(result.realSky.beamCoefficient.max < 1);

  // EEMT_Topo of July from the written grids with S_topo = S_flat = the real-sky horizontal sums is the map written
  const read = (name: string) => readValues(out, name);
  const realSky = await read('global/monthly_realsky/flat_total_sun_jul_sum.tif');
  const twi = await read('topo/twi.tif');
  const meanTwi = stats(twi).mean;
  const elevation = new Float64Array(realSky.length).fill(z);
  const expected = eemtTopoMonth(7, {
    tmaxC: await read('daymet/tmax/tmax_2020_jul.tif'),
    tminC: await read('daymet/tmin/tmin_2020_jul.tif'),
    prcpMm: await read('daymet/prcp/prcp_2020_jul.tif'),
    vpPa: await read('daymet/vp/vp_2020_jul.tif'),
    elevationM: elevation,
    referenceElevationM: elevation,
    topographicRadiationWhM2: realSky,
    flatRadiationWhM2: realSky,
    wetnessRatio: twi.map((v) => v / meanTwi),
    northness: new Float64Array(realSky.length),
  });
  const written = await read('eemt/EEMT_Topo_jul_2020.tif');
  for (let i = 0; i < written.length; i++) {
    assert.ok(Math.abs(written[i]! - expected.eemtMJ[i]!) <= 1e-4 * expected.eemtMJ[i]!, `cell ${i}: ${written[i]} vs ${expected.eemtMJ[i]}`);
  }

  const metadata = JSON.parse(execFileSync('gdalinfo', ['-json', join(out, 'global/monthly_realsky/total_sun_jul_sum.tif')], { encoding: 'utf8' })).metadata[''];
  assert.equal(metadata.UNITS, 'Wh m-2 month-1');
  assert.equal(metadata.MONTH, '7');
  assert.equal(metadata.EEMT_TOPO_RADIATION, 'realsky');
  assert.match(metadata.OBSERVED_RADIATION, /Daymet V4 srad x dayl .*Erbs et al\. \(1982\)/);
  const readme = readFileSync(join(out, 'README.txt'), 'utf8');
  assert.match(readme, /global\/monthly_realsky\/total_sun_\{mon\}_sum\.tif +Wh m-2 month-1 +monthly REAL-SKY global irradiation .*S_topo of EEMT-TOPO/);
  assert.match(readme, /c_b: mean [\d.]+, min [\d.]+, max [\d.]+, above 1 in 0 cell-months; c_d: mean [\d.]+, min [\d.]+, max [\d.]+, above 1 in [1-9]\d* cell-months/);
  assert.match(readme, /topo_radiation = realsky: S_topo = real-sky global radiation/);
});

test('real terrain under a dark sky (c_b, c_d ≤ 1): the real-sky sums never exceed the clear-sky sums; the horizontal ones are srad × the day lengths', async () => {
  const work = mkdtempSync(join(dir, 'alps-'));
  const demPath = europeDem(work, 24, 20);
  const latitude = 45.956;
  // a dark sky: the month's irradiation is 0.3 of the extraterrestrial (FAO-56), as a flux over the daylight period
  const darkFlux = (month: number) => {
    let extraterrestrial = 0;
    for (let day = FIRST_DAY[month - 1]!; day < FIRST_DAY[month - 1]! + MONTH_LENGTHS[month - 1]!; day++) extraterrestrial += fao56Day(latitude, day).extraterrestrialWh;
    return (0.3 * extraterrestrial) / monthDayHours(latitude, month - 1);
  };
  const files = climateFiles(work, 'climatology', { srad: true, tweak: (variable, month, v) => (variable === 'srad' ? darkFlux(month) : v) });
  const zip = await zipOf(join(work, 'dark.zip'), files);
  const out = join(work, 'out');
  // a turbid clear sky (Linke 7) has much diffuse: the dark sky's diffuse stays below it
  const result = await runEemtWorkflow({
    demPath,
    outDir: out,
    climateFile: zip,
    params: { step: 60, linke_value: 7, albedo_value: 0.2, num_threads: 2, start_year: 2020, end_year: 2020, topo_radiation: 'shaded' },
  });
  assert.ok(result.realSky.made);
  assert.ok(result.realSky.beamCoefficient.max <= 1 && result.realSky.diffuseCoefficient.max <= 1, JSON.stringify(result.realSky));
  assert.ok(result.realSky.beamCoefficient.min > 0);
  const dem = await readDem(demPath);
  const slope = await readValues(out, 'topo/slope.tif');
  assert.ok(stats(slope).max > 20, 'steep cells');
  let below = 0;
  for (let month = 0; month < 12; month++) {
    const real = await readValues(out, `global/monthly_realsky/total_sun_${MONTH_NAMES[month]}_sum.tif`);
    const clear = await readValues(out, `global/monthly/total_sun_${MONTH_NAMES[month]}_sum.tif`);
    const flat = await readValues(out, `global/monthly_realsky/flat_total_sun_${MONTH_NAMES[month]}_sum.tif`);
    const expectedFlat = darkFlux(month + 1) * (1 + (0.01 * (7.7095 - 7.6)) / 0.25) * monthDayHours(latitude, month);
    for (let i = 0; i < real.length; i++) {
      if (Number.isNaN(dem.elevation[i]!)) continue;
      assert.ok(real[i]! <= clear[i]! * (1 + 1e-6), `${MONTH_NAMES[month]} cell ${i}: real ${real[i]} above clear ${clear[i]}`);
      if (real[i]! < 0.8 * clear[i]!) below++;
      assert.ok(Math.abs(flat[i]! / expectedFlat - 1) < 0.01, `${MONTH_NAMES[month]} cell ${i}: horizontal ${flat[i]} vs srad × day lengths ${expectedFlat}`);
    }
  }
  assert.ok(below > 0.9 * 12 * dem.validCount, `${below} cell-months well below the clear sky`);
  const readme = readFileSync(join(out, 'README.txt'), 'utf8');
  assert.match(readme, /Observed radiation: the climate file's srad, the mean flux over the daylight period \[W m-2\]/);
  assert.match(readme, /srad_07\.tif {2}sha256 [0-9a-f]{64}/);
});

test('a climate file without srad: no real-sky maps (README.txt says why); topo_radiation=realsky is refused before the solar phase', async () => {
  const work = mkdtempSync(join(dir, 'nosrad-'));
  const demPath = europeDem(work, 12, 10);
  const zip = await zipOf(join(work, 'plain.zip'), climateFiles(work, 'climatology'));
  const params = { step: 60, linke_value: 3, albedo_value: 0.2, num_threads: 2, start_year: 2020, end_year: 2020 };

  const out = join(work, 'out');
  const result = await runEemtWorkflow({ demPath, outDir: out, climateFile: zip, params });
  assert.equal(result.realSky.made, false);
  assert.ok(!listFiles(out).some((f) => f.startsWith('global/monthly_realsky/') || f.startsWith('.beam-parts/')));
  assert.match(readFileSync(join(out, 'README.txt'), 'utf8'), /\* Real-sky radiation \(global\/monthly_realsky\/\): NOT made: the climate file has no srad grids/);

  const refused = join(work, 'refused');
  await assert.rejects(runEemtWorkflow({ demPath, outDir: refused, climateFile: zip, params: { ...params, topo_radiation: 'realsky' } }), (error: unknown) => {
    assert.ok(error instanceof ClimateInputError);
    assert.match(error.message, /^topo_radiation=realsky needs the climate's observed shortwave radiation, but the climate file has no srad grids .*; add it, or choose topo_radiation unshaded or shaded$/);
    return true;
  });
  assert.ok(!existsSync(join(refused, 'global')), 'no solar work');

  const cliOut = join(work, 'cli');
  const run = spawnSync(process.execPath, [join(root, 'bin/eemt.js'), 'eemt', demPath, '--out', cliOut, '--climate-file', zip, '--topo-radiation', 'realsky', '--step', '60'], {
    encoding: 'utf8',
  });
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /^eemt: topo_radiation=realsky needs the climate's observed shortwave radiation, but the climate file has no srad grids/m);
  assert.equal(existsSync(join(cliOut, 'global')), false);
});

// the monthly real-sky maps are written as whole-map GeoTIFFs; their values stay finite on valid cells
test('real-sky maps keep the DEM grid and its nodata', async () => {
  const work = mkdtempSync(join(dir, 'nodata-'));
  const template = await syntheticDem(work, 'hill', 10, 10, (col, row) => 2400 + 5 * col + 3 * row);
  const { grid, elevation } = await readDem(template);
  elevation[12] = NaN;
  const demPath = join(work, 'hill-nodata.tif');
  writeFloat32GeoTiffSync(demPath, grid, elevation);
  const out = join(work, 'out');
  await runEemtWorkflow({ demPath, outDir: out, cacheDir: join(dir, 'cache'), daymetBaseUrl: bed.server().url, params: testParams(2020) });
  const real = await readValues(out, 'global/monthly_realsky/total_sun_jan_sum.tif');
  assert.ok(Number.isNaN(real[12]!));
  assert.ok(real.every((v, i) => i === 12 || (Number.isFinite(v) && v > 0)));
});
