/**
 * Regression tests for malformed and hostile requests (each reproduces an attack that once got a 500 or was
 * wrongly accepted): numbers in query strings and form fields, cleanup bodies of the wrong types, broken multipart
 * bodies, oversized and slow uploads. The whole service runs in a temp folder with the stub job child.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { ProcessRuntime } from '../../src/runtime/process.js';
import { fixture, getJson, startTestService, STUB_CHILD, submit, waitForStatus, type TestService } from './helpers.js';

const DEM = { name: 'mcn_10m.tif', bytes: fixture('mcn_10m.tif') };
const stubRuntime = (c: { cpuLimit: number; memoryBytes: number }) =>
  new ProcessRuntime({ limits: { cpus: c.cpuLimit, memoryBytes: c.memoryBytes }, childEntry: STUB_CHILD });

const NOT_DECIMAL = ['Infinity', '-Infinity', '1e999', '-1e999', '9'.repeat(309), 'NaN', '0x10', '0o17', '0b11', ' 5', '5 ', '', '1_000', '½', '５'];

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
    assert.ok(!readdirSync(svc.paths.dirs.uploadDir).includes(failedJob));
  });
});
