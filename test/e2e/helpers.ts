/**
 * Browser tests of the pages: the whole service (real SQLite file, real job child processes) with the pages plugin,
 * in a temp folder on a free port, and one headless Chromium per test file.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ProcessRuntime } from '../../src/runtime/process.js';
import type { ServiceConfig } from '../../src/server/config.js';
import { testServiceConfig } from '../server/helpers.js';
import pages from '../../src/server/pages/index.js';
import { createService, type Service } from '../../src/server/service.js';

export const DEM = fileURLToPath(new URL('../fixtures/mcn_10m.tif', import.meta.url));
export const STUB_CHILD = new URL('../jobs/fixtures/stubChild.ts', import.meta.url);

export interface PagesService extends Service {
  readonly root: string;
  readonly config: ServiceConfig;
  readonly base: string;
  stop(): Promise<void>;
}

/**
 * Starts the service with the pages on 127.0.0.1:<random>. Jobs run as plain child processes: the real job child,
 * or with `stub: true` the job layer's stand-in child (fast, and steered by parameters: see stubChild.ts).
 */
export async function startPagesService(options: { stub?: boolean; env?: Record<string, string>; host?: string } = {}): Promise<PagesService> {
  const root = mkdtempSync(join(tmpdir(), 'eemt-pages-'));
  const config = testServiceConfig(root, options.env);
  const runtime = new ProcessRuntime({
    limits: { cpus: config.cpuLimit, memoryBytes: config.memoryBytes },
    ...(options.stub ? { childEntry: STUB_CHILD } : {}),
  });
  const service = await createService(config, { runtime, plugins: [pages] });
  const base = await service.listen({ host: options.host ?? '127.0.0.1', port: 0 });
  return {
    ...service,
    root,
    config,
    base,
    async stop() {
      await service.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** A small crop of the test DEM (24×24 cells by default): a real sol job on it takes a few seconds. */
export function smallDem(dir: string, size = 24, name = 'small.tif'): string {
  const out = join(dir, name);
  execFileSync('gdal_translate', ['-q', '-srcwin', '0', '0', String(size), String(size), DEM, out]);
  return out;
}

/** Headless Chromium; `executablePath` may be a wrapper that starts /usr/bin/chromium (e.g. in a network namespace). */
export async function launchBrowser(executablePath = '/usr/bin/chromium'): Promise<Browser> {
  return chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/**
 * Collects page errors, console errors and requests to anywhere but the service (the pages must work offline),
 * so a test can assert the page ran cleanly.
 */
export function watchErrors(page: Page, base: string): string[] {
  const errors: string[] = [];
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(`${base}/`) && !url.startsWith('data:') && !url.startsWith('blob:')) errors.push(`request elsewhere: ${url}`);
  });
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (msg) => {
    // Chromium logs every error response; the pages expect some (a refused submission), so those are not errors.
    // Nor is a request Chromium drops because the machine's network interfaces changed (tests running beside this
    // one create network namespaces): the pages poll again and recover.
    const text = msg.text();
    const expected = text.startsWith('Failed to load resource: the server responded with a status of') || text === 'Failed to load resource: net::ERR_NETWORK_CHANGED';
    if (msg.type() === 'error' && !expected) {
      errors.push(`console: ${msg.text()}`);
    }
  });
  return errors;
}

/** Submits a job through the API (multipart, like a script would). */
export async function apiSubmit(
  base: string,
  fields: Record<string, string>,
  file: { name: string; bytes: Uint8Array },
): Promise<{ status: number; body: any }> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('dem_file', new Blob([file.bytes]), file.name);
  const res = await fetch(`${base}/api/submit-job`, { method: 'POST', body: form });
  return { status: res.status, body: await res.json() };
}

export async function apiJob(base: string, id: string): Promise<any> {
  const res = await fetch(`${base}/api/jobs/${id}`);
  return res.json();
}

export { waitFor } from '../helpers/wait.js';
