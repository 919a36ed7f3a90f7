// Needs: gdal
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeFloatPredictorRows, encodeFloatPredictorRows } from '../../src/raster/tiff/floatPredictor.js';
import { readDem, readRaster } from '../../src/raster/geotiff/readGeoTiff.js';
import type { GridSpec } from '../../src/raster/types.js';
import { encodeFloat32GeoTiff, writeFloat32GeoTiff, writeFloat32GeoTiffSync } from '../../src/raster/geotiff/writeGeoTiff.js';
import { FIXTURE_DEM, gdalinfo, gdalRead, tempDir, translateAsync, type GdalInfo } from './gdal.js';

let dir = '';
let cleanup = () => {};
let mcnGrid: GridSpec;
let mcnElevation: Float64Array;
let fixtureInfo: GdalInfo;
before(async () => {
  ({ dir, cleanup } = tempDir('raster-write'));
  const dem = await readDem(FIXTURE_DEM);
  mcnGrid = dem.grid;
  mcnElevation = dem.elevation;
  fixtureInfo = gdalinfo(FIXTURE_DEM);
});
after(() => cleanup());

/** Deterministic pseudo-random numbers in [0, 1). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Values with NaN, infinities, signed zeros, subnormals and extremes mixed into a smooth field. */
function awkwardValues(n: number, seed: number): Float32Array {
  const rnd = random(seed);
  const specials = [NaN, Infinity, -Infinity, -0, 0, 1e-45, -1e-40, 3.4028234663852886e38, -3.4028234663852886e38, 1, -1];
  return Float32Array.from({ length: n }, (_, i) => (rnd() < 0.08 ? specials[i % specials.length]! : 1000 * Math.sin(i / 17) + rnd()));
}

/** A grid of `width`×`height` 10 m cells on the mcn_10m CRS. */
function gridOf(width: number, height: number): GridSpec {
  return { ...mcnGrid, width, height };
}

/** GDAL reads back exactly the float32 of every value (same bits; NaN where NaN). */
function assertGdalReadsBack(path: string, values: ArrayLike<number>): void {
  const back = gdalRead(path, dir, 'Float32') as Float32Array;
  assert.equal(back.length, values.length);
  const expected = Float32Array.from(values);
  const backBits = new Uint32Array(back.buffer, back.byteOffset, back.length);
  const expectedBits = new Uint32Array(expected.buffer);
  let mismatches = 0;
  for (let i = 0; i < back.length; i++) {
    const bothNaN = Number.isNaN(back[i]!) && Number.isNaN(expected[i]!);
    if (!bothNaN && backBits[i] !== expectedBits[i]) mismatches++;
  }
  assert.equal(mismatches, 0, `${mismatches} of ${back.length} cells differ`);
}

describe('floating-point predictor', () => {
  /** libtiff's fpDiff, transcribed literally (little-endian host). */
  function libtiffFpDiff(row: Float32Array): Uint8Array {
    const bps = 4;
    const wc = row.length;
    const tmp = new Uint8Array(row.buffer.slice(row.byteOffset, row.byteOffset + row.byteLength));
    const cp = new Uint8Array(tmp.length);
    for (let count = 0; count < wc; count++) {
      for (let byte = 0; byte < bps; byte++) cp[(bps - byte - 1) * wc + count] = tmp[bps * count + byte]!;
    }
    for (let i = cp.length - 1; i > 0; i--) cp[i] = (cp[i]! - cp[i - 1]!) & 0xff;
    return cp;
  }

  test('matches libtiff byte for byte and decodes back', () => {
    for (const width of [1, 2, 7, 256]) {
      const rows = 3;
      const values = awkwardValues(width * rows, width);
      const bits = new Uint32Array(values.buffer);
      const encoded = new Uint8Array(4 * width * rows);
      encodeFloatPredictorRows(bits, width, rows, encoded);
      for (let r = 0; r < rows; r++) {
        const expected = libtiffFpDiff(values.subarray(r * width, (r + 1) * width));
        assert.deepEqual(encoded.subarray(4 * r * width, 4 * (r + 1) * width), expected, `width ${width} row ${r}`);
      }
      const decoded = new Uint32Array(width * rows);
      decodeFloatPredictorRows(encoded, width, rows, decoded);
      assert.deepEqual(decoded, bits);
    }
  });

  test('decodes the first columns of the first rows into a wider band, leaving the rest alone', () => {
    const width = 9;
    const rows = 4;
    const values = awkwardValues(width * rows, width);
    const bits = new Uint32Array(values.buffer);
    const encoded = new Uint8Array(4 * width * rows);
    encodeFloatPredictorRows(bits, width, rows, encoded);
    const stride = 20;
    const band = new Uint32Array(stride * rows).fill(7);
    // rows 0–2, columns 0–4, at column 3 of the band
    decodeFloatPredictorRows(encoded, width, 3, band.subarray(3), stride, 5);
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < stride; c++) {
        const inside = r < 3 && c >= 3 && c < 8;
        assert.equal(band[r * stride + c], inside ? bits[r * width + c - 3] : 7, `row ${r} column ${c}`);
      }
    }
  });
});

describe('encodeFloat32GeoTiff read back by GDAL', () => {
  test('mcn_10m grid: size, geotransform, CRS, nodata, metadata and exact values', async () => {
    const path = join(dir, 'mcn.tif');
    writeFloat32GeoTiffSync(path, mcnGrid, mcnElevation, {
      description: 'Global radiation, day 172 [Wh m⁻² day⁻¹]',
      metadata: { UNITS: 'Wh m-2 day-1', MODEL: 'r.sun <daily> & "friends"' },
    });
    const info = gdalinfo(path);
    assert.deepEqual(info.size, [228, 211]);
    assert.deepEqual(info.geoTransform, fixtureInfo.geoTransform);
    assert.equal(info.coordinateSystem?.wkt, fixtureInfo.coordinateSystem?.wkt);
    assert.equal(info.bands.length, 1);
    assert.equal(info.bands[0]!.type, 'Float32');
    assert.equal(String(info.bands[0]!.noDataValue), 'NaN');
    assert.equal(info.bands[0]!.description, 'Global radiation, day 172 [Wh m⁻² day⁻¹]');
    assert.deepEqual(info.bands[0]!.block, [240, 224]);
    assert.equal(info.metadata['']!['UNITS'], 'Wh m-2 day-1');
    assert.equal(info.metadata['']!['MODEL'], 'r.sun <daily> & "friends"');
    assert.equal(info.metadata['']!['AREA_OR_POINT'], 'Area');
    assert.equal(info.metadata['IMAGE_STRUCTURE']!['COMPRESSION'], 'DEFLATE');
    assert.equal(info.metadata['IMAGE_STRUCTURE']!['PREDICTOR'], '3');
    assertGdalReadsBack(path, mcnElevation);

    const own = await readRaster(path);
    assert.deepEqual(own.values, mcnElevation.map(Math.fround));
    assert.deepEqual(own.grid.geoTransform, mcnGrid.geoTransform);
    assert.deepEqual(own.grid.geoKeys, mcnGrid.geoKeys);
    assert.deepEqual(own.grid.crs, mcnGrid.crs);
  });

  test('several tiles with partial edge tiles, awkward values', async () => {
    const grid = gridOf(100, 37);
    const values = awkwardValues(100 * 37, 42);
    const path = join(dir, 'tiles.tif');
    writeFloat32GeoTiffSync(path, grid, values, { tileSize: 32 });
    const info = gdalinfo(path);
    assert.deepEqual(info.size, [100, 37]);
    assert.deepEqual(info.bands[0]!.block, [32, 32]);
    assertGdalReadsBack(path, values);
    const own = await readRaster(path);
    assert.ok(own.values.every((v, i) => Object.is(v, values[i]!)));
  });

  test('1×N and N×1 rasters, Float64 input rounded to float32', async () => {
    for (const [width, height] of [[1, 300], [300, 1], [1, 1]] as const) {
      const values = Float64Array.from({ length: width * height }, (_, i) => (i % 50 === 7 ? NaN : Math.PI * i + 1e-9));
      const path = join(dir, `line-${width}x${height}.tif`);
      writeFloat32GeoTiffSync(path, gridOf(width, height), values);
      assertGdalReadsBack(path, values);
      const own = await readRaster(path);
      assert.deepEqual([own.grid.width, own.grid.height], [width, height]);
      assert.deepEqual(own.values, values.map(Math.fround));
    }
    assert.deepEqual(gdalinfo(join(dir, 'line-1x300.tif')).size, [1, 300]);
  });

  test('PixelIsPoint and geographic grids keep their georeferencing', async () => {
    const [pointSrc, geoSrc] = await Promise.all([
      translateAsync(FIXTURE_DEM, join(dir, 'point-src.tif'), ['-mo', 'AREA_OR_POINT=Point']),
      translateAsync(FIXTURE_DEM, join(dir, 'geo-src.tif'), ['-a_srs', 'EPSG:4326', '-a_ullr', '-106.64', '35.81', '-106.61', '35.79']),
    ]);
    for (const src of [pointSrc, geoSrc]) {
      const dem = await readDem(src);
      const out = join(dir, `copy-${src.split('/').pop()}`);
      writeFloat32GeoTiffSync(out, dem.grid, dem.elevation);
      const [a, b] = [gdalinfo(src), gdalinfo(out)];
      assert.deepEqual(b.geoTransform, a.geoTransform);
      assert.equal(b.coordinateSystem?.wkt, a.coordinateSystem?.wkt);
      assert.equal(b.metadata['']!['AREA_OR_POINT'], a.metadata['']!['AREA_OR_POINT']);
      const own = await readDem(out);
      assert.deepEqual(own.grid.geoTransform, dem.grid.geoTransform);
      assert.equal(own.grid.rasterType, dem.grid.rasterType);
    }
  });

  test('GTRasterTypeGeoKey follows grid.rasterType', () => {
    const path = join(dir, 'point-type.tif');
    writeFloat32GeoTiffSync(path, { ...gridOf(5, 5), rasterType: 2 }, new Float32Array(25));
    const info = gdalinfo(path);
    assert.equal(info.metadata['']!['AREA_OR_POINT'], 'Point');
    info.geoTransform.forEach((v, i) => assert.ok(Math.abs(v - mcnGrid.geoTransform[i]!) < 1e-6, `gt[${i}]`));
  });

  test('BigTIFF on request', () => {
    const values = awkwardValues(40 * 20, 7);
    const bytes = encodeFloat32GeoTiff(gridOf(40, 20), values, { bigTiff: true, tileSize: 16 });
    assert.equal(bytes.readUInt16LE(2), 43);
    const path = join(dir, 'big.tif');
    writeFloat32GeoTiffSync(path, gridOf(40, 20), values, { bigTiff: true, tileSize: 16 });
    assertGdalReadsBack(path, values);
  });
});

describe('writing files', () => {
  test('async write creates folders, renames the .part file, and matches the encoder', async () => {
    const values = awkwardValues(30 * 20, 3);
    const path = join(dir, 'a', 'b', 'out.tif');
    await writeFloat32GeoTiff(path, gridOf(30, 20), values, { level: 6 });
    assert.deepEqual(readFileSync(path), encodeFloat32GeoTiff(gridOf(30, 20), values, { level: 6 }));
    assert.deepEqual(readdirSync(join(dir, 'a', 'b')), ['out.tif']);
    const syncPath = join(dir, 'c', 'out.tif');
    writeFloat32GeoTiffSync(syncPath, gridOf(30, 20), values, { level: 6 });
    assert.deepEqual(readFileSync(syncPath), readFileSync(path));
  });

  test('a failed write leaves neither the file nor the .part file', async () => {
    const blocked = join(dir, 'blocked');
    mkdirSync(join(blocked, 'out.tif'), { recursive: true });
    await assert.rejects(writeFloat32GeoTiff(join(blocked, 'out.tif'), gridOf(4, 4), new Float32Array(16)));
    assert.throws(() => writeFloat32GeoTiffSync(join(blocked, 'out.tif'), gridOf(4, 4), new Float32Array(16)));
    assert.equal(existsSync(join(blocked, 'out.tif.part')), false);
  });

  test('argument checks', () => {
    assert.throws(() => encodeFloat32GeoTiff(gridOf(4, 4), new Float32Array(15)), /Expected 16 values/);
    assert.throws(() => encodeFloat32GeoTiff(gridOf(4, 4), new Float32Array(16), { tileSize: 20 }), /multiple of 16/);
    assert.throws(() => encodeFloat32GeoTiff(gridOf(4, 4), new Float32Array(16), { level: 12 }), /level/);
    const rotated: GridSpec = { ...gridOf(4, 4), geoTransform: [0, 10, 1, 0, 0, -10] };
    assert.throws(() => encodeFloat32GeoTiff(rotated, new Float32Array(16)), /north-up/);
  });

  test('default compression is within 25% of level 6 in size', () => {
    const values = Float32Array.from(mcnElevation, (v, i) => (Number.isNaN(v) ? v : 5000 + v * Math.sin(i / 300)));
    const fast = encodeFloat32GeoTiff(mcnGrid, values).length;
    const small = encodeFloat32GeoTiff(mcnGrid, values, { level: 6, zlibStrategy: 'default' }).length;
    assert.ok(fast < 1.25 * small, `default ${fast} B vs level 6 ${small} B`);
    assert.ok(fast < 0.8 * 4 * values.length, `default ${fast} B compresses`);
  });
});
