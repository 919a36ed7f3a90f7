/**
 * The floating-point predictor undone in WebAssembly (assembly/deflateTile.ts's `undoPredictor`, through
 * bandDecoderWasm.ts) gives floatPredictor.ts's `decodeFloatPredictorRows` to the bit: on predicted tiles of
 * several kinds of values (whose decoding must give the values back) and on random bytes (any byte sequence
 * decodes to something), for tile widths around the four-value steps and the sixteen-byte sums, partial rows
 * and columns at the raster's edge, and tiles placed anywhere along a wider band, whose other cells it leaves alone.
 * Its reduced bands (statistics, rows averaged in pairs) give the overview pyramid the same tiles and statistics as
 * the pyramid's own rows.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeFloatPredictorRows, encodeFloatPredictorRows } from '../../src/raster/tiff/floatPredictor.js';
import { WasmBandDecoder, wasmBandDecoder } from '../../src/raster/tiff/bandDecoderWasm.js';
import { random } from '../helpers/syntheticTerrain.js';
import { OverviewPyramid } from '../../src/raster/cog/overviews.js';
import type { RasterTiling } from '../../src/raster/rasterTiling.js';

/** The band decodeFloatPredictorRows makes of `data` at `col0` (the TypeScript decoder), from a band filled with `fill`. */
function expectedBand(data: Uint8Array, tileWidth: number, rows: number, width: number, tileHeight: number, col0: number, cols: number, fill: number): Uint32Array {
  const band = new Uint32Array(width * tileHeight).fill(fill);
  decodeFloatPredictorRows(data, tileWidth, rows, band.subarray(col0), width, cols);
  return band;
}

/** Square tiles of `tileSize` over a `width` × `height` raster. */
function rasterTiling({ width, height }: { width: number; height: number }, tileSize: number): RasterTiling {
  const across = Math.ceil(width / tileSize);
  const down = Math.ceil(height / tileSize);
  return { width, height, tileWidth: tileSize, tileHeight: tileSize, across, down, count: across * down };
}

function bitsOf(band: Float32Array): Uint32Array {
  return new Uint32Array(band.buffer, band.byteOffset, band.length);
}

test('random bytes decode as the TypeScript decoder decodes them, for widths around the 4- and 16-value steps', () => {
  const next = random(17);
  for (const tileWidth of [1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 256]) {
    const tileHeight = 3;
    const width = tileWidth * 2 + 5;
    const decoder = new WasmBandDecoder(width, tileWidth, tileHeight);
    const data = Uint8Array.from({ length: 4 * tileWidth * tileHeight }, () => Math.floor(next() * 256));
    for (const [rows, col0, cols] of [
      [tileHeight, 0, tileWidth],
      [2, tileWidth, tileWidth],
      [1, width - Math.max(1, tileWidth - 2), Math.max(1, tileWidth - 2)],
    ] as const) {
      bitsOf(decoder.band).fill(0xdeadbeef);
      decoder.decodeTile(data, rows, col0, cols);
      assert.deepEqual(bitsOf(decoder.band), expectedBand(data, tileWidth, rows, width, tileHeight, col0, cols, 0xdeadbeef), `tile width ${tileWidth}, rows ${rows}, columns ${col0}+${cols}`);
    }
  }
});

test('predicted tiles of smooth, noisy, nodata and extreme values decode back to their values', () => {
  const next = random(5);
  const tileWidth = 48;
  const tileHeight = 20;
  const width = 3 * tileWidth - 7; // the last tile of the row is cut at the raster's edge
  const cells = tileWidth * tileHeight;
  const kinds: Record<string, () => Float32Array> = {
    smooth: () => Float32Array.from({ length: cells }, (_, i) => 4000 + 900 * Math.sin((i % tileWidth) / 7) * Math.cos(Math.floor(i / tileWidth) / 5)),
    noisy: () => Float32Array.from({ length: cells }, () => 3000 * (next() - 0.3)),
    nodata: () => Float32Array.from({ length: cells }, (_, i) => (i % tileWidth < 17 ? NaN : next() * 14)),
    extreme: () => Float32Array.from({ length: cells }, (_, i) => [0, -0, Infinity, -Infinity, 3.4e38, -1.2e-38, 1e-45, NaN][i % 8]!),
  };
  const decoder = wasmBandDecoder(width, tileWidth, tileHeight);
  assert.ok(decoder, 'the module is built');
  for (const [name, make] of Object.entries(kinds)) {
    const tiles = [0, 1, 2].map(() => make());
    const data = tiles.map((tile) => {
      const out = new Uint8Array(4 * cells);
      encodeFloatPredictorRows(new Uint32Array(tile.buffer), tileWidth, tileHeight, out);
      return out;
    });
    for (let tx = 0; tx < 3; tx++) decoder.decodeTile(data[tx]!, tileHeight, tx * tileWidth, Math.min(tileWidth, width - tx * tileWidth));
    const band = bitsOf(decoder.band);
    for (let r = 0; r < tileHeight; r++) {
      for (let c = 0; c < width; c++) {
        const tile = new Uint32Array(tiles[Math.floor(c / tileWidth)]!.buffer);
        assert.equal(band[r * width + c], tile[r * tileWidth + (c % tileWidth)], `${name}: row ${r}, column ${c}`);
      }
    }
  }
});

test('the thread keeps one decoder per band and tile size, and refuses tiles that do not fit', () => {
  const a = wasmBandDecoder(100, 16, 16);
  assert.ok(a);
  assert.equal(wasmBandDecoder(100, 16, 16), a);
  const b = wasmBandDecoder(101, 16, 16);
  assert.notEqual(b, a);
  assert.throws(() => a.decodeTile(new Uint8Array(10), 16, 0, 16), /has 1024 bytes, got 10/);
  assert.throws(() => a.decodeTile(new Uint8Array(1024), 17, 0, 16), /outside the band/);
  assert.throws(() => a.decodeTile(new Uint8Array(1024), 16, 90, 16), /outside the band/);
  assert.throws(() => new WasmBandDecoder(0, 16, 16), RangeError);
});

test('reduced bands give the overview pyramid the same tiles and statistics as its own rows, odd sizes and nodata included', () => {
  const next = random(23);
  for (const [width, height, tileSize] of [
    [700, 530, 256],
    [515, 517, 128],
    [1030, 300, 512],
  ] as const) {
    const tiling = rasterTiling({ width, height }, tileSize);
    const values = Float32Array.from({ length: width * height }, (_, i) => {
      const row = Math.floor(i / width);
      const col = i % width;
      // a nodata corner, a nodata stripe of odd width, and noisy values
      if ((row < 40 && col < 70) || (col >= 301 && col < 304)) return NaN;
      return 2000 + 800 * Math.sin(col / 37) * Math.cos(row / 23) + next();
    });
    const encode = (tile: Float32Array) => Uint8Array.from(new Uint8Array(tile.buffer, tile.byteOffset, tile.byteLength));
    const own = new OverviewPyramid(tiling, encode);
    for (let r = 0; r < height; r++) own.pushRow(values.subarray(r * width, (r + 1) * width));
    const reduced = new OverviewPyramid(tiling, encode);
    const decoder = new WasmBandDecoder(width, tileSize, tileSize);
    for (let ty = 0; ty < tiling.down; ty++) {
      const rows = Math.min(tileSize, height - ty * tileSize);
      decoder.band.set(values.subarray(ty * tileSize * width, (ty * tileSize + rows) * width));
      reduced.pushAveragedRows(decoder.reduce(rows, reduced.stats), Math.ceil(rows / 2), rows);
    }
    assert.deepEqual(reduced.statistics(), own.statistics(), `${width} × ${height}`);
    const ownLevels = own.finish();
    const reducedLevels = reduced.finish();
    assert.equal(reducedLevels.length, ownLevels.length);
    ownLevels.forEach((level, k) => level.tiles.forEach((tile, t) => assert.deepEqual(reducedLevels[k]!.tiles[t], tile, `${width} × ${height}: level ${k}, tile ${t}`)));
  }
});

test('a pyramid refuses averaged rows that do not fit where it stands', () => {
  const tiling = rasterTiling({ width: 600, height: 601 }, 256);
  const pyramid = new OverviewPyramid(tiling, () => new Uint8Array(0));
  pyramid.pushRow(new Float32Array(600));
  assert.throws(() => pyramid.pushAveragedRows(new Float32Array(300), 1, 2), /odd number of full rows/);
  const other = new OverviewPyramid(tiling, () => new Uint8Array(0));
  assert.throws(() => other.pushAveragedRows(new Float32Array(300), 1, 1), /cannot hold 1 full rows/);
  assert.throws(() => other.pushAveragedRows(new Float32Array(302 * 300), 302, 604), /only 601 of the 601 rows are left/);
});
