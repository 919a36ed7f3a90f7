/**
 * The package as a user installs it: `npm pack`, then `npm install -g` of the tarball into a fresh prefix, and the
 * `eemt` command run from an empty folder elsewhere — `eemt sol` on a DEM and `eemt serve` answering /health. The
 * install holds no build tools (TypeScript, tsx, esbuild are development dependencies) and runs the compiled build.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
// @ts-expect-error -- a plain JavaScript module of the build scripts
import { staleBuildParts } from '../../scripts/build-state.mjs';
import { REPO_ROOT } from '../server/serviceProcess.js';

const run = promisify(execFile);
let work = '';
let prefix = '';
let eemt = '';

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'eemt-packed-'));
  prefix = join(work, 'prefix');
  // npm pack runs `prepare`, which builds dist/ and build/wasm/ from the sources; a current build (CI builds
  // before the tests) is packed as it is
  const current = (await staleBuildParts()).length === 0;
  const pack = ['pack', '--silent', '--pack-destination', work, ...(current ? ['--ignore-scripts'] : [])];
  const { stdout } = await run('npm', pack, { cwd: REPO_ROOT, maxBuffer: 64 * 1024 * 1024, timeout: 600_000 });
  const tarball = join(work, stdout.trim().split('\n').at(-1)!);
  assert.ok(existsSync(tarball), `npm pack wrote ${tarball}`);
  await run('npm', ['install', '--global', '--prefix', prefix, '--no-audit', '--no-fund', tarball], { cwd: work, maxBuffer: 64 * 1024 * 1024, timeout: 900_000 });
  eemt = join(prefix, 'bin', 'eemt');
}, { timeout: 1_200_000 });

after(() => rmSync(work, { recursive: true, force: true }));

test('the installed package has no build tools and no sources, and carries the compiled build', () => {
  const installed = join(prefix, 'lib', 'node_modules', 'eemt-service');
  const modules = readdirSync(join(installed, 'node_modules'));
  for (const tool of ['typescript', 'tsx', 'esbuild', 'assemblyscript', 'playwright-core']) assert.ok(!modules.includes(tool), `${tool} is not installed`);
  for (const path of ['dist/server/main.js', 'dist/cli/main.js', 'dist/runtime/jobChild.js', 'dist/web/submit.js', 'build/wasm/dailyKernel.wasm', 'public/index.html']) {
    assert.ok(existsSync(join(installed, path)), path);
  }
  for (const path of ['src', 'test', 'assembly', 'web']) assert.ok(!existsSync(join(installed, path)), `${path}/ is not in the package`);
});

test('eemt sol runs from any folder', { timeout: 300_000 }, async () => {
  const folder = mkdtempSync(join(work, 'user-'));
  copyFileSync(join(REPO_ROOT, 'test/fixtures/mcn_10m.tif'), join(folder, 'dem.tif'));
  const { stdout, stderr } = await run(eemt, ['sol', 'dem.tif', '--out', 'out', '--days', '172', '--step', '60', '--threads', '2'], { cwd: folder, timeout: 240_000 });
  assert.match(stdout + stderr, /sol: 2 GeoTIFFs/);
  assert.ok(existsSync(join(folder, 'out/global/daily/total_sun_day_172.tif')));
  assert.ok(existsSync(join(folder, 'out/insol/daily/hours_sun_day_172.tif')));
});

test('eemt serve starts the service, which answers /health, and stops on SIGTERM', { timeout: 120_000 }, async () => {
  const folder = mkdtempSync(join(work, 'serve-'));
  const child = spawn(eemt, ['serve', '--port', '0'], { cwd: folder, env: { ...process.env, EEMT_RUNTIME: 'process', EEMT_AUTO_CLEANUP: 'false' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  try {
    let base: string | undefined;
    for (let i = 0; i < 600 && !base; i++) {
      base = /Server listening at (http:\/\/[^"\s]+)/.exec(output)?.[1];
      if (!base) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(base, `the service did not start:\n${output}`);
    const health = await fetch(`${base}/health`);
    assert.equal(health.status, 200);
    assert.equal(((await health.json()) as { status: string }).status, 'ok');
    assert.ok(existsSync(join(folder, 'jobs.db')), 'its data in the folder it was started from');
  } finally {
    child.kill('SIGTERM');
  }
  assert.equal(await exited, 0, output);
});
