// Needs: gdal
/**
 * eemt with `products`: its own products (EEMT, terrain, climate, real-sky and flat-surface maps) are always written,
 * with the same values as a run without the parameter; only the solar products chosen stay, and the monthly sums it
 * needs are computed all the same (and removed at the end when not chosen). Local synthetic Daymet, a 20 × 16 crop.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runEemtWorkflow } from '../../../src/workflows/eemt/index.js';
import { cropMcn, daymetTestBed, listFiles, readValues, testParams } from './helpers.js';

const bed = daymetTestBed('eemt-products-');

async function run(name: string, products?: string) {
  const outDir = join(bed.dir, name);
  const result = await runEemtWorkflow({
    demPath: cropMcn(bed.dir, 100, 100, 20, 16),
    outDir,
    cacheDir: join(bed.dir, 'cache'),
    daymetBaseUrl: bed.server().url,
    params: { ...testParams(2020), ...(products !== undefined ? { products } : {}) },
  });
  return { outDir, result, files: listFiles(outDir) };
}

/** The run without the parameter, made once for both tests. */
let withoutParameter: ReturnType<typeof run> | null = null;
const runWithoutParameter = () => (withoutParameter ??= run('all'));

const isSolar = (rel: string) => /^(global\/daily|insol\/daily)\//.test(rel) || /^global\/monthly\/total_sun_[a-z]{3}_sum\.tif$/.test(rel);

test('eemt with products=daily:172: the same EEMT and other maps as without the parameter, one daily map and no monthly sums kept', { timeout: 300_000 }, async () => {
  const all = await runWithoutParameter();
  const chosen = await run('daily-172', 'daily:172');
  assert.deepEqual(chosen.files, [...chosen.result.files].sort(), 'the result lists exactly the files on disk');
  const own = all.files.filter((rel) => !isSolar(rel));
  assert.deepEqual(
    chosen.files.filter((rel) => rel !== 'README.txt'),
    [...own.filter((rel) => rel !== 'README.txt'), 'global/daily/total_sun_day_172.tif'].sort(),
    'every eemt product, the one daily map, no monthly sum and no working file',
  );
  assert.ok(own.some((rel) => rel.startsWith('eemt/EEMT_Topo_')) && own.some((rel) => rel.startsWith('global/monthly/flat_')));
  for (const rel of own.filter((rel) => rel.endsWith('.tif'))) {
    assert.deepEqual(await readValues(chosen.outDir, rel), await readValues(all.outDir, rel), rel);
  }
  assert.deepEqual(await readValues(chosen.outDir, 'global/daily/total_sun_day_172.tif'), await readValues(all.outDir, 'global/daily/total_sun_day_172.tif'));
  const readme = readFileSync(join(chosen.outDir, 'README.txt'), 'utf8');
  assert.match(readme, /^Solar products written: daily:172 \(the monthly sums .* were computed for the maps above, not kept\)$/m);
  assert.match(readme, /global\/daily\/total_sun_day_\{172\}\.tif/);
  assert.doesNotMatch(readme, /insol\/daily\/hours_sun_day_/);
  assert.match(readFileSync(join(all.outDir, 'README.txt'), 'utf8'), /^Solar products written: monthly,daily,hours$/m);
  // the solar GeoTIFFs record the selection; the EEMT maps are those of a run without it
  const info = JSON.parse(execFileSync('gdalinfo', ['-json', join(chosen.outDir, 'global/daily/total_sun_day_172.tif')], { encoding: 'utf8' }));
  assert.equal(info.metadata['']['PRODUCTS'], 'daily:172');
});

test('eemt with products=monthly: the 12 monthly sums and the EEMT maps, no daily map', { timeout: 300_000 }, async () => {
  const monthly = await run('monthly', 'monthly');
  assert.equal(monthly.files.filter((rel) => /^(global|insol)\/daily\//.test(rel)).length, 0);
  assert.equal(monthly.files.filter((rel) => /^global\/monthly\/total_sun_[a-z]{3}_sum\.tif$/.test(rel)).length, 12);
  assert.equal(monthly.files.filter((rel) => /^eemt\/EEMT_(Topo|Trad)_annual_2020\.tif$/.test(rel)).length, 2);
  const all = (await runWithoutParameter()).outDir;
  for (const rel of ['eemt/EEMT_Topo_annual_2020.tif', 'eemt/EEMT_Trad_annual_2020.tif', 'global/monthly/total_sun_jul_sum.tif']) {
    assert.deepEqual(await readValues(monthly.outDir, rel), await readValues(all, rel), rel);
  }
});
