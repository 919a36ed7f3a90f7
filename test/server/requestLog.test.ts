/**
 * The request log of a real service process: one line per request at info, and health checks and static assets
 * at debug only, so that a service polled every second keeps a readable log.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { serviceEnv, startServiceProcess } from './serviceProcess.js';

const roots: string[] = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** The service's log lines (JSON objects) after `requests` were answered, at `level`. */
async function logAfter(level: string, requests: (base: string) => Promise<void>): Promise<Array<Record<string, unknown>>> {
  const root = mkdtempSync(join(tmpdir(), 'eemt-log-'));
  roots.push(root);
  const service = startServiceProcess(serviceEnv(root, { EEMT_LOG_LEVEL: level }));
  try {
    const base = await service.address();
    await requests(base);
    await new Promise((r) => setTimeout(r, 200)); // the last lines on their way through the pipe
  } finally {
    process.kill(-service.pid, 'SIGTERM');
    await service.exit;
  }
  return service
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const urlOf = (line: Record<string, unknown>) => (line.req as { url?: string } | undefined)?.url;

async function poll(base: string): Promise<void> {
  for (let i = 0; i < 100; i++) assert.equal((await fetch(`${base}/health`)).status, 200);
  for (let i = 0; i < 10; i++) await (await fetch(`${base}/assets/style.css`)).arrayBuffer();
  assert.equal((await fetch(`${base}/api/jobs`)).status, 200);
  assert.equal((await fetch(`${base}/api/jobs/${'x'.repeat(900)}`)).status, 404);
}

test('at info, 100 health checks and 10 asset requests write no line; other requests one line each', { timeout: 60_000 }, async () => {
  const lines = await logAfter('info', poll);
  assert.deepEqual(lines.filter((l) => /\/health|\/assets\//.test(urlOf(l) ?? '')), []);
  assert.equal(lines.filter((l) => JSON.stringify(l).includes('/health')).length, 0);
  const jobs = lines.filter((l) => urlOf(l) === '/api/jobs');
  assert.equal(jobs.length, 1, 'one line per request');
  assert.equal((jobs[0]!.res as { statusCode: number }).statusCode, 200);
  assert.equal(typeof jobs[0]!.responseTime, 'number');
  const long = lines.find((l) => urlOf(l)?.startsWith('/api/jobs/xxx'));
  assert.ok(long, 'the 404 is logged');
  assert.ok(urlOf(long)!.length <= 230, 'a long path is cut in the log');
});

test('at debug, every health check is logged, once', { timeout: 60_000 }, async () => {
  const lines = await logAfter('debug', poll);
  assert.equal(lines.filter((l) => urlOf(l) === '/health').length, 100);
  assert.equal(lines.filter((l) => urlOf(l) === '/assets/style.css').length, 10);
});
