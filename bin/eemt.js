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
import { isAscii } from 'node:buffer';
import { existsSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

/**
 * Runs the command's CommonJS bundle as require() would, compiled with V8's code cache of an earlier run: the
 * bytecode of the functions that run compiled then, in `<bundle>.<size>-<mtime>.<sol|other>.v8cache` beside it (a
 * rebuilt bundle gets caches of its own, the build removes the old ones; `sol` runs keep one of their own, so that
 * a cache written by another command, which compiled little of theirs, does not stand in for it). A cache that is
 * missing, or that V8 rejects (another Node version or other V8 flags), is written at the exit of a run that did
 * its work (exit code 0, no help asked for), through a file of its own renamed into place, so that runs at the same
 * time never read half of one; where the folder cannot be written, the command runs without. A short `eemt sol`
 * run takes about 35 ms less (docs/performance.md). The bundle imports the service's and the queue worker's
 * modules, which are not bundled, through `importUnbundled` (scripts/build-cli.mjs), as a script compiled here
 * cannot import() by itself.
 */
function runBundle(url) {
  const file = fileURLToPath(url);
  const { size, mtimeMs } = statSync(file);
  const cacheFile = `${file}.${size}-${Math.trunc(mtimeMs)}.${process.argv[2] === 'sol' ? 'sol' : 'other'}.v8cache`;
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  // (the build writes the bundle in ASCII, which read as Latin-1 is a string of one byte per character, read and
  // compiled about 6 ms sooner than UTF-8 text; the bundle's first line, the entry's #!, is a comment here: the
  // script starts with the wrapper)
  const bytes = readFileSync(file);
  const source = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8').replace(/^#!/, '//');
  const wrapper = `(function (exports, require, module, __filename, __dirname, importUnbundled) {${source}\n})`;
  const script = new Script(wrapper, { filename: file, cachedData });
  const help = process.argv.includes('--help') || process.argv.includes('-h');
  if ((cachedData === undefined || script.cachedDataRejected) && !help) {
    process.once('exit', (code) => code === 0 && writeCodeCache(script, cacheFile));
  }
  const module = { exports: {} };
  // (a relative path from the bundle's folder; anything else as this module would import it)
  const importUnbundled = (specifier) => import(specifier.startsWith('.') ? new URL(specifier, url).href : specifier);
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file), importUnbundled);
}

/** Writes `script`'s code cache to `cacheFile` (see `runBundle`); nothing when it cannot. */
function writeCodeCache(script, cacheFile) {
  const partFile = `${cacheFile}.${process.pid}.part`;
  try {
    writeFileSync(partFile, script.createCachedData());
    renameSync(partFile, cacheFile);
  } catch {
    try {
      unlinkSync(partFile);
    } catch {
      // (never written)
    }
  }
}

const buildState = new URL('../scripts/build-state.mjs', import.meta.url);
const stale = existsSync(buildState) ? await (await import(buildState.href)).staleBuildParts(undefined, ['typescript', 'wasm']) : [];
if (stale.includes('wasm')) {
  const { buildWasm } = await import(new URL('../scripts/build-wasm.mjs', import.meta.url).href);
  await buildWasm({ quiet: true });
}

if (!stale.includes('typescript')) {
  runBundle(new URL('../dist/bundle/main.cjs', import.meta.url));
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL('../src/cli/main.ts', import.meta.url).href);
}
