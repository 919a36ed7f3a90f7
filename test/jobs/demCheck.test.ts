import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { DemChecker, demCheckMemoryBytes, FULL_CHECK_MAX_BYTES } from '../../src/jobs/admission/demCheck.js';
import { judgeDem } from '../../src/jobs/admission/demRules.js';
import { inflateBombDem, selfLoopingDirectory, smallDem } from '../security/hostileTiffs.js';
import { gdal, tempDir } from '../raster/gdal.js';
import { processesMentioning } from '../security/serviceProcess.js';

const { dir, cleanup } = tempDir('eemt-demcheck');
after(cleanup);


describe('the DEM check process', () => {
  const small = smallDem(dir);
  const limits = { maxCells: 2_000_000, fullCheckMaxBytes: FULL_CHECK_MAX_BYTES };

  test('an acceptable DEM: its grid comes back for the submission (no DEM read in the service)', async () => {
    const verdict = await new DemChecker({ maxCells: limits.maxCells }).check(small);
    assert.ok(verdict.ok, JSON.stringify(verdict));
    assert.equal(verdict.grid.width, 40);
    assert.equal(verdict.grid.height, 30);
    assert.equal(verdict.grid.crs.epsg, 26913);
    assert.deepEqual(verdict.summary, { width: 40, height: 30, crsName: 'NAD83 / UTM zone 13N', validCount: 1200 });
    assert.deepEqual(await judgeDem(small, limits), verdict, 'the process says what the rules say');
  });

  test('the rules refuse what the structure walk refuses, in words for the client', async () => {
    const looped = join(dir, 'looped.tif');
    writeFileSync(looped, selfLoopingDirectory(readFileSync(small)));
    assert.deepEqual(await judgeDem(looped, limits), {
      ok: false,
      problem: 'the TIFF is damaged: its chain of image directories loops back to the directory at byte 8',
    });
    assert.deepEqual(await judgeDem(small, { ...limits, maxCells: 1000 }), {
      ok: false,
      problem: '40 × 30 cells is more than the limit of 1000 cells (EEMT_MAX_DEM_CELLS)',
    });
  });

  test('files over the full-check size get the header rules only', async () => {
    const bomb = join(dir, 'bomb.tif');
    writeFileSync(bomb, inflateBombDem(64 * 1024 ** 2));
    const headerOnly = await judgeDem(bomb, { ...limits, fullCheckMaxBytes: 0 });
    assert.ok(headerOnly.ok && headerOnly.summary === null, JSON.stringify(headerOnly));
    const full = await judgeDem(bomb, limits);
    assert.ok(!full.ok);
    assert.match(full.problem, /decodes to more than the 4194304 bytes its cells hold/);
  });

  test('the wall-clock watchdog: a check still running after it is killed and the file refused', async () => {
    const unique = join(dir, 'slow-check.tif');
    writeFileSync(unique, readFileSync(small));
    const verdict = await new DemChecker({ maxCells: 1_000_000, timeoutMs: 30 }).check(unique);
    assert.deepEqual(verdict, { ok: false, problem: 'checking the file took longer than the limit of 30 ms' });
    assert.deepEqual(processesMentioning(unique), [], 'no check process is left');
  });

  test('the work limit is processor time: a check that needs more is refused as such; the default budget passes it', async () => {
    // 5000 × 5000 Float64 cells: about 3 s of processor time to decode and summarise
    const heavy = join(dir, 'heavy.tif');
    gdal('gdal_create', ['-q', '-of', 'GTiff', '-outsize', '5000', '5000', '-ot', 'Float64', '-burn', '2000', '-a_srs', 'EPSG:26913', '-a_ullr', '0', '50000', '50000', '0', '-co', 'TILED=YES', '-co', 'COMPRESS=DEFLATE', heavy]);
    const limited = await new DemChecker({ maxCells: 30_000_000, cpuSeconds: 1 }).check(heavy);
    assert.deepEqual(limited, { ok: false, problem: 'checking the file needed more than the limit of 1 s of processor time' });
    assert.deepEqual(processesMentioning(heavy), [], 'no check process is left');
    const sized = await new DemChecker({ maxCells: 30_000_000 }).check(heavy);
    assert.ok(sized.ok, JSON.stringify(sized));
  });

  test('the memory limit: a check that needs more is refused as such', async () => {
    // 3000 × 3000 Float64 cells need 72 MB decoded and 72 MB as values: more than 150 MB in all.
    const large = join(dir, 'large.tif');
    gdal('gdal_create', ['-q', '-of', 'GTiff', '-outsize', '3000', '3000', '-ot', 'Float64', '-burn', '2000', '-a_srs', 'EPSG:26913', '-a_ullr', '0', '30000', '30000', '0', '-co', 'TILED=YES', '-co', 'COMPRESS=DEFLATE', large]);
    const logs: string[] = [];
    const limited = await new DemChecker({ maxCells: 10_000_000, memoryBytes: 200 * 1024 ** 2, log: (line) => logs.push(line) }).check(large);
    assert.deepEqual(limited, { ok: false, problem: 'checking the file needed more than the 200 MB of memory the check may use' });
    assert.equal(logs.length, 1, 'the operator gets the details');
    const sized = await new DemChecker({ maxCells: 10_000_000 }).check(large);
    assert.ok(sized.ok, `with the default size (${demCheckMemoryBytes(10_000_000, 0)} bytes) it passes: ${JSON.stringify(sized)}`);
  });

  test('the check memory grows with the cell limit and with the file when it is decoded', () => {
    const base = demCheckMemoryBytes(0, 0);
    assert.equal(demCheckMemoryBytes(1_000_000, 0) - base, 24_000_000);
    assert.equal(demCheckMemoryBytes(0, 1000) - base, 2000);
    assert.equal(demCheckMemoryBytes(0, FULL_CHECK_MAX_BYTES + 1), base, 'a file that is not decoded costs nothing');
  });
});
