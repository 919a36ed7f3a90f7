#!/usr/bin/env node
// npm's `prepare` step (run by `npm ci` and `npm install` in this checkout): builds dist/ and build/wasm/
// (`npm run build`) so that `npx eemt` runs the compiled code right after installing, instead of compiling the
// TypeScript sources at every start. Skipped, with a note, where there is nothing to build with: no sources
// (the Docker images install the packages before copying the sources, then build) or no development
// dependencies (`npm ci --omit=dev`).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);

function skip(reason) {
  console.log(`prepare: ${reason}; not building (run \`npm run build\` later)`);
  process.exit(0);
}

if (!existsSync(`${root}/src`) || !existsSync(`${root}/tsconfig.build.json`)) skip('no sources');
for (const tool of ['typescript', 'assemblyscript', 'esbuild']) {
  try {
    require.resolve(`${tool}/package.json`);
  } catch {
    skip(`${tool} is not installed`);
  }
}
const npm = process.env.npm_execpath;
if (npm) execFileSync(process.execPath, [npm, 'run', 'build'], { cwd: root, stdio: 'inherit' });
else execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
