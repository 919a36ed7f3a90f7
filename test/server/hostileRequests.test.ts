/**
 * Regression tests for malformed and hostile requests (each reproduces an attack that once got a 500 or was
 * wrongly accepted): numbers in query strings and form fields, cleanup bodies of the wrong types, broken multipart
 * bodies, oversized and slow uploads. The whole service runs in a temp folder with the stub job child.
 */
import assert from 'node:assert/strict';
import { existsSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ProcessRuntime } from '../../src/runtime/process.js';
import { waitFor } from '../helpers/wait.js';
import { fixture, getJson, logCapture, startTestService, STUB_CHILD, submit, waitForStatus, type TestService } from './helpers.js';
import { jobEntries } from '../helpers/dataFolders.js';
import { OGC_EXCEPTION_TYPES } from '../../src/server/errors.js';

const DEM = { name: 'mcn_10m.tif', bytes: fixture('mcn_10m.tif') };
const stubRuntime = (c: { cpuLimit: number; memoryBytes: number }) =>
  new ProcessRuntime({ limits: { cpus: c.cpuLimit, memoryBytes: c.memoryBytes }, childEntry: STUB_CHILD });

const NOT_DECIMAL = ['Infinity', '-Infinity', '1e999', '-1e999', '9'.repeat(309), 'NaN', '0x10', '0o17', '0b11', ' 5', '5 ', '', '1_000', '½', '５'];

const CRLF = '\r\n';

/** A multipart body by hand (boundary XX): parts given as [headers, content] pairs, optionally without the closing boundary. */
function multipart(parts: [string, string | Buffer][], close = true): Buffer {
  const chunks: Buffer[] = [];
  for (const [headers, content] of parts) chunks.push(Buffer.from(`--XX${CRLF}${headers}${CRLF}${CRLF}`), Buffer.from(content), Buffer.from(CRLF));
  if (close) chunks.push(Buffer.from(`--XX--${CRLF}`));
  return Buffer.concat(chunks);
}
const field = (name: string, value: string): [string, string] => [`Content-Disposition: form-data; name="${name}"`, value];
const demPart = (bytes: Buffer | string, name = 'dem.tif'): [string, Buffer | string] => [
  `Content-Disposition: form-data; name="dem_file"; filename="${name}"${CRLF}Content-Type: image/tiff`,
  bytes,
];

/** POSTs raw bytes to the submit endpoint with the given Content-Type. */
async function postRaw(base: string, contentType: string | null, body: Buffer | string) {
  return getJson(`${base}/api/submit-job`, { method: 'POST', headers: contentType ? { 'content-type': contentType } : {}, body });
}

/** What the upload folder holds: `<job id>:<bytes of dem.tif>` per entry. */
function uploads(svc: TestService): string[] {
  return jobEntries(svc.paths.dirs.uploadDir).map((id) => {
    const dem = join(svc.paths.dirs.uploadDir, id, 'dem.tif');
    return existsSync(dem) ? `${id}:${statSync(dem).size}` : id;
  });
}

/** A raw TCP client: what it has received so far, whether the server closed it, and a way to write or abort. */
function rawClient(port: number) {
  const socket = connect(port, '127.0.0.1');
  const state = { received: '', closed: false, socket };
  socket.on('data', (data) => (state.received += data.toString('latin1')));
  socket.on('error', () => undefined);
  socket.on('close', () => (state.closed = true));
  return state;
}

function postJson(url: string, body: string): Promise<{ status: number; body: any }> {
  return getJson(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
}

describe('hostile requests', () => {
  let svc: TestService;
  let failedJob: string;
  before(async () => {
    svc = await startTestService({ runtime: stubRuntime });
    failedJob = (await submit(svc.base, { workflow_type: 'sol', linke_value: '7.5' }, DEM)).body.job_id;
    await waitForStatus(svc.base, failedJob, ['failed']);
  });
  after(() => svc.stop());

  test('query numbers are decimal and finite: limit and tail refuse Infinity, 1e999, hex, 309 digits with 422', async () => {
    for (const value of NOT_DECIMAL) {
      for (const path of [`/api/jobs?limit=${encodeURIComponent(value)}`, `/api/jobs/${failedJob}/logs?tail=${encodeURIComponent(value)}`]) {
        const res = await getJson(`${svc.base}${path}`);
        assert.equal(res.status, 422, `${path}: ${JSON.stringify(res.body)}`);
        assert.match(res.body.detail, /^(limit|tail) /, path);
      }
    }
    for (const [query, detail] of [
      ['limit=0', /limit must be >= 1/],
      ['limit=10001', /limit must be <= 10000/],
      ['limit=1.5', /limit must be integer/],
      ['limit=1&limit=2', /limit must be integer/],
    ] as const) {
      const res = await getJson(`${svc.base}/api/jobs?${query}`);
      assert.equal(res.status, 422, query);
      assert.match(res.body.detail, detail);
    }
    const tooMany = await getJson(`${svc.base}/api/jobs/${failedJob}/logs?tail=100001`);
    assert.equal(tooMany.status, 422);
    assert.match(tooMany.body.detail, /tail must be <= 100000/);
  });

  test('decimal query numbers still work, including signs, fractions that are whole and exponents', async () => {
    for (const value of ['1', '+1', '1.0', '1e0', '10000']) {
      const res = await getJson(`${svc.base}/api/jobs?limit=${encodeURIComponent(value)}`);
      assert.equal(res.status, 200, `limit=${value}: ${JSON.stringify(res.body)}`);
      assert.ok(Array.isArray(res.body) && res.body.length >= 1);
    }
    assert.equal((await getJson(`${svc.base}/api/jobs?limit=1`)).body.length, 1);
    const logs = await getJson(`${svc.base}/api/jobs/${failedJob}/logs?tail=2`);
    assert.equal(logs.status, 200);
    assert.equal(logs.body.lines.length, 2);
  });

  test('form-field numbers are decimal only: step=0x10 and friends are 422 naming the field', async () => {
    const jobs = svc.store.list().length;
    for (const [field, value] of [
      ['step', '0x10'],
      ['step', '0o17'],
      ['step', 'Infinity'],
      ['linke_value', '0x3'],
      ['albedo_value', '0b1'],
      ['num_threads', '0x4'],
      ['num_threads', '1e999'],
      ['start_year', '0x7e4'],
    ] as const) {
      const res = await submit(svc.base, { workflow_type: 'eemt', [field]: value }, DEM);
      assert.equal(res.status, 422, `${field}=${value}: ${JSON.stringify(res.body)}`);
      assert.match(res.body.detail, new RegExp(`^${field} must be an? (number|integer) from `));
    }
    assert.equal(svc.store.list().length, jobs, 'no job was created');
  });

  test('cleanup bodies are validated without coercion: wrong types are 422 and delete nothing', async () => {
    const failedJob = (await submit(svc.base, { workflow_type: 'sol', linke_value: '7.5' }, DEM)).body.job_id;
    await waitForStatus(svc.base, failedJob, ['failed']);
    const bodies = [
      '{"success_retention_days": null}',
      '{"failed_retention_hours": false}',
      '{"failed_retention_hours": true}',
      '{"dry_run": null}',
      '{"dry_run": "true"}',
      '{"dry_run": 0}',
      '{"dry_run": false, "failed_retention_hours": "0"}',
      '{"failed_retention_hours": ""}',
      '{"failed_retention_hours": 1.5}',
      '{"failed_retention_hours": []}',
      '{"success_retention_days": {}}',
      '{"failed_retention_hours": -1}',
      '{"failed_retention_hours": 0, "extra": 1}',
      '[]',
      '[{"failed_retention_hours": 0}]',
      '"x"',
      '0',
      'true',
    ];
    for (const body of bodies) {
      const res = await postJson(`${svc.base}/api/cleanup`, body);
      assert.equal(res.status, 422, `${body}: ${JSON.stringify(res.body)}`);
      assert.equal(typeof res.body.detail, 'string', body);
      assert.equal(svc.store.get(failedJob)?.status, 'failed', `${body} deleted the failed job`);
      assert.ok(existsSync(svc.paths.uploadDir(failedJob)), `${body} deleted the job's data`);
    }
    assert.equal((await getJson(`${svc.base}/api/cleanup/status`)).body.last_run, null, 'no cleanup ran');

    // The same job is deleted by a well-typed body, so the checks above could have seen a deletion.
    const dry = await postJson(`${svc.base}/api/cleanup`, '{"dry_run": true, "failed_retention_hours": 0}');
    assert.equal(dry.status, 200);
    assert.ok(dry.body.summary.job_details.some((d: any) => d.job_id === failedJob));
    assert.ok(svc.store.get(failedJob), 'a dry run deletes nothing');
    const real = await postJson(`${svc.base}/api/cleanup`, '{"failed_retention_hours": 0}');
    assert.equal(real.status, 200);
    assert.equal(svc.store.get(failedJob), undefined);
    assert.ok(!jobEntries(svc.paths.dirs.uploadDir).includes(failedJob));
  });

  test('JSON bodies over a bound are refused naming the bound and where, as {detail} under /api and as exceptions under /ogc', async () => {
    const lastRun = (await getJson(`${svc.base}/api/cleanup/status`)).body.last_run;
    const keys = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":0`).join(',')}}`;
    for (const prefix of ['/api', '/api/v1']) {
      for (const [body, detail] of [
        [keys(1001), 'JSON body: an object has more than 1000 keys (at the top level)'],
        [`{"dry_run":${'['.repeat(40)}`, 'JSON body: nested deeper than 32 levels (at dry_run' + '[0]'.repeat(31) + ')'],
        [`{"dry_run":[${'0,'.repeat(10_000)}0]}`, 'JSON body: an array has more than 10000 items (at dry_run)'],
        [`{"dry_run":"${'x'.repeat(70_000)}"}`, 'JSON body: a string is longer than 65536 characters (at dry_run)'],
      ]) {
        const res = await postJson(`${svc.base}${prefix}/cleanup`, body);
        assert.equal(res.status, 400, `${body.slice(0, 40)}: ${JSON.stringify(res.body)}`);
        assert.deepEqual(res.body, { detail });
      }
    }
    const ogc = await postJson(`${svc.base}/ogc/processes/echo/execution`, `{"inputs":{"string_input":"${'x'.repeat(70_000)}"}}`);
    assert.deepEqual(ogc.body, {
      type: OGC_EXCEPTION_TYPES.invalidParameterValue,
      title: 'Bad Request',
      status: 400,
      detail: 'JSON body: a string is longer than 65536 characters (at inputs.string_input)',
    });
    assert.equal((await getJson(`${svc.base}/api/cleanup/status`)).body.last_run, lastRun, 'no cleanup ran');
  });

  test('client input quoted in error messages is cut at 200 characters (URL paths, ids, form values, JSON keys)', async () => {
    const long = 'z'.repeat(900);
    const cut = `${'z'.repeat(200)}… (900 characters)`;
    assert.deepEqual((await getJson(`${svc.base}/api/nothing/${long}`)).body, { detail: `Not found: GET /api/nothing/${'z'.repeat(187)}… (913 characters)` });
    assert.equal((await getJson(`${svc.base}/ogc/jobs/${long}`)).body.detail, `No job "${cut}"`);
    assert.match((await getJson(`${svc.base}/ogc/processes/${long}`)).body.detail, new RegExp(`^No process "${cut.replace(/[()]/g, '\\$&')}"; `));
    // a status outside the enumeration is named by the allowed values, without the value sent
    assert.ok((await getJson(`${svc.base}/ogc/jobs?status=${long}`)).body.detail.length < 200);
    const form = await submit(svc.base, { workflow_type: long }, DEM);
    assert.equal(form.body.detail, `Unknown workflow_type "${cut}"; expected one of: sol, eemt`);
    const step = await submit(svc.base, { workflow_type: 'sol', step: long }, DEM);
    assert.equal(step.body.detail, `step must be a number from 3 to 60, got "${cut}"`);
    const key = 'k'.repeat(5000);
    const cleanup = await postJson(`${svc.base}/api/cleanup`, `{"${key}": 1}`);
    assert.equal(cleanup.status, 422);
    assert.ok(cleanup.body.detail.length < 300, cleanup.body.detail.slice(0, 300));
    assert.match(cleanup.body.detail, /^k{200}… \(5000 characters\) /);
    const ogc = await postJson(`${svc.base}/ogc/processes/sol/execution`, `{"inputs": {"${key}": 1}}`);
    assert.match(ogc.body.detail, /^Unknown input k{200}… \(5000 characters\); /);
  });

  test('the connection of a refused JSON body is closed with the answer, and the rest of the body is not read', async () => {
    // A client that goes on sending after the service's FIN, as one that does not read its socket while sending.
    const socket = connect({ port: Number(new URL(svc.base).port), host: '127.0.0.1', allowHalfOpen: true });
    const client = { received: '', closed: false, socket };
    socket.on('data', (data) => (client.received += data.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => (client.closed = true));
    const head = '{"a":[' + '0,'.repeat(10_001);
    const declared = 40 * 1024 * 1024;
    client.socket.write(`POST /ogc/processes/sol/execution HTTP/1.1${CRLF}Host: test${CRLF}Content-Type: application/json${CRLF}Content-Length: ${declared}${CRLF}${CRLF}${head}`);
    await waitFor('the answer', () => /\r\n\r\n\{.*\}/s.test(client.received), 10_000);
    assert.match(client.received, /^HTTP\/1\.1 400 [^]*\r\nconnection: close\r\n[^]*"detail":"JSON body: an array has more than 10000 items \(at a\)"/i);
    // Sending on: the service reads no more, so only what the socket buffers hold gets through (a service that
    // read and discarded the rest would take all of it within the linger time).
    const started = Date.now();
    const megabyte = Buffer.alloc(1024 * 1024, 0x30);
    let flushed = 0;
    let writing = true;
    void (async () => {
      while (writing && !client.closed && flushed < declared - 2 * megabyte.length) {
        await new Promise<void>((resolve) => client.socket.write(megabyte, () => resolve()));
        flushed += megabyte.length;
      }
    })();
    await waitFor('1.5 s of sending', () => Date.now() - started > 1500, 5000);
    writing = false;
    assert.ok(!client.closed, 'the connection lingers, so a client still sending can read the answer');
    assert.ok(flushed < 16 * 1024 * 1024, `${flushed} bytes got through after the answer`);
    await waitFor('the connection closed', () => client.closed, 10_000);
  });
});

describe('hostile multipart bodies', () => {
  let svc: TestService;
  const log = logCapture();
  before(async () => {
    svc = await startTestService({ runtime: stubRuntime, logger: { level: 'info', stream: log.stream } });
  });
  after(() => svc.stop());

  test('broken multipart bodies are 400 with a detail, never 500, and leave nothing behind', async () => {
    const dem = fixture('mcn_10m.tif');
    const valid = multipart([field('workflow_type', 'sol'), demPart(dem)]);
    const cases: [string, string | null, Buffer | string, RegExp][] = [
      ['only an opening boundary', 'multipart/form-data; boundary=XX', `--XX${CRLF}`, /^Malformed multipart request: /],
      ['no boundary parameter', 'multipart/form-data', valid, /^Malformed multipart request: boundary not found$/],
      ['upper case, no boundary', 'MULTIPART/FORM-DATA', valid, /^Malformed multipart request: boundary not found$/],
      ['empty boundary', 'multipart/form-data; boundary=', valid, /^Malformed multipart request: /],
      ['no closing boundary after a field', 'multipart/form-data; boundary=XX', multipart([field('workflow_type', 'sol')], false), /^Malformed multipart request: /],
      ['no closing boundary after the file', 'multipart/form-data; boundary=XX', multipart([field('workflow_type', 'sol'), demPart(dem)], false), /^Malformed multipart request: /],
      ['file cut inside its part headers', 'multipart/form-data; boundary=XX', `--XX${CRLF}Content-Disposition: form-data; name="dem_file"; filena`, /^Malformed multipart request: /],
      ['a different boundary in the body', 'multipart/form-data; boundary=YY', valid, /^Malformed multipart request: /],
      ['JSON sent as multipart', 'multipart/form-data; boundary=XX', '{"workflow_type":"sol"}', /^Malformed multipart request: /],
      ['upper case with boundary, no file', 'MULTIPART/FORM-DATA; BOUNDARY=XX', multipart([field('workflow_type', 'sol')]), /^dem_file is required$/],
      ['a part with no name', 'multipart/form-data; boundary=XX', multipart([['Content-Type: text/plain', 'sol']]), /^workflow_type is required$/],
      ['field named __proto__', 'multipart/form-data; boundary=XX', multipart([field('__proto__', 'x'), field('workflow_type', 'sol')]), /./],
      ['not multipart at all', 'text/plain', 'workflow_type=sol', /./],
      ['no content type', null, 'workflow_type=sol', /./],
    ];
    const jobs = svc.store.list().length;
    for (const [what, type, body, detail] of cases) {
      const res = await postRaw(svc.base, type, body);
      assert.equal(res.status, 400, `${what}: ${res.status} ${JSON.stringify(res.body)}`);
      assert.deepEqual(Object.keys(res.body), ['detail'], what);
      assert.match(res.body.detail, detail, what);
    }
    assert.equal(svc.store.list().length, jobs);
    assert.deepEqual(uploads(svc), []);
    assert.deepEqual(log.records.filter((r) => r.level >= 50), [], 'nothing is logged as an error');
  });

  test('a keep-alive connection carries the next request after a multipart body refused half-read', async () => {
    // An empty boundary is refused after the parser has started reading; the rest of the body must be drained,
    // or the next request on the connection waits until the slow-body rule (30 s here) closes it.
    const client = rawClient(Number(new URL(svc.base).port));
    const body = Buffer.alloc(300_000, 0x41);
    client.socket.write(`POST /api/submit-job HTTP/1.1${CRLF}Host: test${CRLF}Content-Type: multipart/form-data; boundary=${CRLF}Content-Length: ${body.length}${CRLF}${CRLF}`);
    client.socket.write(body);
    client.socket.write(`GET /health HTTP/1.1${CRLF}Host: test${CRLF}${CRLF}`);
    try {
      await waitFor('both answers', () => /^HTTP\/1\.1 400 [^]*HTTP\/1\.1 200 [^]*"status":"ok"/.test(client.received), 10_000);
    } finally {
      client.socket.destroy();
    }
    assert.match(client.received, /"detail":"Malformed multipart request/);
  });

  test('the upper-case content type of the report is parsed like the lower-case one', async () => {
    const body = multipart([field('workflow_type', 'sol'), demPart(fixture('mcn_10m.tif'))]);
    const res = await postRaw(svc.base, 'MULTIPART/FORM-DATA; BOUNDARY=XX', body);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const job = await waitForStatus(svc.base, res.body.job_id, ['completed', 'failed']);
    assert.equal(job.status, 'completed');
  });
});

describe('upload limits: size, slow bodies, aborted uploads', () => {
  let svc: TestService;
  let port: number;
  const log = logCapture();
  before(async () => {
    svc = await startTestService({
      runtime: stubRuntime,
      // 1 MB uploads; a body gets 2 s, then must average 64 KiB/s.
      env: { EEMT_MAX_UPLOAD_MB: '1', EEMT_REQUEST_TIMEOUT_S: '2', EEMT_MIN_UPLOAD_KIB_PER_S: '64' },
      logger: { level: 'info', stream: log.stream },
    });
    port = Number(new URL(svc.base).port);
  });
  after(() => svc.stop());

  test('a DEM over EEMT_MAX_UPLOAD_MB is 413 naming the limit, answered before the rest is read, and leaves no file', async () => {
    const big = Buffer.alloc(20 * 1024 * 1024, 1);
    const started = Date.now();
    const res = await submit(svc.base, { workflow_type: 'sol' }, { name: 'big.tif', bytes: big });
    assert.equal(res.status, 413, JSON.stringify(res.body));
    assert.deepEqual(res.body, { detail: 'DEM file is larger than the upload limit of 1 MB (EEMT_MAX_UPLOAD_MB)' });
    assert.deepEqual(uploads(svc), []);
    assert.ok(Date.now() - started < 20_000);
    // A file just under the limit still goes through to the DEM checks.
    const under = await submit(svc.base, { workflow_type: 'sol' }, { name: 'x.tif', bytes: Buffer.alloc(1024 * 1024 - 1, 0) });
    assert.equal(under.status, 400);
    assert.match(under.body.detail, /^DEM file must be a GeoTIFF/);
  });

  test('after a 413 the service closes the connection instead of reading the rest of the upload', async () => {
    const client = rawClient(port);
    const head = `--XX${CRLF}Content-Disposition: form-data; name="dem_file"; filename="a.tif"${CRLF}${CRLF}`;
    client.socket.write(
      `POST /api/submit-job HTTP/1.1${CRLF}Host: test${CRLF}Content-Type: multipart/form-data; boundary=XX${CRLF}Content-Length: 50000000${CRLF}${CRLF}${head}`,
    );
    client.socket.write(Buffer.alloc(2 * 1024 * 1024, 1));
    await waitFor('the connection closed', () => client.closed, 10_000);
    assert.match(client.received, /^HTTP\/1\.1 413 [^]*\r\nconnection: close\r\n/i);
    assert.deepEqual(uploads(svc), []);
  });

  test("an aborted upload's file is removed at once, and the abort is not an error in the log", async () => {
    const client = rawClient(port);
    const head = multipart([field('workflow_type', 'sol')], false).toString('latin1') + `--XX${CRLF}Content-Disposition: form-data; name="dem_file"; filename="a.tif"${CRLF}${CRLF}`;
    client.socket.write(
      `POST /api/submit-job HTTP/1.1${CRLF}Host: test${CRLF}Content-Type: multipart/form-data; boundary=XX${CRLF}Content-Length: 900000${CRLF}${CRLF}${head}`,
    );
    client.socket.write(Buffer.alloc(300_000, 7));
    await waitFor('the partial upload on disk', () => uploads(svc).some((u) => u.endsWith(':300000')), 5000);
    client.socket.destroy();
    await waitFor('the partial upload removed', () => uploads(svc).length === 0, 2000);
    await waitFor('the abort logged', () => log.records.some((r) => /upload closed by the client/.test(r.msg)), 2000);
    assert.deepEqual(log.records.filter((r) => r.level >= 40).map((r) => r.msg), []);
  });

  test('slow uploads are answered 408 and closed after the grace period; the service stays responsive', async () => {
    const head =
      `POST /api/submit-job HTTP/1.1${CRLF}Host: test${CRLF}Content-Type: multipart/form-data; boundary=XX${CRLF}Content-Length: 100000${CRLF}${CRLF}` +
      `--XX${CRLF}Content-Disposition: form-data; name="dem_file"; filename="a.tif"${CRLF}${CRLF}`;
    const clients = Array.from({ length: 30 }, () => rawClient(port));
    for (const c of clients) c.socket.write(head);
    const drip = setInterval(() => {
      for (const c of clients) if (!c.closed) c.socket.write('0123456789');
    }, 200);
    try {
      await waitFor('some upload files', () => uploads(svc).length > 0, 5000);
      // Meanwhile the service answers and accepts a normal submission.
      const health = await getJson(`${svc.base}/health`);
      assert.equal(health.status, 200);
      const ok = await submit(svc.base, { workflow_type: 'sol' }, DEM);
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      await waitFor('every slow upload closed', () => clients.every((c) => c.closed), 15_000);
    } finally {
      clearInterval(drip);
      for (const c of clients) c.socket.destroy();
    }
    for (const c of clients) {
      assert.match(c.received, /^HTTP\/1\.1 408 /);
      const detail = JSON.parse(c.received.slice(c.received.indexOf('\r\n\r\n') + 4)).detail;
      assert.match(detail, /^Request body arrived too slowly \(\d+ bytes in \d+ s; after the first 2 s at least 64 KiB\/s are needed\)$/);
    }
    await waitFor('the slow uploads removed', () => uploads(svc).every((u) => svc.store.get(u.split(':')[0]!)), 2000);
    assert.deepEqual(log.records.filter((r) => r.level >= 40).map((r) => r.msg), []);
  });

  test('a fast upload is never cut by the rate rule, however long it takes beyond the grace period', async () => {
    // ~450 kB in 30 kB pieces every 250 ms (120 kB/s, well above 64 KiB/s) takes about 4 s, twice the grace period.
    const client = rawClient(port);
    const dem = fixture('mcn_10m.tif');
    const body = multipart([field('workflow_type', 'sol'), field('padding', 'p'.repeat(60_000)), demPart(dem)]);
    client.socket.write(`POST /api/submit-job HTTP/1.1${CRLF}Host: test${CRLF}Content-Type: multipart/form-data; boundary=XX${CRLF}Content-Length: ${body.length}${CRLF}Connection: close${CRLF}${CRLF}`);
    for (let offset = 0; offset < body.length; offset += 30_000) {
      client.socket.write(body.subarray(offset, offset + 30_000));
      await new Promise((r) => setTimeout(r, 250));
    }
    await waitFor('the answer', () => client.closed, 10_000);
    assert.match(client.received, /^HTTP\/1\.1 200 /, client.received.slice(0, 300));
  });

  test('headers that never finish are answered 408 and closed', async () => {
    const client = rawClient(port);
    client.socket.write(`GET /health HTTP/1.1${CRLF}Host: test${CRLF}X-Slow: `);
    const drip = setInterval(() => !client.closed && client.socket.write('a'), 200);
    try {
      await waitFor('the connection closed', () => client.closed, 10_000);
    } finally {
      clearInterval(drip);
    }
    assert.match(client.received, /^HTTP\/1\.1 408 /);
    assert.deepEqual(JSON.parse(client.received.slice(client.received.indexOf('\r\n\r\n') + 4)), {
      detail: 'Request headers arrived too slowly (EEMT_REQUEST_TIMEOUT_S)',
    });
  });

  test('requests that are not HTTP, URLs that cannot be decoded and overlong ids get {detail}, never a stack', async () => {
    const exchange = async (bytes: string) => {
      const client = rawClient(port);
      client.socket.write(bytes);
      await waitFor('the answer', () => client.closed || /\r\n\r\n.*\}/s.test(client.received), 5000);
      client.socket.destroy();
      const [head, body] = client.received.split('\r\n\r\n');
      return { status: Number(/^HTTP\/1\.1 (\d+)/.exec(head!)?.[1]), body: JSON.parse(body!) };
    };
    for (const [bytes, status, detail] of [
      [`GARBAGE\r\n\r\n`, 400, 'Malformed HTTP request'],
      [`GET /health HTTP/1.1\r\nHost: test\r\nBad Header\r\n\r\n`, 400, 'Malformed HTTP request'],
      [`GET /health HTTP/1.1\r\nHost: test\r\nX-Big: ${'x'.repeat(20_000)}\r\n\r\n`, 431, 'Request headers are too large'],
      [`GET /api/jobs/%E0%A4%A HTTP/1.1\r\nHost: test\r\n\r\n`, 400, 'Malformed URL: it cannot be decoded'],
      [`GET /api/jobs/${'a'.repeat(500)} HTTP/1.1\r\nHost: test\r\n\r\n`, 404, 'Job not found'],
      [`GET /api/jobs/${'a'.repeat(1500)} HTTP/1.1\r\nHost: test\r\n\r\n`, 414, 'A part of the URL path is too long'],
    ] as const) {
      const res = await exchange(bytes);
      assert.equal(res.status, status, bytes.slice(0, 60));
      assert.deepEqual(res.body, { detail });
    }
    assert.deepEqual(log.records.filter((r) => r.level >= 50).map((r) => r.msg), []);
  });
});
