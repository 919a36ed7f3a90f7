/**
 * Fuzz test of the whole HTTP surface: 1,200 generated requests (seeded; the seed is printed, and EEMT_FUZZ_SEED
 * replays a run) across every endpoint: random methods, paths, ids and query values (Infinity, 1e999, -0, hex,
 * 309 digits, unicode, empty), cleanup and OGC execution bodies of every JSON type and at and past every bound of
 * JSON bodies (many keys, long arrays, deep nesting, long strings, keys and numbers, many values, over the body limit),
 * broken multipart bodies (boundaries, truncation, huge field names, duplicate fields, wrong content types), random
 * headers, and raw bytes that are not valid HTTP.
 *
 * Every request must be answered, below 500; every error must carry a `detail` string, no body may contain a stack trace,
 * nothing may be logged as an error, rejected uploads must leave no file, and /health must still answer.
 * The service runs the job layer's stand-in child, so accepted submissions do no heavy work; one job that never
 * ends holds the only job slot, and everything is cancelled at the end.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { ProcessRuntime } from '../../src/runtime/process.js';
import { fixture, getJson, logCapture, startTestService, STUB_CHILD, submit, waitForStatus, type TestService } from '../server/helpers.js';
import { prng, randomRequest, type FuzzContext, type FuzzRequest, type RawRequest } from './fuzzRequests.js';
import { jobEntries } from '../helpers/dataFolders.js';

const REQUESTS = 1200;
const CONCURRENCY = 8;
const SEED = process.env.EEMT_FUZZ_SEED ? Number(process.env.EEMT_FUZZ_SEED) : Date.now() % 2 ** 31;
const STACK_TRACE = /\n\s+at |\bat [\w$.<>]+ \(|node_modules|\/src\/|\.[jt]s:\d+:\d+|SqliteError|TypeError|ReferenceError/;

let svc: TestService;
const log = logCapture();
let context: FuzzContext;

before(async () => {
  svc = await startTestService({
    runtime: (c) => new ProcessRuntime({ limits: { cpus: c.cpuLimit, memoryBytes: c.memoryBytes }, childEntry: STUB_CHILD }),
    env: { EEMT_MAX_CONCURRENT_JOBS: '1', EEMT_REQUEST_TIMEOUT_S: '5', EEMT_MAX_UPLOAD_MB: '1' },
    logger: { level: 'info', stream: log.stream },
  });
  const dem = fixture('mcn_10m.tif');
  const DEM = { name: 'mcn_10m.tif', bytes: dem };
  // Step 60 makes the stand-in child run until it is cancelled: it holds the only job slot.
  const running = (await submit(svc.base, { workflow_type: 'sol', step: '60' }, DEM)).body.job_id as string;
  await waitForStatus(svc.base, running, ['running']);
  const pending = (await submit(svc.base, { workflow_type: 'eemt' }, DEM)).body.job_id as string;
  context = { jobIds: [running, pending], dem, otherTiffs: [fixture('nogeo_20x20.tif'), fixture('rgb_20x20.tif')] };
});

after(async () => {
  for (const job of svc.store.list()) if (job.status === 'pending' || job.status === 'running') svc.scheduler.cancel(job.id);
  await svc.scheduler.idle();
  await svc.stop();
});

interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

async function send(request: FuzzRequest): Promise<Answer> {
  const res = await fetch(`${svc.base}${request.path}`, {
    method: request.method,
    headers: request.headers,
    ...(request.body !== undefined ? { body: request.body } : {}),
    redirect: 'manual',
  });
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', body: await res.text() };
}

/** The first complete HTTP response in `received` (headers and a Content-Length body), or null. */
function parseResponse(received: string): Answer | null {
  const end = received.indexOf('\r\n\r\n');
  const status = /^HTTP\/1\.1 (\d+)/.exec(received);
  if (end < 0 || !status) return null;
  const head = received.slice(0, end);
  const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
  if (received.length < end + 4 + length) return null;
  const type = /\r\ncontent-type: ([^\r]*)/i.exec(head)?.[1] ?? '';
  return { status: Number(status[1]), contentType: type, body: received.slice(end + 4, end + 4 + length) };
}

/** Sends raw bytes; resolves with the first answer, or null when the service closed the connection without one. */
function sendRaw(request: RawRequest): Promise<Answer | null> {
  return new Promise((resolve) => {
    const socket = connect(Number(new URL(svc.base).port), '127.0.0.1');
    let received = '';
    const finish = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(parseResponse(received));
    };
    const timer = setTimeout(finish, 10_000);
    socket.on('data', (d) => {
      received += d.toString('latin1');
      if (parseResponse(received)) finish();
    });
    socket.on('error', () => undefined);
    socket.on('close', finish);
    socket.write(request.bytes);
  });
}

function describe(request: FuzzRequest | RawRequest): string {
  const text = request.kind === 'raw' ? JSON.stringify(request.bytes) : `${request.method} ${request.path} ${JSON.stringify(request.headers)}`;
  return text.slice(0, 300);
}

test(`${REQUESTS} generated requests: every one answered, no 5xx, every error has a detail, no stack traces`, { timeout: 120_000 }, async (t) => {
  t.diagnostic(`fuzz seed ${SEED} (replay with EEMT_FUZZ_SEED=${SEED})`);
  const rng = prng(SEED);
  const requests = Array.from({ length: REQUESTS }, () => randomRequest(rng, context));
  const problems: string[] = [];
  const statuses = new Map<number | string, number>();
  let next = 0;
  const worker = async () => {
    while (next < requests.length) {
      const request = requests[next++]!;
      let answer: Answer | null;
      try {
        answer = request.kind === 'raw' ? await sendRaw(request) : await send(request);
      } catch (error) {
        // Every request gets an answer: a connection closed without one is a problem too (once, keep-alive
        // connections stalled behind a body the service had stopped reading, until the slow-body rule closed them).
        statuses.set('connection closed', (statuses.get('connection closed') ?? 0) + 1);
        problems.push(`no answer: ${describe(request)}: ${String((error as Error).cause ?? error).slice(0, 120)}`);
        continue;
      }
      if (answer === null) {
        statuses.set('no answer', (statuses.get('no answer') ?? 0) + 1);
        problems.push(`no answer: ${describe(request)}`);
        continue;
      }
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      const where = `${describe(request)} → ${answer.status} ${answer.body.slice(0, 200)}`;
      if (answer.status >= 500) problems.push(`5xx: ${where}`);
      if (STACK_TRACE.test(answer.body) && !answer.contentType.includes('javascript') && !answer.contentType.includes('text/html')) {
        problems.push(`stack trace: ${where}`);
      }
      const isHead = request.kind === 'fetch' && request.method === 'HEAD';
      if (answer.status >= 400 && !isHead) {
        let body: unknown;
        try {
          body = JSON.parse(answer.body);
        } catch {
          body = null;
        }
        if (typeof (body as { detail?: unknown } | null)?.detail !== 'string') problems.push(`no detail: ${where}`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  t.diagnostic(`answers: ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => String(a[0]).localeCompare(String(b[0])))))}`);

  assert.deepEqual(problems.slice(0, 20), [], `seed ${SEED}: ${problems.length} problems`);
  const answered = [...statuses].filter(([k]) => typeof k === 'number').reduce((sum, [, n]) => sum + n, 0);
  assert.ok(answered >= 1000, `seed ${SEED}: only ${answered} answers`);
  assert.ok((statuses.get(200) ?? 0) > 50 && (statuses.get(400) ?? 0) > 50 && (statuses.get(422) ?? 0) > 10, JSON.stringify([...statuses]));

  const errors = log.records.filter((r) => r.level >= 50);
  assert.deepEqual(errors.slice(0, 5), [], `seed ${SEED}: errors in the service log`);
  for (const id of jobEntries(svc.paths.dirs.uploadDir)) {
    assert.ok(svc.store.get(id), `seed ${SEED}: upload ${id} belongs to no job (a rejected upload left its file)`);
  }
  const health = await getJson(`${svc.base}/health`);
  assert.equal(health.status, 200);
  assert.equal(health.body.status, 'ok');
});
