#!/usr/bin/env node
// Runs the test suite with Node's built-in test runner on the TypeScript sources (loaded by tsx).
// Usage: npm test [-- <file or folder> ...]   (default: every *.test.ts under test/)
//
// A test file whose first line is `// Needs: gdal, chromium` (see test/helpers/systemTools.ts) is skipped, with
// one line saying why, when one of those system tools is missing; with EEMT_TEST_REQUIRE_TOOLS=1 (CI) that is an
// error instead, so CI skips nothing.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { register } from 'tsx/esm/api';

function collect(path, out) {
  if (statSync(path).isDirectory()) {
    for (const name of readdirSync(path).sort()) collect(join(path, name), out);
  } else if (path.endsWith('.test.ts')) {
    out.push(path);
  }
  return out;
}

const targets = process.argv.slice(2);
const found = (targets.length ? targets : ['test']).flatMap((t) => collect(t, []));
if (found.length === 0) {
  console.error('no test files found');
  process.exit(1);
}

// The pages' scripts are bundled from web/ (the service serves dist/web/), the WebAssembly kernels compiled from
// assembly/ (build/wasm/): build both from the current sources.
const { buildWeb } = await import('./build-web.mjs');
await buildWeb({ quiet: true });
const { buildWasm } = await import('./build-wasm.mjs');
await buildWasm({ quiet: true });

register();
const { SYSTEM_TOOLS, missingTools } = await import('../test/helpers/systemTools.ts');
const requireTools = process.env.EEMT_TEST_REQUIRE_TOOLS === '1';
const files = [];
for (const file of found) {
  const needs = /^\/\/ Needs: (.+)$/.exec(readFileSync(file, 'utf8').split('\n', 1)[0])?.[1].split(/,\s*/) ?? [];
  const unknown = needs.filter((tool) => !SYSTEM_TOOLS.includes(tool));
  if (unknown.length > 0) {
    console.error(`${file}: unknown system tool ${unknown.join(', ')} (known: ${SYSTEM_TOOLS.join(', ')})`);
    process.exit(1);
  }
  const missing = missingTools(needs);
  if (missing.length === 0) files.push(file);
  else if (requireTools) {
    console.error(`${file} cannot run: ${missing.join('; ')} (EEMT_TEST_REQUIRE_TOOLS=1: CI must not skip tests)`);
    process.exit(1);
  } else console.log(`skipped ${file}: ${missing.join('; ')}`);
}
if (files.length === 0) process.exit(0);

// A test still running after TEST_TIMEOUT_MS fails, named, instead of holding the run (and CI) until its limit: the
// longest tests and suites take about 3 minutes in CI (a test that needs longer sets its own timeout).
const TEST_TIMEOUT_MS = 10 * 60 * 1000;
const args = ['--import', 'tsx', '--test', '--test-concurrency=2', `--test-timeout=${TEST_TIMEOUT_MS}`, '--test-reporter=spec', ...files];
const result = spawnSync(process.execPath, args, { stdio: 'inherit' });
process.exit(result.status ?? 1);
