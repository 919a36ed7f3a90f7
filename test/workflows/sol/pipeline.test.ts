// Needs: gdal
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDem, readRaster } from '../../../src/raster/index.js';
import { ParameterRangeError } from '../../../src/workflows/params.js';
import { computeSolarYear, runSolWorkflow } from '../../../src/workflows/sol/index.js';
import type { ProgressUpdate } from '../../../src/workflows/types.js';

const fixtures = new URL('../../fixtures/', import.meta.url).pathname;
let work = '';
let small = '';

before(() => {
  work = mkdtempSync(join(tmpdir(), 'sol-pipeline-'));
  small = join(work, 'small.tif');
  execFileSync('gdal_translate', ['-q', '-srcwin', '60', '80', '30', '24', join(fixtures, 'mcn_10m.tif'), small]);
});
after(() => rmSync(work, { recursive: true, force: true }));

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
  assert.equal(updates[0]!.fraction, 0);
  assert.equal(updates.at(-1)!.fraction, 1);
  for (let i = 1; i < updates.length; i++) assert.ok(updates[i]!.fraction >= updates[i - 1]!.fraction);
  for (const u of updates) assert.ok(u.message.length > 0 && u.message.length < 80, u.message);
  assert.ok(updates.some((u) => u.message.startsWith('terrain horizons')));
  assert.ok(updates.some((u) => /day \d+ done \(365\/365\)/.test(u.message)));
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
        if (message.startsWith('day') && ++days === 20) setImmediate(() => controller.abort());
      },
    }),
    (error: Error) => error.name === 'AbortError',
  );
  const written = readdirSync(join(out, 'global/daily'));
  assert.ok(written.length >= 20 && written.length < 365, `${written.length} days written`);
  assert.ok(!written.some((name) => name.endsWith('.part')));
  // an already aborted signal stops before any work
  const aborted = AbortSignal.abort();
  await assert.rejects(
    computeSolarYear(await readDem(small), { outDir: join(work, 'never'), params: { stepMinutes: 15, linkeTurbidity: 3, albedo: 0.2 }, threads: 1, signal: aborted }),
    (error: Error) => error.name === 'AbortError',
  );
  assert.ok(!existsSync(join(work, 'never', 'global')));
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
