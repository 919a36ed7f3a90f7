#!/usr/bin/env node
// Bundles the pages' TypeScript (web/*.ts) with esbuild into dist/web/: one ES module per page (submit.js for `/`,
// monitor.js for `/monitor`), which the pages plugin serves under /assets/. Run by `npm run build` and by the test
// runner before the tests. Type checking is `npm run typecheck` (tsc -p web/tsconfig.json); esbuild only strips types.
import { build, stop } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { PAGE_SCRIPTS } from './page-scripts.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

export async function buildWeb({ quiet = false } = {}) {
  const result = await build({
    absWorkingDir: root,
    entryPoints: PAGE_SCRIPTS.map((name) => `web/${name}.ts`),
    outdir: 'dist/web',
    bundle: true,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    tsconfig: 'web/tsconfig.json',
    legalComments: 'none',
    logLevel: quiet ? 'error' : 'info',
  });
  // esbuild's service process would otherwise live as long as this one (a service started by `npm start`)
  await stop();
  if (result.errors.length > 0) throw new Error('web bundle failed');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await buildWeb();
