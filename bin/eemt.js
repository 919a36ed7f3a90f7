#!/bin/sh
':' //; [ "$1" = sol ] && unset NODE_EXTRA_CA_CERTS; exec node "$0" "$@"
// (The two lines above are read by sh when the command is run as a program, and are a string and a comment to
// Node. Node 20 parses its whole certificate store at start-up when NODE_EXTRA_CA_CERTS is set, about 70 ms,
// nodejs/node#40524; `eemt sol` opens no TLS connection, so it starts without it. Every other command keeps it:
// Daymet is fetched over HTTPS.)
//
// The `eemt` command. Runs the compiled CLI, bundled (dist/bundle/main.cjs, scripts/build-cli.mjs), when the build
// is up to date with src/ (npm run build), otherwise the TypeScript sources through tsx. Either way the
// WebAssembly kernels (build/wasm/, compiled from assembly/) are compiled first when they are missing or older
// than their sources (scripts/build-state.mjs decides both).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const buildState = new URL('../scripts/build-state.mjs', import.meta.url);
const stale = existsSync(buildState) ? await (await import(buildState.href)).staleBuildParts(undefined, ['typescript', 'wasm']) : [];
if (stale.includes('wasm')) {
  const { buildWasm } = await import(new URL('../scripts/build-wasm.mjs', import.meta.url).href);
  await buildWasm({ quiet: true });
}

if (!stale.includes('typescript')) {
  // (require(), not import(): Node would first scan the 1 MB CommonJS bundle for named exports)
  createRequire(import.meta.url)('../dist/bundle/main.cjs');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/cli/main.ts', import.meta.url).href);
}
