// Needs: gdal
/**
 * The eemt workflow on synthetic terrain inside one Daymet cell (so every DEM cell has the same climate):
 * a flat DEM run through the CLI (S_i ≡ 1, T_topo ≡ T_lapse) and an east–west ridge (north-facing ≥
 * south-facing, aspect clockwise from true north); and a geographic (EPSG:4326) DEM with nodata.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createGeodesy, readDem, writeFloat32GeoTiffSync } from '../../../src/raster/index.js';
import { eemtTopoMonth } from '../../../src/science/eemt/index.js';
import { MONTH_NAMES } from '../../../src/workflows/solarYear/products.js';
import { runEemtWorkflow } from '../../../src/workflows/eemt/index.js';
import { translate } from '../../raster/gdal.js';
import { cropMcn, daymetTestBed, listFiles, readValues, stats, syntheticDem, testParams } from './helpers.js';

const execFileAsync = promisify(execFile);
const CLI = new URL('../../../src/cli/main.ts', import.meta.url).pathname;
const bed = daymetTestBed('eemt-synthetic');
const { dir } = bed;

test('flat DEM through the CLI: total_sun ≡ flat_total_sun, S_i ≡ 1, so EEMT_Topo uses the lapse temperature', async () => {
  const z = 2400;
  const demPath = await syntheticDem(dir, 'flat', 16, 16, () => z);
  const out = join(dir, 'flat-out');
  const { stdout } = await execFileAsync(
    process.execPath,
    ['--import', 'tsx', CLI, 'eemt', demPath, '--out', out, '--start-year', '2020', '--end-year', '2020', '--step', '60', '--threads', '2',
      '--cache', join(dir, 'cache'), '--daymet-url', bed.server().url],
    { env: { ...process.env, EEMT_DAYMET_URL: 'http://127.0.0.1:9' } },
  );
  assert.match(stdout, /^eemt: \d+ files in .* 256 cells, 2020, in [\d.]+ s; annual EEMT_Topo mean [\d.]+, EEMT_Trad mean [\d.]+ MJ m-2 yr-1 \(2020\)\n$/);
  assert.ok(listFiles(out).includes('eemt/EEMT_Topo_mean_2020-2020.tif'));

  for (let month = 0; month < 12; month++) {
    const topoSum = await readValues(out, `global/monthly/total_sun_${MONTH_NAMES[month]}_sum.tif`);
    const flatSum = await readValues(out, `global/monthly/flat_total_sun_${MONTH_NAMES[month]}_sum.tif`);
    for (let i = 0; i < topoSum.length; i++) {
      assert.ok(Math.abs(topoSum[i]! / flatSum[i]! - 1) < 1e-6, `${MONTH_NAMES[month]} cell ${i}: ${topoSum[i]} vs ${flatSum[i]}`);
    }
  }
  assert.equal(stats(await readValues(out, 'topo/slope.tif')).max, 0);
  assert.ok((await readValues(out, 'topo/aspect.tif')).every(Number.isNaN), 'flat cells have no aspect');

  // EEMT_Topo of July recomputed from the written grids with S_topo := S_flat (S_i = 1 exactly, so
  // Tmax' is the lapse temperature) equals the map the workflow wrote.
  const tmax = await readValues(out, 'daymet/tmax/tmax_2020_jul.tif');
  const tmin = await readValues(out, 'daymet/tmin/tmin_2020_jul.tif');
  const prcp = await readValues(out, 'daymet/prcp/prcp_2020_jul.tif');
  const vp = await readValues(out, 'daymet/vp/vp_2020_jul.tif');
  const flatSum = await readValues(out, 'global/monthly/flat_total_sun_jul_sum.tif');
  const twi = await readValues(out, 'topo/twi.tif');
  const meanTwi = stats(twi).mean;
  const elevation = new Float64Array(tmax.length).fill(z);
  const expected = eemtTopoMonth(7, {
    tmaxC: tmax,
    tminC: tmin,
    prcpMm: prcp,
    vpPa: vp,
    elevationM: elevation,
    referenceElevationM: elevation, // the grids are already lapse-adjusted
    topographicRadiationWhM2: flatSum,
    flatRadiationWhM2: flatSum,
    wetnessRatio: twi.map((v) => v / meanTwi),
    northness: new Float64Array(tmax.length),
  });
  const written = await readValues(out, 'eemt/EEMT_Topo_jul_2020.tif');
  for (let i = 0; i < written.length; i++) {
    assert.ok(Math.abs(written[i]! - expected.eemtMJ[i]!) <= 1e-4 * expected.eemtMJ[i]!, `cell ${i}: ${written[i]} vs ${expected.eemtMJ[i]}`);
  }
});

test('east–west ridge with equal climate: north-facing cells get at least the EEMT_Topo of their south-facing mirror', async () => {
  const width = 16;
  const height = 25;
  const crest = 12;
  const tan20 = Math.tan((20 * Math.PI) / 180);
  const demPath = await syntheticDem(dir, 'ridge', width, height, (_col, row) => 2500 - tan20 * 10 * Math.abs(row - crest));
  const out = join(dir, 'ridge-out');
  const result = await runEemtWorkflow({ demPath, outDir: out, cacheDir: join(dir, 'cache'), daymetBaseUrl: bed.server().url, params: testParams(2020) });
  assert.equal(result.diagnostics.negativeEnergyCellMonths, 0);
  assert.equal(result.diagnostics.aetOutOfBoundsCellMonths, 0);

  const topo = await readValues(out, 'eemt/EEMT_Topo_annual_2020.tif');
  const trad = await readValues(out, 'eemt/EEMT_Trad_annual_2020.tif');
  let northSum = 0;
  let southSum = 0;
  let pairs = 0;
  for (let k = 1; k <= crest; k++) {
    for (let col = 1; col < width - 1; col++) {
      const north = (crest - k) * width + col;
      const south = (crest + k) * width + col;
      assert.ok(topo[north]! >= topo[south]!, `k ${k} col ${col}: north ${topo[north]} < south ${topo[south]}`);
      assert.ok(Math.abs(trad[north]! - trad[south]!) < 0.01, 'TRAD has no aspect term');
      northSum += topo[north]!;
      southSum += topo[south]!;
      pairs++;
    }
  }
  const difference = (northSum - southSum) / pairs;
  // VZJ15 reports ≈ 5 MJ m-2 yr-1 between north and south aspects (eemt-model.md §5.1).
  assert.ok(difference > 2 && difference < 12, `north − south = ${difference}`);

  // Aspect clockwise from true north: grid north minus the meridian convergence (+0.95° here).
  const { grid } = await readDem(demPath);
  const convergenceDeg = (createGeodesy(grid).convergenceRad(width / 2, height / 2) * 180) / Math.PI;
  assert.ok(convergenceDeg > 0.8 && convergenceDeg < 1.1, `convergence ${convergenceDeg}`);
  const aspect = await readValues(out, 'topo/aspect.tif');
  const northFacing = aspect[5 * width + 8]!;
  const southFacing = aspect[20 * width + 8]!;
  assert.ok(Math.abs(northFacing - (360 - convergenceDeg)) < 0.02, `north-facing aspect ${northFacing}`);
  assert.ok(Math.abs(southFacing - (180 - convergenceDeg)) < 0.02, `south-facing aspect ${southFacing}`);
});

test('a geographic (EPSG:4326) DEM with nodata cells, Thornthwaite PET for TRAD: plausible maps, nodata kept', async () => {
  // mcn_10m elevations on a WGS 84 longitude/latitude grid of 0.0001° cells (≈ 9 × 11 m) over the same place.
  const crop = cropMcn(dir, 100, 100, 24, 24);
  const lonLat = translate(crop, join(dir, 'lonlat-assigned.tif'), ['-a_srs', 'EPSG:4326', '-a_ullr', '-106.6290', '35.8070', '-106.6266', '35.8046']);
  const { grid, elevation } = await readDem(lonLat);
  assert.equal(grid.crs.kind, 'geographic');
  // A nodata rim on the west edge and a hole in the middle.
  const demPath = join(dir, 'lonlat.tif');
  const hole = Math.floor(grid.height / 2) * grid.width + Math.floor(grid.width / 2);
  const holed = elevation.map((z, i) => (i % grid.width < 2 || i === hole ? NaN : z));
  writeFloat32GeoTiffSync(demPath, grid, holed);
  const dem = await readDem(demPath);
  assert.ok(dem.validCount < grid.width * grid.height - grid.height * 2);
  const out = join(dir, 'lonlat-out');
  const result = await runEemtWorkflow({
    demPath,
    outDir: out,
    cacheDir: join(dir, 'cache'),
    daymetBaseUrl: bed.server().url,
    params: testParams(2020),
    eemtOptions: { petMethod: 'thornthwaite' },
  });
  assert.equal(result.diagnostics.negativeEnergyCellMonths, 0);
  assert.equal(result.diagnostics.aetOutOfBoundsCellMonths, 0);
  assert.ok(Math.abs(result.diagnostics.wetnessRatio.mean - 1) < 1e-9);
  assert.match(await readFile(join(out, 'README.txt'), 'utf8'), /pet_method = thornthwaite: Thornthwaite \(1948/);
  const trad = stats(await readValues(out, 'eemt/EEMT_Trad_annual_2020.tif'));
  assert.ok(trad.validCells === dem.validCount && trad.min >= 0 && trad.max < 66 + 20, JSON.stringify(trad));
  for (const path of ['eemt/EEMT_Topo_annual_2020.tif', 'eemt/EEMT_Trad_mean_2020-2020.tif', 'topo/aspect.tif', 'daymet/tmax/tmax_2020_jun.tif']) {
    const values = await readValues(out, path);
    for (let i = 0; i < values.length; i++) {
      if (Number.isNaN(dem.elevation[i]!)) assert.ok(Number.isNaN(values[i]!), `${path} cell ${i} should be nodata`);
    }
  }
  const topo = stats(await readValues(out, 'eemt/EEMT_Topo_annual_2020.tif'));
  assert.equal(topo.validCells, dem.validCount);
  assert.ok(topo.min >= 2.2 && topo.max < 100 && topo.mean > 5, JSON.stringify(topo));
});
