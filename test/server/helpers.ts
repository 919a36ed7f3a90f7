/** Builds the whole service in a temp folder (real SQLite file, real child processes) on a free port. */
import type { FastifyServerOptions } from 'fastify';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configFromEnv, type ServiceConfig } from '../../src/server/config.js';
import type { Service } from '../../src/server/service.js';
import type { DemChecker } from '../../src/jobs/admission/demCheck.js';
import type { JobRuntime } from '../../src/runtime/types.js';

export const FIXTURES = new URL('../fixtures/', import.meta.url);
export const STUB_CHILD = new URL('../jobs/fixtures/stubChild.ts', import.meta.url);
export const fixture = (name: string) => readFileSync(new URL(name, FIXTURES));

export interface TestService extends Service {
  readonly root: string;
  readonly config: ServiceConfig;
  readonly base: string;
  stop(): Promise<void>;
}

/** Settings that put the database and every data folder inside `root`, with a random port and no automatic cleanup. */
export function dataInRootEnv(root: string): Record<string, string> {
  return {
    EEMT_PORT: '0',
    EEMT_DB_PATH: join(root, 'jobs.db'),
    EEMT_UPLOAD_DIR: join(root, 'uploads'),
    EEMT_RESULTS_DIR: join(root, 'results'),
    EEMT_TEMP_DIR: join(root, 'temp'),
    EEMT_CACHE_DIR: join(root, 'cache'),
    EEMT_AUTO_CLEANUP: 'false',
  };
}

/** Service configuration with every folder and the database inside `root`, on a random port. */
export function testServiceConfig(root: string, env: Record<string, string> = {}): ServiceConfig {
  return configFromEnv(testServiceEnv(root, env));
}

/** Settings of a test service: every folder and the database inside `root`, a random port, 2 CPUs, 2G. */
export function testServiceEnv(root: string, env: Record<string, string> = {}): Record<string, string> {
  return { ...dataInRootEnv(root), CONTAINER_CPU_LIMIT: '2', CONTAINER_MEMORY_LIMIT: '2G', ...env };
}

export async function startTestService(
  options: {
    runtime?: (config: ServiceConfig) => JobRuntime;
    env?: Record<string, string>;
    root?: string;
    logger?: FastifyServerOptions['logger'];
    demChecker?: DemChecker;
  } = {},
): Promise<TestService> {
  // (mode 0700, as mkdtemp makes it: sandboxed jobs reach their folders without its permissions loosened)
  const root = options.root ?? mkdtempSync(join(tmpdir(), 'eemt-api-'));
  const config = testServiceConfig(root, options.env);
  // (loaded here, not at the top: test files that only start service processes or send requests do not load the
  // whole service, about 1.7 s of each such file's start through tsx)
  const { createService } = await import('../../src/server/service.js');
  const service = await createService(config, {
    ...(options.runtime ? { runtime: options.runtime(config) } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.demChecker ? { demChecker: options.demChecker } : {}),
  });
  const address = await service.listen({ host: '127.0.0.1', port: 0 });
  return {
    ...service,
    root,
    config,
    base: address,
    async stop() {
      await service.close();
      if (!options.root) rmSync(root, { recursive: true, force: true });
    },
  };
}

/** POSTs a multipart submission (fields, optionally a file as dem_file and one as climate_file). */
export async function submit(
  base: string,
  fields: Record<string, string>,
  file?: { name: string; bytes: Uint8Array },
  climate?: { name: string; bytes: Uint8Array },
): Promise<{ status: number; body: any }> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (file) form.append('dem_file', new Blob([file.bytes]), file.name);
  if (climate) form.append('climate_file', new Blob([climate.bytes]), climate.name);
  const res = await fetch(`${base}/api/submit-job`, { method: 'POST', body: form });
  return { status: res.status, body: await res.json() };
}

export async function getJson(url: string, init?: RequestInit): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body, headers: res.headers };
}

export async function waitForStatus(base: string, id: string, statuses: string[], timeoutMs = 30_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await getJson(`${base}/api/jobs/${id}`);
    if (statuses.includes(body.status)) return body;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${body.status}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A pino destination that keeps every log record, for tests that check what the service logs. */
export function logCapture(): { stream: { write(line: string): void }; records: Array<{ level: number; msg: string; [key: string]: unknown }> } {
  const records: Array<{ level: number; msg: string }> = [];
  return { records, stream: { write: (line: string) => void records.push(JSON.parse(line)) } };
}
