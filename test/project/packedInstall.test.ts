/**
 * The package as a user installs it: `npm pack`, then `npm install -g` of the tarball into a fresh prefix, and the
 * `eemt` command run from an empty folder elsewhere — `eemt sol` on a DEM and `eemt serve` answering /health. The
 * install holds no build tools (TypeScript, tsx, esbuild are development dependencies) and runs the compiled build.
 *
 * better-sqlite3 installs its compiled module from its GitHub release (prebuild-install), as on a user's machine;
 * GitHub cannot be reached here, so the test serves that release asset from loopback (`binary_host`, the mirror
 * prebuild-install reads from the environment), packed from the module this checkout's own install compiled. Without
 * it npm compiles SQLite from source, about two minutes of the suite.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, createReadStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
// @ts-expect-error -- a plain JavaScript module of the build scripts
import { staleBuildParts } from '../../scripts/build-state.mjs';
import { REPO_ROOT } from '../server/serviceProcess.js';

const run = promisify(execFile);
let work = '';
let prefix = '';
let eemt = '';
/** The loopback server of better-sqlite3's release asset, and where prebuild-install caches what it downloads. */
let mirror: Server | null = null;
let cachedAsset = '';

/**
 * Serves better-sqlite3's release asset for this Node.js (`<name>-v<version>-node-v<abi>-<platform>-<arch>.tar.gz`
 * under `/v<version>/`, holding build/Release/better_sqlite3.node) from loopback, packed from this checkout's
 * compiled module. Returns the environment that points prebuild-install at it, or none when there is no module.
 */
async function serveSqliteRelease(): Promise<Record<string, string>> {
  const moduleDir = join(REPO_ROOT, 'node_modules/better-sqlite3');
  if (!existsSync(join(moduleDir, 'build/Release/better_sqlite3.node'))) return {};
  const { version } = JSON.parse(readFileSync(join(moduleDir, 'package.json'), 'utf8')) as { version: string };
  const asset = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  // the asset's path on the server and in the folder it is served from
  const path = `/v${version}/${asset}`;
  const file = join(work, 'releases', path);
  mkdirSync(dirname(file), { recursive: true });
  await run('tar', ['-czf', file, '-C', moduleDir, 'build/Release/better_sqlite3.node']);
  mirror = createServer((req, res) => {
    if (req.url !== path) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/gzip' });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((resolve) => mirror!.listen(0, '127.0.0.1', resolve));
  const host = `http://127.0.0.1:${(mirror.address() as AddressInfo).port}`;
  // prebuild-install keeps what it downloads in npm's cache, named by a digest of the address: removed after
  const { stdout: cache } = await run('npm', ['config', 'get', 'cache']);
  const digest = createHash('sha512').update(`${host}${path}`).digest('hex').slice(0, 6);
  cachedAsset = join(cache.trim(), '_prebuilds', `${digest}-${asset.replace(/[^a-zA-Z0-9.]+/g, '-')}`);
  return { npm_config_better_sqlite3_binary_host: host };
}

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
  const env = { ...process.env, ...(await serveSqliteRelease()) };
  await run('npm', ['install', '--global', '--prefix', prefix, '--no-audit', '--no-fund', tarball], { cwd: work, env, maxBuffer: 64 * 1024 * 1024, timeout: 900_000 });
  eemt = join(prefix, 'bin', 'eemt');
}, { timeout: 1_200_000 });

after(async () => {
  if (mirror) await new Promise((resolve) => mirror!.close(resolve));
  if (cachedAsset) rmSync(cachedAsset, { force: true });
  rmSync(work, { recursive: true, force: true });
});

test('the installed package has no build tools and no sources, and carries the compiled build', () => {
  // better-sqlite3's compiled module came from its release, as a user's does: not compiled from source
  if (mirror) assert.ok(existsSync(cachedAsset), `prebuild-install downloaded ${cachedAsset}`);
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
