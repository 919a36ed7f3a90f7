// The architecture as the imports draw it: src/'s folders are layers that import only downwards, no module imports
// itself through a cycle, and the route modules are leaves that only the app registers. Read from the source text
// (static imports, `export … from` and dynamic `import()`), so a new arrow the wrong way fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

const SRC = new URL('../../src/', import.meta.url).pathname;

/** Each top folder of src/ and its layer: a module may import from its own layer's folder or a lower layer only. */
const LAYER_OF: Record<string, number> = {
  cli: 7,
  server: 6,
  worker: 6,
  jobs: 5,
  runtime: 4,
  workflows: 3,
  climate: 2,
  science: 1,
  raster: 1,
  util: 0,
  types: 0, // ambient declarations (WebAssembly)
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** src-relative module paths (without extension) that `file` imports: statically (`from`), or all (with `import()`). */
function importsOf(file: string, pattern: RegExp): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(pattern)].map((m) => m[1]!);
  return specs
    .map((spec) => relative(SRC, normalize(join(dirname(file), spec))).replace(/\.(js|ts)$/, ''))
    .filter((target) => !target.startsWith('..'));
}

const STATIC_IMPORT = /\bfrom\s+'(\.{1,2}\/[^']+)'/g;
const ANY_IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*)'(\.{1,2}\/[^']+)'/g;
const moduleName = (file: string) => relative(SRC, file).replace(/\.ts$/, '');
const graph = new Map(sourceFiles(SRC).map((file) => [moduleName(file), importsOf(file, ANY_IMPORT)]));
const staticGraph = new Map(sourceFiles(SRC).map((file) => [moduleName(file), importsOf(file, STATIC_IMPORT)]));
const top = (module: string) => module.split('/')[0]!;

test('every src/ folder is a known layer and imports only its own layer or lower ones', () => {
  const wrong: string[] = [];
  for (const [module, targets] of graph) {
    if (!module.includes('/')) continue;
    assert.ok(top(module) in LAYER_OF, `src/${top(module)}/ has no layer in this test`);
    for (const target of targets) {
      if (top(target) === top(module)) continue;
      const [from, to] = [LAYER_OF[top(module)]!, LAYER_OF[top(target)]!];
      if (to >= from) wrong.push(`${module} → ${target}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('no import cycles between modules', () => {
  // Tarjan's strongly connected components; any component of more than one module is a cycle
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (module: string) => {
    indices.set(module, index);
    low.set(module, index++);
    stack.push(module);
    onStack.add(module);
    for (const target of graph.get(module) ?? []) {
      if (!graph.has(target)) continue;
      if (!indices.has(target)) {
        visit(target);
        low.set(module, Math.min(low.get(module)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(module, Math.min(low.get(module)!, indices.get(target)!));
    }
    if (low.get(module) === indices.get(module)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== module);
      if (component.length > 1 || (graph.get(module) ?? []).includes(module)) cycles.push(component.sort());
    }
  };
  for (const module of graph.keys()) if (!indices.has(module)) visit(module);
  assert.deepEqual(cycles, []);
});

test('route modules are leaves: only the app registers them, nothing imports from them', () => {
  const importers = [...graph].flatMap(([module, targets]) =>
    targets.filter((target) => target.startsWith('server/routes/') && module !== 'server/app').map((target) => `${module} → ${target}`),
  );
  assert.deepEqual(importers, []);
});

// A lazy import() of a whole folder (the CLI loading a workflow only when it runs it) goes through its index.ts.
test("src/ imports the module that defines a name, not a folder's re-exporting index.ts", () => {
  const barrels = ['raster/index', 'climate/index', 'science/eemt/index', 'science/climate/index', 'workflows/sol/index', 'workflows/eemt/index'];
  for (const barrel of barrels) assert.ok(graph.has(barrel), `${barrel} exists`);
  const through = [...staticGraph].flatMap(([module, targets]) => targets.filter((target) => barrels.includes(target)).map((target) => `${module} → ${target}`));
  assert.deepEqual(through, []);
});

test('the test sees the modules it judges (a sanity check of the reader)', () => {
  assert.ok(graph.size > 150, `${graph.size} modules`);
  assert.ok(graph.get('server/app')!.some((target) => target.startsWith('server/routes/')), 'the app imports its routes');
  assert.ok([...graph.values()].flat().some((target) => target.startsWith('workflows/')), 'workflows are imported');
});
