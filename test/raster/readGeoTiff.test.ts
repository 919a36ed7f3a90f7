// Needs: gdal
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readDem, readDemFromBuffer, readRaster, readRasterFromBuffer, validateDem, validateDemFromBuffer, type RasterSize } from '../../src/raster/geotiff/readGeoTiff.js';
import { RasterFormatError } from '../../src/raster/types.js';
import { FIXTURE_DEM, gdalinfoAsync, gdalReadAsync, tempDir, translate, translateAsync, type GdalInfo } from './gdal.js';
import { buildTiff, float32Bytes, UTM13N_KEYS, type TiffSpec } from './tiffBuilder.js';

let dir = '';
let cleanup = () => {};
before(() => ({ dir, cleanup } = tempDir('raster-read')));
after(() => cleanup());

/**
 * Asserts that `values` are exactly GDAL's decoding `gdalValues` (Float64 dump) with nodata cells (GDAL's
 * nodata, float32-rounded for Float32 bands, and NaN) as NaN.
 */
function assertSameAsGdal(values: Float64Array, gdalValues: ArrayLike<number>, nodata: number | null, isFloat32 = false): void {
  assert.equal(values.length, gdalValues.length);
  const nodataStored = nodata === null ? NaN : isFloat32 ? Math.fround(nodata) : nodata;
  let mismatches = 0;
  for (let i = 0; i < values.length; i++) {
    const g = gdalValues[i]!;
    const expected = Number.isNaN(g) || g === nodataStored ? NaN : g;
    if (!Object.is(values[i], expected)) mismatches++;
  }
  assert.equal(mismatches, 0, `${mismatches} cells differ from GDAL's reading`);
}

async function assertRejects(promise: Promise<unknown>, code: string, messagePart: RegExp): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof RasterFormatError, `expected RasterFormatError, got ${String(err)}`);
    assert.equal(err.code, code);
    assert.match(err.message, messagePart);
    return true;
  });
}

describe('readDem on the mcn_10m fixture', () => {
  test('grid, CRS, GeoKeys and nodata', async () => {
    const dem = await readDem(FIXTURE_DEM);
    const info = await gdalinfoAsync(FIXTURE_DEM);
    assert.equal(dem.grid.width, 228);
    assert.equal(dem.grid.height, 211);
    assert.deepEqual([...dem.grid.geoTransform], info.geoTransform);
    assert.equal(dem.grid.crs.kind, 'projected');
    assert.equal(dem.grid.crs.epsg, 26913);
    assert.equal(dem.grid.crs.name, 'NAD83 / UTM zone 13N');
    assert.match(dem.grid.crs.proj4, /\+proj=tmerc .*\+lon_0=-105 .*\+k_0=0\.9996 .*\+x_0=500000/);
    assert.equal(dem.grid.rasterType, 1);
    assert.deepEqual(
      dem.grid.geoKeys.find((k) => k.id === 3072),
      { id: 3072, value: 26913 },
    );
    assert.ok(Number.isNaN(dem.sourceNodata));
    assert.equal(dem.validCount, 228 * 211 - 92);
    assert.equal(dem.elevation.filter(Number.isNaN).length, 92);
  });

  test('values equal GDAL’s reading, and readRaster agrees', async () => {
    const dem = await readDem(FIXTURE_DEM);
    assertSameAsGdal(dem.elevation, await gdalReadAsync(FIXTURE_DEM, dir, 'Float64'), null);
    const raster = await readRaster(FIXTURE_DEM);
    assert.deepEqual(raster.values, dem.elevation);
    assert.ok(Number.isNaN(raster.nodata));
  });

  test('onSize is told the size once, before the read returns, and not for a file the walk refuses', async () => {
    const sizes: RasterSize[] = [];
    let returned = false;
    const reading = readDem(FIXTURE_DEM, {
      onSize: (size: RasterSize) => {
        assert.ok(!returned);
        sizes.push(size);
      },
    }).then((dem) => ((returned = true), dem));
    const dem = await reading;
    assert.deepEqual(sizes, [{ width: 228, height: 211 }]);
    assert.equal(dem.validCount, 48016);
    await assert.rejects(readDem(FIXTURE_DEM, { maxCells: 1000, onSize: (size: RasterSize) => sizes.push(size) }), RasterFormatError);
    assert.equal(sizes.length, 1);
  });

  test('readDemFromBuffer and validateDem', async () => {
    const dem = await readDemFromBuffer(readFileSync(FIXTURE_DEM));
    assert.equal(dem.validCount, 48016);
    const summary = { width: 228, height: 211, crsName: 'NAD83 / UTM zone 13N', validCount: 48016 };
    assert.deepEqual(await validateDem(FIXTURE_DEM), summary);
    assert.deepEqual(await validateDemFromBuffer(readFileSync(FIXTURE_DEM)), summary);
  });
});

describe('GeoTIFF layouts GDAL writes', () => {
  /** Variants of the fixture: gdal_translate options; integer ones also say their nodata. */
  const variants: Record<string, { args: string[]; type: 'Float32' | 'Float64' } | { args: string[]; type: 'int'; nodata: number }> = {
    'Int16 striped uncompressed, nodata -32768': { type: 'int', nodata: -32768, args: ['-ot', 'Int16', '-a_nodata', '-32768'] },
    'UInt16 tiled 64 LZW predictor 2': { type: 'int', nodata: 0, args: ['-ot', 'UInt16', '-a_nodata', '0', '-co', 'TILED=YES', '-co', 'BLOCKXSIZE=64', '-co', 'BLOCKYSIZE=64', '-co', 'COMPRESS=LZW', '-co', 'PREDICTOR=2'] },
    'Int32 DEFLATE predictor 2, big-endian': { type: 'int', nodata: -9999, args: ['-ot', 'Int32', '-a_nodata', '-9999', '-co', 'COMPRESS=DEFLATE', '-co', 'PREDICTOR=2', '-co', 'ENDIANNESS=BIG'] },
    'Int16 tiled DEFLATE predictor 2, big-endian': { type: 'int', nodata: -32768, args: ['-ot', 'Int16', '-a_nodata', '-32768', '-co', 'COMPRESS=DEFLATE', '-co', 'PREDICTOR=2', '-co', 'ENDIANNESS=BIG', '-co', 'TILED=YES', '-co', 'BLOCKXSIZE=80', '-co', 'BLOCKYSIZE=16'] },
    'Float32 tiled DEFLATE predictor 3, nodata -9999': { type: 'Float32', args: ['-ot', 'Float32', '-a_nodata', '-9999', '-co', 'TILED=YES', '-co', 'COMPRESS=DEFLATE', '-co', 'PREDICTOR=3'] },
    'Float32 striped LZW predictor 3': { type: 'Float32', args: ['-ot', 'Float32', '-co', 'COMPRESS=LZW', '-co', 'PREDICTOR=3'] },
    'Float32 PackBits, nodata -FLT_MAX': { type: 'Float32', args: ['-ot', 'Float32', '-a_nodata', '-3.4028234663852886e+38', '-co', 'COMPRESS=PACKBITS'] },
    'Float32 ZSTD tiled': { type: 'Float32', args: ['-ot', 'Float32', '-co', 'COMPRESS=ZSTD', '-co', 'TILED=YES'] },
    'Float32 uncompressed, big-endian': { type: 'Float32', args: ['-ot', 'Float32', '-co', 'ENDIANNESS=BIG'] },
    'Float64 tiled DEFLATE predictor 3': { type: 'Float64', args: ['-co', 'COMPRESS=DEFLATE', '-co', 'PREDICTOR=3', '-co', 'TILED=YES', '-co', 'BLOCKXSIZE=128', '-co', 'BLOCKYSIZE=32'] },
    'Float64 DEFLATE predictor 2, big-endian': { type: 'Float64', args: ['-co', 'COMPRESS=DEFLATE', '-co', 'PREDICTOR=2', '-co', 'ENDIANNESS=BIG'] },
    'Float64 tiled LZW predictor 2': { type: 'Float64', args: ['-co', 'COMPRESS=LZW', '-co', 'PREDICTOR=2', '-co', 'TILED=YES', '-co', 'BLOCKXSIZE=96', '-co', 'BLOCKYSIZE=96'] },
  };
  const epsgCases: [string, 'projected' | 'geographic', RegExp][] = [
    ['EPSG:4326', 'geographic', /\+proj=longlat/],
    ['EPSG:4269', 'geographic', /\+proj=longlat/],
    ['EPSG:32613', 'projected', /\+proj=tmerc .*\+lon_0=-105/],
    ['EPSG:5070', 'projected', /\+proj=aea/],
  ];
  const paths = new Map<string, string>();
  /** GDAL's own decoding (Float64 dump) of the integer variants and of the scaled file. */
  const gdalValues = new Map<string, Float64Array>();
  const infos = new Map<string, GdalInfo>();
  let fixture: Float64Array;

  // All GDAL work of this suite runs here, concurrently.
  before(async () => {
    fixture = (await readDem(FIXTURE_DEM)).elevation;
    const make = async (name: string, args: string[], then?: 'dump' | 'info') => {
      const path = await translateAsync(FIXTURE_DEM, join(dir, `${name.replace(/\W+/g, '_')}.tif`), args);
      paths.set(name, path);
      if (then === 'dump') gdalValues.set(name, (await gdalReadAsync(path, dir, 'Float64')) as Float64Array);
      if (then === 'info') infos.set(name, await gdalinfoAsync(path));
    };
    await Promise.all([
      ...Object.entries(variants).map(([name, v]) => make(name, v.args, v.type === 'int' ? 'dump' : undefined)),
      make('scaled', ['-ot', 'Int16', '-scale', '2000', '2700', '0', '7000', '-a_scale', '0.1', '-a_offset', '2000', '-a_nodata', '-32768'], 'dump'),
      make('point', ['-mo', 'AREA_OR_POINT=Point'], 'info'),
      ...epsgCases.map(([srs, kind]) => make(srs, ['-a_srs', srs, ...(kind === 'geographic' ? ['-a_ullr', '-106.64', '35.81', '-106.61', '35.79'] : [])])),
    ]);
  });

  for (const [name, variant] of Object.entries(variants)) {
    test(name, async () => {
      const dem = await readDem(paths.get(name)!);
      assert.equal(dem.grid.width, 228);
      assert.equal(dem.grid.height, 211);
      if (variant.type === 'int') {
        // Integer conversion rounds: compare with GDAL's own decoding of the file.
        assertSameAsGdal(dem.elevation, gdalValues.get(name)!, variant.nodata);
      } else {
        // Float conversions of the fixture are exact (Float32: rounded once).
        const expected = variant.type === 'Float32' ? fixture.map(Math.fround) : fixture;
        assert.deepEqual(dem.elevation, expected);
      }
      assert.ok(dem.validCount > 47000, `validCount ${dem.validCount}`);
      // read as shared Float32 in bands of a few blocks: the same values, rounded once
      const small = await readDem(paths.get(name)!, { precision: 'float32', shared: true, bandCells: 2000 });
      assert.ok(small.elevation instanceof Float32Array && small.elevation.buffer instanceof SharedArrayBuffer);
      assert.deepEqual(Array.from(small.elevation), Array.from(dem.elevation, Math.fround));
      assert.equal(small.validCount, dem.validCount);
      // and in bands of several rows of blocks, the last one partial where the rows do not divide evenly
      const several = await readDem(paths.get(name)!, { precision: 'float32', bandCells: 7000 });
      assert.deepEqual(Array.from(several.elevation), Array.from(small.elevation));
    });
  }

  test('band scale and offset from GDAL metadata are applied', async () => {
    const raw = gdalValues.get('scaled')!;
    const dem = await readDem(paths.get('scaled')!);
    assertSameAsGdal(dem.elevation, raw.map((v) => (v === -32768 ? v : v * 0.1 + 2000)), -32768);
    assert.ok(Math.abs(dem.elevation[20000]! - fixture[20000]!) <= 0.05 + 1e-9);
  });

  test('PixelIsPoint: geotransform refers to the pixel corner, like GDAL', async () => {
    const dem = await readDem(paths.get('point')!);
    assert.equal(dem.grid.rasterType, 2);
    const gt = infos.get('point')!.geoTransform;
    dem.grid.geoTransform.forEach((v, i) => assert.ok(Math.abs(v - gt[i]!) < 1e-6, `gt[${i}] ${v} vs ${gt[i]}`));
  });

  test('geographic WGS 84 and other common EPSG codes', async () => {
    for (const [srs, kind, pattern] of epsgCases) {
      const dem = await readDem(paths.get(srs)!);
      assert.equal(dem.grid.crs.kind, kind, srs);
      assert.equal(dem.grid.crs.epsg, Number(srs.slice(5)), srs);
      assert.match(dem.grid.crs.proj4, pattern, srs);
    }
  });

  test('Float32 nodata "-9999.9" matches the float32-rounded stored value', async () => {
    const values = [Math.fround(-9999.9), 1, 2, 3, 4, 5, 6, 7, 8, -9999.9];
    const raster = await readRasterFromBuffer(
      buildTiff({ width: 5, height: 2, data: float32Bytes(values), nodata: '-9999.9', pixelScale: [1, 1, 0], tiepoint: [0, 0, 0, 0, 0, 0], geoKeys: UTM13N_KEYS }),
    );
    assert.equal(raster.nodata, -9999.9);
    assert.deepEqual([...raster.values], [NaN, 1, 2, 3, 4, 5, 6, 7, 8, NaN]);
  });

});

describe('rejected inputs', () => {
  test('not a TIFF', async () => {
    const png = join(dir, 'image.png');
    writeFileSync(png, Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'));
    await assertRejects(readDem(png), 'NOT_TIFF', /not a GeoTIFF.*PNG/);
    const asc = join(dir, 'dem.asc');
    writeFileSync(asc, 'ncols 3\nnrows 3\n');
    await assertRejects(readDem(asc), 'NOT_TIFF', /Esri ASCII grid/);
    await assertRejects(readDemFromBuffer(new Uint8Array(0)), 'NOT_TIFF', /empty/);
  });

  test('reading files by path leaves no file open, also when they are damaged', async () => {
    const bytes = readFileSync(FIXTURE_DEM);
    const cut = join(dir, 'cut.tif');
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const stub = join(dir, 'stub.tif');
    writeFileSync(stub, bytes.subarray(0, 300));
    const open = () => readdirSync('/proc/self/fd').length;
    await readDem(FIXTURE_DEM);
    const before = open();
    for (let i = 0; i < 20; i++) {
      await assertRejects(readDem(cut), 'TRUNCATED', /truncated|damaged/);
      await assertRejects(readDem(stub), 'TRUNCATED', /truncated|damaged/);
      await readDem(FIXTURE_DEM, { precision: 'float32' });
    }
    assert.equal(open(), before);
  });

  test('truncated files', async () => {
    const bytes = readFileSync(FIXTURE_DEM);
    await assertRejects(readDemFromBuffer(bytes.subarray(0, Math.floor(bytes.length / 2))), 'TRUNCATED', /truncated/);
    await assertRejects(readDemFromBuffer(bytes.subarray(0, 300)), 'TRUNCATED', /truncated|damaged/);
    await assertRejects(readDemFromBuffer(bytes.subarray(0, 12)), 'TRUNCATED', /truncated|damaged/);
  });

  /** A 4×4 Float32 UTM 13N raster from the test builder, with `change` applied to its spec. */
  const built = (change: Partial<TiffSpec> = {}) =>
    readDemFromBuffer(
      buildTiff({
        width: 4,
        height: 4,
        data: float32Bytes(Array.from({ length: 16 }, (_, i) => 2000 + i)),
        pixelScale: [10, 10, 0],
        tiepoint: [0, 0, 0, 352120, 3964370, 0],
        geoKeys: UTM13N_KEYS,
        ...change,
      }),
    );

  test('the builder’s baseline raster is accepted', async () => {
    const dem = await built();
    assert.deepEqual([...dem.grid.geoTransform], [352120, 10, 0, 3964370, 0, -10]);
    assert.equal(dem.elevation[5], 2005);
    assert.equal(dem.grid.crs.epsg, 26913);
  });

  test('damaged directories fail with RasterFormatError, never a raw decoder error', async () => {
    const original = readFileSync(FIXTURE_DEM);
    const ifd = original.readUInt32LE(4);
    let seed = 7;
    const rnd = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    let failures = 0;
    const entryBytes = 2 + 12 * original.readUInt16LE(ifd);
    for (let k = 0; k < 20; k++) {
      const bytes = Buffer.from(original);
      for (let j = 0; j < 2; j++) bytes[ifd + Math.floor(rnd() * entryBytes)] = Math.floor(rnd() * 256);
      try {
        await readDemFromBuffer(bytes);
      } catch (err) {
        failures++;
        assert.ok(err instanceof RasterFormatError, `mutation ${k}: ${String(err)}`);
        assert.ok(!/\n\s+at /.test(err.message), 'no stack trace in the message');
      }
    }
    assert.ok(failures >= 5, `${failures} of 20 mutations failed`);
  });

  test('more than one band', async () => {
    const path = translate(FIXTURE_DEM, join(dir, 'three.tif'), ['-b', '1', '-b', '1', '-b', '1']);
    await assertRejects(readDem(path), 'MULTIBAND', /3 bands; a single-band elevation raster is required/);
    await assertRejects(built({ samplesPerPixel: 2, data: new Uint8Array(128) }), 'MULTIBAND', /2 bands/);
  });

  test('smaller than 3×3', async () => {
    const spec = { width: 2, height: 40, data: float32Bytes(new Array(80).fill(1)) };
    await assertRejects(built(spec), 'TOO_SMALL', /2×40 cells, too small to compute slope/);
    assert.equal((await readRasterFromBuffer(buildTiff({ ...spec, pixelScale: [10, 10, 0], tiepoint: [0, 0, 0, 0, 0, 0], geoKeys: UTM13N_KEYS }))).grid.width, 2);
  });

  test('all cells nodata', async () => {
    await assertRejects(built({ data: float32Bytes(new Array(16).fill(-9999)), nodata: '-9999' }), 'ALL_NODATA', /Every cell of the 4×4 DEM is nodata/);
    await assertRejects(built({ data: float32Bytes(new Array(16).fill(NaN)) }), 'ALL_NODATA', /nodata/);
  });

  test('non-finite elevations count as nodata', async () => {
    const values = Array.from({ length: 16 }, (_, i) => (i === 3 ? Infinity : i === 7 ? -Infinity : i === 9 ? NaN : 100 + i));
    const dem = await built({ data: float32Bytes(values) });
    assert.equal(dem.validCount, 13);
    assert.ok([3, 7, 9].every((i) => Number.isNaN(dem.elevation[i]!)));
  });

  test('complex and 64-bit integer samples', async () => {
    await assertRejects(built({ sampleFormat: 6, bitsPerSample: 64, data: new Uint8Array(128) }), 'UNSUPPORTED_SAMPLE_FORMAT', /64-bit complex floating-point/);
    await assertRejects(built({ sampleFormat: 2, bitsPerSample: 64, data: new Uint8Array(128) }), 'UNSUPPORTED_SAMPLE_FORMAT', /64-bit signed integer/);
    await assertRejects(built({ sampleFormat: 1, bitsPerSample: 1, data: new Uint8Array(4) }), 'UNSUPPORTED_SAMPLE_FORMAT', /1-bit unsigned integer/);
  });

  test('compression geotiff.js cannot decode faithfully', async () => {
    await assertRejects(built({ compression: 34925 }), 'UNSUPPORTED_COMPRESSION', /compression scheme 34925/);
    // LERC: geotiff.js would return nodata cells as numbers, so it is refused.
    const lerc = translate(FIXTURE_DEM, join(dir, 'lerc.tif'), ['-ot', 'Float32', '-co', 'COMPRESS=LERC']);
    await assertRejects(readDem(lerc), 'UNSUPPORTED_COMPRESSION', /compression scheme 34887/);
  });

  test('no georeferencing, or only ground control points', async () => {
    await assertRejects(built({ pixelScale: undefined, tiepoint: undefined }), 'NO_GEOREFERENCE', /no georeferencing/);
    await assertRejects(built({ pixelScale: undefined }), 'NO_GEOREFERENCE', /no georeferencing/);
    const gcps = [0, 0, 0, 352120, 3964370, 0, 4, 0, 0, 352160, 3964370, 0, 0, 4, 0, 352120, 3964330, 0];
    await assertRejects(built({ pixelScale: undefined, tiepoint: gcps }), 'NO_GEOREFERENCE', /ground control points/);
  });

  test('geotransform without a CRS', async () => {
    await assertRejects(built({ geoKeys: undefined }), 'NO_GEOREFERENCE', /no coordinate system/);
    await assertRejects(built({ geoKeys: [{ id: 1025, value: 1 }] }), 'NO_GEOREFERENCE', /no coordinate system/);
  });

  test('rotated, sheared or flipped grid', async () => {
    const rotated = [10, 1, 0, 352120, 1, -10, 0, 3964370, 0, 0, 0, 0, 0, 0, 0, 1];
    await assertRejects(built({ pixelScale: undefined, tiepoint: undefined, transformation: rotated }), 'ROTATED', /rotated or sheared/);
    const southUp = [10, 0, 0, 352120, 0, 10, 0, 3964370, 0, 0, 0, 0, 0, 0, 0, 1];
    await assertRejects(built({ pixelScale: undefined, tiepoint: undefined, transformation: southUp }), 'ROTATED', /flipped/);
    const northUp = [10, 0, 0, 352120, 0, -10, 0, 3964370, 0, 0, 0, 0, 0, 0, 0, 1];
    const dem = await built({ pixelScale: undefined, tiepoint: undefined, transformation: northUp });
    assert.deepEqual([...dem.grid.geoTransform], [352120, 10, 0, 3964370, 0, -10]);
  });

  test('feet, elevations in feet, and geocentric CRSs are refused', async () => {
    const [ft, vft, geocentric] = await Promise.all([
      translateAsync(FIXTURE_DEM, join(dir, 'ftus.tif'), ['-a_srs', 'EPSG:2227']),
      translateAsync(FIXTURE_DEM, join(dir, 'vft.tif'), ['-a_srs', 'EPSG:26913+6360']),
      translateAsync(FIXTURE_DEM, join(dir, 'geoc.tif'), ['-a_srs', 'EPSG:4978']),
    ]);
    await assertRejects(readDem(ft), 'UNSUPPORTED_CRS', /California zone 3 \(ftUS\)" does not measure x\/y in metres \(1 unit = 0\.3048006\d* m\).*gdalwarp/);
    await assertRejects(readDem(vft), 'UNSUPPORTED_CRS', /elevations in a unit other than metres/);
    await assertRejects(readDem(geocentric), 'UNSUPPORTED_CRS', /geocentric/);
  });
});
