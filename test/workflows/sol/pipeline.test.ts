// Needs: gdal
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { join } from 'node:path';
import { readDem, readRaster } from '../../../src/raster/index.js';
import { ParameterRangeError } from '../../../src/workflows/params.js';
import { runSolWorkflow } from '../../../src/workflows/sol/index.js';
import { computeSolarYear } from '../../../src/workflows/solarYear/index.js';
import { prestartSolWorkers, spareSolWorkers } from '../../../src/workflows/solarYear/workerPool.js';
import { readFileSync } from 'node:fs';
import type { ProgressUpdate } from '../../../src/workflows/types.js';
import { validateCog } from '../../raster/gdal.js';

const fixtures = new URL('../../fixtures/', import.meta.url).pathname;
let work = '';
let small = '';

before(() => {
  work = mkdtempSync(join(tmpdir(), 'sol-pipeline-'));
  small = join(work, 'small.tif');
  execFileSync('gdal_translate', ['-q', '-srcwin', '60', '80', '30', '24', join(fixtures, 'mcn_10m.tif'), small]);
});
after(() => rmSync(work, { recursive: true, force: true }));

function gdalSize(path: string): number[] {
  return JSON.parse(execFileSync('gdalinfo', ['-json', path], { encoding: 'utf8' })).size;
}

test('progress starts at 0, never goes back, and ends at 1 with a short message at every step', async () => {
  const updates: ProgressUpdate[] = [];
  const result = await runSolWorkflow({
    demPath: small,
    outDir: join(work, 'progress'),
    params: { step: 30, linke_value: 3, albedo_value: 0.2, num_threads: 2 },
    onProgress: (u) => updates.push(u),
  });
  assert.equal(result.files.length, 742);
  assert.equal(result.validCells, 720);
  // phase timings: every phase took time; 742 tiles of 32 × 32 Float32 were encoded; the files hold what was written
  const phases = result.phases!;
  for (const key of ['horizonSeconds', 'kernelSeconds', 'encodeSeconds', 'writeSeconds', 'wallSeconds'] as const) assert.ok(phases[key] > 0, key);
  // the files completed after the last tile's computing: some time, within the run's
  assert.ok(phases.afterComputeSeconds > 0 && phases.afterComputeSeconds < phases.wallSeconds, `after the computing ${phases.afterComputeSeconds} s of ${phases.wallSeconds} s`);
  assert.equal(phases.encodedRawBytes, 742 * 32 * 32 * 4);
  const onDisk = result.files.reduce((n, f) => n + statSync(join(work, 'progress', f)).size, 0);
  assert.equal(phases.writtenBytes, onDisk);
  assert.equal(updates[0]!.fraction, 0);
  assert.equal(updates.at(-1)!.fraction, 1);
  for (let i = 1; i < updates.length; i++) assert.ok(updates[i]!.fraction >= updates[i - 1]!.fraction);
  for (const u of updates) assert.ok(u.message.length > 0 && u.message.length < 80, u.message);
  // smooth across the phases: horizons, days, completing the files
  for (let i = 1; i < updates.length; i++) assert.ok(updates[i]!.fraction - updates[i - 1]!.fraction <= 0.05, `jump before "${updates[i]!.message}"`);
  assert.ok(updates.some((u) => /^terrain horizons: tile \d+\/\d+$/.test(u.message)));
  assert.ok(updates.some((u) => /^day 365 of tile \d+\/\d+ \(\d+\/\d+ tile-days\)$/.test(u.message)));
  assert.ok(updates.some((u) => u.message === 'writing: 742/742 files complete'));
  for (const path of ['global/daily/total_sun_day_1.tif', 'insol/daily/hours_sun_day_365.tif', 'global/monthly/total_sun_dec_sum.tif']) {
    const check = await validateCog(join(work, 'progress', path));
    assert.ok(check.valid, `${path}: ${check.report}`);
  }
});

test('a small run writes each file as its last tile arrives, and never a part file of tiles', async () => {
  const out = join(work, 'early');
  const parts = () => readdirSync(out, { recursive: true }).map(String).filter((name) => name.endsWith('.tif.part'));
  let seenParts = 0;
  let updates = 0;
  let finishedBeforeWriting: number | null = null;
  await computeSolarYear(await readDem(small), {
    outDir: out,
    params: { stepMinutes: 30, linkeTurbidity: 3, albedo: 0.2 },
    threads: 2,
    tileSize: 16,
    onProgress: ({ message }) => {
      if (++updates % 50 === 0 && existsSync(out)) seenParts += parts().length;
      // the writing phase begins once the tiles are done: by then every file was written
      if (message.startsWith('writing') && finishedBeforeWriting === null) {
        finishedBeforeWriting = readdirSync(out, { recursive: true }).map(String).filter((name) => name.endsWith('.tif')).length;
      }
    },
  });
  assert.equal(finishedBeforeWriting, 742);
  assert.equal(seenParts, 0);
  const left = readdirSync(out, { recursive: true }).map(String);
  assert.deepEqual(left.filter((name) => name.endsWith('.part')), []);
  assert.deepEqual(gdalSize(join(out, 'global/daily/total_sun_day_100.tif')), [30, 24]);
});

test('aborting a run stops it with an AbortError and leaves no half-written file', async () => {
  const controller = new AbortController();
  const out = join(work, 'aborted');
  let days = 0;
  await assert.rejects(
    computeSolarYear(await readDem(small), {
      outDir: out,
      params: { stepMinutes: 15, linkeTurbidity: 3, albedo: 0.2 },
      threads: 2,
      signal: controller.signal,
      onProgress: ({ message }) => {
        // (at once: the replies of a small tile arrive together, and files finish as their last tile arrives)
        if (message.startsWith('day') && ++days === 20) queueMicrotask(() => controller.abort());
      },
    }),
    (error: Error) => error.name === 'AbortError',
  );
  // every product file was being written; none is left half-written, under its final name or as .part
  const left = readdirSync(out, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  assert.deepEqual(left.filter((e) => e.name.endsWith('.part')), []);
  for (const e of left) assert.deepEqual(gdalSize(join(e.parentPath, e.name)), [30, 24]);
  // a small run, computed in this thread (30 days of 720 cells: runThreads), stops the same way
  const inThread = new AbortController();
  let seen = 0;
  await assert.rejects(
    computeSolarYear(await readDem(small), {
      outDir: join(work, 'aborted-in-thread'),
      params: { stepMinutes: 15, linkeTurbidity: 3, albedo: 0.2 },
      threads: 1,
      days: Array.from({ length: 30 }, (_, i) => 1 + i),
      signal: inThread.signal,
      onProgress: ({ message }) => {
        if (message.startsWith('day') && ++seen === 5) queueMicrotask(() => inThread.abort());
      },
    }),
    (error: Error) => error.name === 'AbortError',
  );
  const leftInThread = readdirSync(join(work, 'aborted-in-thread'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  assert.deepEqual(leftInThread.filter((e) => e.name.endsWith('.part')), []);
  for (const e of leftInThread) assert.deepEqual(gdalSize(join(e.parentPath, e.name)), [30, 24]);
  // an already aborted signal stops before any work
  const aborted = AbortSignal.abort();
  await assert.rejects(
    computeSolarYear(await readDem(small), { outDir: join(work, 'never'), params: { stepMinutes: 15, linkeTurbidity: 3, albedo: 0.2 }, threads: 1, signal: aborted }),
    (error: Error) => error.name === 'AbortError',
  );
  assert.ok(!existsSync(join(work, 'never', 'global')));
});

test('a file that cannot be written fails the run with its error and removes every unfinished file', async () => {
  // a folder that cannot be made fails the run before any work
  const blocked = join(work, 'blocked');
  mkdirSync(join(blocked, 'insol'), { recursive: true });
  writeFileSync(join(blocked, 'insol/daily'), 'a file where a folder goes');
  await assert.rejects(
    computeSolarYear(await readDem(small), { outDir: blocked, params: { stepMinutes: 30, linkeTurbidity: 3, albedo: 0.2 }, threads: 2, days: [1, 2, 3, 4] }),
    (error: NodeJS.ErrnoException) => error.code === 'EEXIST' || error.code === 'ENOTDIR',
  );
  assert.deepEqual(readdirSync(blocked, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => e.name), ['daily']);
  // a file that cannot be put in place fails the run with its error; what is left is whole files only, no parts
  const out = join(work, 'unwritable');
  mkdirSync(join(out, 'insol/daily/hours_sun_day_3.tif/in the way'), { recursive: true });
  await assert.rejects(
    computeSolarYear(await readDem(small), { outDir: out, params: { stepMinutes: 30, linkeTurbidity: 3, albedo: 0.2 }, threads: 2, days: [1, 2, 3, 4] }),
    (error: NodeJS.ErrnoException) => error.code === 'EISDIR' || error.code === 'ENOTEMPTY',
  );
  const files = readdirSync(out, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  assert.deepEqual(files.filter((e) => e.name.endsWith('.part')), []);
  for (const e of files) assert.deepEqual(gdalSize(join(e.parentPath, e.name)), [30, 24]);
});

test('a subset of days writes those days only, and monthly sums only for complete months', async () => {
  const out = join(work, 'subset');
  const result = await computeSolarYear(await readDem(small), {
    outDir: out,
    params: { stepMinutes: 20, linkeTurbidity: 3, albedo: 0.2 },
    threads: 1,
    days: [...Array.from({ length: 28 }, (_, i) => 32 + i), 200],
  });
  assert.equal(readdirSync(join(out, 'global/daily')).length, 29);
  assert.deepEqual(readdirSync(join(out, 'global/monthly')), ['total_sun_feb_sum.tif']);
  assert.ok(result.files.includes('insol/daily/hours_sun_day_200.tif'));
  // sunshine hours are whole multiples of the step
  const hours = (await readRaster(join(out, 'insol/daily/hours_sun_day_200.tif'))).values;
  for (const h of hours) if (Number.isFinite(h)) assert.ok(Math.abs(h * 3 - Math.round(h * 3)) < 1e-4, `${h}`);
});

test('every product carries its unit type, description and statistics, equal to what GDAL computes from its pixels', async () => {
  const out = join(work, 'band-metadata');
  // 16-cell tiles: each file's statistics are merged from many tiles made on two threads
  await runSolWorkflow({ demPath: join(fixtures, 'mcn_10m.tif'), outDir: out, params: { step: 60, linke_value: 3, albedo_value: 0.2, num_threads: 2 }, days: [...Array.from({ length: 31 }, (_, i) => i + 1), 172], tileSize: 16 });
  for (const [path, unit] of [['global/daily/total_sun_day_172.tif', 'Wh m-2 day-1'], ['insol/daily/hours_sun_day_20.tif', 'h']] as const) {
    const band = JSON.parse(execFileSync('gdalinfo', ['-json', join(out, path)], { encoding: 'utf8' })).bands[0];
    assert.equal(band.unit, unit, path);
    assert.match(band.description, /^Daily (global irradiation|sunshine hours), day \d+$/);
    const stored = (name: string) => Number(band.metadata[''][`STATISTICS_${name}`]);
    // GDAL computing them itself, on a copy without the stored items
    const copy = join(work, 'band-metadata-copy.tif');
    execFileSync('gdal_translate', ['-q', '-of', 'GTiff', join(out, path), copy]);
    execFileSync('gdal_edit.py', ['-unsetstats', copy]);
    const computedBand = JSON.parse(execFileSync('gdalinfo', ['-json', '-stats', copy], { encoding: 'utf8' })).bands[0];
    rmSync(copy, { force: true });
    rmSync(`${copy}.aux.xml`, { force: true });
    const computed = (name: string) => Number(computedBand.metadata[''][`STATISTICS_${name}`]);
    for (const name of ['MINIMUM', 'MAXIMUM', 'MEAN', 'STDDEV']) {
      assert.ok(Math.abs(stored(name) - computed(name)) <= 1e-9 * Math.abs(computed(name)), `${path}: ${name} ${stored(name)} vs GDAL's ${computed(name)}`);
    }
    assert.ok(Math.abs(stored('VALID_PERCENT') - (100 * 48016) / 48108) < 1e-9, `${path}: ${stored('VALID_PERCENT')}`);
  }
  const month = JSON.parse(execFileSync('gdalinfo', ['-json', join(out, 'global/monthly/total_sun_jan_sum.tif')], { encoding: 'utf8' })).bands[0];
  assert.equal(month.unit, 'Wh m-2 month-1');
  assert.ok(Number(month.metadata[''].STATISTICS_MEAN) > 0);
});

test('a run takes the worker threads started ahead of it, and ends those it does not need, also when it fails', async () => {
  // 720 cells, a run of 200 days: above the small runs computed in their own thread (runThreads)
  const days = Array.from({ length: 200 }, (_, i) => 1 + i);
  const params = { step: 30, linke_value: 3, albedo_value: 0.2, num_threads: 1 };
  // three started ahead, one taken: the same files as a run whose thread starts with its setup
  prestartSolWorkers(3);
  assert.equal(spareSolWorkers(), 3);
  const ahead = await runSolWorkflow({ demPath: small, outDir: join(work, 'ahead'), params, days });
  assert.equal(spareSolWorkers(), 0);
  await computeSolarYear(await readDem(small, { precision: 'float32', shared: true }), {
    outDir: join(work, 'fresh'),
    params: { stepMinutes: 30, linkeTurbidity: 3, albedo: 0.2 },
    threads: 1,
    days,
  });
  for (const file of ahead.files) assert.deepEqual(readFileSync(join(work, 'ahead', file)), readFileSync(join(work, 'fresh', file)), file);
  // a DEM that cannot be read: the threads started for the run are ended with it
  writeFileSync(join(work, 'not-a-dem.tif'), 'not a GeoTIFF');
  await assert.rejects(runSolWorkflow({ demPath: join(work, 'not-a-dem.tif'), outDir: join(work, 'failed'), params: { ...params, num_threads: 2 } }));
  assert.equal(spareSolWorkers(), 0);
});

test('a run starts the worker threads it computes with: none for a small run, whatever the threads asked for', async () => {
  let started = 0;
  const count = () => started++;
  // (Node publishes every worker thread it creates on this channel)
  subscribe('worker_threads', count);
  try {
    const params = { step: 30, linke_value: 3, albedo_value: 0.2, num_threads: 2 };
    // 720 cells, two days: computed in this thread (runThreads), the same maps as on worker threads
    const inThread = await runSolWorkflow({ demPath: small, outDir: join(work, 'in-thread'), params, days: [80, 172] });
    assert.equal(started, 0);
    assert.equal(spareSolWorkers(), 0);
    // (210 days of the same cells, days 80 and 172 among them: one worker thread, as num_threads 1 asks)
    await runSolWorkflow({ demPath: small, outDir: join(work, 'worker'), params: { ...params, num_threads: 1 }, days: Array.from({ length: 210 }, (_, i) => 1 + i) });
    assert.equal(started, 1);
    assert.equal(inThread.files.length, 4);
    for (const file of inThread.files) {
      const a = await readRaster(join(work, 'in-thread', file));
      const b = await readRaster(join(work, 'worker', file));
      assert.deepEqual(a.values, b.values, file);
    }
    // 48 016 cells, three days: every thread asked for, up to the cores
    started = 0;
    await runSolWorkflow({ demPath: join(fixtures, 'mcn_10m.tif'), outDir: join(work, 'two-threads'), params, days: [1, 2, 3] });
    assert.equal(started, Math.min(2, availableParallelism()));
    assert.equal(spareSolWorkers(), 0);
  } finally {
    unsubscribe('worker_threads', count);
  }
});

test('parameters out of range are refused before any work', async () => {
  for (const params of [
    { step: 2, linke_value: 3, albedo_value: 0.2, num_threads: 1 },
    { step: 15, linke_value: 8.5, albedo_value: 0.2, num_threads: 1 },
    { step: 15, linke_value: 3, albedo_value: 1.2, num_threads: 1 },
    { step: 15, linke_value: 3, albedo_value: 0.2, num_threads: 33 },
  ]) {
    const out = join(work, 'refused');
    await assert.rejects(runSolWorkflow({ demPath: small, outDir: out, params }), ParameterRangeError);
    assert.ok(!existsSync(out));
  }
});
