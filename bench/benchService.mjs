/** What the service benchmarks share: a free loopback port, a service environment in a fresh folder, waiting for /health. */
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A fresh 0700 folder (`prefix` names it) and the environment of a process-runtime service on `port` with its data there. */
export function serviceEnvironment(prefix, port) {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const env = { ...process.env, EEMT_HOST: '127.0.0.1', EEMT_PORT: String(port), EEMT_RUNTIME: 'process', EEMT_AUTO_CLEANUP: 'false', EEMT_LOG_LEVEL: 'warn' };
  for (const [name, dir] of [['EEMT_DB_PATH', 'jobs.db'], ['EEMT_UPLOAD_DIR', 'uploads'], ['EEMT_RESULTS_DIR', 'results'], ['EEMT_TEMP_DIR', 'temp'], ['EEMT_CACHE_DIR', 'cache']]) {
    env[name] = join(root, dir);
  }
  return { root, env };
}

/** Waits until `base`/health answers 200, at most `tries` × 100 ms; `errors()` explains a failure. */
export async function waitForHealth(base, errors, tries = 300) {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/health`)).ok) return;
    } catch {
      /* not yet */
    }
    if (i > tries) throw new Error(`service did not start: ${errors()}`);
    await sleep(100);
  }
}
