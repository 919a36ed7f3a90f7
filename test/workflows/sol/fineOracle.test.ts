/**
 * Accuracy where a fixed horizon resolution fails: fine DEMs at low sun, high latitudes (polar night and
 * day) and the southern hemisphere. Each case is a small DEM made from mcn_10m (resampled to 2.5 m, 2 m or 1 m
 * and cut to a steep window, or the 10 m DEM placed at 69° N or 41° S; the 2 m window placed at 55° S, where the
 * winter sun stays low all day) with its corrected r.sun oracle for days 1,
 * 80, 172 and 355; and a few-day low-sun run (a 20 m DEM with 700 m of relief at 62° N, days 30, 80, 330 and 355,
 * the noon sun 4.6–28° high), which traces its near field at the samples instead of bounding it
 * (test/fixtures/README.md says how each was made).
 * Acceptance as for mcn_10m: per day p95 relative error of the daily global ≤ 1 %, |bias| ≤ 0.5 %, sunshine
 * hours mean absolute difference ≤ 0.25 h, on the cells valid in both.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDem, readRaster } from '../../../src/raster/index.js';
import { computeSolarYear } from '../../../src/workflows/solarYear/index.js';
import { compareFiles } from '../../helpers/compareRasters.js';

const fine = new URL('../../fixtures/oracle/fine/', import.meta.url).pathname;
const DAYS = [1, 80, 172, 355];
const CASES: readonly { name: string; what: string; days?: readonly number[] }[] = [
  { name: 'ne_2m5', what: '2.5 m, steep north-east window' },
  { name: 'ne_1m', what: '1 m, steep north-east window' },
  { name: 'arctic_10m', what: '10 m at 69° N (polar night on day 355, polar day on day 172)' },
  { name: 'south_10m', what: '10 m at 41° S' },
  { name: 'geo_2m5', what: '2.5 m window in geographic coordinates (NAD83, EPSG:4269)' },
  { name: 'south55_2m', what: '2 m window at 55° S (the noon sun 11.6° high on day 172)' },
  { name: 'north62_20m', what: '20 m, 700 m of relief at 62° N, a few low-sun days', days: [30, 80, 330, 355] },
];

for (const { name, what, days = DAYS } of CASES) {
  describe(`${name}: ${what}`, () => {
    let out = '';
    before(async () => {
      out = mkdtempSync(join(tmpdir(), `sol-fine-${name}-`));
      const dem = await readDem(join(fine, `${name}.tif`), { precision: 'float32', shared: true });
      await computeSolarYear(dem, { outDir: out, params: { stepMinutes: 15, linkeTurbidity: 3, albedo: 0.2 }, threads: 2, days: [...days] });
    });
    after(() => rmSync(out, { recursive: true, force: true }));

    for (const day of days) {
      test(`day ${day}: global p95 ≤ 1 %, |bias| ≤ 0.5 %, hours within 0.25 h of the oracle`, async () => {
        const reference = join(fine, name, `glob_${day}.tif`);
        const ours = join(out, `global/daily/total_sun_day_${day}.tif`);
        const hours = await compareFiles(join(out, `insol/daily/hours_sun_day_${day}.tif`), join(fine, name, `hours_${day}.tif`));
        const oracleValues = (await readRaster(reference)).values;
        const dark = oracleValues.every((v) => Number.isNaN(v) || v === 0);
        if (dark) {
          // Polar night: no beam, no diffuse from a sun below the horizon all day; compare absolutely.
          const values = (await readRaster(ours)).values;
          assert.ok(values.every((v) => Number.isNaN(v) || v === 0), 'polar night is dark everywhere');
        } else {
          const global = await compareFiles(ours, reference);
          console.log(`${name} day ${day}: p95 ${(global.p95Relative * 100).toFixed(3)} %, bias ${(global.bias * 100).toFixed(3)} %, hours MAD ${hours.meanAbsolute.toFixed(3)} h`);
          assert.ok(global.cells > 0.9 * oracleValues.length, `compared ${global.cells} cells`);
          assert.ok(global.p95Relative <= 0.01, `p95 ${global.p95Relative}`);
          assert.ok(Math.abs(global.bias) <= 0.005, `bias ${global.bias}`);
        }
        assert.ok(hours.meanAbsolute <= 0.25, `hours MAD ${hours.meanAbsolute}`);
      });
    }
  });
}
