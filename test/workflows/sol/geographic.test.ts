/**
 * Geographic DEMs (EPSG:4326, degrees) must give the answer of the same terrain in a projected CRS. GRASS
 * r.sun gets this wrong in lat/long locations (it treats degrees as metres and shades flat terrain as if it
 * were steep); the engine works in true ground distances.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import proj4 from 'proj4';
import { crsFromGeoKeys } from '../../../src/raster/geo/crs.js';
import { readDem, readRaster, writeFloat32GeoTiffSync } from '../../../src/raster/index.js';
import type { GridSpec } from '../../../src/raster/types.js';
import { computeSolarYear } from '../../../src/workflows/solarYear/index.js';
import { dailyIrradiation } from '../../../src/science/solar/dailyIrradiation.js';

const fixtures = new URL('../../fixtures/', import.meta.url).pathname;
const params = { stepMinutes: 15, linkeTurbidity: 3, albedo: 0.2 };
const DAYS = [172, 355];
let work = '';

before(() => {
  work = mkdtempSync(join(tmpdir(), 'sol-geographic-'));
});
after(() => rmSync(work, { recursive: true, force: true }));

function geographicGrid4269(width: number, height: number, west: number, north: number, stepDeg: number, epsg = 4269): GridSpec {
  const geoKeys = [
    { id: 1024, value: 2 }, // GTModelTypeGeoKey: geographic
    { id: 1025, value: 1 }, // GTRasterTypeGeoKey: PixelIsArea
    { id: 2048, value: epsg }, // GeographicTypeGeoKey
  ];
  return { width, height, geoTransform: [west, stepDeg, 0, north, 0, -stepDeg], crs: crsFromGeoKeys(geoKeys), geoKeys, rasterType: 1 };
}

test('flat terrain in degrees stays flat: every cell gets the horizontal-surface irradiation of its latitude', async () => {
  const grid = geographicGrid4269(60, 50, -106.65, 35.83, 1 / 3600, 4326);
  const path = join(work, 'flat_geographic.tif');
  writeFloat32GeoTiffSync(path, grid, new Float32Array(60 * 50).fill(2500));
  const out = join(work, 'flat_out');
  await computeSolarYear(await readDem(path), { outDir: out, params, threads: 2, days: DAYS });
  for (const day of DAYS) {
    const global = (await readRaster(join(out, `global/daily/total_sun_day_${day}.tif`))).values;
    const hours = (await readRaster(join(out, `insol/daily/hours_sun_day_${day}.tif`))).values;
    for (const [row, col] of [[0, 0], [25, 30], [49, 59], [10, 45]] as const) {
      const latitudeRad = ((35.83 - (row + 0.5) / 3600) * Math.PI) / 180;
      const expected = dailyIrradiation(day, { latitudeRad, elevationM: 2500, slopeRad: 0, aspectRad: 0 }, params);
      const cell = row * 60 + col;
      // r.sun in a lat/long location shades such terrain as if it were steep (day-172 std 1634 Wh m-2)
      assert.ok(Math.abs(global[cell]! - expected.globalWhM2) <= 2e-4 * expected.globalWhM2, `day ${day} cell ${cell}: ${global[cell]} vs ${expected.globalWhM2}`);
      assert.equal(hours[cell], expected.sunshineHours);
    }
  }
});

/** Smooth hills (wavelengths of 400–900 m, slopes up to about 30°) as a function of UTM 13N coordinates [m]. */
function hills(x: number, y: number): number {
  const u = x - 354_500;
  const v = y - 3_963_500;
  return 2400 + 90 * Math.sin(u / 140) * Math.cos(v / 110) + 60 * Math.cos((u + v) / 230) + 0.05 * u;
}

test('the same terrain on a projected grid and on a geographic grid gives the same irradiation, within 1 %', async () => {
  const mcn = await readDem(join(fixtures, 'mcn_10m.tif'));
  const size = 200;
  const west = 353_500;
  const north = 3_964_500;
  const projectedGrid: GridSpec = { ...mcn.grid, width: size, height: size, geoTransform: [west, 10, 0, north, 0, -10] };
  const projected = new Float32Array(size * size);
  for (let r = 0; r < size; r++) for (let c = 0; c < size; c++) projected[r * size + c] = hills(west + (c + 0.5) * 10, north - (r + 0.5) * 10);
  const toGeographic = proj4(mcn.grid.crs.proj4, 'EPSG:4269');
  const toUtm = proj4('EPSG:4269', mcn.grid.crs.proj4);
  const [lonWest, latNorth] = toGeographic.forward([west, north]);
  const [lonEast, latSouth] = toGeographic.forward([west + size * 10, north - size * 10]);
  // steps in degrees that measure 10 m on the ground here, like the projected grid
  const [lonTen] = toGeographic.forward([west + 10, north]);
  const [, latTen] = toGeographic.forward([west, north + 10]);
  const stepLon = lonTen! - lonWest!;
  const stepLat = latTen! - latNorth!;
  const gw = Math.floor((lonEast! - lonWest!) / stepLon);
  const gh = Math.floor((latNorth! - latSouth!) / stepLat);
  const geographicGrid: GridSpec = { ...geographicGrid4269(gw, gh, lonWest!, latNorth!, stepLon), geoTransform: [lonWest!, stepLon, 0, latNorth!, 0, -stepLat] };
  const geographic = new Float32Array(gw * gh);
  for (let r = 0; r < gh; r++) {
    for (let c = 0; c < gw; c++) {
      const [x, y] = toUtm.forward([lonWest! + (c + 0.5) * stepLon, latNorth! - (r + 0.5) * stepLat]);
      geographic[r * gw + c] = hills(x!, y!);
    }
  }
  const projectedPath = join(work, 'hills_utm.tif');
  const geographicPath = join(work, 'hills_geographic.tif');
  writeFloat32GeoTiffSync(projectedPath, projectedGrid, projected);
  writeFloat32GeoTiffSync(geographicPath, geographicGrid, geographic);
  const projectedOut = join(work, 'projected_out');
  const geographicOut = join(work, 'geographic_out');
  await computeSolarYear(await readDem(projectedPath), { outDir: projectedOut, params, threads: 2, days: DAYS });
  await computeSolarYear(await readDem(geographicPath), { outDir: geographicOut, params, threads: 2, days: DAYS });
  for (const day of DAYS) {
    const p = (await readRaster(join(projectedOut, `global/daily/total_sun_day_${day}.tif`))).values;
    const g = (await readRaster(join(geographicOut, `global/daily/total_sun_day_${day}.tif`))).values;
    const relative: number[] = [];
    let sumP = 0;
    let sumG = 0;
    // compare at geographic cell centres at least 300 m inside both grids (edge horizons differ)
    for (let r = 30; r < gh - 30; r++) {
      for (let c = 30; c < gw - 30; c++) {
        const [x, y] = toUtm.forward([lonWest! + (c + 0.5) * stepLon, latNorth! - (r + 0.5) * stepLat]);
        // the projected result at the same point, interpolated bilinearly between cell centres
        const fc = (x! - west) / 10 - 0.5;
        const fr = (north - y!) / 10 - 0.5;
        const pc = Math.floor(fc);
        const pr = Math.floor(fr);
        if (pc < 30 || pr < 30 || pc >= size - 30 || pr >= size - 30) continue;
        const wc = fc - pc;
        const wr = fr - pr;
        const at = (rr: number, cc: number) => p[rr * size + cc]!;
        const pv = (1 - wr) * ((1 - wc) * at(pr, pc) + wc * at(pr, pc + 1)) + wr * ((1 - wc) * at(pr + 1, pc) + wc * at(pr + 1, pc + 1));
        const gv = g[r * gw + c]!;
        relative.push(Math.abs(gv - pv) / pv);
        sumP += pv;
        sumG += gv;
      }
    }
    relative.sort((a, b) => a - b);
    const median = relative[Math.floor(relative.length / 2)]!;
    const bias = (sumG - sumP) / sumP;
    console.log(`day ${day}: ${relative.length} cells, mean difference ${(100 * bias).toFixed(3)} %, median ${(100 * median).toFixed(3)} %`);
    assert.ok(relative.length > 10_000, `compared ${relative.length}`);
    assert.ok(Math.abs(bias) < 0.01, `day ${day} mean difference ${bias}`);
    assert.ok(median < 0.01, `day ${day} median cell difference ${median}`);
  }
});

test('at 69° N in degrees (cell widths change down the grid) both kernels, any tiling and any thread order write the same values', async () => {
  // 4 arc-seconds: cells about 40 m wide and 124 m tall, the width 0.8 % smaller from the north row to the south row
  const step = 4 / 3600;
  const width = 70;
  const height = 90;
  const grid = geographicGrid4269(width, height, 18.9, 69.7, step, 4326);
  const z = new Float32Array(width * height);
  for (let r = 0; r < height; r++) {
    for (let c = 0; c < width; c++) z[r * width + c] = 600 + 220 * Math.sin(c / 6) * Math.cos(r / 9) + 150 * Math.exp(-((c - 35) ** 2 + (r - 60) ** 2) / 40) + 4 * r;
  }
  z[20 * width + 33] = NaN;
  const path = join(work, 'arctic_geographic.tif');
  writeFloat32GeoTiffSync(path, grid, z);
  const dem = await readDem(path, { precision: 'float32', shared: true });
  const days = [60, 172, 300];
  const compiled = join(work, 'arctic_wasm');
  const typescript = join(work, 'arctic_typescript');
  const whole = join(work, 'arctic_whole');
  const result = await computeSolarYear(dem, { outDir: compiled, params, threads: 2, days, tileSize: 32 });
  await computeSolarYear(dem, { outDir: typescript, params, threads: 1, days, tileSize: 16, kernel: 'typescript' });
  await computeSolarYear(dem, { outDir: whole, params, threads: 1, days, tileSize: 512 });
  assert.equal(result.files.length, 2 * days.length);
  for (const file of result.files) {
    const a = (await readRaster(join(compiled, file))).values;
    for (const other of [typescript, whole]) {
      const b = (await readRaster(join(other, file))).values;
      let differ = 0;
      for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) differ++;
      assert.equal(differ, 0, `${file}: ${differ} cells differ from ${other}`);
    }
  }
  // shadows fall: the hours of day 60 are not the same everywhere
  const hours = (await readRaster(join(compiled, 'insol/daily/hours_sun_day_60.tif'))).values.filter((v) => !Number.isNaN(v));
  assert.ok(Math.max(...hours) - Math.min(...hours) > 2, 'terrain shades some cells on day 60');
});
