/**
 * The job image's compiled package (scripts/build-job-image.mjs): taken from a current `dist/` only when it holds
 * every module of today's sources, and then only those modules, each as tsc writes it without source maps; a build
 * older than its sources, or missing a module, is compiled again instead. (test/runtime/docker.test.ts builds and
 * runs the whole image.)
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';
// @ts-expect-error -- a plain JavaScript module of the build scripts
import { buildParts } from '../../scripts/build-state.mjs';
// @ts-expect-error -- a plain JavaScript module of the build scripts
import { compiledModules, stageCompiledModules } from '../../scripts/build-job-image.mjs';

const roots: string[] = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

function write(path: string, text: string, seconds: number): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  utimesSync(path, seconds, seconds);
}

/**
 * A checkout whose sources (written at t = 1000 s) are src/a.ts, src/b/c.ts, a declaration file and the entries
 * the build state looks at, and whose dist/ (t = 2000 s) holds their modules, with source-map comments as
 * `npm run build` writes them, and the module of a source since deleted.
 */
async function checkout(): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'eemt-job-image-'));
  roots.push(root);
  for (const name of ['tsconfig.json', 'tsconfig.build.json']) write(join(root, name), '{}', 1000);
  for (const source of ['a.ts', 'b/c.ts', 'server/main.ts', 'cli/main.ts']) write(join(root, 'src', source), 'export {};\n', 1000);
  write(join(root, 'src/types/module.d.ts'), 'declare const x: number;\n', 1000);
  write(join(root, 'dist/a.js'), 'export const a = 1;\n//# sourceMappingURL=a.js.map\n', 2000);
  write(join(root, 'dist/a.js.map'), '{}', 2000);
  write(join(root, 'dist/b/c.js'), 'export const c = "//# sourceMappingURL=in a string";\n//# sourceMappingURL=c.js.map', 2000);
  write(join(root, 'dist/gone.js'), 'export {};\n', 2000);
  for (const output of ['dist/server/main.js', 'dist/cli/main.js']) write(join(root, output), 'export {};\n', 2000);
  const typescript = ((await buildParts(root)) as { name: string; outputs: string[] }[]).find((p) => p.name === 'typescript')!;
  for (const output of typescript.outputs) if (!existsSync(output)) write(output, '', 2000);
  return root;
}

test('a current build gives the modules of the sources, without the deleted source’s module, maps or source-map comments', async () => {
  const root = await checkout();
  assert.deepEqual(await compiledModules(root), ['a.js', 'b/c.js', 'cli/main.js', 'server/main.js']);
  const out = join(root, 'staged');
  assert.match(await stageCompiledModules(out, root), /copied 4 modules/);
  assert.equal(readFileSync(join(out, 'a.js'), 'utf8'), 'export const a = 1;\n');
  assert.equal(readFileSync(join(out, 'b/c.js'), 'utf8'), 'export const c = "//# sourceMappingURL=in a string";\n');
  assert.equal(existsSync(join(out, 'gone.js')), false);
  assert.equal(existsSync(join(out, 'a.js.map')), false);
});

test('a build older than a source, or without a source’s module, is not taken', async () => {
  const stale = await checkout();
  write(join(stale, 'src/b/c.ts'), 'export const c = 2;\n', 3000);
  assert.equal(await compiledModules(stale), null);
  const incomplete = await checkout();
  write(join(incomplete, 'src/d.ts'), 'export {};\n', 1000);
  assert.equal(await compiledModules(incomplete), null);
});
