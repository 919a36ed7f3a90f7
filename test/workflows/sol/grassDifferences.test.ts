/**
 * Where and why the engine differs from raw GRASS r.sun 8.2.1 (test/fixtures/oracle/mcn_10m). The engine
 * runs here with r.sun's own azimuth reference (grid north) so that only the documented r.sun bugs remain
 * (docs/solar-model.md Part A, §9):
 *  - bug 9.8, "sticky NULL": a shadow ray that meets the NULL ring of the slope map (the DEM border and
 *    the neighbours of nodata cells) leaves the cell unshadowed for the rest of the day, so r.sun is too
 *    bright, with too many sunshine hours;
 *  - bug 9.6, inclined hour angle by atan instead of atan2: wrong on steep poleward slopes (q < 0);
 *  - bug 9.3, latitude at the cell corner: negligible (~1e-5).
 * Everywhere else the two agree.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGeodesy, readDem, readRaster } from '../../../src/raster/index.js';
import { hornGradient } from '../../../src/science/terrain/slopeAspect.js';
import { computeSolarYear } from '../../../src/workflows/solarYear/index.js';

const fixtures = new URL('../../fixtures/', import.meta.url).pathname;
const DAYS = [1, 172];
let out = '';
let poleward: Uint8Array;

before(async () => {
  out = mkdtempSync(join(tmpdir(), 'sol-grass-'));
  const dem = await readDem(join(fixtures, 'mcn_10m.tif'));
  await computeSolarYear(dem, {
    outDir: out,
    params: { stepMinutes: 15, linkeTurbidity: 3, albedo: 0.2 },
    threads: 2,
    days: DAYS,
    azimuthReference: 'grid-north',
  });
  // cells where r.sun's atan(p/q) is in the wrong quadrant: q = cos φ cos β − sin φ sin β cos A < 0
  const { width, height } = dem.grid;
  const gradient = hornGradient(dem.elevation, width, height, 10, 10);
  const phi = (createGeodesy(dem.grid).latLon(width / 2, height / 2).latDeg * Math.PI) / 180;
  poleward = new Uint8Array(width * height);
  for (let i = 0; i < poleward.length; i++) {
    const e = gradient.fallEast[i]!;
    const n = gradient.fallNorth[i]!;
    const beta = Math.atan(Math.hypot(e, n));
    const aspect = Math.atan2(e, n);
    poleward[i] = Math.cos(phi) * Math.cos(beta) - Math.sin(phi) * Math.sin(beta) * Math.cos(aspect) < 0 ? 1 : 0;
  }
});

after(() => rmSync(out, { recursive: true, force: true }));

for (const day of DAYS) {
  test(`day ${day}: every difference from raw r.sun beyond 0.5 % is a documented r.sun bug`, async () => {
    const ours = await readRaster(join(out, `global/daily/total_sun_day_${day}.tif`));
    const oursHours = await readRaster(join(out, `insol/daily/hours_sun_day_${day}.tif`));
    const raw = await readRaster(join(fixtures, `oracle/mcn_10m/glob_${day}.tif`));
    const rawHours = await readRaster(join(fixtures, `oracle/mcn_10m/hours_${day}.tif`));
    let compared = 0;
    let differing = 0;
    let atan2Cells = 0;
    let brighterInRsun = 0; // r.sun too bright with at least as many sunshine hours: sticky NULL
    let unexplained = 0;
    for (let i = 0; i < raw.values.length; i++) {
      const r = raw.values[i]!;
      const o = ours.values[i]!;
      if (!Number.isFinite(r) || !Number.isFinite(o) || r <= 0) continue;
      compared++;
      if (Math.abs(o - r) / r <= 0.005) continue;
      differing++;
      if (poleward[i] === 1) atan2Cells++;
      else if (r > o && rawHours.values[i]! >= oursHours.values[i]!) brighterInRsun++;
      else unexplained++;
    }
    assert.equal(compared, 47_112);
    // r.sun's NULL ring reaches many cells: thousands differ, and r.sun is the brighter one
    assert.ok(differing > 2_000, `differing ${differing}`);
    assert.ok(brighterInRsun >= 0.95 * (differing - atan2Cells), `sticky NULL ${brighterInRsun} of ${differing - atan2Cells}`);
    // what is left is the discretisation of our precomputed horizons (shadow timing off by one sample in
    // low winter sun), about 1 % of the cells; the corrected oracle shows the same cells
    assert.ok(unexplained <= 0.015 * compared, `unexplained ${unexplained}`);
    if (day === 172) assert.ok(atan2Cells >= 50, `atan2 cells ${atan2Cells}`);
    console.log(`day ${day}: ${differing} of ${compared} cells differ > 0.5 %: ${brighterInRsun} sticky NULL, ${atan2Cells} atan2, ${unexplained} other`);
  });
}
