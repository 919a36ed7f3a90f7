import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  prepareDaymetForDem,
  checkDaymetCoverage,
  downscaleDaymetMonthToDem,
  downscaleDaymetToDem,
} from '../../src/climate/daymetForDem.js';
import { ClimateCoverageError, ClimateDownloadError } from '../../src/climate/errors.js';
import { startDaymetServer } from '../helpers/daymetServer.js';
import { syntheticDaymetYear } from '../helpers/syntheticDaymet.js';
import { mcn10mGrid, parisGrid } from '../helpers/grids.js';
import { cooperDeclination, dailyExtraterrestrialHorizontalWhM2, erbsDailyDiffuseFraction, horizontalSunsetHourAngle } from '../../src/science/solar/realSky.js';

const YEARS = { start: 2018, end: 2019 };
const tempDirs: string[] = [];
async function tempCache(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'eemt-daymet-dem-'));
  tempDirs.push(dir);
  return dir;
}
after(async () => {
  await Promise.all(tempDirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** A synthetic DEM on the mcn_10m grid: 2300 m in the west rising to 2600 m in the east, one nodata cell. */
function demElevation(): Float64Array {
  const g = mcn10mGrid();
  const z = Float64Array.from({ length: g.width * g.height }, (_, i) => 2300 + (300 * (i % g.width)) / (g.width - 1));
  z[5] = Number.NaN;
  return z;
}

test('prepareDaymetForDem on mcn_10m: 9 cells, monthly aggregates, CSV files; the second run needs no request', async () => {
  const server = await startDaymetServer();
  try {
    const cacheDir = await tempCache();
    const grid = mcn10mGrid();
    const progress: number[] = [];
    const daymet = await prepareDaymetForDem(grid, YEARS, { baseUrl: server.url, cacheDir, onProgress: (p) => progress.push(p.pointsDone) });
    assert.equal(server.requests.length, 9);
    assert.ok(server.requests.every((r) => r.years === '2018,2019'));
    assert.deepEqual(daymet.years, [2018, 2019]);
    assert.equal(daymet.cells.length, 9);
    assert.equal(daymet.downloadedPoints, 9);
    assert.equal(daymet.nearestCellIndex.length, grid.width * grid.height);
    assert.equal(progress.at(-1), 9);
    assert.equal(daymet.csvFiles.length, 18);
    assert.deepEqual(daymet.csvFiles.slice(0, 2).map((f) => f.name), ['-576250_-687000/2018.csv', '-576250_-687000/2019.csv']);

    // Hand aggregation of cell 4 (the centre cell), July 2019 and February 2018, from the generator.
    const cell = daymet.cells[4]!;
    const d19 = syntheticDaymetYear(cell, 2019);
    const july = (v: Float64Array) => v.slice(181, 212);
    const sum = (v: Float64Array) => v.reduce((a, b) => a + b, 0);
    const m19 = daymet.monthly[1]!.months[6]!;
    assert.ok(Math.abs(m19.tmax[4]! - sum(july(d19.tmax)) / 31) < 1e-9);
    assert.ok(Math.abs(m19.tmin[4]! - sum(july(d19.tmin)) / 31) < 1e-9);
    assert.ok(Math.abs(m19.vp[4]! - sum(july(d19.vp)) / 31) < 1e-9);
    assert.ok(Math.abs(m19.prcp[4]! - sum(july(d19.prcp))) < 1e-9);
    const d18 = syntheticDaymetYear(cell, 2018);
    assert.ok(Math.abs(daymet.monthly[0]!.months[1]!.prcp[4]! - sum(d18.prcp.slice(31, 59))) < 1e-9);

    // The observed radiation: H = Σ srad × dayl / 3600 [Wh m⁻²], each day's diffuse part by Erbs's daily correlation.
    assert.equal(daymet.radiation, true);
    const h = july(d19.srad).map((srad, k) => (srad * july(d19.dayl)[k]!) / 3600);
    assert.ok(Math.abs(m19.globalWhM2![4]! - sum(h)) < 1e-6 * sum(h));
    const latitude = (cell.lat * Math.PI) / 180;
    const diffuse = h.map((daily, k) => {
      const day = 182 + k;
      const clearness = daily / dailyExtraterrestrialHorizontalWhM2(latitude, day);
      return daily * erbsDailyDiffuseFraction(clearness, horizontalSunsetHourAngle(latitude, cooperDeclination(day)));
    });
    assert.ok(Math.abs(m19.diffuseWhM2![4]! - sum(diffuse)) < 1e-6 * sum(diffuse));
    // dry days (clearness 0.7) and wet ones (0.4) in July: a diffuse fraction between theirs
    const fraction = m19.diffuseWhM2![4]! / m19.globalWhM2![4]!;
    assert.ok(fraction > 0.2 && fraction < 0.8, `July diffuse fraction ${fraction}`);

    // Plausible for the site (the synthetic climatology targets ≈ 5 °C and ≈ 700 mm).
    for (const { months } of daymet.monthly) {
      const mat = months.reduce((a, m) => a + (m.tmax[4]! + m.tmin[4]!) / 2, 0) / 12;
      const map = months.reduce((a, m) => a + m.prcp[4]!, 0);
      assert.ok(mat > 3 && mat < 7.5, `MAT ${mat}`);
      assert.ok(map > 400 && map < 1000, `P ${map}`);
      assert.ok(months[0]!.tmin[4]! < -5 && months[6]!.tmax[4]! > 18);
      assert.ok(months[0]!.vp[4]! < months[6]!.vp[4]!);
    }
    assert.ok(daymet.cells.every((c) => c.zRef > 2300 && c.zRef < 2700 && Number.isInteger(c.zRef)));

    // Second job on the same DEM: everything from the cache.
    const again = await prepareDaymetForDem(grid, YEARS, { baseUrl: server.url, cacheDir });
    assert.equal(server.requests.length, 9);
    assert.equal(again.downloadedPoints, 0);
    assert.deepEqual(again.monthly[1]!.months[6]!.tmax, m19.tmax);
    assert.deepEqual(again.csvFiles, daymet.csvFiles);
  } finally {
    await server.close();
  }
});

test('downscaling to the DEM: nearest cell, lapse-adjusted temperatures, prcp and vp unchanged, NaN at nodata', async () => {
  const server = await startDaymetServer();
  try {
    const daymet = await prepareDaymetForDem(mcn10mGrid(), { start: 2019, end: 2019 }, { baseUrl: server.url });
    const z = demElevation();
    const july = downscaleDaymetMonthToDem(daymet, 2019, 6, z);
    const fields = daymet.monthly[0]!.months[6]!;
    for (const i of [0, 1000, 20000, 48107]) {
      const k = daymet.nearestCellIndex[i]!;
      const zRef = daymet.cells[k]!.zRef;
      assert.ok(Math.abs(july.tmax[i]! - (fields.tmax[k]! - (6.49 * (z[i]! - zRef)) / 1000)) < 1e-4);
      assert.ok(Math.abs(july.tmin[i]! - (fields.tmin[k]! - (6.49 * (z[i]! - zRef)) / 1000)) < 1e-4);
      assert.equal(july.prcp[i], Math.fround(fields.prcp[k]!));
      assert.equal(july.vp[i], Math.fround(fields.vp[k]!));
    }
    for (const v of [july.tmax, july.tmin, july.prcp, july.vp]) {
      assert.ok(v instanceof Float32Array);
      assert.ok(Number.isNaN(v[5]!));
    }
    // Monthly, separate lapse rates for tmin and tmax.
    const gammaMax = [5, 5, 5, 5, 5, 5, 8, 5, 5, 5, 5, 5];
    const custom = downscaleDaymetMonthToDem(daymet, 2019, 6, z, { lapseRateTmaxKPerKm: gammaMax, lapseRateTminKPerKm: 3 });
    const i = 1000, k = daymet.nearestCellIndex[i]!, zRef = daymet.cells[k]!.zRef;
    assert.ok(Math.abs(custom.tmax[i]! - (fields.tmax[k]! - (8 * (z[i]! - zRef)) / 1000)) < 1e-4);
    assert.ok(Math.abs(custom.tmin[i]! - (fields.tmin[k]! - (3 * (z[i]! - zRef)) / 1000)) < 1e-4);
    // Where the DEM equals z_ref, T' = Daymet T.
    const flat = Float64Array.from(daymet.nearestCellIndex, (kk) => daymet.cells[kk]!.zRef);
    const same = downscaleDaymetMonthToDem(daymet, 2019, 0, flat);
    assert.equal(same.tmin[777], Math.fround(daymet.monthly[0]!.months[0]!.tmin[daymet.nearestCellIndex[777]!]!));

    const all = downscaleDaymetToDem(daymet, z);
    assert.equal(all.length, 1);
    assert.equal(all[0]!.months.length, 12);
    assert.deepEqual(all[0]!.months[6]!.tmax, july.tmax);
    assert.throws(() => downscaleDaymetMonthToDem(daymet, 2017, 0, z), /no Daymet data for year 2017/);
    assert.throws(() => downscaleDaymetMonthToDem(daymet, 2019, 12, z), /month must be 0..11/);
  } finally {
    await server.close();
  }
});

test('coverage problems fail before any request', async () => {
  const server = await startDaymetServer();
  try {
    await assert.rejects(
      prepareDaymetForDem(parisGrid(), YEARS, { baseUrl: server.url }),
      (err: unknown) => err instanceof ClimateCoverageError && err.code === 'OUTSIDE_COVERAGE',
    );
    await assert.rejects(
      prepareDaymetForDem(mcn10mGrid(), YEARS, { baseUrl: server.url, maxPoints: 4 }),
      (err: unknown) => err instanceof ClimateCoverageError && err.code === 'TOO_MANY_POINTS',
    );
    const saved = process.env['EEMT_DAYMET_MAX_POINTS'];
    process.env['EEMT_DAYMET_MAX_POINTS'] = '5';
    try {
      assert.throws(() => checkDaymetCoverage(mcn10mGrid(), YEARS), /more than the limit of 5 per-point downloads/);
    } finally {
      if (saved === undefined) delete process.env['EEMT_DAYMET_MAX_POINTS'];
      else process.env['EEMT_DAYMET_MAX_POINTS'] = saved;
    }
    assert.equal(server.requests.length, 0);
  } finally {
    await server.close();
  }
});

test('a failing point fails the whole preparation with ClimateDownloadError', async () => {
  const server = await startDaymetServer({ failFirst: 99 });
  try {
    await assert.rejects(
      prepareDaymetForDem(mcn10mGrid(), YEARS, { baseUrl: server.url, attempts: 2, retryDelayMs: 1, concurrency: 2 }),
      (err: unknown) =>
        err instanceof ClimateDownloadError &&
        /^Climate download failed: 127\.0\.0\.1:\d+ answered HTTP 500 Internal Server Error \(2 attempts\) for point 35\.8\dN 106\.6\dW\. A cache pre-seeded with `eemt climate prefetch` \(EEMT_CACHE_DIR; docs\/daymet-cache\.md\) avoids the download\.$/.test(err.message),
    );
    // The first failure stops the run: far fewer than 9 points × 2 attempts.
    assert.ok(server.requests.length <= 4, `${server.requests.length} requests`);
  } finally {
    await server.close();
  }
});
