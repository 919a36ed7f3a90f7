// Needs: gdal
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { earlySolWorkersOf, solWorkOf, solWorkersOf } from '../../src/cli/earlyWorkers.js';

const line = (...args: string[]) => ['node', 'eemt', ...args];
const cores = availableParallelism();

test('the sol command line says how many workers to start before the command loads', () => {
  // as the command reads it: --threads, default every CPU (within 1–32), never more than the CPUs
  assert.equal(solWorkersOf(line('sol', 'dem.tif', '--out', 'out')), Math.min(cores, 32));
  assert.equal(solWorkersOf(line('sol', 'dem.tif', '--threads', '1', '--out', 'out')), 1);
  assert.equal(solWorkersOf(line('sol', 'dem.tif', '--out', 'out', '--threads=2')), Math.min(2, cores));
  assert.equal(solWorkersOf(line('sol', 'dem.tif', '--threads', '32')), cores);
  // none for a line the command will refuse, for help, and for other commands
  for (const threads of ['0', '33', '1.5', 'many']) assert.equal(solWorkersOf(line('sol', 'dem.tif', '--threads', threads)), 0, threads);
  assert.equal(solWorkersOf(line('sol', 'dem.tif', '--threads')), Math.min(cores, 32));
  assert.equal(solWorkersOf(line('sol', '--help')), 0);
  assert.equal(solWorkersOf(line('sol', 'dem.tif', '-h')), 0);
  assert.equal(solWorkersOf(line('eemt', 'dem.tif', '--out', 'out')), 0);
  assert.equal(solWorkersOf(line('--version')), 0);
  assert.equal(solWorkersOf(line()), 0);
});

test('the sol command line starts its other workers early only when its DEM and days make a run that uses them', async (t) => {
  const fixtures = new URL('../fixtures/', import.meta.url).pathname;
  const mcn = join(fixtures, 'mcn_10m.tif');
  const work = mkdtempSync(join(tmpdir(), 'early-workers-'));
  t.after(() => rmSync(work, { recursive: true, force: true }));
  // a 30 × 24 window of it, big-endian BigTIFF (the header as the command's reader reads it)
  const small = join(work, 'small.tif');
  execFileSync('gdal_translate', ['-q', '-srcwin', '60', '80', '30', '24', '-co', 'BIGTIFF=YES', '-co', 'ENDIANNESS=BIG', mcn, small]);
  // the DEM wherever it is on the line, the days from --days (365 without)
  assert.deepEqual(await solWorkOf(line('sol', mcn, '--out', work)), { cells: 228 * 211, days: 365 });
  assert.deepEqual(await solWorkOf(line('sol', '--days', '1-31,172', '-o', work, small)), { cells: 720, days: 32 });
  assert.deepEqual(await solWorkOf(line('sol', '--out', work, '--days=80', small)), { cells: 720, days: 1 });
  // no DEM to read: not told
  assert.equal(await solWorkOf(line('sol', join(work, 'missing.tif'), '--out', work)), null);
  assert.equal(await solWorkOf(line('sol', join(fixtures, 'README.md'), '--out', work)), null);
  // a directory after the pixels (GDAL moves it to the end when the metadata grows) is read where it is
  const moved = join(work, 'moved.tif');
  execFileSync('gdal_translate', ['-q', '-srcwin', '0', '0', '100', '90', mcn, moved]);
  execFileSync('gdal_edit.py', ['-mo', `NOTE=${'x'.repeat(300)}`, moved]);
  assert.ok(readFileSync(moved).readUInt32LE(4) > 100 * 90 * 4);
  assert.deepEqual(await solWorkOf(line('sol', moved, '--out', work)), { cells: 100 * 90, days: 365 });
  const two = Math.min(2, cores);
  // 720 cells × (3 days + the horizons' 5) is below runThreads' threshold: a run in the command's own thread, no
  // worker whatever --threads says
  assert.equal(await earlySolWorkersOf(line('sol', small, '--days', '30,80,330', '--threads', '2', '-o', work)), 0);
  assert.equal(await earlySolWorkersOf(line('sol', mcn, '--days', '30,80,330', '--threads', '2', '-o', work)), two);
  assert.equal(await earlySolWorkersOf(line('sol', small, '--threads', '2', '-o', work)), two);
  // a DEM that cannot be read: every worker the line asks for (the command then reports the DEM)
  assert.equal(await earlySolWorkersOf(line('sol', join(work, 'missing.tif'), '--threads', '2', '-o', work)), two);
  // 9 000 cells × (1 day + 5) is below the threshold
  assert.equal(await earlySolWorkersOf(line('sol', moved, '--days', '80', '--threads', '2', '-o', work)), 0);
  // a year of 720 cells is above it: one worker when one thread is asked for
  assert.equal(await earlySolWorkersOf(line('sol', small, '--threads', '1', '-o', work)), 1);
  assert.equal(await earlySolWorkersOf(line('eemt', small, '-o', work)), 0);
});
