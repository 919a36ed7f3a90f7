#!/usr/bin/env node
// The `eemt` command. Runs the compiled CLI, bundled (dist/bundle/main.js, scripts/build-cli.mjs), when the build
// is up to date with src/ (npm run build), otherwise the TypeScript sources through tsx. Either way the
// WebAssembly kernels (build/wasm/, compiled from assembly/) are compiled first when they are missing or older
// than their sources (scripts/build-state.mjs decides both).
import { existsSync } from 'node:fs';

const buildState = new URL('../scripts/build-state.mjs', import.meta.url);
const stale = existsSync(buildState) ? await (await import(buildState.href)).staleBuildParts() : [];
if (stale.includes('wasm')) {
  const { buildWasm } = await import(new URL('../scripts/build-wasm.mjs', import.meta.url).href);
  await buildWasm({ quiet: true });
}

if (!stale.includes('typescript')) {
  await import(new URL('../dist/bundle/main.js', import.meta.url).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/cli/main.ts', import.meta.url).href);
}
