// Needs: gdal
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { hillshade } from '../../src/raster/preview/hillshade.js';
import { AMBIENT_LIGHT, colourise, encodePng, legendStops } from '../../src/raster/preview/render.js';
import { summedPreview, summedStatistics } from '../../src/raster/preview/summedMap.js';
import { VIRIDIS } from '../../src/raster/preview/viridis.js';
import { previewSize, RasterLevels } from '../../src/raster/cog/rasterLevels.js';
import { writeFloat32GeoTiff } from '../../src/raster/geotiff/writeGeoTiff.js';
import { readDem } from '../../src/raster/geotiff/readGeoTiff.js';
import type { GridSpec } from '../../src/raster/types.js';
import { FIXTURE_DEM, gdal, tempDir } from './gdal.js';

let dir = '';
let cleanup = () => {};
let mcnGrid: GridSpec;
before(async () => {
  ({ dir, cleanup } = tempDir('raster-preview'));
  mcnGrid = (await readDem(FIXTURE_DEM)).grid;
});
/** The fixture's georeferencing with another size. */
const utm13Grid = (width: number, height: number): GridSpec => ({ ...mcnGrid, width, height });
after(() => cleanup());

/** Opens `path` as RasterLevels for the duration of `work`. */
async function withLevels<T>(paths: string[], work: (levels: RasterLevels[]) => Promise<T>): Promise<T> {
  const handles = await Promise.all(paths.map((p) => open(p, 'r')));
  try {
    return await work(await Promise.all(handles.map((h) => RasterLevels.open(h))));
  } finally {
    for (const h of handles) await h.close();
  }
}

describe('hillshade (light from the north-west at 45°)', () => {
  const plane = (slopeEast: number, slopeSouth: number) =>
    Float32Array.from({ length: 25 }, (_, i) => (i % 5) * 10 * slopeEast + Math.floor(i / 5) * 10 * slopeSouth);
  const cells = () => ({ dx: 10, dy: 10 });
  test('a 45° slope facing the light is fully lit, facing away is dark, flat ground is cos 45°', () => {
    const s = Math.SQRT1_2; // rises to the east and south by 1/√2 each: gradient 1, slope 45°, facing north-west
    assert.ok(Math.abs(hillshade(plane(s, s), 5, 5, cells)[12]! - 1) < 1e-6);
    assert.ok(Math.abs(hillshade(plane(-s, -s), 5, 5, cells)[12]! - 0) < 1e-6);
    assert.ok(Math.abs(hillshade(plane(0, 0), 5, 5, cells)[12]! - Math.SQRT1_2) < 1e-6);
    // a slope facing east (rising to the west) at 45°: cos45·cos45 + sin45·sin45·cos(135° − 0°) = 0.5 − 0.5·0.7071
    assert.ok(Math.abs(hillshade(plane(-1, 0), 5, 5, cells)[12]! - (0.5 - 0.5 * Math.SQRT1_2)) < 1e-6);
  });
  test('nodata stays nodata; edges and nodata neighbours use the centre elevation', () => {
    const z = plane(0, 0);
    z[0] = NaN;
    const shade = hillshade(z, 5, 5, cells);
    assert.ok(Number.isNaN(shade[0]!));
    assert.ok(Math.abs(shade[1]! - Math.SQRT1_2) < 1e-6);
    assert.ok(Math.abs(shade[24]! - Math.SQRT1_2) < 1e-6);
  });
});

describe('colours and PNG', () => {
  test('min is the first viridis colour, max the last, nodata transparent, shade multiplies', () => {
    const rgba = colourise(Float32Array.of(10, 20, NaN, 20), 10, 20, Float32Array.of(1, 1, 1, 0));
    assert.deepEqual(Array.from(rgba.subarray(0, 4)), [VIRIDIS[0], VIRIDIS[1], VIRIDIS[2], 255]);
    assert.deepEqual(Array.from(rgba.subarray(4, 8)), [VIRIDIS[765], VIRIDIS[766], VIRIDIS[767], 255]);
    assert.deepEqual(Array.from(rgba.subarray(8, 12)), [0, 0, 0, 0]);
    assert.deepEqual(Array.from(rgba.subarray(12, 15)), [0, 1, 2].map((k) => Math.round(VIRIDIS[765 + k]! * AMBIENT_LIGHT)));
    const stops = legendStops(10, 20, 3);
    assert.deepEqual(stops.map((s) => s.value), [10, 15, 20]);
    assert.equal(stops[0]!.color, '#440154');
    assert.equal(stops[2]!.color, '#fde725');
  });
  test('an RGBA image survives PNG encoding (decoded by pngjs)', () => {
    const rgba = colourise(Float32Array.from({ length: 12 }, (_, i) => (i === 5 ? NaN : i)), 0, 11);
    const png = PNG.sync.read(encodePng(rgba, 4, 3));
    assert.equal(png.width, 4);
    assert.equal(png.height, 3);
    assert.deepEqual(Uint8Array.from(png.data), rgba);
  });
  test('preview sizes keep the aspect ratio with the longest side capped', () => {
    assert.deepEqual(previewSize(10_000, 10_000, 1024), { width: 1024, height: 1024 });
    assert.deepEqual(previewSize(3000, 2000, 1024), { width: 1024, height: 683 });
    assert.deepEqual(previewSize(228, 211, 1024), { width: 228, height: 211 });
  });
});

describe('reading a map at a reduced size', () => {
  test('a large COG is read from the overview level that fits, not from the full map', async () => {
    const grid = utm13Grid(1100, 700);
    const values = Float32Array.from({ length: 1100 * 700 }, (_, i) => ((i % 1100) < 100 ? NaN : Math.sin(i / 5000) * 50 + (i % 1100)));
    const path = join(dir, 'large.tif');
    await writeFloat32GeoTiff(path, grid, values, { tileSize: 256 });
    await withLevels([path], async ([levels]) => {
      assert.deepEqual(levels!.levels.map((l) => [l.width, l.height]), [[1100, 700], [550, 350], [275, 175], [138, 88]]);
      assert.equal(levels!.levelFor(500, 300), 1);
      assert.equal(levels!.levelFor(275, 175), 2);
      assert.equal(levels!.levelFor(1000, 700), 0);
      // the writer stored the map's statistics, so the legend needs no pass over the full map
      const valid = Array.from(values).filter((v) => !Number.isNaN(v));
      assert.deepEqual([levels!.statistics?.minimum, levels!.statistics?.maximum], [valid.reduce((a, b) => Math.min(a, b)), valid.reduce((a, b) => Math.max(a, b))]);
      const stats = await summedStatistics([levels!]);
      assert.equal(stats.validCells, valid.length);
      assert.equal(stats.max, valid.reduce((a, b) => Math.max(a, b)));
      // the preview at the size of overview 2 is overview 2 itself, as GDAL reads it
      const preview = await levels!.downsample(275, 175);
      const ovr = join(dir, 'ovr2.tif');
      gdal('gdal_translate', ['-q', '-ot', 'Float32', '-of', 'GTiff', '-outsize', '275', '175', '-r', 'nearest', path, ovr]);
      const reference = await withLevels([ovr], ([l]) => l!.readRows(0, 0, 175));
      assert.deepEqual(Array.from(preview), Array.from(reference));
    });
  });

  test('downsampling averages the valid cells of each block (hand-worked 4 × 2 → 2 × 1)', async () => {
    const path = join(dir, 'small.tif');
    await writeFloat32GeoTiff(path, utm13Grid(4, 2), Float32Array.of(1, 2, NaN, NaN, 3, 6, NaN, 8), { tileSize: 16 });
    await withLevels([path], async ([levels]) => {
      assert.deepEqual(Array.from(await levels!.downsample(2, 1)), [3, 8]); // (1+2+3+6)/4, 8 alone
      assert.deepEqual(Array.from(await levels!.downsample(4, 2)).map(String), ['1', '2', 'NaN', 'NaN', '3', '6', 'NaN', '8']);
    });
  });

  test('statistics and previews of summed maps over every cell, nodata where any map has none', async () => {
    const grid = utm13Grid(300, 200);
    const maps = [0, 1, 2].map((k) => Float32Array.from({ length: 60_000 }, (_, i) => (i % 97 === 0 ? NaN : 0.1 * k + (i % 1000) / 7)));
    const paths = await Promise.all(
      maps.map(async (m, k) => {
        const p = join(dir, `sum${k}.tif`);
        await writeFloat32GeoTiff(p, grid, m, { tileSize: 64 });
        return p;
      }),
    );
    let min = Infinity, max = -Infinity, sum = 0, n = 0;
    for (let i = 0; i < 60_000; i++) {
      const v = maps[0]![i]! + maps[1]![i]! + maps[2]![i]!;
      if (Number.isNaN(v)) continue;
      min = Math.min(min, v);
      max = Math.max(max, v);
      sum += v;
      n++;
    }
    await withLevels(paths, async (levels) => {
      const stats = await summedStatistics(levels);
      assert.equal(stats.validCells, n);
      assert.equal(stats.min, min);
      assert.equal(stats.max, max);
      assert.ok(Math.abs(stats.mean! - sum / n) < 1e-9 * Math.abs(sum / n));
      const one = await summedStatistics([levels[2]!]);
      assert.equal(one.max, Math.max(...Array.from(maps[2]!).filter((v) => !Number.isNaN(v))));
      const preview = await summedPreview(levels, 300, 200);
      assert.equal(preview[5], maps[0]![5]! + maps[1]![5]! + maps[2]![5]!);
      assert.ok(Number.isNaN(preview[97]!));
    });
  });
});
