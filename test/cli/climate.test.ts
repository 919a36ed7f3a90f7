// Needs: gdal
/**
 * Offline Daymet through the CLI, against the local Daymet stand-in: `eemt climate points` lists the cells a
 * job downloads; `eemt climate prefetch` fills the cache (resumable, honest summary); an eemt job with an
 * unreachable Daymet server then completes from that cache. Without the cache the failure names the remedy.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDaymetServer, type DaymetTestServer } from '../helpers/daymetServer.js';

const root = new URL('../../', import.meta.url).pathname;
const eemt = join(root, 'bin/eemt.js');
let work = '';
let dem = '';
let server: DaymetTestServer;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'cli-climate-'));
  dem = join(work, 'jemez.tif');
  // 40 × 40 cells of 10 m across a Daymet cell boundary: a few 1 km cells
  execFileSync('gdal_translate', ['-q', '-srcwin', '90', '90', '40', '40', join(root, 'test/fixtures/mcn_10m.tif'), dem]);
  server = await startDaymetServer();
});
after(async () => {
  await server.close();
  rmSync(work, { recursive: true, force: true });
});

/** Runs the CLI without blocking the event loop (the Daymet stand-in lives in this process). */
function run(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [eemt, ...args], { cwd: work, env: { ...process.env, EEMT_CACHE_DIR: '', EEMT_DAYMET_URL: '', ...env } });
    let stdout = '', stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

test('climate points lists the Daymet cells as CSV; prefetch fills the cache, resumes, and an offline job completes from it', { timeout: 300_000 }, async () => {
  const points = await run(['climate', 'points', dem]);
  assert.equal(points.status, 0, points.stderr);
  const lines = points.stdout.trim().split('\n');
  assert.equal(lines[0], 'lat,lon,x,y');
  const rows = lines.slice(1).map((l) => l.split(','));
  assert.ok(rows.length >= 1 && rows.length <= 4, `${rows.length} cells`);
  for (const [lat, lon, x, y] of rows) {
    assert.ok(Math.abs(Number(lat) - 35.8) < 0.1 && Math.abs(Number(lon) + 106.6) < 0.1, `${lat},${lon}`);
    assert.match(x!, /^-\d+250$/); // Daymet cell centres: x ends in 250 west of the origin, y in 000
    assert.match(y!, /^-?\d+000$/);
  }

  const cache = join(work, 'cache');
  // first attempt: the server refuses every request; nothing is cached and the summary says so
  server.behaviour.failFirst = 1000;
  server.behaviour.failStatus = 404;
  const failing = await run(['climate', 'prefetch', dem, '--start-year', '2019', '--end-year', '2020', '--cache', cache, '--daymet-url', server.url]);
  assert.equal(failing.status, 2);
  assert.match(failing.stdout, new RegExp(`^prefetch: ${rows.length} Daymet cells × 2 years = ${rows.length * 2} cell-years in .*: 0 already cached, 0 downloaded, ${rows.length * 2} missing \\(${rows.length} points failed\\)`));
  assert.match(failing.stderr, /refused the request .* HTTP 404/);
  assert.match(failing.stderr, /run the same command again to fetch only what is missing/);

  server.behaviour.failFirst = 0;
  const before = server.requests.length;
  const ok = await run(['climate', 'prefetch', dem, '--start-year', '2019', '--end-year', '2020', '--cache', cache, '--daymet-url', server.url]);
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(ok.stdout, new RegExp(`: 0 already cached, ${rows.length * 2} downloaded, 0 missing`));
  assert.equal(server.requests.length - before, rows.length, 'one request per point for both years');
  for (const [, , x, y] of rows) assert.deepEqual(readdirSync(join(cache, 'daymet/v4', `${x}_${y}`)).sort(), ['2019.csv', '2020.csv']);

  // a second run downloads nothing
  const again = await run(['climate', 'prefetch', dem, '--start-year', '2019', '--end-year', '2020', '--cache', cache, '--daymet-url', server.url]);
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stdout, new RegExp(`: ${rows.length * 2} already cached, 0 downloaded, 0 missing`));
  assert.equal(server.requests.length - before, rows.length);

  // the network cut: nothing listens on the Daymet URL; the job reads everything from the cache
  const out = join(work, 'out');
  const job = await run(['eemt', dem, '--out', out, '--start-year', '2020', '--end-year', '2020', '--step', '60', '--threads', '2', '--cache', cache, '--daymet-url', 'http://127.0.0.1:9']);
  assert.equal(job.status, 0, job.stderr);
  assert.ok(existsSync(join(out, 'eemt/EEMT_Topo_annual_2020.tif')));
  assert.match(job.stdout, /annual EEMT_Topo mean [\d.]+/);
});

test('without a cache, an unreachable server is "Climate download failed" naming the pre-seeded cache', { timeout: 60_000 }, async () => {
  const job = await run(['eemt', dem, '--out', join(work, 'out-offline'), '--cache', join(work, 'empty-cache'), '--daymet-url', 'http://127.0.0.1:9']);
  assert.equal(job.status, 2);
  assert.match(job.stderr, /^eemt: Climate download failed: .*A cache pre-seeded with `eemt climate prefetch` \(EEMT_CACHE_DIR; docs\/daymet-cache\.md\) avoids the download\.$/m);
});

test('climate points for a DEM outside Daymet is one line naming climate_file, exit 2', async () => {
  const alps = join(work, 'alps.tif');
  execFileSync('gdal_translate', ['-q', '-a_srs', 'EPSG:32632', '-a_ullr', '400000', '5090000', '402280', '5087890', join(root, 'test/fixtures/mcn_10m.tif'), alps]);
  const res = await run(['climate', 'points', alps]);
  assert.equal(res.status, 2);
  assert.match(res.stderr, /^eemt: The DEM lies outside Daymet's coverage: .* upload monthly climate grids as climate_file \(CLI: --climate-file/);
});
