// Needs: gdal
/**
 * The eemt workflow fails fast, before any solar computation: DEM outside Daymet coverage, too many
 * Daymet points, bad years, climate download failures (HTTP 500, closed port, stalled server); and the
 * Daymet cache is reused by a second job (checked by aborting both runs as the solar phase starts).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ClimateCoverageError, ClimateDownloadError } from '../../../src/climate/errors.js';
import { main } from '../../../src/cli/program.js';
import { ParameterRangeError } from '../../../src/workflows/params.js';
import { EEMT_PHASE_LABELS, checkEemtJobInputs, runEemtWorkflow, type EemtWorkflowRun } from '../../../src/workflows/eemt/index.js';
import type { ProgressUpdate } from '../../../src/workflows/types.js';
import { startDaymetServer, type DaymetTestServer } from '../../helpers/daymetServer.js';
import { tempDir, translate } from '../../raster/gdal.js';
import { cropMcn, testParams } from './helpers.js';

const { dir, cleanup } = tempDir('eemt-failfast');
let server: DaymetTestServer;
let mcnCrop: string;
let parisDem: string;
let europeLonLatDem: string;
let outCount = 0;

before(async () => {
  server = await startDaymetServer();
  mcnCrop = cropMcn(dir, 100, 100, 40, 40);
  // The same elevations placed near Paris: ETRS89 / UTM 31N, and WGS 84 longitude/latitude.
  parisDem = translate(mcnCrop, join(dir, 'paris_25831.tif'), ['-a_srs', 'EPSG:25831', '-a_ullr', '452000', '5411000', '452400', '5410600']);
  europeLonLatDem = translate(mcnCrop, join(dir, 'paris_4326.tif'), ['-a_srs', 'EPSG:4326', '-a_ullr', '2.30', '48.90', '2.31', '48.89']);
});
after(async () => {
  await server.close();
  cleanup();
});

function run(demPath: string, overrides: Partial<EemtWorkflowRun> = {}): { outDir: string; promise: Promise<unknown>; updates: ProgressUpdate[] } {
  const outDir = join(dir, `out${++outCount}`);
  const updates: ProgressUpdate[] = [];
  const promise = runEemtWorkflow({
    demPath,
    outDir,
    cacheDir: join(dir, `cache${outCount}`),
    daymetBaseUrl: server.url,
    params: testParams(2020),
    onProgress: (u) => updates.push(u),
    ...overrides,
  });
  return { outDir, promise, updates };
}

/** Runs `body` with the environment variable `name` set to `value`, then restores it. */
async function withEnv(name: string, value: string, body: () => Promise<void>): Promise<void> {
  const saved = process.env[name];
  process.env[name] = value;
  try {
    await body();
  } finally {
    if (saved === undefined) delete process.env[name];
    else process.env[name] = saved;
  }
}

function coverageError(code: ClimateCoverageError['code'], pattern: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof ClimateCoverageError, String(error));
    assert.equal(error.code, code);
    assert.match(error.message, pattern);
    return true;
  };
}

function downloadError(pattern: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof ClimateDownloadError, String(error));
    assert.ok(error.message.startsWith('Climate download failed: '), error.message);
    assert.match(error.message, pattern);
    return true;
  };
}

test('a DEM outside Daymet coverage is refused at once: no request, no solar output', async () => {
  for (const dem of [parisDem, europeLonLatDem]) {
    const requestsBefore = server.requests.length;
    const started = performance.now();
    const { outDir, promise } = run(dem);
    await assert.rejects(promise, coverageError('OUTSIDE_COVERAGE', /outside Daymet's coverage.*48\.\d\d°N.*use the sol workflow/));
    assert.ok(performance.now() - started < 5000, 'fails in seconds');
    assert.equal(server.requests.length, requestsBefore);
    assert.equal(existsSync(join(outDir, 'global')), false);
  }
});

test('checkEemtJobInputs: the submission-time check, from a path', async () => {
  await assert.rejects(checkEemtJobInputs(parisDem, { start: 2020, end: 2020 }), coverageError('OUTSIDE_COVERAGE', /outside Daymet's coverage/));
  await assert.rejects(checkEemtJobInputs(mcnCrop, { start: 2020, end: 2020 }, { maxPoints: 1 }), coverageError('TOO_MANY_POINTS', /EEMT_DAYMET_MAX_POINTS/));
  const ok = await checkEemtJobInputs(mcnCrop, { start: 2019, end: 2020 });
  assert.deepEqual(ok.years, [2019, 2020]);
  assert.ok(ok.coverage.cells.length >= 1 && ok.coverage.cells.length <= 4);
});

test('too many Daymet points (run option or EEMT_DAYMET_MAX_POINTS) is refused before any download', async () => {
  const requestsBefore = server.requests.length;
  const viaOption = run(mcnCrop, { daymetMaxPoints: 1 });
  await assert.rejects(viaOption.promise, coverageError('TOO_MANY_POINTS', /more than the limit of 1 per-point downloads/));
  await withEnv('EEMT_DAYMET_MAX_POINTS', '1', async () => {
    const viaEnv = run(mcnCrop);
    await assert.rejects(viaEnv.promise, coverageError('TOO_MANY_POINTS', /limit of 1 /));
    assert.equal(existsSync(join(viaEnv.outDir, 'global')), false);
  });
  assert.equal(server.requests.length, requestsBefore);
});

test('years: both required for eemt, 1980–2024, end ≥ start (ParameterRangeError before reading the DEM)', async () => {
  const missing = join(dir, 'no-such-dem.tif');
  await assert.rejects(run(missing, { params: testParams(2021, 2020) }).promise, (e) => e instanceof ParameterRangeError && e.field === 'end_year');
  await assert.rejects(run(missing, { params: testParams(1979) }).promise, (e) => e instanceof ParameterRangeError && e.field === 'start_year');
  await assert.rejects(run(missing, { params: { ...testParams(2020), start_year: undefined } }).promise, /start_year .* is required for eemt/);
});

test('a server answering HTTP 500 fails the job with "Climate download failed:" before the solar phase', async () => {
  const failing = await startDaymetServer({ failFirst: 1000, failStatus: 500 });
  try {
    const { outDir, promise, updates } = run(mcnCrop, { daymetBaseUrl: failing.url, climateDownload: { attempts: 2, retryDelayMs: 10 } });
    await assert.rejects(promise, downloadError(/answered HTTP 500 .*2 attempts/));
    assert.equal(existsSync(join(outDir, 'global')), false);
    assert.ok(updates.some((u) => /retrying/.test(u.message)), 'retries are visible in the progress messages');
  } finally {
    await failing.close();
  }
});

test('a closed port fails the job with "Climate download failed:"', async () => {
  const closed = await startDaymetServer();
  const url = closed.url;
  await closed.close();
  const { outDir, promise } = run(mcnCrop, { daymetBaseUrl: url, climateDownload: { attempts: 1 } });
  await assert.rejects(promise, downloadError(/could not be reached \(ECONNREFUSED/));
  assert.equal(existsSync(join(outDir, 'global')), false);
});

test('a stalled server shows in the progress messages, then times out', async () => {
  const hanging = await startDaymetServer({ hang: true });
  try {
    const { promise, updates } = run(mcnCrop, {
      daymetBaseUrl: hanging.url,
      climateDownload: { attempts: 1, timeoutMs: 1500, heartbeatSeconds: 0.4 },
    });
    await assert.rejects(promise, downloadError(/did not answer within 1\.5 s/));
    const waiting = updates.filter((u) => u.message.startsWith(`${EEMT_PHASE_LABELS.climate}: waiting for 127.0.0.1:`));
    assert.ok(waiting.length >= 2, `${waiting.length} waiting messages`);
    assert.match(waiting.at(-1)!.message, /no data for \d+ s \(0 of \d+ points ready/);
  } finally {
    await hanging.close();
  }
});

test('the Daymet cache is reused: a second job on the same DEM makes no request (runs aborted as solar starts)', async () => {
  const cacheDir = join(dir, 'shared-cache');
  const abortAtSolar = async () => {
    const controller = new AbortController();
    const updates: ProgressUpdate[] = [];
    const { promise } = run(mcnCrop, {
      cacheDir,
      signal: controller.signal,
      onProgress: (u) => {
        updates.push(u);
        // Aborted from outside the listener, as a job runner would.
        if (u.message.startsWith(`${EEMT_PHASE_LABELS.solar}: `)) setImmediate(() => controller.abort());
      },
    });
    await assert.rejects(promise, (e: Error) => e.name === 'AbortError');
    return updates;
  };
  const before = server.requests.length;
  const first = await abortAtSolar();
  const downloaded = server.requests.length - before;
  assert.ok(downloaded >= 1);
  assert.ok(first.some((u) => new RegExp(`${downloaded} downloaded, 0 from the cache`).test(u.message)));
  const second = await abortAtSolar();
  assert.equal(server.requests.length - before, downloaded, 'no request on the second run');
  assert.ok(second.some((u) => new RegExp(`0 downloaded, ${downloaded} from the cache`).test(u.message)));
  for (const updates of [first, second]) {
    for (let k = 1; k < updates.length; k++) assert.ok(updates[k]!.fraction >= updates[k - 1]!.fraction);
  }
});

test('without a cacheDir the Daymet cache goes to EEMT_CACHE_DIR (what the job runtimes set)', async () => {
  const cacheDir = join(dir, 'env-cache');
  const controller = new AbortController();
  await withEnv('EEMT_CACHE_DIR', cacheDir, async () => {
    const { promise } = run(mcnCrop, {
      cacheDir: undefined,
      signal: controller.signal,
      onProgress: (u) => {
        if (u.message.startsWith(`${EEMT_PHASE_LABELS.solar}: `)) setImmediate(() => controller.abort());
      },
    });
    await assert.rejects(promise, (e: Error) => e.name === 'AbortError');
  });
  assert.ok(readdirSync(join(cacheDir, 'daymet', 'v4')).length >= 1);
});

/** Runs the CLI in-process; returns its exit code and the lines it wrote to stderr that are not progress lines. */
async function cli(args: string[]): Promise<{ code: number; stderr: string }> {
  // Progress goes to stderr too: on a terminal as a bar, otherwise as "NN% message" lines.
  let stderr = '';
  const write = process.stderr.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    const code = await main(['node', 'eemt', ...args]);
    return { code, stderr: stderr.split('\n').filter((line) => line && !/^\d+% /.test(line)).join('\n') };
  } finally {
    process.stderr.write = write;
  }
}

/** stderr of a failed CLI run without the output-estimate line said before the run: the error, which must be one line. */
function errorOf(stderr: string): string {
  const lines = stderr.split('\n').filter((line) => line !== '' && !/^eemt: eemt outputs of about .+ expected in /.test(line));
  assert.equal(lines.length, 1, stderr);
  return lines[0]!;
}

test('CLI: coverage and download errors print one clean line and exit 2', async () => {
  const outside = await cli(['eemt', parisDem, '--out', join(dir, 'cli-out'), '--cache', join(dir, 'cli-cache'), '--daymet-url', server.url]);
  assert.equal(outside.code, 2);
  assert.match(errorOf(outside.stderr), /^eemt: The DEM lies outside Daymet's coverage: /);
  const refusing = await startDaymetServer({ failFirst: 1000, failStatus: 403 });
  try {
    const failed = await cli(['eemt', mcnCrop, '--out', join(dir, 'cli-out2'), '--cache', join(dir, 'cli-cache'), '--daymet-url', refusing.url]);
    assert.equal(failed.code, 2);
    assert.match(errorOf(failed.stderr), /^eemt: Climate download failed: .*HTTP 403/);
  } finally {
    await refusing.close();
  }
  const years = await cli(['eemt', mcnCrop, '--out', join(dir, 'cli-out3'), '--start-year', '2020', '--end-year', '2019']);
  assert.equal(years.code, 2);
  assert.equal(years.stderr, 'eemt: --end-year (2019) must not be before --start-year (2020)');
  for (const out of ['cli-out', 'cli-out2', 'cli-out3']) assert.equal(existsSync(join(dir, out)), false, `a failed run leaves no ${out}`);
});

test('an abort during the EEMT phase stops between months: no README, not every map', async () => {
  const tiny = cropMcn(dir, 50, 50, 8, 8);
  const controller = new AbortController();
  const { outDir, promise } = run(tiny, {
    signal: controller.signal,
    onProgress: (u) => {
      if (u.message.startsWith(`${EEMT_PHASE_LABELS.energy}: mar`)) setImmediate(() => controller.abort());
    },
  });
  await assert.rejects(promise, (e: Error) => e.name === 'AbortError');
  const maps = readdirSync(join(outDir, 'eemt'));
  assert.ok(maps.length > 0 && maps.length < 12, `${maps.length} EEMT maps`);
  assert.equal(existsSync(join(outDir, 'README.txt')), false);
});

test('a run after the solar parts fails before any download when the solar year is incomplete', async () => {
  const before = server.requests.length;
  const r = run(mcnCrop, { mode: { kind: 'solar-written' } });
  await assert.rejects(r.promise, /^Error: The solar phase did not write global\/daily\/total_sun_day_1\.tif; the EEMT maps need the whole solar year$/);
  assert.equal(server.requests.length, before, 'no climate request');
});

test('a run after solar tile slices fails before any download when a slice did not finish', async () => {
  const before = server.requests.length;
  const r = run(mcnCrop, { mode: { kind: 'assemble', slices: 2 } });
  await assert.rejects(r.promise, /Tile slice [12] of 2 did not finish \(no manifest in \.solar-slices\); the solar year cannot be assembled/);
  assert.equal(server.requests.length, before, 'no climate request');
});
