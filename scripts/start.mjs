#!/usr/bin/env node
// `npm start`: starts the service from the compiled build (dist/server/main.js), first rebuilding only the parts of
// the build that are older than their sources (scripts/build-state.mjs): with a current build nothing is compiled
// and the service answers within about a second. Where a part is stale but its compiler is not installed (an
// install without development dependencies), the start is refused with the command that builds it.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, staleBuildParts } from './build-state.mjs';

const require = createRequire(import.meta.url);

const BUILDERS = {
  typescript: async () => {
    execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
    await (await import('./build-cli.mjs')).buildCli({ quiet: true });
  },
  web: async () => (await import('./build-web.mjs')).buildWeb({ quiet: true }),
  wasm: async () => (await import('./build-wasm.mjs')).buildWasm({ quiet: true }),
};

const stale = await staleBuildParts();
if (stale.length > 0) {
  console.error(`eemt-service: rebuilding ${stale.join(', ')} (older than the sources)`);
  try {
    for (const part of stale) await BUILDERS[part]();
  } catch (error) {
    console.error(`eemt-service: the build failed (${error instanceof Error ? error.message.split('\n')[0] : error}); run \`npm run build\``);
    process.exit(1);
  }
}
await import(pathToFileURL(join(ROOT, 'dist/server/main.js')).href);
