/** followJob over the store's change notifications (StoreJobEvents), on a real SQLite job store. */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { followJob, StoreJobEvents, type JobEvent } from '../../src/jobs/queue/events.js';
import { JobStore } from '../../src/jobs/store/store.js';

const root = mkdtempSync(join(tmpdir(), 'eemt-events-'));
const store = new JobStore(join(root, 'jobs.db'));
after(() => {
  store.close();
  rmSync(root, { recursive: true, force: true });
});
const params = { step: 15, linke_value: 3, albedo_value: 0.2, num_threads: 4 };
const newJob = () => store.create({ id: randomUUID(), workflow_type: 'sol', parameters: params, dem_filename: 'e.tif' }).id;

describe('job events from the store', () => {
  test('a job followed from the start: status, progress, the final event, then the end; the watch is released', () => {
    const source = new StoreJobEvents(store);
    const id = newJob();
    const events: JobEvent[] = [];
    let ended = 0;
    followJob(source, id, null, (e) => events.push(e), () => ended++, 0);
    assert.equal(source.watchedJobs, 1);
    store.markRunning(id, 'process', 2, 'starting');
    store.setProgress(id, 40, 'day 1/365');
    store.setProgress(id, 40, 'day 1/365'); // no change: no event
    store.setProgress(id, 55, 'day 90/365');
    const other = newJob(); // changes of other jobs are not this job's events
    store.markRunning(other, 'process', 2, 'starting');
    store.complete(id);
    store.setProgress(id, 99, 'late'); // after the end: nothing
    assert.deepEqual(events.map((e) => [e.type, e.data.status, e.data.progress, e.data.message]), [
      ['status', 'pending', 0, null],
      ['status', 'running', 2, 'starting'],
      ['progress', 'running', 40, 'day 1/365'],
      ['progress', 'running', 55, 'day 90/365'],
      ['completed', 'completed', 100, 'completed'],
    ]);
    for (let i = 1; i < events.length; i++) assert.ok(events[i]!.id! > events[i - 1]!.id!);
    assert.equal(ended, 1);
    assert.equal(source.watchedJobs, 0);
  });

  test('resuming after a revision sends only what is newer; a deleted job ends with deleted', () => {
    const source = new StoreJobEvents(store);
    const id = newJob();
    store.markRunning(id, 'process', 2, 'starting');
    const revision = store.get(id)!.revision;
    const events: JobEvent[] = [];
    let ended = 0;
    const follower = followJob(source, id, revision, (e) => events.push(e), () => ended++);
    assert.equal(events.length, 0, 'the client has the current state');
    follower.poll(); // a heartbeat's re-read of an unchanged job sends nothing
    assert.equal(events.length, 0);
    store.fail(id, 'Cancelled by user');
    assert.deepEqual(events.map((e) => [e.type, e.data.error_message]), [['failed', 'Cancelled by user']]);
    assert.equal(ended, 1);

    const gone = newJob();
    const seen: JobEvent[] = [];
    followJob(source, gone, null, (e) => seen.push(e), () => ended++);
    store.delete(gone);
    assert.deepEqual(seen.map((e) => [e.type, e.id]), [['status', 0], ['deleted', null]]);
    assert.equal(ended, 2);
    assert.equal(source.watchedJobs, 0);
  });

  test('progress is coalesced: progress events at least an interval apart, the latest state always delivered', async () => {
    const source = new StoreJobEvents(store);
    const id = newJob();
    const events: Array<JobEvent & { at: number }> = [];
    let ended = 0;
    const interval = 100;
    followJob(source, id, null, (e) => events.push({ ...e, at: Date.now() }), () => ended++, interval);
    store.markRunning(id, 'process', 2, 'starting');
    assert.deepEqual(events.map((e) => [e.type, e.data.status]), [['status', 'pending'], ['status', 'running']], 'status changes at once');

    // a burst of 0.5 s of progress reports, as a job sends them (every few milliseconds)
    const started = Date.now();
    let reports = 0;
    while (Date.now() - started < 500) {
      store.setProgress(id, 10 + Math.floor(reports / 50), `tile ${++reports}`);
      await new Promise((r) => setImmediate(r));
    }
    await new Promise((r) => setTimeout(r, interval + 50));
    const progress = events.filter((e) => e.type === 'progress');
    assert.ok(reports > 50, `${reports} reports`);
    assert.ok(progress.length >= 3 && progress.length <= 8, `${progress.length} progress events for ${reports} reports in 0.5 s`);
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i]!.at - progress[i - 1]!.at >= interval - 5, 'never closer than the interval');
    assert.equal(progress.at(-1)!.data.message, `tile ${reports}`, 'the last report is delivered');
    const count = events.length;
    await new Promise((r) => setTimeout(r, interval + 50));
    assert.equal(events.length, count, 'nothing more without a change');

    store.setProgress(id, 90, 'one more');
    store.setProgress(id, 91, 'and another');
    store.complete(id); // the end is sent at once; the progress waiting for its turn is superseded
    assert.equal(events.at(-1)!.type, 'completed');
    assert.equal(ended, 1);
    await new Promise((r) => setTimeout(r, interval + 50));
    assert.equal(events.at(-1)!.type, 'completed', 'nothing after the end');
    assert.equal(source.watchedJobs, 0);
  });

  test('stopping a follower releases its watch and sends nothing more', () => {
    const source = new StoreJobEvents(store);
    const id = newJob();
    const events: JobEvent[] = [];
    const follower = followJob(source, id, null, (e) => events.push(e), () => undefined);
    follower.stop();
    assert.equal(source.watchedJobs, 0);
    store.markRunning(id, 'process', 2, 'starting');
    assert.equal(events.length, 1);
  });
});
