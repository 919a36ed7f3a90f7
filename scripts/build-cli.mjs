#!/usr/bin/env node
// Bundles the `eemt` command with esbuild from the compiled build (dist/cli/main.js and the sol worker,
// dist/workflows/solarYear/solWorker.js) into dist/bundle/: a few files in place of about 150 modules, which a
// short run spends a quarter of its time resolving and compiling. Run by `npm run build` after tsc; bin/eemt.js
// runs dist/bundle/main.js when it is current (scripts/build-state.mjs).
//
// - dist/bundle/ sits as deep as dist/cli/, so the paths the modules take from their own location (the
//   WebAssembly kernels in build/wasm/, package.json) and the worker's (a sibling of the module that starts it,
//   named solWorker.js here too) are the same from the bundle.
// - The service (`eemt serve`) and the queue worker (`eemt worker`) are loaded from dist/ as they are, not bundled:
//   the command imports them by paths that are the same from dist/bundle/.
// - Packages stay in node_modules except the GeoTIFF reader and those of its dependencies that are ES modules
//   (about 50 modules), and the command line's parser, commander: a CommonJS package of six modules, which Node's
//   CommonJS loader took 20–35 ms to resolve, read and wrap, against 10 ms bundled (the `eemt` command's start:
//   `eemt sol --help` 100 against 110 ms). Its require() calls of Node's own modules go to the `require` every
//   output file defines first (the banner). Packages with native parts, and proj4 (loaded by require() from
//   src/raster/geo/proj4.ts, for the reason given there), load as usual.
import { build, stop } from 'esbuild';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Packages bundled into the command (without native parts); every other one is loaded from node_modules. */
const BUNDLED_PACKAGES = ['geotiff', '@petamoriken/float16', 'xml-utils', 'quick-lru', 'pako', 'zstddec', 'commander'];

/** Modules the command loads from dist/ unbundled: the service and the queue worker (imported only by their commands). */
const UNBUNDLED_MODULES = /^\.\.\/(server|worker)\//;

const packageName = (specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

const keepOutside = {
  name: 'keep-outside',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:') || !BUNDLED_PACKAGES.includes(packageName(args.path))) return { path: args.path, external: true };
      return undefined;
    });
    build.onResolve({ filter: UNBUNDLED_MODULES }, (args) => ({ path: args.path, external: true }));
  },
};

export async function buildCli({ quiet = false } = {}) {
  rmSync(`${root}/dist/bundle`, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: { main: 'dist/cli/main.js', solWorker: 'dist/workflows/solarYear/solWorker.js' },
    outdir: 'dist/bundle',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    chunkNames: 'chunk-[hash]',
    plugins: [keepOutside],
    legalComments: 'none',
    // bundled CommonJS modules require() Node's modules (esbuild's __require calls the `require` in scope)
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    logLevel: quiet ? 'error' : 'info',
  });
  await stop();
  if (result.errors.length > 0) throw new Error('command bundle failed');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildCli({ quiet: true });
