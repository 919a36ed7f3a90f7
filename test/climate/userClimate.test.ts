// Needs: gdal
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import yazl from 'yazl';
import {
  ClimateArchive,
  ClimateInputError,
  checkUserClimate,
  openUserClimate,
  sourcePixelPositions,
  bilinearAtPositions,
  DEFAULT_ARCHIVE_LIMITS,
} from '../../src/climate/index.js';
import { readDem, readRaster } from '../../src/raster/index.js';
import { monthGeometry, monthlyDiffuseWhM2 } from '../../src/science/solar/realSky.js';
import { ALPS_LONLAT_GRID, alpineMonth, alpineRadiation, climateFiles, europeDem, writeGrid, zipOf } from '../helpers/climateGrids.js';

let work = '';
let demPath = '';
let series: Record<string, string> = {};

before(() => {
  work = mkdtempSync(join(tmpdir(), 'user-climate-'));
  demPath = europeDem(work);
  series = climateFiles(work, 'time-series', { years: [2020] });
});
after(() => rmSync(work, { recursive: true, force: true }));

async function refusal(zip: string, years = [2020]): Promise<ClimateInputError> {
  const dem = await readDem(demPath);
  const error = await checkUserClimate(zip, dem, years).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(error instanceof ClimateInputError, `expected a ClimateInputError, got ${String(error)}`);
  return error;
}

test('reprojection to the DEM grid matches gdalwarp -r bilinear (UTM DEM, geographic grid with a curved field)', async () => {
  const dem = await readDem(europeDem(work, 60, 50, 'large.tif'));
  const field = (x: number, y: number) => 100 * Math.sin(20 * x) + 50 * Math.cos(30 * y) + 3 * x * y;
  const source = writeGrid(join(work, 'field.tif'), { ...ALPS_LONLAT_GRID, cell: 0.002, cols: 125, rows: 100 }, field);
  const warped = join(work, 'warped.tif');
  const [x0, , , y0] = dem.grid.geoTransform;
  execFileSync('gdalwarp', ['-q', '-r', 'bilinear', '-t_srs', 'EPSG:32632', '-te', String(x0), String(y0 - 500), String(x0 + 600), String(y0), '-ts', '60', '50', source, warped]);
  const oracle = (await readRaster(warped)).values;
  const raster = await readRaster(source);
  const ours = bilinearAtPositions(raster.values, raster.grid.width, raster.grid.height, sourcePixelPositions(dem.grid, raster.grid, dem.elevation));
  let worst = 0;
  for (let i = 0; i < ours.length; i++) worst = Math.max(worst, Math.abs(ours[i]! - oracle[i]!));
  // values span about ±150; gdalwarp works in float32 and approximates the transform (0.125 px by default)
  assert.ok(worst < 0.05, `largest difference from gdalwarp ${worst}`);
});

test('a time series is read month by month onto the DEM, with checksums of every file', async () => {
  const zip = await zipOf(join(work, 'series.zip'), series);
  const dem = await readDem(demPath);
  const source = await checkUserClimate(zip, dem, [2020]);
  assert.equal(source.type, 'user');
  if (source.type !== 'user') return;
  assert.equal(source.layout, 'time-series');
  assert.equal(source.files.length, 48);
  assert.equal(source.elevation, null);
  const tmin = source.files.find((f) => f.name === 'tmin_2020_07.tif')!;
  assert.equal(tmin.sha256, createHash('sha256').update(readFileSync(series['tmin_2020_07.tif']!)).digest('hex'));
  assert.equal(source.archive.sha256, createHash('sha256').update(readFileSync(zip)).digest('hex'));

  const climate = await openUserClimate(zip, dem, [2020]);
  try {
    const july = await climate.monthAt(2020, 6);
    // west–east gradient of 1 % over the 0.25° grid; the DEM sits near 7.71° E
    const expected = alpineMonth(7).tmax * (1 + 0.01 * (7.7095 - 7.6) / 0.25);
    assert.ok(Math.abs(july.tmax[0]! - expected) < 0.01, `tmax ${july.tmax[0]} expected ${expected}`);
    assert.equal(climate.lapseAdjusted, false);
    assert.equal(climate.referenceElevationM, dem.elevation);
  } finally {
    climate.close();
  }
});

test('WorldClim names: vapr in kPa becomes Pa, prec is precipitation, the elevation grid is the reference', async () => {
  const files = climateFiles(join(work), 'worldclim', { elevation: 1500 });
  const zip = await zipOf(join(work, 'wc.zip'), Object.fromEntries(Object.entries(files).map(([k, v]) => [`wc2.1_10m/${k}`, v])));
  const dem = await readDem(demPath);
  const climate = await openUserClimate(zip, dem, [2020, 2021]);
  try {
    assert.equal(climate.layout.naming, 'worldclim');
    assert.equal(climate.lapseAdjusted, true);
    assert.ok(Math.abs(climate.referenceElevationM[5]! - 1500) < 1e-3);
    const jan = await climate.monthAt(2021, 0);
    assert.ok(Math.abs(jan.vp[0]! / (alpineMonth(1).vp * (1 + 0.01 * 0.438)) - 1) < 1e-3, `vp ${jan.vp[0]} Pa`);
    assert.ok(Math.abs(jan.prcp[0]! / (alpineMonth(1).prcp * (1 + 0.01 * 0.438)) - 1) < 1e-3);
  } finally {
    climate.close();
  }
});

test('a missing month is named', async () => {
  const { ['tmax_2020_03.tif']: _gone, ...rest } = series;
  const error = await refusal(await zipOf(join(work, 'missing.zip'), rest));
  assert.equal(error.code, 'MISSING');
  assert.match(error.message, /lacks 1 grid needed for the years 2020–2020: tmax_2020_03\.tif/);
  const years = await refusal(await zipOf(join(work, 'series2.zip'), series), [2020, 2021]);
  assert.match(years.message, /lacks 48 grids .*tmin_2021_01\.tif/);
});

test('a grid that does not cover the DEM names the uncovered area', async () => {
  const dir = mkdtempSync(join(work, 'east-'));
  const east = climateFiles(dir, 'climatology', { grid: { ...ALPS_LONLAT_GRID, west: 7.712 } });
  const error = await refusal(await zipOf(join(work, 'east.zip'), east));
  assert.equal(error.code, 'COVERAGE');
  assert.match(error.message, /tmin_01\.tif does not cover the DEM: \d+ of 320 DEM cells, 45\.95\d°N–45\.95\d°N 7\.710°E–7\.712°E lie outside/);
});

test('temperatures in kelvin and a vapour pressure in kPa are caught', async () => {
  const dir = mkdtempSync(join(work, 'k-'));
  const kelvin = climateFiles(dir, 'climatology', { tweak: (v, m, x) => (v === 'tmax' && m === 4 ? x + 273.15 : x) });
  const error = await refusal(await zipOf(join(work, 'kelvin.zip'), kelvin));
  assert.equal(error.code, 'UNITS');
  assert.match(error.message, /tmax_04\.tif has values of 2\d\d–2\d\d on the DEM: these look like kelvin/);

  const dir2 = mkdtempSync(join(work, 'kpa-'));
  const kpa = climateFiles(dir2, 'climatology', { tweak: (v, _m, x) => (v === 'vp' ? x / 1000 : x) });
  const error2 = await refusal(await zipOf(join(work, 'kpa.zip'), kpa));
  assert.match(error2.message, /vp_01\.tif has vapour pressures of 0\.\d+–0\.\d+, which look like kPa; vp grids must be in Pa/);
});

/** Day length [h] of day `day` at latitude [deg] by FAO-56 Eqs. 24, 25, 34 (not the code's Duffie & Beckman formulas). */
function fao56DayLength(latitudeDeg: number, day: number): number {
  const phi = (latitudeDeg * Math.PI) / 180;
  const delta = 0.409 * Math.sin((2 * Math.PI * day) / 365 - 1.39);
  return (24 / Math.PI) * Math.acos(-Math.tan(phi) * Math.tan(delta));
}

test('srad grids give the observed radiation: W m-2 over the day lengths, WorldClim kJ m-2 day-1 over the days, split by Erbs', async () => {
  const dir = mkdtempSync(join(work, 'srad-'));
  const files = climateFiles(dir, 'time-series', { years: [2020], srad: true });
  const zip = await zipOf(join(work, 'srad.zip'), files);
  const dem = await readDem(demPath);
  const source = await checkUserClimate(zip, dem, [2020]);
  assert.ok(source.type === 'user' && source.radiation === true);
  assert.equal(source.files.length, 60);
  assert.ok(source.files.some((f) => f.name === 'srad_2020_07.tif'));
  // the DEM's first cell: about 45.9569° N, 1 % gradient at 0.438 of the grid's width
  const gradient = 1 + 0.01 * 0.438;
  const latitude = 45.9569;
  const climate = await openUserClimate(zip, dem, [2020]);
  try {
    assert.ok(climate.radiation.available);
    if (!climate.radiation.available) return;
    assert.match(climate.radiation.description, /W m-2.*day lengths.*Erbs et al\. \(1982\)/);
    const july = await climate.radiation.radiationAt(2020, 6);
    let dayHours = 0;
    for (let day = 182; day <= 212; day++) dayHours += fao56DayLength(latitude, day);
    const expected = alpineRadiation(7).flux * gradient * dayHours;
    assert.ok(Math.abs(july.globalWhM2[0]! / expected - 1) < 0.005, `H ${july.globalWhM2[0]} Wh m-2, expected ${expected}`);
    // the monthly Erbs correlation at the month's clearness (validated against Duffie & Beckman elsewhere)
    const diffuse = monthlyDiffuseWhM2(july.globalWhM2[0]!, monthGeometry((latitude * Math.PI) / 180, 6));
    assert.ok(Math.abs(july.diffuseWhM2[0]! / diffuse - 1) < 1e-3);
    assert.ok(july.diffuseWhM2[0]! > 0.2 * july.globalWhM2[0]! && july.diffuseWhM2[0]! < 0.7 * july.globalWhM2[0]!);
  } finally {
    climate.close();
  }

  const wcDir = mkdtempSync(join(work, 'wc-srad-'));
  const wc = await zipOf(join(work, 'wc-srad.zip'), climateFiles(wcDir, 'worldclim', { srad: true }));
  const wcClimate = await openUserClimate(wc, dem, [2020]);
  try {
    assert.ok(wcClimate.radiation.available);
    if (!wcClimate.radiation.available) return;
    const january = await wcClimate.radiation.radiationAt(2020, 0);
    // kJ m-2 day-1 → Wh m-2: × 1000 / 3600, × 31 days
    const expected = ((alpineRadiation(1).daily * gradient * 1000) / 3600) * 31;
    assert.ok(Math.abs(january.globalWhM2[0]! / expected - 1) < 1e-3, `H ${january.globalWhM2[0]} Wh m-2, expected ${expected}`);
  } finally {
    wcClimate.close();
  }
});

test('without srad grids there is no observed radiation; srad for some months only is refused, as are srad grids in the wrong unit', async () => {
  const dem = await readDem(demPath);
  const climate = await openUserClimate(await zipOf(join(work, 'plain.zip'), series), dem, [2020]);
  try {
    assert.equal(climate.radiation.available, false);
    assert.ok(!climate.radiation.available && /no srad grids/.test(climate.radiation.reason));
    assert.ok(climate.source.type === 'user' && climate.source.radiation === false);
  } finally {
    climate.close();
  }
  const dir = mkdtempSync(join(work, 'some-srad-'));
  const some = await refusal(await zipOf(join(work, 'some-srad.zip'), climateFiles(dir, 'climatology', { srad: [1, 2, 3] })));
  assert.equal(some.code, 'MISSING');
  assert.match(some.message, /has srad grids for some months but lacks 9: srad_04\.tif, srad_05\.tif/);
  const kj = mkdtempSync(join(work, 'kj-srad-'));
  const wrongUnit = await refusal(
    await zipOf(join(work, 'kj-srad.zip'), climateFiles(kj, 'climatology', { srad: true, tweak: (v, m, x) => (v === 'srad' ? alpineRadiation(m).daily : x) })),
  );
  assert.equal(wrongUnit.code, 'UNITS');
  assert.match(wrongUnit.message, /srad_01\.tif has values of .* these look like a daily irradiation \(kJ m-2 day-1\); srad grids must be the flux averaged over the daylight period in W m-2/);
});

test('a member that is not a GeoTIFF, an unknown member and mixed layouts are refused', async () => {
  const bad = await refusal(await zipOf(join(work, 'text.zip'), { ...series, 'prcp_2020_05.tif': Buffer.from('not a raster at all') }));
  assert.equal(bad.code, 'NOT_GEOTIFF');
  assert.match(bad.message, /^climate_file: prcp_2020_05\.tif is not a usable GeoTIFF: .*; each climate grid must be a single-band GeoTIFF \(\.tif\)$/);
  assert.doesNotMatch(bad.message, /DEM/, 'a climate grid is not called a DEM');
  const unknown = await refusal(await zipOf(join(work, 'unknown.zip'), { ...series, 'notes.txt': Buffer.from('hello') }));
  assert.match(unknown.message, /unexpected file notes\.txt/);
  const mixed = await refusal(await zipOf(join(work, 'mixed.zip'), { ...series, 'tmin_01.tif': series['tmin_2020_01.tif']! }));
  assert.match(mixed.message, /mixes layouts/);
});

async function zipBytes(add: (zip: yazl.ZipFile) => void): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  add(zip);
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

test('ZIP bombs, lying sizes, traversal and links are refused before or while inflating', async () => {
  // 64 MiB of zeros deflate about 1000-fold
  const bomb = join(work, 'bomb.zip');
  writeFileSync(bomb, await zipBytes((z) => z.addBuffer(Buffer.alloc(64 * 1024 ** 2), 'tmin_01.tif')));
  await assert.rejects(ClimateArchive.open(bomb), /tmin_01\.tif expands \d+× \(more than 1000×\): a ZIP bomb/);
  await assert.rejects(ClimateArchive.open(bomb, { ...DEFAULT_ARCHIVE_LIMITS, maxEntryBytes: 1024 ** 2 }), /is 64 MiB uncompressed, more than the limit of 1\.0 MiB per file/);

  // the central directory claims 1000 bytes, the data inflates to 4000
  const honest = await zipBytes((z) => z.addBuffer(Buffer.alloc(4000, 7), 'tmin_02.tif', { compress: true }));
  const lying = Buffer.from(honest);
  const central = lying.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
  lying.writeUInt32LE(1000, central + 24);
  const local = lying.indexOf(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
  lying.writeUInt32LE(1000, local + 22);
  writeFileSync(join(work, 'lying.zip'), lying);
  const archive = await ClimateArchive.open(join(work, 'lying.zip'));
  try {
    await assert.rejects(archive.read('tmin_02.tif'), /climate_file is not an acceptable ZIP archive: tmin_02\.tif/);
  } finally {
    archive.close();
  }

  const traversal = Buffer.from(await zipBytes((z) => z.addBuffer(Buffer.from('x'), 'ab/tmin_03.tif')));
  let at = 0;
  while ((at = traversal.indexOf('ab/tmin_03', at)) >= 0) traversal.write('../tmin_03', at);
  writeFileSync(join(work, 'traversal.zip'), traversal);
  await assert.rejects(ClimateArchive.open(join(work, 'traversal.zip')), /climate_file is not a readable ZIP archive: invalid relative path: \.\.\/tmin_03\.tif/);

  writeFileSync(join(work, 'link.zip'), await zipBytes((z) => z.addBuffer(Buffer.from('/etc/passwd'), 'tmin_04.tif', { mode: 0o120777 })));
  await assert.rejects(ClimateArchive.open(join(work, 'link.zip')), /tmin_04\.tif is a symbolic link/);

  writeFileSync(join(work, 'notzip.zip'), 'plain text, not a zip');
  await assert.rejects(ClimateArchive.open(join(work, 'notzip.zip')), /climate_file is not a readable ZIP archive/);
  const many = join(work, 'many.zip');
  writeFileSync(many, await zipBytes((z) => { for (let i = 0; i < 20; i++) z.addBuffer(Buffer.from('x'), `f${i}.tif`); }));
  await assert.rejects(ClimateArchive.open(many, { ...DEFAULT_ARCHIVE_LIMITS, maxEntries: 10 }), /it has 20 entries, more than the limit of 10/);
});
