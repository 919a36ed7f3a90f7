// Needs: gdal
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { crsFromGeoKeys } from '../../src/raster/geo/crs.js';
import { cellCentreLatitudes, createGeodesy } from '../../src/raster/geo/geodesy.js';
import { readDem } from '../../src/raster/geotiff/readGeoTiff.js';
import type { GeoKeyEntry, GeoTransform, GridSpec } from '../../src/raster/types.js';
import { FIXTURE_DEM, gdaltransform } from './gdal.js';

const D2R = Math.PI / 180;

let mcn: GridSpec;
before(async () => {
  mcn = (await readDem(FIXTURE_DEM)).grid;
});

/** A grid on the CRS given by EPSG `code` (projected when `projected`), as GDAL would key it. */
function epsgGrid(code: number, projected: boolean, width: number, height: number, geoTransform: GeoTransform): GridSpec {
  const geoKeys: GeoKeyEntry[] = [
    { id: 1024, value: projected ? 1 : 2 },
    { id: 1025, value: 1 },
    { id: projected ? 3072 : 2048, value: code },
  ];
  return { width, height, geoTransform, crs: crsFromGeoKeys(geoKeys), geoKeys, rasterType: 1 };
}

/** Pixel position → grid coordinates. */
function toXY(grid: GridSpec, col: number, row: number): [number, number] {
  const gt = grid.geoTransform;
  return [gt[0] + col * gt[1], gt[3] + row * gt[5]];
}

describe('projected grids', () => {
  test('mcn_10m cell positions equal gdaltransform EPSG:26913 → EPSG:4269', () => {
    const geodesy = createGeodesy(mcn);
    const positions: [number, number][] = [[0.5, 0.5], [227.5, 0.5], [0.5, 210.5], [227.5, 210.5], [114, 105.5], [0, 0], [228, 211], [57.25, 13.75]];
    const expected = gdaltransform('EPSG:26913', 'EPSG:4269', positions.map(([c, r]) => toXY(mcn, c, r)));
    positions.forEach(([c, r], k) => {
      const { latDeg, lonDeg } = geodesy.latLon(c, r);
      assert.ok(Math.abs(lonDeg - expected[k]![0]) < 1e-9, `lon at (${c}, ${r}): ${lonDeg} vs ${expected[k]![0]}`);
      assert.ok(Math.abs(latDeg - expected[k]![1]) < 1e-9, `lat at (${c}, ${r}): ${latDeg} vs ${expected[k]![1]}`);
    });
    assert.deepEqual(geodesy.ellipsoid, { a: 6378137, e2: 0.006694380022900686 });
    assert.deepEqual(geodesy.cellSizeM(0), { dx: 10.0000000000651, dy: 10.000000000064 });
  });

  test('NAD27 UTM stays on NAD27 (no datum shift), Clarke 1866 ellipsoid', () => {
    const grid = epsgGrid(26713, true, 100, 100, [352120, 30, 0, 3964370, 0, -30]);
    const geodesy = createGeodesy(grid);
    const positions: [number, number][] = [[0.5, 0.5], [99.5, 99.5]];
    const expected = gdaltransform('EPSG:26713', 'EPSG:4267', positions.map(([c, r]) => toXY(grid, c, r)));
    positions.forEach(([c, r], k) => {
      const { latDeg, lonDeg } = geodesy.latLon(c, r);
      assert.ok(Math.abs(lonDeg - expected[k]![0]) < 1e-9 && Math.abs(latDeg - expected[k]![1]) < 1e-9, `(${c}, ${r}): ${lonDeg} ${latDeg} vs ${expected[k]}`);
    });
    assert.equal(geodesy.ellipsoid.a, 6378206.4);
    assert.ok(Math.abs(geodesy.ellipsoid.e2 - 0.006768657997291) < 1e-12);
  });

  test('common EPSG projections agree with gdaltransform to their own geographic CRS', () => {
    const cases: [number, string, number, number][] = [
      [32613, 'EPSG:4326', 352120, 3964370], // WGS 84 / UTM 13N
      [5070, 'EPSG:4269', -1000000, 1500000], // NAD83 / Conus Albers
      [3035, 'EPSG:4258', 4321000, 3210000], // ETRS89 / LAEA Europe
      [2154, 'EPSG:4171', 700000, 6600000], // RGF93 / Lambert-93
      [2056, 'EPSG:4150', 2600000, 1200000], // CH1903+ / LV95 (oblique Mercator)
      [27700, 'EPSG:4277', 400000, 300000], // OSGB36 / British National Grid
      [3031, 'EPSG:4326', 1000000, -500000], // Antarctic polar stereographic (variant B)
      [3995, 'EPSG:4326', 1000000, -500000], // Arctic polar stereographic (variant B)
    ];
    for (const [code, geographic, x, y] of cases) {
      const grid = epsgGrid(code, true, 10, 10, [x, 100, 0, y, 0, -100]);
      const [[lon, lat]] = gdaltransform(`EPSG:${code}`, geographic, [[x + 550, y - 550]]);
      const p = createGeodesy(grid).latLon(5.5, 5.5);
      // 1e-7° ≈ 1 cm (proj4js's LAEA differs from PROJ by 5e-9°, the others by < 1e-12°).
      assert.ok(Math.abs(p.lonDeg - lon!) < 1e-7 && Math.abs(p.latDeg - lat!) < 1e-7, `EPSG:${code}: ${p.lonDeg}, ${p.latDeg} vs ${lon}, ${lat}`);
    }
  });

  test('convergence: grid bearing of true north, positive west of the central meridian', () => {
    const geodesy = createGeodesy(mcn);
    const { latDeg, lonDeg } = geodesy.latLon(114, 105.5);
    const gamma = geodesy.convergenceRad(114, 105.5);
    // First-order formula (λ0 − λ)·sin φ with λ0 = −105°: about +0.95° at 106.62°W 35.80°N.
    const firstOrder = (-105 - lonDeg) * D2R * Math.sin(latDeg * D2R);
    assert.ok(gamma > 0);
    assert.ok(Math.abs(gamma / D2R - 0.9502) < 1e-3, `convergence ${gamma / D2R}°`);
    assert.ok(Math.abs(gamma - firstOrder) < 1e-3 * Math.abs(firstOrder));
    // Independent check with PROJ: grid bearing of the meridian through the point, ±0.0005° around it.
    const [[x0, y0], [x1, y1]] = gdaltransform('EPSG:4269', 'EPSG:26913', [[lonDeg, latDeg - 0.0005], [lonDeg, latDeg + 0.0005]]);
    assert.ok(Math.abs(Math.atan2(x1! - x0!, y1! - y0!) - gamma) < 1e-7);

    // East of the central meridian (about 103.3°W) it is negative.
    const east = createGeodesy({ ...mcn, geoTransform: [650000, 10, 0, 3964370, 0, -10] });
    const eastLon = east.latLon(0.5, 0.5).lonDeg;
    assert.ok(eastLon > -105);
    assert.ok(east.convergenceRad(0.5, 0.5) < 0);
    assert.ok(Math.abs(east.convergenceRad(0.5, 0.5) - (-105 - eastLon) * D2R * Math.sin(35.8 * D2R)) < 2e-3 * D2R);
  });

  test('southern hemisphere: the sign follows sin φ', () => {
    const grid = epsgGrid(32713, true, 10, 10, [352120, 10, 0, 6035630, 0, -10]); // WGS 84 / UTM 13S, about 35.8°S
    const geodesy = createGeodesy(grid);
    const { latDeg, lonDeg } = geodesy.latLon(5, 5);
    assert.ok(latDeg < -35 && latDeg > -37, `lat ${latDeg}`);
    const gamma = geodesy.convergenceRad(5, 5);
    assert.ok(gamma < 0);
    assert.ok(Math.abs(gamma - (-105 - lonDeg) * D2R * Math.sin(latDeg * D2R)) < 2e-3 * Math.abs(gamma));
  });
});

describe('geographic grids', () => {
  // One-degree cells, row r centred on latitude 45 − r (row 45 on the equator), columns from 180°W.
  const grid = () => epsgGrid(4326, false, 360, 90, [-180, 1, 0, 45.5, 0, -1]);

  test('positions are the geotransform, convergence is 0', () => {
    const geodesy = createGeodesy(grid());
    assert.deepEqual(geodesy.latLon(180.5, 0.5), { latDeg: 45, lonDeg: 0.5 });
    assert.deepEqual(geodesy.latLon(0, 45.5), { latDeg: 0, lonDeg: -180 + 360 });
    assert.equal(geodesy.convergenceRad(10, 10), 0);
  });

  test('cell sizes equal the WGS 84 lengths of a degree', () => {
    const geodesy = createGeodesy(grid());
    // Lengths of one degree on WGS 84 [m], as tabulated (rounded to 1 m): latitude, along the parallel, along the meridian.
    const published: [number, number, number][] = [
      [0, 111320, 110574],
      [15, 107551, 110649],
      [30, 96486, 110852],
      [45, 78847, 111132],
    ];
    for (const [lat, dx, dy] of published) {
      const size = geodesy.cellSizeM(45 - lat);
      assert.ok(Math.abs(size.dx - dx) < 1, `dx at ${lat}°: ${size.dx} vs ${dx}`);
      assert.ok(Math.abs(size.dy - dy) < 1, `dy at ${lat}°: ${size.dy} vs ${dy}`);
    }
  });

  test('cellCentreLatitudes is constant along rows', () => {
    const lat = cellCentreLatitudes(grid());
    assert.equal(lat.length, 360 * 90);
    assert.equal(lat[0], 45);
    assert.equal(lat[359], 45);
    assert.equal(lat[45 * 360 + 17], 0);
  });
});

describe('cellCentreLatitudes on projected grids', () => {
  test('equals latLon at every cell of mcn_10m', () => {
    const lat = cellCentreLatitudes(mcn);
    const geodesy = createGeodesy(mcn);
    let worst = 0;
    for (let r = 0; r < mcn.height; r++) {
      for (let c = 0; c < mcn.width; c++) worst = Math.max(worst, Math.abs(lat[r * mcn.width + c]! - geodesy.latLon(c + 0.5, r + 0.5).latDeg));
    }
    assert.ok(worst < 1e-11, `worst ${worst}°`);
  });

  test('1000×1000 cells of 90 m: fast, and exact at sampled cells', () => {
    const grid: GridSpec = { ...mcn, width: 1000, height: 1000, geoTransform: [300000, 90, 0, 4000000, 0, -90] };
    const t0 = performance.now();
    const lat = cellCentreLatitudes(grid);
    const ms = performance.now() - t0;
    assert.ok(ms < 2000, `${ms.toFixed(0)} ms`);
    const geodesy = createGeodesy(grid);
    for (let k = 0; k < 3000; k++) {
      const c = (k * 7919) % 1000;
      const r = (k * 104729) % 1000;
      assert.ok(Math.abs(lat[r * 1000 + c]! - geodesy.latLon(c + 0.5, r + 0.5).latDeg) < 1e-10, `cell (${c}, ${r})`);
    }
  });

  test('polar stereographic grid around the north pole', () => {
    // WGS 84 / NSIDC Sea Ice Polar Stereographic North, 2 km cells, the pole inside.
    const grid = epsgGrid(3413, true, 300, 300, [-300000, 2000, 0, 300000, 0, -2000]);
    const lat = cellCentreLatitudes(grid);
    const geodesy = createGeodesy(grid);
    let worst = 0;
    for (let r = 0; r < 300; r += 3) for (let c = 0; c < 300; c++) worst = Math.max(worst, Math.abs(lat[r * 300 + c]! - geodesy.latLon(c + 0.5, r + 0.5).latDeg));
    assert.ok(worst < 1e-9, `worst ${worst}°`);
    assert.ok(Math.abs(geodesy.latLon(150, 150).latDeg - 90) < 1e-9);
  });
});
