/**
 * The GeoTIFF tile encoder compiled to WebAssembly (assembly/deflateTile.ts via tileEncoderWasm.ts) makes zlib
 * streams that Node's zlib inflates, checksum and all, to exactly the predicted bytes of the readable path
 * (`encodeFloatPredictorRows`), about as small as zlib's own Z_RLE streams: on smooth and noisy fields, constant
 * and all-nodata tiles (runs longer than a match), constant stretches of every length (runs of every match
 * length), random bit patterns (stored, as they do not shrink), a byte
 * histogram skewed enough to need code lengths limited to 15 bits, and tile shapes from 1 × 1 to 512 × 512.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { constants, deflateSync, inflateSync } from 'node:zlib';
import { decodeFloatPredictorRows, encodeFloatPredictorRows } from '../../src/raster/tiff/floatPredictor.js';
import { WasmTileEncoder, wasmEncodes } from '../../src/raster/tiff/tileEncoderWasm.js';
import { tileCompression } from '../../src/raster/geotiff/writeGeoTiff.js';
import { partialStatistics } from '../../src/raster/geotiff/statistics.js';

function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

function predicted(tile: Float32Array, width: number, height: number): Uint8Array {
  const out = new Uint8Array(tile.byteLength);
  encodeFloatPredictorRows(new Uint32Array(tile.buffer, tile.byteOffset, tile.length), width, height, out);
  return out;
}

/** Tiles of `width` × `height` values of several kinds. */
function tiles(width: number, height: number, seed: number): { name: string; values: Float32Array }[] {
  const next = random(seed);
  const n = width * height;
  const smooth = Float32Array.from({ length: n }, (_, i) => 4000 + 900 * Math.sin((i % width) / 7) * Math.cos(Math.floor(i / width) / 5));
  const noisy = Float32Array.from({ length: n }, () => 3000 + 2000 * next());
  // a map with nodata around, hours in quarter steps
  const hours = Float32Array.from({ length: n }, (_, i) => ((i % width) < width / 3 ? NaN : Math.round(next() * 48) / 4));
  const bits = new Uint32Array(n).map(() => Math.floor(next() * 2 ** 32));
  // constant stretches of 2 to 260 values: runs of zero differences of every match length 3…258
  const stretches = new Float32Array(n);
  for (let i = 0, stretch = 2, left = 2, value = 100; i < n; i++) {
    if (left-- === 0) {
      stretch = stretch === 260 ? 2 : stretch + 1;
      left = stretch - 1;
      value += 1 + next();
    }
    stretches[i] = value;
  }
  return [
    { name: 'smooth', values: smooth },
    { name: 'noisy', values: noisy },
    { name: 'hours with nodata', values: hours },
    { name: 'constant', values: new Float32Array(n).fill(1234.5) },
    { name: 'all nodata', values: new Float32Array(n).fill(NaN) },
    { name: 'random bits', values: new Float32Array(bits.buffer) },
    { name: 'stretches', values: stretches },
  ];
}

const zlibDefault = tileCompression();

test('tiles of every kind and shape inflate to the readable predictor bytes, as small as zlib makes them', () => {
  for (const [width, height] of [[1, 1], [5, 3], [16, 16], [48, 48], [48, 32], [100, 7], [256, 256], [512, 512]] as const) {
    const encoder = new WasmTileEncoder(width, height);
    for (const { name, values } of tiles(width, height, width * 31 + height)) {
      const expected = predicted(values, width, height);
      const bytes = encoder.encode(values);
      assert.deepEqual(new Uint8Array(inflateSync(bytes)), expected, `${name}, ${width} × ${height}`);
      const zlibSize = deflateSync(expected, zlibDefault).length;
      // one block with codes made for the tile, as zlib's: the same size within the headers' bytes
      assert.ok(bytes.length <= zlibSize * 1.01 + 16, `${name}, ${width} × ${height}: ${bytes.length} bytes against zlib's ${zlibSize}`);
      if (name === 'random bits' && width * height >= 256) assert.ok(bytes.length <= expected.length + 16, `${name} is stored: ${bytes.length} bytes for ${expected.length}`);
      if (name === 'constant' && width * height >= 2304) assert.ok(bytes.length < expected.length / 20, `${name} compresses: ${bytes.length} bytes`);
    }
  }
});

test('a byte histogram skewed like the Fibonacci numbers needs code lengths limited to 15 bits: still a valid stream', () => {
  // predicted bytes with symbol s appearing fib(s) times (the rest one more symbol), no byte equal to the one
  // before (so there are no runs and the literals keep those frequencies); the values are their inverse predictor
  const width = 128;
  const height = 128;
  const bytes = new Uint8Array(4 * width * height);
  const counts: number[] = [1, 1];
  while (counts.reduce((a, b) => a + b, 0) + counts.at(-1)! + counts.at(-2)! <= bytes.length) counts.push(counts.at(-1)! + counts.at(-2)!);
  counts.push(bytes.length - counts.reduce((a, b) => a + b, 0));
  const bySize = counts.map((count, k) => ({ count, symbol: k * 7 + 1 })).sort((a, b) => b.count - a.count);
  // the most frequent first into the even places, then on into the odd ones
  let at = 0;
  for (const { count, symbol } of bySize) {
    for (let i = 0; i < count; i++) {
      bytes[at] = symbol;
      at += 2;
      if (at >= bytes.length) at = 1;
    }
  }
  for (let i = 1; i < bytes.length; i++) assert.notEqual(bytes[i], bytes[i - 1]);
  assert.ok(counts.length > 20, `${counts.length} symbols: a Huffman tree deeper than 15`);
  const bits = new Uint32Array(width * height);
  decodeFloatPredictorRows(bytes, width, height, bits);
  const values = new Float32Array(bits.buffer);
  assert.deepEqual(predicted(values, width, height), bytes);
  const encoded = new WasmTileEncoder(width, height).encode(values);
  assert.deepEqual(new Uint8Array(inflateSync(encoded)), bytes);
  const zlibSize = deflateSync(bytes, zlibDefault).length;
  assert.ok(encoded.length <= zlibSize * 1.01 + 16, `${encoded.length} bytes against zlib's ${zlibSize}`);
});

test('one encoder serves tile after tile; it stands in for zlib only at the settings it makes', () => {
  const encoder = new WasmTileEncoder(48, 48);
  const all = [...tiles(48, 48, 1), ...tiles(48, 48, 2)];
  const first = all.map(({ values }) => encoder.encode(values));
  // again in reverse: nothing of one tile carries over to the next
  const again = [...all].reverse().map(({ values }) => encoder.encode(values)).reverse();
  assert.deepEqual(again, first);
  assert.throws(() => encoder.encode(new Float32Array(47 * 48)), /48×48 tile needs 2304 values/);
  assert.throws(() => new WasmTileEncoder(0, 4), RangeError);
  assert.equal(wasmEncodes(tileCompression()), true);
  assert.equal(wasmEncodes(tileCompression({ level: 9 })), true);
  assert.equal(wasmEncodes(tileCompression({ level: 0 })), false);
  assert.equal(wasmEncodes(tileCompression({ zlibStrategy: 'default' })), false);
  assert.equal(wasmEncodes({ level: 1, strategy: constants.Z_HUFFMAN_ONLY }), false);
});

test("the encoder's statistics of a tile's cells are partialStatistics' numbers: every kind, edge tiles' parts, no valid cell", () => {
  for (const [width, height] of [[1, 1], [5, 3], [48, 32], [100, 7], [256, 256]] as const) {
    const encoder = new WasmTileEncoder(width, height);
    for (const { name, values } of tiles(width, height, width * 17 + height)) {
      // the whole tile, and the cells of an edge tile (its first cols × rows, the rest padding)
      for (const [cols, rows] of [[width, height], [Math.ceil(width / 3), Math.ceil(height / 2)], [width, 1], [0, 0]] as const) {
        const { bytes, statistics } = encoder.encodeWithStatistics(values, cols, rows);
        assert.deepEqual(bytes, encoder.encode(values), `${name}, ${width} × ${height}: the same stream`);
        assert.deepEqual(statistics, partialStatistics(values, cols, rows, width), `${name}, ${cols} × ${rows} of ${width} × ${height}`);
      }
    }
  }
  // a mean and spread summed in f64 to the last bit (values of every magnitude, some −0), and infinite values
  const wide = Float32Array.from({ length: 64 * 64 }, (_, i) => (i % 97 === 0 ? -0 : 10 ** ((i % 61) - 30) * Math.sin(i) + 1e-3 * i));
  const infinite = wide.map((v, i) => (i % 389 === 0 ? (i % 2 ? Infinity : -Infinity) : v));
  for (const values of [wide, infinite]) {
    const statistics = new WasmTileEncoder(64, 64).encodeWithStatistics(values, 60, 61).statistics;
    assert.deepEqual(statistics, partialStatistics(values, 60, 61, 64));
  }
  const encoder = new WasmTileEncoder(8, 8);
  assert.throws(() => encoder.encodeWithStatistics(new Float32Array(64), 9, 8), /statistics of 9 × 8 cells of a 8×8 tile/);
  assert.throws(() => encoder.encodeWithStatistics(new Float32Array(64), 4, -1), RangeError);
});
