// Needs: gdal
/**
 * The DEM reader's floating-point predictor (floatPredictorWasm.ts): its WebAssembly decoders (assembly/deflateTile.ts's
 * `undoPredictor64`, `undoPredictor`, `narrowToF32`) give floatPredictor.ts's TypeScript decoders to the bit, on
 * random bytes (any byte sequence decodes to something) for widths around the sixteen-value steps and partial
 * columns; and DEMs GDAL writes with Predictor 3 — tiled, striped, float32 and float64, with and without a nodata
 * number, left sparse — read as GDAL reads them, as do big-endian ones (whose byte planes come least significant
 * first: geotiff.js decodes those).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeFloat64PredictorRows, decodeFloatPredictorRows } from '../../src/raster/tiff/floatPredictor.js';
import { WasmFloatPredictor } from '../../src/raster/tiff/floatPredictorWasm.js';
import { readDem, readRaster } from '../../src/raster/geotiff/readGeoTiff.js';
import { random } from '../helpers/syntheticTerrain.js';
import { FIXTURE_DEM, gdal, gdalReadAsync, tempDir, translateAsync } from './gdal.js';

function randomBytes(length: number, next: () => number): Uint8Array {
  return Uint8Array.from({ length }, () => Math.floor(next() * 256));
}

/** The bits of `expected` (a Float64Array's or Float32Array's words) with every NaN as JavaScript's one NaN. */
function canonical64(expected: Float64Array): Uint32Array {
  return new Uint32Array(Float64Array.from(expected, (v) => (Number.isNaN(v) ? NaN : v)).buffer);
}

test('float64: random predicted rows decode as the TypeScript decoder decodes them (NaNs as JavaScript’s), and narrow as Float32Array rounds', () => {
  const next = random(23);
  let nans = 0;
  for (const width of [1, 2, 7, 15, 16, 17, 31, 32, 33, 80, 255, 256, 257]) {
    for (const cols of new Set([width, Math.max(1, width - 1), Math.ceil(width / 2)])) {
      const rows = 3;
      const data = randomBytes(8 * width * rows, next);
      const expected = new Float64Array(width * rows);
      decodeFloat64PredictorRows(data, width, rows, new Uint32Array(expected.buffer), width, cols);
      const decoder = new WasmFloatPredictor(64, width);
      const wide = decoder.decode(data, rows, cols).slice(0, width * rows);
      const want = canonical64(expected);
      const got = new Uint32Array(wide.buffer);
      for (let r = 0; r < rows; r++) {
        for (let i = r * width; i < r * width + cols; i++) {
          assert.ok(got[2 * i] === want[2 * i] && got[2 * i + 1] === want[2 * i + 1], `width ${width}, cols ${cols}, row ${r}, value ${i}`);
          if (Number.isNaN(expected[i])) nans++;
        }
      }
      const narrow = decoder.decode(data, rows, cols, true);
      assert.ok(narrow instanceof Float32Array);
      const narrowBits = new Uint32Array(narrow.buffer, narrow.byteOffset, narrow.length);
      const wantNarrow = new Uint32Array(Float32Array.from(expected, (v) => (Number.isNaN(v) ? NaN : v)).buffer);
      for (let r = 0; r < rows; r++) {
        for (let i = r * width; i < r * width + cols; i++) assert.equal(narrowBits[i], wantNarrow[i], `width ${width}, row ${r}, value ${i}`);
      }
    }
  }
  assert.ok(nans > 0, 'random bytes give NaNs of many payloads too');
});

test('float32: random predicted rows decode as the TypeScript decoder decodes them (NaNs as JavaScript’s)', () => {
  const next = random(29);
  for (const width of [1, 3, 4, 5, 16, 17, 48, 100]) {
    const rows = 2;
    const data = randomBytes(4 * width * rows, next);
    const expected = new Float32Array(width * rows);
    decodeFloatPredictorRows(data, width, rows, new Uint32Array(expected.buffer), width, width);
    const got = new WasmFloatPredictor(32, width).decode(data, rows, width, true);
    const want = new Uint32Array(Float32Array.from(expected, (v) => (Number.isNaN(v) ? NaN : v)).buffer);
    assert.deepEqual(new Uint32Array(got.buffer, got.byteOffset, width * rows), want, `width ${width}`);
  }
});

test('a block taller than one call decodes in parts of whole rows', () => {
  const width = 300_000; // 2.4 MB a row of float64: one row per call
  const decoder = new WasmFloatPredictor(64, width);
  assert.ok(decoder.partRows >= 1 && decoder.partRows * width * 8 <= 4 * 2 ** 20);
  assert.throws(() => decoder.decode(new Uint8Array(8 * width * (decoder.partRows + 1)), decoder.partRows + 1), RangeError);
});

test("a block's decoder holds the block's rows, not a whole call's worth", () => {
  const block = new WasmFloatPredictor(32, 48, 32);
  assert.equal(block.partRows, 32);
  assert.throws(() => block.decode(new Uint8Array(4 * 48 * 33), 33), RangeError);
  const data = randomBytes(4 * 48 * 32, random(7));
  const expected = new Uint32Array(48 * 32);
  decodeFloatPredictorRows(data, 48, 32, expected, 48, 48);
  const got = block.decode(data, 32);
  assert.deepEqual(new Uint32Array(got.buffer, got.byteOffset, 48 * 32), new Uint32Array(Float32Array.from(new Float32Array(expected.buffer), (v) => (Number.isNaN(v) ? NaN : v)).buffer));
  // a tall block still decodes in calls of at most PART_BYTES
  assert.equal(new WasmFloatPredictor(64, 300_000, 1000).partRows, new WasmFloatPredictor(64, 300_000).partRows);
});

describe('DEMs GDAL writes with the floating-point predictor', () => {
  let dir = '';
  let cleanup = () => {};
  let fixture: Float64Array;
  before(async () => {
    ({ dir, cleanup } = tempDir('float-predictor'));
    fixture = (await readDem(FIXTURE_DEM)).elevation;
  });
  after(() => cleanup());

  const variants: Record<string, { args: string[]; float32: boolean }> = {
    'Float64 striped DEFLATE, 7 rows a strip (the last strip 1 row)': {
      float32: false,
      args: ['-co', 'COMPRESS=DEFLATE', '-co', 'PREDICTOR=3', '-co', 'BLOCKYSIZE=7'],
    },
    'Float64 striped DEFLATE, big-endian': {
      float32: false,
      args: ['-co', 'COMPRESS=DEFLATE', '-co', 'PREDICTOR=3', '-co', 'ENDIANNESS=BIG', '-co', 'BLOCKYSIZE=7'],
    },
    'Float32 tiled ZSTD 48 × 32': {
      float32: true,
      args: ['-ot', 'Float32', '-co', 'COMPRESS=ZSTD', '-co', 'PREDICTOR=3', '-co', 'TILED=YES', '-co', 'BLOCKXSIZE=48', '-co', 'BLOCKYSIZE=32'],
    },
    'Float64 tiled LZW 80 × 16, nodata -9999': {
      float32: false,
      args: ['-a_nodata', '-9999', '-co', 'COMPRESS=LZW', '-co', 'PREDICTOR=3', '-co', 'TILED=YES', '-co', 'BLOCKXSIZE=80', '-co', 'BLOCKYSIZE=16'],
    },
    'Float32 tiled ZSTD 48 × 32, big-endian': {
      float32: true,
      args: ['-ot', 'Float32', '-co', 'COMPRESS=ZSTD', '-co', 'PREDICTOR=3', '-co', 'ENDIANNESS=BIG', '-co', 'TILED=YES', '-co', 'BLOCKXSIZE=48', '-co', 'BLOCKYSIZE=32'],
    },
  };
  for (const [name, { args, float32 }] of Object.entries(variants)) {
    test(name, async () => {
      const path = await translateAsync(FIXTURE_DEM, `${dir}/${name.replace(/\W+/g, '_')}.tif`, args);
      const expected = float32 ? fixture.map(Math.fround) : fixture;
      assert.deepEqual((await readDem(path)).elevation, expected);
      // held as float32: the float64 values rounded once
      const single = await readDem(path, { precision: 'float32', shared: true });
      assert.deepEqual(Array.from(single.elevation), Array.from(expected, Math.fround));
    });
  }

  for (const nodata of [null, -9999]) {
    test(`a sparse Float64 file (no block written), ${nodata === null ? 'no nodata: zeros' : 'nodata -9999: nodata'}, as GDAL reads it`, async () => {
      const path = `${dir}/sparse_${nodata ?? 'none'}.tif`;
      gdal('gdal_create', [
        '-q', '-of', 'GTiff', '-outsize', '70', '40', '-ot', 'Float64', '-a_srs', 'EPSG:26913', '-a_ullr', '0', '400', '700', '0',
        ...(nodata === null ? [] : ['-a_nodata', String(nodata)]),
        '-co', 'TILED=YES', '-co', 'BLOCKXSIZE=32', '-co', 'BLOCKYSIZE=16', '-co', 'SPARSE_OK=TRUE', '-co', 'COMPRESS=DEFLATE', '-co', 'PREDICTOR=3',
        path,
      ]);
      const raster = await readRaster(path);
      const gdalValues = await gdalReadAsync(path, dir, 'Float64');
      assert.equal(raster.values.length, 70 * 40);
      for (let i = 0; i < raster.values.length; i++) {
        const g = gdalValues[i]!;
        assert.ok(Object.is(raster.values[i], g === nodata ? NaN : g), `cell ${i}: ${raster.values[i]} against GDAL's ${g}`);
      }
    });
  }
});
