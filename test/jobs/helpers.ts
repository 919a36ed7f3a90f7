/** A temp data layout with a real job store, paths and a plain-process runtime running the stub child. */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobPaths } from '../../src/jobs/store/paths.js';
import { JobStore } from '../../src/jobs/store/store.js';
import type { JobParameters } from '../../src/jobs/types.js';
import { ProcessRuntime } from '../../src/runtime/process.js';

export const STUB_CHILD = new URL('./fixtures/stubChild.ts', import.meta.url);
export const FIXTURE_DEM = new URL('../fixtures/mcn_10m.tif', import.meta.url);
export const PARAMS: JobParameters = { step: 15, linke_value: 3, albedo_value: 0.2, num_threads: 4 };

export function makeEnv(name: string) {
  const root = mkdtempSync(join(tmpdir(), `eemt-${name}-`));
  const paths = new JobPaths({ uploadDir: join(root, 'uploads'), resultsDir: join(root, 'results'), tempDir: join(root, 'temp'), cacheDir: join(root, 'cache') });
  for (const dir of Object.values(paths.dirs)) mkdirSync(dir, { recursive: true });
  const store = new JobStore(join(root, 'jobs.db'));
  const runtime = new ProcessRuntime({ limits: { cpus: 2, memoryBytes: 1024 ** 3 }, childEntry: STUB_CHILD });
  /** Stores the DEM of a new job as the submit route does. */
  const upload = (id: string) => {
    mkdirSync(paths.uploadDir(id), { recursive: true });
    copyFileSync(FIXTURE_DEM, paths.demPath(id));
  };
  return { root, paths, store, runtime, upload, cleanup: () => { store.close(); rmSync(root, { recursive: true, force: true }); } };
}

export async function waitFor<T>(probe: () => T | undefined | null | false, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
