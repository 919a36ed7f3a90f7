#!/usr/bin/env node
// Compiles the WebAssembly kernels (assembly/*.ts, AssemblyScript; the list is scripts/wasm-kernels.mjs) into
// build/wasm/: today the daily solar kernel (dailyKernel.wasm), the near-field horizon bounds (nearBounds.wasm)
// and the GeoTIFF tile encoder (deflateTile.wasm), which src/util/wasmModules.ts loads (from src/ under the tests
// and from dist/ once built: both sit two folders below the repository). Run by `npm run build`, by the
// test runner before the tests, and by scripts/build-job-image.mjs (into the job image's /app/build/wasm).
// Options: -O3 (speed), the stub runtime (the kernels allocate nothing), 128-bit SIMD (Node.js ≥ 16.4), no
// assertions, memory imported from JavaScript (which sizes it for each compute tile).
import asc from 'assemblyscript/asc';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WASM_KERNELS } from './wasm-kernels.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Compiles every kernel into `outDir` (default build/wasm); throws with the compiler's messages on an error. */
export async function buildWasm({ outDir = join(root, 'build/wasm'), quiet = false } = {}) {
  mkdirSync(outDir, { recursive: true });
  for (const { source, output } of WASM_KERNELS) {
    // compiled beside the target, then renamed: a process reading the kernel never sees half a file
    const partial = join(outDir, `${output}.${process.pid}.part`);
    const args = [join(root, source), '-O3', '--runtime', 'stub', '--noAssert', '--enable', 'simd', '--importMemory', '--outFile', partial];
    const { error, stderr } = await asc.main(args);
    if (error) {
      rmSync(partial, { force: true });
      throw new Error(`${source}: ${error.message}\n${stderr.toString()}`);
    }
    renameSync(partial, join(outDir, output));
    if (!quiet) console.log(`${source} → ${join(outDir, output)}`);
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const i = process.argv.indexOf('--out');
  await buildWasm(i > 0 ? { outDir: process.argv[i + 1] } : {});
}
