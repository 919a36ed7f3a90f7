import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GeoTiffStreams, assembleCog, type CogAssemblyJob } from '../../src/raster/geotiff/geoTiffStreams.js';
import { readDem, readRaster } from '../../src/raster/geotiff/readGeoTiff.js';
import type { GridSpec } from '../../src/raster/types.js';
import { encodeFloat32GeoTiff, encodeFloat32Tile, rasterTiling, tileCompression, type RasterTiling } from '../../src/raster/geotiff/writeGeoTiff.js';
import { partialStatistics } from '../../src/raster/geotiff/statistics.js';
import { FIXTURE_DEM, gdalinfo, gdalRead, tempDir } from './gdal.js';

let dir = '';
let cleanup = () => {};
let grid: GridSpec;
before(async () => {
  ({ dir, cleanup } = tempDir('raster-streams'));
  grid = { ...(await readDem(FIXTURE_DEM)).grid, width: 100, height: 37 };
});
after(() => cleanup());

const compression = tileCompression();

/** A field with NaN holes and a value pattern that differs per file. */
function field(width: number, height: number, seed: number): Float32Array {
  return Float32Array.from({ length: width * height }, (_, i) => (i % 97 === seed % 97 ? NaN : seed * 100 + Math.sin(i / 13) * 50 + i / 7));
}

/** Tile `t` of `values` as the writer's tile (NaN outside the raster). */
function tileOf(values: Float32Array, tiling: RasterTiling, t: number): Float32Array {
  const { width, height, tileWidth, tileHeight, across } = tiling;
  const tile = new Float32Array(tileWidth * tileHeight).fill(NaN);
  const col0 = (t % across) * tileWidth;
  const row0 = Math.floor(t / across) * tileHeight;
  for (let r = 0; r < tileHeight && row0 + r < height; r++) {
    for (let c = 0; c < tileWidth && col0 + c < width; c++) tile[r * tileWidth + c] = values[(row0 + r) * width + col0 + c]!;
  }
  return tile;
}

/** The statistics of tile `t`'s cells inside the raster, as the pipeline's workers send them with the tile. */
function statsOf(values: Float32Array, tiling: RasterTiling, t: number) {
  const col0 = (t % tiling.across) * tiling.tileWidth;
  const row0 = Math.floor(t / tiling.across) * tiling.tileHeight;
  const cols = Math.min(tiling.tileWidth, tiling.width - col0);
  const rows = Math.min(tiling.tileHeight, tiling.height - row0);
  return partialStatistics(tileOf(values, tiling, t), cols, rows, tiling.tileWidth);
}

function shuffled(n: number, seed: number): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  let s = seed;
  for (let i = n - 1; i > 0; i--) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % (i + 1);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

test('tiles in row-major order and one flush give the same bytes as the one-shot encoder', async () => {
  const values = field(100, 37, 1);
  const options = { tileSize: 32, description: 'day 1', metadata: { UNITS: 'h', DAY_OF_YEAR: '1' } };
  const streams = new GeoTiffStreams();
  const path = join(dir, 'same', 'a.tif');
  const id = await streams.create(path, grid, options);
  const tiling = streams.tiling(id);
  for (let t = 0; t < tiling.count; t++) streams.add(id, t, encodeFloat32Tile(tileOf(values, tiling, t), tiling.tileWidth, tiling.tileHeight, compression), statsOf(values, tiling, t));
  await streams.finish(id);
  assert.deepEqual(readFileSync(path), encodeFloat32GeoTiff(grid, values, options));
  assert.deepEqual(readdirSync(join(dir, 'same')), ['a.tif']);
});

test('the COG assembly can run elsewhere: its job is plain data (cloned as for a worker thread) and the file is the same', async () => {
  const values = field(100, 37, 5);
  const options = { tileSize: 32, description: 'month 3', metadata: { UNITS: 'Wh m-2', MONTH: '3' } };
  const jobs: CogAssemblyJob[] = [];
  // a structured clone is what a worker thread receives: no functions, no shared state
  const elsewhere = new GeoTiffStreams({ assembler: async (job) => (jobs.push(job), assembleCog(structuredClone(job))) });
  const here = new GeoTiffStreams();
  const paths = [join(dir, 'elsewhere', 'a.tif'), join(dir, 'here', 'a.tif')];
  for (const [streams, path] of [[elsewhere, paths[0]!], [here, paths[1]!]] as const) {
    const id = await streams.create(path, grid, options);
    const tiling = streams.tiling(id);
    for (const t of shuffled(tiling.count, 3)) streams.add(id, t, encodeFloat32Tile(tileOf(values, tiling, t), tiling.tileWidth, tiling.tileHeight, compression), statsOf(values, tiling, t));
    await streams.finish(id);
  }
  assert.equal(jobs.length, 1);
  assert.equal(jobs[0]!.target, `${paths[0]}.cog.part`);
  assert.deepEqual(readFileSync(paths[0]!), readFileSync(paths[1]!));
  assert.deepEqual(readdirSync(join(dir, 'elsewhere')), ['a.tif']);
  // an assembler's failure fails the file and leaves no parts behind
  const failing = new GeoTiffStreams({ assembler: async () => Promise.reject(new Error('assembly worker lost')) });
  const path = join(dir, 'failing', 'a.tif');
  const id = await failing.create(path, grid, options);
  const tiling = failing.tiling(id);
  for (let t = 0; t < tiling.count; t++) failing.add(id, t, encodeFloat32Tile(tileOf(values, tiling, t), tiling.tileWidth, tiling.tileHeight, compression), statsOf(values, tiling, t));
  await assert.rejects(failing.finish(id), /assembly worker lost/);
  await failing.abort();
  assert.deepEqual(readdirSync(join(dir, 'failing')), []);
});

test('a file whose tiles are all still queued is assembled from them in memory: the same file as from its .part file', async () => {
  const values = field(100, 37, 8);
  const options = { tileSize: 16, description: 'in memory', metadata: { K: 'v' } };
  const jobs: CogAssemblyJob[] = [];
  const record = async (job: CogAssemblyJob) => (jobs.push(job), assembleCog(structuredClone(job)));
  // a large buffer keeps every tile queued; a one-byte buffer writes each tile to the .part file at once
  const inMemory = new GeoTiffStreams({ bufferBytes: 2 ** 26, assembler: record });
  const onDisk = new GeoTiffStreams({ bufferBytes: 1, assembler: record });
  const paths = [join(dir, 'memory', 'a.tif'), join(dir, 'disk', 'a.tif')];
  for (const [streams, path] of [[inMemory, paths[0]!], [onDisk, paths[1]!]] as const) {
    const id = await streams.create(path, grid, options);
    const tiling = streams.tiling(id);
    for (const t of shuffled(tiling.count, 5)) {
      streams.add(id, t, encodeFloat32Tile(tileOf(values, tiling, t), tiling.tileWidth, tiling.tileHeight, compression), statsOf(values, tiling, t));
      await streams.ready();
    }
    // the .part file holds the tiles written so far (ready() waited for the flushes): in memory there is none
    if (streams === inMemory) assert.equal(existsSync(`${path}.part`), false);
    else assert.ok(readFileSync(`${path}.part`).length > 0);
    await streams.finish(id);
  }
  assert.deepEqual(jobs.map((job) => job.source.tiles !== undefined), [true, false]);
  assert.deepEqual(readFileSync(paths[0]!), readFileSync(paths[1]!));
  assert.deepEqual(readdirSync(join(dir, 'memory')), ['a.tif']);
  const back = gdalRead(paths[0]!, dir, 'Float32');
  assert.ok(back.every((v, i) => Object.is(v, values[i]!)), 'GDAL reads the values back');
});

test('a COG assembled from memory over an assembly file holding more bytes is cut to its own length', async () => {
  const values = field(100, 37, 9);
  const written: Buffer[] = [];
  for (const stale of [0, 300_000]) {
    const streams = new GeoTiffStreams({ bufferBytes: 2 ** 26 });
    const path = join(dir, `stale-${stale}`, 'a.tif');
    const id = await streams.create(path, grid, { tileSize: 16 });
    const tiling = streams.tiling(id);
    for (let t = 0; t < tiling.count; t++) streams.add(id, t, encodeFloat32Tile(tileOf(values, tiling, t), tiling.tileWidth, tiling.tileHeight, compression), statsOf(values, tiling, t));
    streams.createAssemblyFile(id);
    if (stale > 0) writeFileSync(`${path}.cog.part`, Buffer.alloc(stale, 0xab));
    await streams.finish(id);
    written.push(readFileSync(path));
    assert.deepEqual(readdirSync(join(dir, `stale-${stale}`)), ['a.tif']);
  }
  assert.ok(written[0]!.length < 300_000);
  assert.deepEqual(written[1], written[0]);
  assert.ok(gdalRead(join(dir, 'stale-300000', 'a.tif'), dir, 'Float32').every((v, i) => Object.is(v, values[i]!)));
});

test('many files filled in shuffled tile order with small buffers: GDAL reads every value back, metadata intact', async () => {
  const streams = new GeoTiffStreams({ bufferBytes: 4000, maxOpenFiles: 3 });
  const files = Array.from({ length: 6 }, (_, k) => ({ path: join(dir, 'many', k % 2 ? 'odd' : 'even', `f${k}.tif`), values: field(100, 37, k + 2) }));
  const ids: number[] = [];
  for (const [k, f] of files.entries()) ids.push(await streams.create(f.path, grid, { tileSize: 16, description: `file ${k}`, metadata: { K: String(k) } }));
  const tiling = rasterTiling(grid, 16);
  // tiles arrive tile-outer, file-inner (as the pipeline makes them), in a shuffled tile order
  for (const t of shuffled(tiling.count, 9)) {
    for (const [k, f] of files.entries()) {
      streams.add(ids[k]!, t, encodeFloat32Tile(tileOf(f.values, tiling, t), tiling.tileWidth, tiling.tileHeight, compression), statsOf(f.values, tiling, t));
    }
    await streams.ready();
  }
  assert.ok(files.every((f) => !existsSync(f.path) && existsSync(`${f.path}.part`)), 'nothing under a final name before finish');
  await streams.finishAll(ids);
  assert.ok(streams.stats().flushes > 3, `${streams.stats().flushes} flushes`);
  for (const [k, f] of files.entries()) {
    const info = gdalinfo(f.path);
    assert.deepEqual(info.size, [100, 37]);
    assert.deepEqual(info.bands[0]!.block, [16, 16]);
    assert.equal(info.bands[0]!.description, `file ${k}`);
    assert.equal(info.metadata['']!['K'], String(k));
    assert.equal(info.metadata['IMAGE_STRUCTURE']!['PREDICTOR'], '3');
    const back = gdalRead(f.path, dir, 'Float32');
    assert.ok(back.every((v, i) => Object.is(v, f.values[i]!)), `file ${k} reads back`);
    const own = await readRaster(f.path);
    assert.ok(own.values.every((v, i) => Object.is(v, f.values[i]!)));
  }
  assert.ok(!readdirSync(join(dir, 'many', 'odd')).some((n) => n.endsWith('.part')));
});

test('BigTIFF on request', async () => {
  const streams = new GeoTiffStreams();
  const values = field(100, 37, 5);
  const path = join(dir, 'big.tif');
  const id = await streams.create(path, grid, { tileSize: 64, bigTiff: true });
  const tiling = streams.tiling(id);
  for (const t of shuffled(tiling.count, 3)) streams.add(id, t, encodeFloat32Tile(tileOf(values, tiling, t), tiling.tileWidth, tiling.tileHeight, compression), statsOf(values, tiling, t));
  await streams.finish(id);
  assert.equal(readFileSync(path).readUInt16LE(2), 43);
  assert.ok(gdalRead(path, dir, 'Float32').every((v, i) => Object.is(v, values[i]!)));
});

test('a missing or repeated tile is an error; abort removes unfinished files and keeps finished ones', async () => {
  const streams = new GeoTiffStreams();
  const values = field(100, 37, 6);
  const done = join(dir, 'abort', 'done.tif');
  const open = join(dir, 'abort', 'open.tif');
  const [a, b] = [await streams.create(done, grid, { tileSize: 64 }), await streams.create(open, grid, { tileSize: 64 })];
  const tiling = streams.tiling(a);
  const encoded = (t: number) => encodeFloat32Tile(tileOf(values, tiling, t), tiling.tileWidth, tiling.tileHeight, compression);
  for (let t = 0; t < tiling.count; t++) streams.add(a, t, encoded(t));
  streams.add(b, 0, encoded(0));
  assert.throws(() => streams.add(b, 0, encoded(0)), /written twice/);
  assert.throws(() => streams.add(b, tiling.count, encoded(0)), /outside/);
  await assert.rejects(streams.finish(b), /1 of 2 tiles were never written/);
  // files to be assembled may be created ahead (an empty .cog.part), whole or not; finishing writes over it
  streams.createAssemblyFile(a);
  streams.createAssemblyFile(b);
  assert.deepEqual(readdirSync(join(dir, 'abort')).sort(), ['done.tif.cog.part', 'open.tif.cog.part']);
  await streams.finish(a);
  streams.createAssemblyFile(a); // (finished: nothing to create)
  await streams.abort();
  assert.deepEqual(readdirSync(join(dir, 'abort')), ['done.tif']);
  assert.ok(gdalRead(done, dir, 'Float32').every((v, i) => Object.is(v, values[i]!)));
  await assert.rejects(streams.create(join(dir, 'abort', 'late.tif'), grid), /aborted/);
});

test('file descriptors stay bounded: 300 files stream under a limit of 64 open files', () => {
  const script = join(dir, 'fd-limit.mts');
  const out = join(dir, 'fd');
  const module = new URL('../../src/raster/geotiff/', import.meta.url).pathname;
  writeFileSync(
    script,
    `import { GeoTiffStreams } from '${module}geoTiffStreams.ts';
import { encodeFloat32Tile, tileCompression } from '${module}writeGeoTiff.ts';
const grid = ${JSON.stringify({ ...grid, width: 64, height: 64 })};
const streams = new GeoTiffStreams({ bufferBytes: 20000, maxOpenFiles: 8 });
const ids = [];
for (let k = 0; k < 300; k++) ids.push(await streams.create('${out}/f' + k + '.tif', grid, { tileSize: 16 }));
const tile = new Float32Array(256).map((_, i) => i);
for (let t = 0; t < 16; t++) {
  for (const id of ids) streams.add(id, t, encodeFloat32Tile(tile, 16, 16, tileCompression()));
  await streams.ready();
}
await streams.finishAll(ids);
console.log('ok', streams.stats().flushes);
`,
  );
  const result = spawnSync('prlimit', ['--nofile=64', process.execPath, '--import', 'tsx', script], { encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  assert.match(result.stdout, /^ok \d+/);
  assert.equal(readdirSync(out).length, 300);
  assert.deepEqual(gdalinfo(join(out, 'f299.tif')).size, [64, 64]);
});
