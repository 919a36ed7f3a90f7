/**
 * GET /api/jobs/{id}/events over real HTTP: a real service (SQLite file, job children in real processes running the
 * stub child), followed with a streaming fetch.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ProcessRuntime } from '../../src/runtime/process.js';
import { openSse, type SseStream } from '../helpers/sse.js';
import { waitFor } from '../helpers/wait.js';
import { fixture, getJson, startTestService, STUB_CHILD, submit, waitForStatus, type TestService } from './helpers.js';

const DEM = { name: 'mcn_10m.tif', bytes: fixture('mcn_10m.tif') };
/** The stub child keeps a job with step 60 running until it is stopped. */
const BLOCKING = { workflow_type: 'sol', step: '60' };

describe('job events (Server-Sent Events)', () => {
  let svc: TestService;
  const open: SseStream[] = [];
  const sse = async (path: string, headers: Record<string, string> = {}) => {
    const stream = await openSse(`${svc.base}${path}`, headers);
    open.push(stream);
    return stream;
  };
  before(async () => {
    svc = await startTestService({
      runtime: (c) => new ProcessRuntime({ limits: { cpus: c.cpuLimit, memoryBytes: c.memoryBytes }, childEntry: STUB_CHILD }),
      env: { EEMT_EVENT_HEARTBEAT_S: '1', EEMT_MAX_EVENT_STREAMS_PER_JOB: '2', EEMT_MAX_EVENT_STREAMS: '6' },
    });
  });
  after(async () => {
    for (const s of open) s.close();
    await svc.stop();
  });

  test('a queued job is followed from pending to completed: ids rise, progress never goes back, then the stream ends', async () => {
    const blocker = (await submit(svc.base, BLOCKING, DEM)).body.job_id as string;
    await waitForStatus(svc.base, blocker, ['running']);
    const id = (await submit(svc.base, { workflow_type: 'sol' }, DEM)).body.job_id as string;

    const stream = await sse(`/api/jobs/${id}/events`);
    assert.equal(stream.status, 200);
    assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(stream.headers.get('cache-control'), 'no-cache, no-transform');
    const first = await stream.waitFor(() => true);
    assert.equal(first.event, 'status');
    assert.equal(first.data.status, 'pending');
    assert.equal(first.data.job_id, id);

    assert.equal((await fetch(`${svc.base}/api/jobs/${blocker}/cancel`, { method: 'POST' })).status, 200);
    await stream.ended;

    const events = stream.events;
    const final = events.at(-1)!;
    assert.equal(final.event, 'completed');
    assert.deepEqual([final.data.status, final.data.progress, final.data.error_message], ['completed', 100, null]);
    assert.ok(events.some((e) => e.event === 'status' && e.data.status === 'running'), 'the start is a status event');
    assert.ok(events.filter((e) => e.event === 'progress').length >= 3, 'the stub reports five steps');
    assert.ok(events.some((e) => e.data.message === 'step 3/5'), 'messages are carried');
    for (let i = 1; i < events.length; i++) {
      assert.ok(Number(events[i]!.id) > Number(events[i - 1]!.id), `ids rise: ${events.map((e) => e.id).join(',')}`);
      assert.ok(events[i]!.data.progress >= events[i - 1]!.data.progress, 'progress never goes back');
    }
    assert.equal(events.filter((e) => e.event === 'completed').length, 1);
    // The job record and the last event agree.
    assert.equal((await getJson(`${svc.base}/api/jobs/${id}`)).body.progress, 100);

    // Resuming after an event in the middle: only what came later, starting with the current (final) state.
    const middle = events[Math.floor(events.length / 2)]!;
    const resumed = await sse(`/api/jobs/${id}/events`, { 'Last-Event-ID': middle.id! });
    await resumed.ended;
    assert.deepEqual(
      resumed.events.map((e) => e.event),
      ['completed'],
    );
    assert.ok(Number(resumed.events[0]!.id) > Number(middle.id));
    // A client that has the final event is told to stop reconnecting (204), also through the query parameter.
    const done = await fetch(`${svc.base}/api/jobs/${id}/events`, { headers: { 'Last-Event-ID': final.id! } });
    assert.equal(done.status, 204);
    assert.equal((await fetch(`${svc.base}/api/v1/jobs/${id}/events?last_event_id=${final.id}`)).status, 204);
    // A resume point that is not a number is ignored: the current state.
    const garbage = await sse(`/api/jobs/${id}/events`, { 'Last-Event-ID': 'x1' });
    await garbage.ended;
    assert.deepEqual(garbage.events.map((e) => [e.event, e.id]), [['completed', final.id]]);
  });

  test('a failed job ends with a failed event carrying the error; heartbeats are comment lines', async () => {
    const id = (await submit(svc.base, BLOCKING, DEM)).body.job_id as string;
    const stream = await sse(`/api/jobs/${id}/events`);
    await stream.waitFor((e) => e.data.status === 'running');
    await stream.waitForComment((c) => c === 'heartbeat', 5000);
    const before = stream.events.length;
    await fetch(`${svc.base}/api/jobs/${id}/cancel`, { method: 'POST' });
    await stream.ended;
    assert.equal(stream.events.length, before + 1, 'exactly one more event: the final one');
    const final = stream.events.at(-1)!;
    assert.equal(final.event, 'failed');
    assert.equal(final.data.error_message, 'Cancelled by user');
  });

  test('unknown jobs are 404 {detail}', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await getJson(`${svc.base}/api/jobs/${id}/events`);
      assert.equal(res.status, 404);
      assert.deepEqual(res.body, { detail: 'Job not found' });
    }
  });

  test('open streams are bounded per job and in all, and a closed stream frees its place', async () => {
    const id = (await submit(svc.base, BLOCKING, DEM)).body.job_id as string;
    await waitForStatus(svc.base, id, ['running']);
    const a = await sse(`/api/jobs/${id}/events`);
    const b = await sse(`/api/jobs/${id}/events`);
    assert.equal(a.status, 200);
    assert.equal(b.status, 200);
    const refused = await getJson(`${svc.base}/api/jobs/${id}/events`);
    assert.equal(refused.status, 503);
    assert.match(refused.body.detail, /EEMT_MAX_EVENT_STREAMS_PER_JOB/);

    a.close();
    const c = await waitFor('a freed place', async () => {
      const s = await sse(`/api/jobs/${id}/events`);
      if (s.status === 200) return s;
      s.close();
      return null;
    }, 10_000);
    await c.waitFor((e) => e.data.status === 'running');

    // The service-wide bound (6): other jobs' streams count too.
    const others: SseStream[] = [];
    for (let i = 0; i < 2; i++) {
      const other = (await submit(svc.base, BLOCKING, DEM)).body.job_id as string;
      for (let k = 0; k < 2; k++) others.push(await sse(`/api/jobs/${other}/events`));
    }
    assert.deepEqual(others.map((s) => s.status), [200, 200, 200, 200]);
    const other = (await submit(svc.base, BLOCKING, DEM)).body.job_id as string;
    const full = await getJson(`${svc.base}/api/jobs/${other}/events`);
    assert.equal(full.status, 503);
    assert.match(full.body.detail, /EEMT_MAX_EVENT_STREAMS\b/);
    for (const s of [b, c, ...others]) s.close();
    for (const job of (await getJson(`${svc.base}/api/jobs`)).body) {
      if (job.status === 'pending' || job.status === 'running') await fetch(`${svc.base}/api/jobs/${job.id}/cancel`, { method: 'POST' });
    }
  });

  test('the OpenAPI document describes the stream', async () => {
    const doc = (await getJson(`${svc.base}/openapi.json`)).body;
    const op = doc.paths['/api/jobs/{job_id}/events'].get;
    assert.ok(op.responses['200'].content['text/event-stream']);
    assert.ok(op.responses['404']);
    assert.match(op.description, /Last-Event-ID/);
  });
});
