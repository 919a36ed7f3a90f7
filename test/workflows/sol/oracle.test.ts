/**
 * Accuracy of the `sol` pipeline against the corrected r.sun oracle of mcn_10m (step 15 min, Linke 3,
 * albedo 0.2): r.sun's physics with its bugs fixed, traced along the exact sun azimuth at every sample.
 * Acceptance: per day p95 relative error ≤ 1 % and |bias| ≤ 0.5 %; sunshine hours mean absolute
 * difference ≤ 0.25 h; monthly and annual sums p95 ≤ 1 %.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDem, readRaster } from '../../../src/raster/index.js';
import { computeSolarYear } from '../../../src/workflows/solarYear/index.js';
import { MONTH_NAMES } from '../../../src/workflows/solarYear/products.js';
import { compareFiles, compareValues } from '../../helpers/compareRasters.js';

const fixtures = new URL('../../fixtures/', import.meta.url).pathname;
const oracle = join(fixtures, 'oracle/mcn_10m_corrected');
const ORACLE_DAYS = [1, 32, 80, 120, 172, 200, 266, 300, 355];
let out = '';
let files: string[] = [];

before(async () => {
  out = mkdtempSync(join(tmpdir(), 'sol-oracle-'));
  const dem = await readDem(join(fixtures, 'mcn_10m.tif'));
  const result = await computeSolarYear(dem, {
    outDir: out,
    params: { stepMinutes: 15, linkeTurbidity: 3, albedo: 0.2 },
    threads: 2,
  });
  files = result.files;
});

after(() => rmSync(out, { recursive: true, force: true }));

test('the pipeline writes exactly the spec products: 365 daily global, 365 daily hours, 12 monthly sums', () => {
  assert.equal(files.length, 742);
  assert.equal(readdirSync(join(out, 'global/daily')).length, 365);
  assert.equal(readdirSync(join(out, 'insol/daily')).length, 365);
  assert.deepEqual(readdirSync(join(out, 'global/monthly')).sort(), MONTH_NAMES.map((m) => `total_sun_${m}_sum.tif`).sort());
  for (const day of [1, 365]) {
    assert.ok(files.includes(`global/daily/total_sun_day_${day}.tif`));
    assert.ok(files.includes(`insol/daily/hours_sun_day_${day}.tif`));
  }
});

test('nodata cells of the DEM stay nodata in every product; every valid cell has a value', async () => {
  const dem = await readDem(join(fixtures, 'mcn_10m.tif'));
  for (const path of ['global/daily/total_sun_day_100.tif', 'insol/daily/hours_sun_day_100.tif', 'global/monthly/total_sun_jul_sum.tif']) {
    const raster = await readRaster(join(out, path));
    for (let i = 0; i < dem.elevation.length; i++) {
      assert.equal(Number.isNaN(raster.values[i]!), Number.isNaN(dem.elevation[i]!), `${path} cell ${i}`);
    }
  }
});

for (const day of ORACLE_DAYS) {
  test(`day ${day}: global within p95 1 % and bias 0.5 %, sunshine hours within 0.25 h of the corrected oracle`, async () => {
    const global = await compareFiles(join(out, `global/daily/total_sun_day_${day}.tif`), join(oracle, `glob_${day}.tif`));
    const hours = await compareFiles(join(out, `insol/daily/hours_sun_day_${day}.tif`), join(oracle, `hours_${day}.tif`));
    assert.equal(global.cells, 47_112, 'compared on the cells valid in both');
    assert.ok(global.p95Relative <= 0.01, `p95 ${global.p95Relative}`);
    assert.ok(Math.abs(global.bias) <= 0.005, `bias ${global.bias}`);
    assert.ok(hours.meanAbsolute <= 0.25, `hours MAD ${hours.meanAbsolute}`);
  });
}

test('monthly sums and their annual total within p95 1 % of the oracle', async () => {
  let annual: Float64Array | null = null;
  for (const month of MONTH_NAMES) {
    const ours = await readRaster(join(out, `global/monthly/total_sun_${month}_sum.tif`));
    const reference = await readRaster(join(oracle, `total_sun_${month}_sum.tif`));
    const c = compareValues(ours.values, reference.values);
    assert.ok(c.p95Relative <= 0.01, `${month} p95 ${c.p95Relative}`);
    assert.ok(Math.abs(c.bias) <= 0.005, `${month} bias ${c.bias}`);
    annual ??= new Float64Array(ours.values.length);
    for (let i = 0; i < annual.length; i++) annual[i]! += ours.values[i]!;
  }
  const reference = await readRaster(join(oracle, 'glob_annual.tif'));
  const c = compareValues(annual!, reference.values);
  assert.ok(c.p95Relative <= 0.01, `annual p95 ${c.p95Relative}`);
  assert.ok(Math.abs(c.bias) <= 0.005, `annual bias ${c.bias}`);
});

test('monthly sums equal the sums of the daily maps', async () => {
  const january = await readRaster(join(out, 'global/monthly/total_sun_jan_sum.tif'));
  const sum = new Float64Array(january.values.length);
  for (let day = 1; day <= 31; day++) {
    const daily = await readRaster(join(out, `global/daily/total_sun_day_${day}.tif`));
    for (let i = 0; i < sum.length; i++) sum[i]! += daily.values[i]!;
  }
  for (let i = 0; i < sum.length; i++) {
    if (Number.isNaN(sum[i]!)) continue;
    assert.ok(Math.abs(january.values[i]! - sum[i]!) <= 1e-6 * sum[i]! + 0.01, `cell ${i}`);
  }
});
