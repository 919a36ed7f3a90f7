#!/usr/bin/env node
// The `eemt` command. Runs the compiled CLI from dist/ when the build is up to date with src/
// (npm run build), otherwise the TypeScript sources through tsx. Either way the WebAssembly kernels
// (build/wasm/, compiled from assembly/) are compiled first when they are missing or older than their sources.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const compiled = new URL('../dist/cli/main.js', import.meta.url);
const sources = fileURLToPath(new URL('../src', import.meta.url));

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

const assembly = fileURLToPath(new URL('../assembly', import.meta.url));
const stale = (output) => {
  const kernel = new URL(`../build/wasm/${output}`, import.meta.url);
  return !existsSync(kernel) || statSync(kernel).mtimeMs < newestMtime(assembly);
};
const { WASM_KERNELS } = existsSync(assembly) ? await import(new URL('../scripts/wasm-kernels.mjs', import.meta.url).href) : { WASM_KERNELS: [] };
if (WASM_KERNELS.some(({ output }) => stale(output))) {
  const { buildWasm } = await import(new URL('../scripts/build-wasm.mjs', import.meta.url).href);
  await buildWasm({ quiet: true });
}

const buildIsCurrent = existsSync(compiled) && (!existsSync(sources) || statSync(compiled).mtimeMs >= newestMtime(sources));
if (buildIsCurrent) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/cli/main.ts', import.meta.url).href);
}
