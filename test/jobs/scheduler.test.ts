import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { CANCELLED_MESSAGE, INTERRUPTED_MESSAGE, JobScheduler, workflowProgress } from '../../src/jobs/queue/scheduler.js';
import { makeEnv, PARAMS, waitFor } from './helpers.js';

describe('job scheduler (real child processes)', () => {
  const env = makeEnv('sched');
  after(() => env.cleanup());
  const scheduler = new JobScheduler({ store: env.store, runtime: env.runtime, paths: env.paths, maxConcurrent: 1 });

  function submit(parameters = PARAMS): string {
    const id = randomUUID();
    env.upload(id);
    env.store.create({ id, workflow_type: 'sol', parameters, dem_filename: 'mcn.tif' });
    scheduler.enqueue();
    return id;
  }

  test('maps workflow progress to the 10–90 band', () => {
    assert.equal(workflowProgress(0), 10);
    assert.equal(workflowProgress(0.5), 50);
    assert.equal(workflowProgress(1), 90);
    assert.equal(workflowProgress(7), 90);
  });

  test('runs a job to completion; progress only rises and is 100 at the end; the log is in the job folder', async () => {
    const id = submit();
    const seen: number[] = [];
    const job = await waitFor(() => {
      const j = env.store.get(id)!;
      seen.push(j.progress);
      return j.status === 'completed' || j.status === 'failed' ? j : null;
    });
    assert.equal(job.status, 'completed', job.error_message ?? '');
    assert.equal(job.progress, 100);
    assert.equal(job.runtime, 'process');
    assert.ok(job.started_at && job.completed_at);
    for (let i = 1; i < seen.length; i++) assert.ok(seen[i]! >= seen[i - 1]!, `progress went back: ${seen.join(',')}`);
    assert.ok(seen.slice(0, -1).every((p) => p < 100));
    await scheduler.idle();
    const log = readFileSync(env.paths.logPath(id), 'utf8');
    assert.match(log, /stub child started/);
    assert.match(log, /completed/);
    assert.ok(existsSync(env.paths.outputDir(id) + '/global/daily/total_sun_day_001.tif'));
    assert.ok(!existsSync(env.paths.tempDir(id)), 'scratch space is removed');
  });

  test('a failing workflow fails the job with its message; a silent exit gets an explanation', async () => {
    const a = submit({ ...PARAMS, linke_value: 7.5 });
    const b = submit({ ...PARAMS, linke_value: 8 });
    const ja = await waitFor(() => env.store.get(a)!.status === 'failed' && env.store.get(a)!);
    const jb = await waitFor(() => env.store.get(b)!.status === 'failed' && env.store.get(b)!);
    assert.equal(ja.error_message, 'DEM has no valid cells');
    assert.match(jb.error_message!, /exited with code 3/);
    assert.ok(ja.progress < 100 && jb.progress < 100);
  });

  test('runs at most maxConcurrent jobs; cancelling stops the running one and the queue moves on', async () => {
    const first = submit({ ...PARAMS, step: 60 });
    const second = submit();
    await waitFor(() => env.store.get(first)!.progress >= 10, 20_000, 'first job started');
    await waitFor(() => existsSync(join(env.paths.outputDir(first), 'global/daily/total_sun_day_1.tif.part')), 20_000, 'a partial product');
    assert.equal(env.store.get(second)!.status, 'pending');
    assert.deepEqual(scheduler.runningIds(), [first]);
    assert.equal(scheduler.cancel(first), true);
    const cancelled = env.store.get(first)!;
    assert.equal(cancelled.status, 'failed');
    assert.equal(cancelled.error_message, CANCELLED_MESSAGE);
    await waitFor(() => env.store.get(second)!.status === 'completed', 20_000, 'second job');
    assert.equal(env.store.get(first)!.error_message, CANCELLED_MESSAGE);
    assert.equal(existsSync(env.paths.outputDir(first)), false, "the cancelled job's partial outputs are removed");
    assert.ok(existsSync(env.paths.logPath(first)), 'its log stays');
    assert.equal(scheduler.cancel(first), false);
    await scheduler.idle();
  });

  test('a pending job can be cancelled before it starts', async () => {
    const blocker = submit({ ...PARAMS, step: 60 });
    const queued = submit();
    assert.equal(scheduler.cancel(queued), true);
    assert.equal(env.store.get(queued)!.error_message, CANCELLED_MESSAGE);
    scheduler.cancel(blocker);
    await scheduler.idle();
    assert.equal(env.store.get(queued)!.started_at, null);
  });

  test('on start-up, jobs left running fail with a clear message and pending jobs are resumed', async () => {
    const interrupted = randomUUID();
    env.upload(interrupted);
    env.store.create({ id: interrupted, workflow_type: 'sol', parameters: PARAMS, dem_filename: 'a.tif' });
    env.store.markRunning(interrupted, 'process', 2, 'x');
    const waiting = randomUUID();
    env.upload(waiting);
    env.store.create({ id: waiting, workflow_type: 'sol', parameters: PARAMS, dem_filename: 'b.tif' });

    const restarted = new JobScheduler({ store: env.store, runtime: env.runtime, paths: env.paths, maxConcurrent: 2 });
    assert.deepEqual(await restarted.start(), [interrupted]);
    assert.equal(env.store.get(interrupted)!.error_message, INTERRUPTED_MESSAGE);
    await waitFor(() => env.store.get(waiting)!.status === 'completed', 20_000, 'resumed job');
    await restarted.close();
  });
});
