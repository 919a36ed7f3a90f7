// Needs: gdal
/**
 * The `eemt` launcher runs the command's bundle with V8's code cache (bin/eemt.js, `runBundle`): written beside the
 * bundle after a run that did its work and had none (`sol` runs keep one of their own), read by the runs after it,
 * replaced when V8 rejects it, and never in the way — a folder where it cannot be written, a cache of another build.
 * Each test runs the launcher from an install of its own (the launcher, package.json and the bundle copied;
 * node_modules and the WebAssembly kernels linked), so that the other tests' runs of the command do not touch its
 * cache.
 */
import { test, type TestContext } from 'node:test';
import { isAscii } from 'node:buffer';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../server/serviceProcess.js';

const run = promisify(execFile);
const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** An install of the built command in a new private folder, removed after test `t`: its root and its bundle folder. */
function install(t: TestContext): { root: string; bundle: string } {
  const root = mkdtempSync(join(tmpdir(), 'eemt-code-cache-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const bundle = join(root, 'dist/bundle');
  mkdirSync(join(root, 'bin'));
  mkdirSync(bundle, { recursive: true });
  copyFileSync(join(REPO_ROOT, 'bin/eemt.js'), join(root, 'bin/eemt.js'));
  copyFileSync(join(REPO_ROOT, 'package.json'), join(root, 'package.json'));
  for (const file of ['main.cjs', 'solWorker.js']) copyFileSync(join(REPO_ROOT, 'dist/bundle', file), join(bundle, file));
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(root, 'node_modules'));
  mkdirSync(join(root, 'build'));
  symlinkSync(join(REPO_ROOT, 'build/wasm'), join(root, 'build/wasm'));
  return { root, bundle };
}

/** `eemt args…` of the install at `root` (run by Node, as the launcher's first line would). */
async function eemt(root: string, ...args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [join(root, 'bin/eemt.js'), ...args], { cwd: root, timeout: 120_000 });
}

/** The files of the bundle folder other than the bundle's two. */
function cacheFiles(bundle: string): string[] {
  return readdirSync(bundle).filter((name) => name !== 'main.cjs' && name !== 'solWorker.js').sort();
}

const CACHE_NAME = /^main\.cjs\.\d+-\d+\.(sol|other)\.v8cache$/;

test('the first run that does its work writes the code cache beside the bundle, sol runs one of their own; the runs after read it and leave it as it is', async (t) => {
  const { root, bundle } = install(t);
  const dem = join(REPO_ROOT, 'test/fixtures/mcn_10m.tif');
  const sol = (out: string) => eemt(root, 'sol', dem, '--days', '172', '--step', '60', '--threads', '1', '--out', join(root, out));
  // help, and a run that fails, write none
  assert.match((await eemt(root, 'sol', '--help')).stdout, /Usage: eemt sol/);
  await assert.rejects(eemt(root, 'sol', join(root, 'missing.tif'), '--out', join(root, 'none')), (error: { code?: number }) => error.code === 2);
  assert.deepEqual(cacheFiles(bundle), []);

  assert.match(Object.values(await sol('first')).join(''), /sol: 2 GeoTIFFs/);
  const [cache] = cacheFiles(bundle);
  assert.match(cache ?? '', CACHE_NAME, `one cache, no part file left: ${cacheFiles(bundle).join(', ')}`);
  assert.ok(cache!.endsWith('.sol.v8cache'), cache);
  assert.equal(cacheFiles(bundle).length, 1);
  const cachePath = join(bundle, cache!);
  const bytes = readFileSync(cachePath);
  assert.ok(bytes.length > 10_000, `a cache of the compiled functions (${bytes.length} bytes)`);
  // marked old, so that a rewrite would show in its time
  utimesSync(cachePath, 1_000_000, 1_000_000);
  assert.match(Object.values(await sol('second')).join(''), /sol: 2 GeoTIFFs/);
  assert.equal(statSync(cachePath).mtimeMs, 1_000_000_000, 'the cache was read, not written again');
  assert.deepEqual(readFileSync(cachePath), bytes);

  // another command keeps its own
  assert.equal((await eemt(root, '--version')).stdout.trim(), version);
  const caches = cacheFiles(bundle);
  assert.equal(caches.length, 2, caches.join(', '));
  assert.ok(caches.some((name) => CACHE_NAME.test(name) && name.endsWith('.other.v8cache')), caches.join(', '));
  assert.equal(statSync(cachePath).mtimeMs, 1_000_000_000);
});

test('a cache V8 rejects is replaced, and a rebuilt bundle gets a cache of its own', async (t) => {
  const { root, bundle } = install(t);
  await eemt(root, '--version');
  const [cache] = cacheFiles(bundle);
  const cachePath = join(bundle, cache!);
  writeFileSync(cachePath, Buffer.alloc(4096, 7));
  assert.equal((await eemt(root, '--version')).stdout.trim(), version);
  const replaced = readFileSync(cachePath);
  assert.notDeepEqual(replaced, Buffer.alloc(4096, 7));
  await eemt(root, '--version');
  assert.deepEqual(readFileSync(cachePath), replaced, 'the new cache is accepted');

  // the bundle rebuilt (another modification time): its cache is named after it
  utimesSync(join(bundle, 'main.cjs'), 2_000_000, 2_000_000);
  assert.equal((await eemt(root, '--version')).stdout.trim(), version);
  const caches = cacheFiles(bundle);
  assert.equal(caches.length, 2, caches.join(', '));
  assert.ok(caches.some((name) => name.endsWith('-2000000000.other.v8cache')), caches.join(', '));
});

test('where the cache cannot be written the command runs without one, silently', async (t) => {
  const { root, bundle } = install(t);
  await eemt(root, '--version');
  const [cache] = cacheFiles(bundle);
  const cachePath = join(bundle, cache!);
  // a folder in the cache's place: it cannot be read as a cache nor renamed over
  rmSync(cachePath);
  mkdirSync(cachePath);
  for (let i = 0; i < 2; i++) {
    const { stdout, stderr } = await eemt(root, '--version');
    assert.equal(stdout.trim(), version);
    assert.equal(stderr, '');
  }
  assert.deepEqual(cacheFiles(bundle), [cache], 'no part file is left');
  assert.ok(statSync(cachePath).isDirectory());
});

test('the built bundle is ASCII, read as Latin-1; a bundle with other characters is read as UTF-8', async (t) => {
  // (the build writes the characters of its comments as \u escapes, scripts/build-cli.mjs)
  const built = readFileSync(join(REPO_ROOT, 'dist/bundle/main.cjs'));
  assert.ok(isAscii(built), `a byte beyond ASCII at ${built.findIndex((byte) => byte > 0x7f)}`);
  assert.match(built.toString('latin1'), /\\u00b0C/, "a comment's ° written as \\u00b0");
  const { root, bundle } = install(t);
  writeFileSync(join(bundle, 'main.cjs'), "#!/usr/bin/env node\n// 20 \u00b0C\nprocess.stdout.write('\u2248 20 \u00b0C \u2713\\n');\n");
  assert.equal((await eemt(root, '--version')).stdout, '\u2248 20 \u00b0C \u2713\n');
});
