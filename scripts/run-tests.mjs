#!/usr/bin/env node
// Runs the test suite with Node's built-in test runner on the TypeScript sources (loaded by tsx).
// Usage: npm test [-- <file or folder> ...]   (default: every *.test.ts under test/)
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function collect(path, out) {
  if (statSync(path).isDirectory()) {
    for (const name of readdirSync(path).sort()) collect(join(path, name), out);
  } else if (path.endsWith('.test.ts')) {
    out.push(path);
  }
  return out;
}

const targets = process.argv.slice(2);
const files = (targets.length ? targets : ['test']).flatMap((t) => collect(t, []));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const args = ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files];
const result = spawnSync(process.execPath, args, { stdio: 'inherit' });
process.exit(result.status ?? 1);
