// Needs: gdal
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GDAL_GHOST_AREA } from '../../src/raster/cog/cogLayout.js';
import { GeoTiffStreams } from '../../src/raster/geotiff/geoTiffStreams.js';
import { averageRowPair, OverviewPyramid, overviewTilings } from '../../src/raster/cog/overviews.js';
import { readDem, readRaster } from '../../src/raster/geotiff/readGeoTiff.js';
import type { GridSpec } from '../../src/raster/types.js';
import { encodeFloat32GeoTiff, encodeFloat32Tile, rasterTiling, tileCompression, writeFloat32GeoTiffSync } from '../../src/raster/geotiff/writeGeoTiff.js';
import { FIXTURE_DEM, gdal, gdalinfoAsync, gdalReadAsync, tempDir, translate, validateCog } from './gdal.js';

let dir = '';
let cleanup = () => {};
let mcnGrid: GridSpec;
before(async () => {
  ({ dir, cleanup } = tempDir('raster-cog'));
  mcnGrid = (await readDem(FIXTURE_DEM)).grid;
});
after(() => cleanup());

const gridOf = (width: number, height: number): GridSpec => ({ ...mcnGrid, width, height });

/** A smooth field with scattered NaN cells and a NaN block in the north-west corner. */
function field(width: number, height: number, seed = 1): Float32Array {
  return Float32Array.from({ length: width * height }, (_, i) => {
    const row = Math.floor(i / width);
    const col = i % width;
    if (i % 7 === seed % 7 || (col < 50 && row < 60)) return NaN;
    return seed * 1000 + Math.sin(i / 777) * 100 + i / 1000;
  });
}

function sameValues(actual: ArrayLike<number>, expected: ArrayLike<number>): boolean {
  if (actual.length !== expected.length) return false;
  for (let i = 0; i < actual.length; i++) if (!Object.is(actual[i], expected[i])) return false;
  return true;
}

/**
 * Checks the STATISTICS_* items of a band (gdalinfo -json) against the statistics of `values` computed here
 * (population standard deviation, NaN cells left out); returns a reader of the stored items.
 */
function assertStoredStatistics(band: { metadata: Record<string, Record<string, string>> }, values: Float32Array): (name: string) => number {
  const valid = Array.from(values).filter((v) => !Number.isNaN(v));
  const mean = valid.reduce((a, b) => a + b, 0) / valid.length;
  const stddev = Math.sqrt(valid.reduce((a, b) => a + (b - mean) ** 2, 0) / valid.length);
  const stored = (name: string) => Number(band.metadata['']![`STATISTICS_${name}`]);
  assert.equal(stored('MINIMUM'), valid.reduce((a, b) => Math.min(a, b)));
  assert.equal(stored('MAXIMUM'), valid.reduce((a, b) => Math.max(a, b)));
  assert.ok(Math.abs(stored('MEAN') - mean) < 1e-9 * Math.abs(mean), `${stored('MEAN')} vs ${mean}`);
  assert.ok(Math.abs(stored('STDDEV') - stddev) < 1e-6 * stddev, `${stored('STDDEV')} vs ${stddev}`);
  assert.ok(Math.abs(stored('VALID_PERCENT') - (100 * valid.length) / values.length) < 1e-9);
  return stored;
}

describe('NaN-aware average overviews', () => {
  test('a row pair: the mean of the valid cells, NaN when none, the odd last column on its own', () => {
    const out = new Float32Array(3);
    averageRowPair(Float32Array.of(1, 3, NaN, NaN, 10), Float32Array.of(5, NaN, NaN, NaN, 20), 5, out);
    assert.deepEqual(Array.from(out), [3, NaN, 15]); // (1 + 3 + 5) / 3, all nodata, (10 + 20) / 2
    averageRowPair(Float32Array.of(2, 4, 6), null, 3, out.subarray(0, 2));
    assert.deepEqual(Array.from(out.subarray(0, 2)), [3, 6]);
  });

  test('levels halve (rounding up) until one tile holds a level; none below 512 cells a side', () => {
    const sizes = (w: number, h: number, tile: number) => overviewTilings(rasterTiling(gridOf(w, h), tile)).map((t) => [t.width, t.height]);
    assert.deepEqual(sizes(600, 533, 64), [[300, 267], [150, 134], [75, 67], [38, 34]]);
    assert.deepEqual(sizes(511, 511, 64), []);
    assert.deepEqual(sizes(512, 20, 256), [[256, 10]]);
    // a raster of 512 cells a side in one tile of 512 has none (one tile holds the full resolution)
    assert.deepEqual(sizes(512, 512, 512), []);
    assert.deepEqual(sizes(513, 512, 512), [[257, 256]]);
  });

  test('a 520 × 3 raster made into overview level 1 by hand (tiles kept raw to look at them)', () => {
    // columns 0–5 of the three rows, column 519 = 100, the rest NaN:
    //  1  2 |  3   4 |  5 10       level 1, row 0: (1+2+6+7)/4 = 4, (3+4+8+9)/4 = 6, (5+10+10+20)/4 = 11.25, NaN
    //  6  7 |  8   9 | 10 20       level 1, row 1 (the odd last row alone): (11+12)/2 = 11.5, 13, (15+30)/2 = 22.5, NaN
    // 11 12 | 13 NaN | 15 30
    const raw = (tile: Float32Array) => Buffer.from(Float32Array.from(tile).buffer);
    const pyramid = new OverviewPyramid({ width: 520, height: 3, tileWidth: 256, tileHeight: 16, across: 3, down: 1, count: 3 }, raw);
    const rows = [
      [1, 2, 3, 4, 5, 10],
      [6, 7, 8, 9, 10, 20],
      [11, 12, 13, NaN, 15, 30],
    ];
    for (const r of rows) {
      const row = new Float32Array(520).fill(NaN);
      row.set(r);
      row[519] = 100;
      pyramid.pushRow(row);
    }
    const [level1, level2] = pyramid.finish();
    assert.deepEqual([level1!.tiling.width, level1!.tiling.height, level2!.tiling.width, level2!.tiling.height], [260, 2, 130, 1]);
    const asFloats = (b: Uint8Array) => new Float32Array(b.buffer, b.byteOffset, b.length / 4);
    const [west, east] = level1!.tiles.map(asFloats);
    assert.deepEqual(Array.from(west!.subarray(0, 4)), [4, 6, 11.25, NaN]);
    assert.deepEqual(Array.from(west!.subarray(256, 260)), [11.5, 13, 22.5, NaN]);
    assert.deepEqual([east![3], east![256 + 3], east![4]], [100, 100, NaN], 'column 259 averages column 519 only; outside the level is NaN');
    assert.deepEqual(Array.from(asFloats(level2!.tiles[0]!).subarray(0, 2)), [(4 + 6 + 11.5 + 13) / 4, (11.25 + 22.5) / 2]);
    assert.throws(() => pyramid.pushRow(new Float32Array(520)), /already pushed/);
  });

  test('level 1 equals GDAL\'s own average resampling with NaN nodata', async () => {
    const path = join(dir, 'avg.tif');
    writeFloat32GeoTiffSync(path, gridOf(640, 532), field(640, 532), { tileSize: 64 });
    const plain = translate(path, join(dir, 'avg-plain.tif'), []); // no overviews: GDAL resamples the full image
    const gdalAverage = translate(plain, join(dir, 'avg-gdal.bin'), ['-of', 'ENVI', '-outsize', '320', '266', '-r', 'average']);
    const ours = translate(path, join(dir, 'avg-ovr0.bin'), ['-of', 'ENVI', '-ovr', '0']);
    const a = new Float32Array(readFileSync(gdalAverage).buffer.slice(0));
    const b = new Float32Array(readFileSync(ours).buffer.slice(0));
    assert.equal(a.length, 320 * 266);
    assert.ok(a.some(Number.isNaN), 'the NaN corner is nodata in the overview too');
    assert.ok(sameValues(b, a));
  });
});

describe('Cloud Optimized GeoTIFFs', () => {
  test('a 600 × 533 raster: valid COG for GDAL\'s validator, LAYOUT=COG, overviews, exact values, metadata', async () => {
    const values = field(600, 533);
    const path = join(dir, 'big.tif');
    writeFloat32GeoTiffSync(path, gridOf(600, 533), values, { tileSize: 64, description: 'day 1', metadata: { UNITS: 'h' } });
    const check = await validateCog(path);
    assert.ok(check.valid, check.report);
    const info = await gdalinfoAsync(path);
    assert.equal(info.metadata['IMAGE_STRUCTURE']!['LAYOUT'], 'COG');
    assert.equal(info.metadata['IMAGE_STRUCTURE']!['COMPRESSION'], 'DEFLATE');
    assert.deepEqual(info.bands[0]!.overviews?.map((o) => o.size), [[300, 267], [150, 134], [75, 67], [38, 34]]);
    assert.deepEqual(info.bands[0]!.block, [64, 64]);
    assert.equal(info.bands[0]!.description, 'day 1');
    assert.equal(info.metadata['']!['UNITS'], 'h');
    assert.equal(String(info.bands[0]!.noDataValue), 'NaN');
    assert.ok(sameValues(await gdalReadAsync(path, dir, 'Float32'), values), 'GDAL reads every value back');
    assert.ok(sameValues((await readRaster(path)).values, values), 'our reader reads every value back');
    assert.equal(readFileSync(path).toString('latin1', 8, 8 + GDAL_GHOST_AREA.length), GDAL_GHOST_AREA);
  });

  test('maps with overviews carry their statistics as GDAL band metadata (gdalinfo -stats reports them)', async () => {
    const values = field(600, 533, 2);
    const path = join(dir, 'stats.tif');
    writeFloat32GeoTiffSync(path, gridOf(600, 533), values, { tileSize: 64 });
    const band = JSON.parse(gdal('gdalinfo', ['-json', '-stats', path])).bands[0];
    const stored = assertStoredStatistics(band, values);
    assert.ok(Math.abs(band.minimum - stored('MINIMUM')) < 1e-3, 'gdalinfo -stats reports them (printed to 3 decimals)');
    // GDAL computing them itself from the pixels agrees (a copy without the stored items)
    const copy = join(dir, 'stats-copy.tif');
    translate(path, copy, ['-of', 'GTiff']);
    gdal('gdal_edit.py', ['-unsetstats', copy]);
    const computed = JSON.parse(gdal('gdalinfo', ['-json', '-stats', copy])).bands[0];
    assert.deepEqual([computed.minimum, computed.maximum, computed.mean], [band.minimum, band.maximum, band.mean]);
  });

  test('maps without overviews carry their statistics too, and UNITS is the band unit type', async () => {
    const values = field(300, 211, 4);
    const path = join(dir, 'small-stats.tif');
    writeFloat32GeoTiffSync(path, gridOf(300, 211), values, { tileSize: 64, description: 'a small map', metadata: { UNITS: 'Wh m-2 day-1' } });
    const info = await gdalinfoAsync(path);
    assert.equal(info.bands[0]!.overviews?.length ?? 0, 0, 'no overviews');
    const band = JSON.parse(gdal('gdalinfo', ['-json', path])).bands[0];
    assert.equal(band.unit, 'Wh m-2 day-1');
    assert.equal(band.description, 'a small map');
    assertStoredStatistics(band, values);
  });

  test('small rasters (no overviews) and BigTIFF are valid COGs too', async () => {
    const small = join(dir, 'small.tif');
    const dem = await readDem(FIXTURE_DEM);
    writeFloat32GeoTiffSync(small, dem.grid, dem.elevation);
    const big = join(dir, 'bigtiff.tif');
    writeFloat32GeoTiffSync(big, gridOf(520, 40), field(520, 40, 3), { tileSize: 32, bigTiff: true });
    for (const path of [small, big]) {
      const check = await validateCog(path);
      assert.ok(check.valid, check.report);
      assert.equal((await gdalinfoAsync(path)).metadata['IMAGE_STRUCTURE']!['LAYOUT'], 'COG', path);
    }
    assert.equal(readFileSync(big).readUInt16LE(2), 43);
    assert.equal((await gdalinfoAsync(small)).bands[0]!.overviews?.length ?? 0, 0);
    assert.ok(sameValues(await gdalReadAsync(small, dir, 'Float32'), Float32Array.from(dem.elevation)));
    assert.ok(sameValues(await gdalReadAsync(big, dir, 'Float32'), field(520, 40, 3)));
  });

  for (const wholeReadBytes of [undefined, 0]) {
    test(`streamed tiles in shuffled order give the one-shot encoder's bytes, a valid COG with overviews (${wholeReadBytes === 0 ? 'read back tile row by tile row' : 'read back whole'})`, async () => {
      const grid = gridOf(530, 300);
      const values = field(530, 300, 4);
      const streams = new GeoTiffStreams({ bufferBytes: 50_000, ...(wholeReadBytes === undefined ? {} : { wholeReadBytes }) });
      const path = join(dir, `streamed-${wholeReadBytes}`, 's.tif');
      const id = await streams.create(path, grid, { tileSize: 48, metadata: { DAY_OF_YEAR: '172' } });
      const tiling = streams.tiling(id);
      const order = Array.from({ length: tiling.count }, (_, t) => (t * 5) % tiling.count);
      assert.equal(new Set(order).size, tiling.count);
      for (const t of order) {
        const tile = new Float32Array(tiling.tileWidth * tiling.tileHeight).fill(NaN);
        const col0 = (t % tiling.across) * tiling.tileWidth;
        const row0 = Math.floor(t / tiling.across) * tiling.tileHeight;
        for (let r = 0; r < tiling.tileHeight && row0 + r < 300; r++) {
          for (let c = 0; c < tiling.tileWidth && col0 + c < 530; c++) tile[r * tiling.tileWidth + c] = values[(row0 + r) * 530 + col0 + c]!;
        }
        streams.add(id, t, encodeFloat32Tile(tile, tiling.tileWidth, tiling.tileHeight, tileCompression()));
        await streams.ready();
      }
      await streams.finish(id);
      assert.deepEqual(readFileSync(path), encodeFloat32GeoTiff(grid, values, { tileSize: 48, metadata: { DAY_OF_YEAR: '172' } }));
      const check = await validateCog(path);
      assert.ok(check.valid, check.report);
      assert.ok(sameValues(await gdalReadAsync(path, dir, 'Float32'), values));
    });
  }
});
