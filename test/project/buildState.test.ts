/**
 * The build's freshness check (scripts/build-state.mjs), which `npm start` and the `eemt` command use to rebuild
 * only what is older than its sources, and `npm start` itself: with a current build it starts the service without
 * compiling anything.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
// @ts-expect-error -- a plain JavaScript module of the build scripts
import { buildParts, staleBuildParts } from '../../scripts/build-state.mjs';
import { REPO_ROOT, serviceEnv, startServiceProcess } from '../server/serviceProcess.js';

const roots: string[] = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

interface BuildPart {
  name: string;
  sources: string[];
  outputs: string[];
}

function touch(path: string, seconds: number): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, '');
  utimesSync(path, seconds, seconds);
}

/** A checkout with every part's sources written at t = 1000 s and its outputs at t = 2000 s. */
async function checkout(): Promise<{ root: string; parts: BuildPart[] }> {
  const root = mkdtempSync(join(tmpdir(), 'eemt-build-state-'));
  roots.push(root);
  const parts = (await buildParts(root)) as BuildPart[];
  for (const part of parts) {
    for (const source of part.sources) touch(source.endsWith('.json') ? source : join(source, 'a.ts'), 1000);
    for (const output of part.outputs) touch(output, 2000);
  }
  return { root, parts };
}

test('a part is stale when a source is newer than its outputs or an output is missing; nothing else is', async () => {
  const { root, parts } = await checkout();
  assert.deepEqual(await staleBuildParts(root), []);
  assert.deepEqual(parts.map((p) => p.name), ['typescript', 'web', 'wasm']);

  touch(join(root, 'src/server/deep/new.ts'), 3000);
  assert.deepEqual(await staleBuildParts(root), ['typescript'], 'a new file deep in src/');
  touch(join(root, 'dist/server/main.js'), 4000);
  assert.deepEqual(await staleBuildParts(root), ['typescript'], 'one output rebuilt is not the whole build');
  touch(join(root, 'dist/cli/main.js'), 4000);
  assert.deepEqual(await staleBuildParts(root), ['typescript'], 'the command is compiled, not yet bundled');
  touch(join(root, 'dist/bundle/main.cjs'), 4000);
  assert.deepEqual(await staleBuildParts(root), ['typescript'], 'the command is bundled, its worker not yet');
  touch(join(root, 'dist/bundle/solWorker.js'), 4000);
  assert.deepEqual(await staleBuildParts(root), []);

  touch(join(root, 'tsconfig.build.json'), 5000);
  assert.deepEqual(await staleBuildParts(root), ['typescript'], 'the compiler settings are sources too');
  for (const output of parts[0]!.outputs) touch(output, 6000);

  touch(join(root, 'web/monitor.ts'), 7000);
  rmSync(parts[2]!.outputs[1]!);
  assert.deepEqual(await staleBuildParts(root), ['web', 'wasm']);
  assert.deepEqual(await staleBuildParts(root, ['typescript', 'wasm']), ['wasm'], 'only the parts asked for (the eemt command)');
  assert.deepEqual(await staleBuildParts(root, ['web']), ['web']);
});

test('an install without sources is never stale', async () => {
  const { root } = await checkout();
  for (const folder of ['src', 'web', 'assembly']) rmSync(join(root, folder), { recursive: true });
  rmSync(join(root, 'dist/web'), { recursive: true });
  assert.deepEqual(await staleBuildParts(root), []);
});

test('npm start with a current build starts the service without compiling', { timeout: 240_000 }, async () => {
  const start = { file: process.execPath, args: ['scripts/start.mjs'], cwd: REPO_ROOT };
  const run = async () => {
    const root = mkdtempSync(join(tmpdir(), 'eemt-start-'));
    roots.push(root);
    const service = startServiceProcess(serviceEnv(root), start);
    try {
      const base = await service.address(200_000);
      const health = await fetch(`${base}/health`);
      assert.equal(health.status, 200);
      return service.output();
    } finally {
      process.kill(-service.pid, 'SIGTERM');
      await service.exit;
    }
  };
  // The first start brings a stale build up to date (a checkout being edited); the second finds it current.
  const first = await run();
  if ((await staleBuildParts()).length === 0) {
    const second = await run();
    assert.doesNotMatch(second, /rebuilding/, 'nothing is compiled when the build is current');
  } else {
    assert.fail(`the start left the build stale (${(await staleBuildParts()).join(', ')}):\n${first}`);
  }
});
