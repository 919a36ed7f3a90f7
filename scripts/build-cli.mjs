#!/usr/bin/env node
// Bundles the `eemt` command with esbuild from the compiled build into dist/bundle/: the command
// (dist/cli/main.js) as one CommonJS file, main.cjs, and the sol worker (dist/workflows/solarYear/solWorker.js)
// as one ES module, solWorker.js, in place of about 150 modules, which a short run spends a quarter of its time
// resolving and compiling. Run by `npm run build` after tsc; bin/eemt.js runs dist/bundle/main.cjs when it is
// current (scripts/build-state.mjs).
//
// - The command is CommonJS, loaded by require(): one file read and compiled at once, its modules evaluated only
//   when first used (esbuild's lazy wrappers). As ES modules in shared chunks (40 files, each resolved, linked and
//   evaluated), a short `eemt sol` run took about 30 ms longer (docs/performance.md). Its modules' `import.meta.url`
//   is the bundle's own URL.
// - bin/eemt.js runs the command's bundle with V8's code cache, as a script that cannot import() by itself: the
//   bundle's import() calls of the modules left outside it (the service's, the queue worker's) go to the
//   `importUnbundled` that bin/eemt.js passes it, or to import() when the bundle is require()d
//   (`routeUnbundledImports`).
// - dist/bundle/ sits as deep as dist/cli/, so the paths the modules take from their own location (the
//   WebAssembly kernels in build/wasm/, package.json) and the worker's (a sibling of the module that starts it,
//   named solWorker.js here too) are the same from the bundle.
// - The service (`eemt serve`) and the queue worker (`eemt worker`) are loaded from dist/ as they are, not bundled:
//   the command imports them by paths that are the same from dist/bundle/.
// - Packages stay in node_modules except the GeoTIFF reader and those of its dependencies that are ES modules
//   (about 50 modules), and the command line's parser, commander: a CommonJS package of six modules, which Node's
//   CommonJS loader took 20–35 ms to resolve, read and wrap, against 10 ms bundled (the `eemt` command's start:
//   `eemt sol --help` 100 against 110 ms). Packages with native parts load as usual.
// - proj4, which src/raster/geo/proj4.ts loads by require() (for the reason given there), is bundled into the
//   command (`bundleProj4`): its 317 KB are then compiled from the command's code cache with the rest, where
//   require() compiled them at every start (a short `eemt sol` run about 10 ms sooner, docs/performance.md).
import { build, stop } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Packages bundled into the command (without native parts); every other one is loaded from node_modules. */
const BUNDLED_PACKAGES = ['geotiff', '@petamoriken/float16', 'xml-utils', 'quick-lru', 'pako', 'zstddec', 'commander', 'proj4'];

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

/** The command's proj4 module (dist/raster/geo/proj4.js) as an import of the package, which esbuild bundles. */
const bundleProj4 = {
  name: 'bundle-proj4',
  setup(build) {
    build.onLoad({ filter: /[\\/]dist[\\/]raster[\\/]geo[\\/]proj4\.js$/ }, (args) => ({
      contents: "import proj4 from 'proj4';\nexport default proj4;\n",
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
  },
};

export async function buildCli({ quiet = false } = {}) {
  rmSync(`${root}/dist/bundle`, { recursive: true, force: true });
  const common = {
    absWorkingDir: root,
    bundle: true,
    platform: 'node',
    target: 'node20',
    plugins: [keepOutside],
    legalComments: 'none',
    logLevel: quiet ? 'error' : 'info',
  };
  const results = [
    await build({
      ...common,
      entryPoints: ['dist/cli/main.js'],
      outfile: 'dist/bundle/main.cjs',
      format: 'cjs',
      plugins: [keepOutside, bundleProj4],
      metafile: true,
      define: { 'import.meta.url': '__bundleUrl', 'import.meta.resolve': '__bundleResolve' },
      banner: {
        js: [
          "const __bundleUrl = require('node:url').pathToFileURL(__filename).href;",
          "const __bundleResolve = (specifier) => require('node:url').pathToFileURL(require.resolve(specifier)).href;",
          "const __importUnbundled = typeof importUnbundled === 'function' ? importUnbundled : (specifier) => import(specifier);",
        ].join(' '),
      },
    }),
    await build({
      ...common,
      entryPoints: ['dist/workflows/solarYear/solWorker.js'],
      outfile: 'dist/bundle/solWorker.js',
      format: 'esm',
      // bundled CommonJS modules require() Node's modules (esbuild's __require calls the `require` in scope)
      banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    }),
  ];
  await stop();
  if (results.some((result) => result.errors.length > 0)) throw new Error('command bundle failed');
  const output = 'dist/bundle/main.cjs';
  const path = `${root}/${output}`;
  const imports = results[0].metafile.outputs[output].imports;
  writeFileSync(path, escapeCommentText(routeUnbundledImports(readFileSync(path, 'utf8'), imports)));
}

/**
 * `code` with the characters beyond ASCII on its comment lines written as `\uXXXX` (esbuild escapes them everywhere
 * else, charset 'ascii', but keeps comments as they are): an ASCII bundle is read as Latin-1 into one byte per
 * character (bin/eemt.js), about 6 ms sooner than UTF-8 text of the same bundle, which V8 keeps at two bytes per
 * character.
 */
function escapeCommentText(code) {
  return code.replace(/^([ \t]*(?:\/\/|\/\*|\*).*)$/gm, (line) =>
    line.replace(/[^\x00-\x7f]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`),
  );
}

/**
 * The command bundle's `code` with its import() calls of modules outside it (`imports`, esbuild's metafile's list)
 * made calls of `__importUnbundled` (the banner's); fails when a call is not found as esbuild writes it.
 */
function routeUnbundledImports(code, imports) {
  for (const { path: specifier, kind, external } of imports) {
    if (kind !== 'dynamic-import' || !external) continue;
    const call = `import(${JSON.stringify(specifier)})`;
    if (!code.includes(call)) throw new Error(`command bundle: ${call} not found`);
    code = code.replaceAll(call, `__importUnbundled(${JSON.stringify(specifier)})`);
  }
  return code;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildCli({ quiet: true });
