import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { CleanupService } from '../../src/jobs/cleanup/cleanup.js';
import { JobStore } from '../../src/jobs/store/store.js';
import { makeEnv, PARAMS } from './helpers.js';

describe('retention cleanup', () => {
  const env = makeEnv('cleanup');
  after(() => env.cleanup());
  let clock = new Date('2024-06-01T12:00:00Z');
  const store = new JobStore(join(env.root, 'clock.db'), { now: () => clock });
  after(() => store.close());
  const cleanup = new CleanupService({
    store,
    paths: env.paths,
    defaults: { success_retention_days: 7, failed_retention_hours: 12 },
    intervalMs: null,
    now: () => clock,
  });

  function job(status: 'completed' | 'failed' | 'running', endedAt: string): string {
    clock = new Date(endedAt);
    const id = randomUUID();
    store.create({ id, workflow_type: 'sol', parameters: PARAMS, dem_filename: 'x.tif' });
    env.upload(id);
    mkdirSync(env.paths.outputDir(id), { recursive: true });
    writeFileSync(join(env.paths.outputDir(id), 'big.tif'), Buffer.alloc(1024 * 1024));
    store.markRunning(id, 'process', 2, 'x');
    if (status === 'completed') store.complete(id);
    if (status === 'failed') store.fail(id, 'boom');
    return id;
  }

  const oldOk = job('completed', '2024-05-20T00:00:00Z');
  const newOk = job('completed', '2024-05-30T00:00:00Z');
  const oldFailed = job('failed', '2024-05-31T20:00:00Z');
  const newFailed = job('failed', '2024-06-01T10:00:00Z');
  const running = job('running', '2024-05-01T00:00:00Z');

  test('a dry run reports what would go and deletes nothing', async () => {
    clock = new Date('2024-06-01T12:00:00Z');
    const result = await cleanup.run({ dry_run: true });
    assert.equal(result.success, true);
    assert.equal(result.summary.dry_run, true);
    assert.deepEqual(result.summary.job_details.map((d) => d.job_id).sort(), [oldOk, oldFailed].sort());
    assert.equal(result.summary.successful_jobs_processed, 1);
    assert.equal(result.summary.failed_jobs_processed, 1);
    assert.ok(result.summary.total_size_freed_mb > 2);
    assert.ok(result.summary.job_details.every((d) => !d.data_deleted));
    for (const id of [oldOk, oldFailed]) assert.ok(existsSync(env.paths.jobDir(id)));
    assert.doesNotMatch(result.timestamp, /Z$/);
    assert.doesNotMatch(result.summary.start_time, /Z$/);
    assert.equal((await cleanup.status()).last_run, null, 'a dry run is not a cleanup run');
  });

  test('deletes expired data; completed records are preserved, failed records deleted; running jobs untouched', async () => {
    const result = await cleanup.run({});
    const byId = Object.fromEntries(result.summary.job_details.map((d) => [d.job_id, d]));
    assert.equal(byId[oldOk]!.data_deleted, true);
    assert.equal(byId[oldOk]!.config_preserved, true);
    assert.equal(byId[oldFailed]!.config_preserved, false);
    assert.equal(result.summary.configs_preserved, 1);
    assert.equal(result.summary.configs_deleted, 1);
    assert.ok(!existsSync(env.paths.jobDir(oldOk)) && !existsSync(env.paths.uploadDir(oldOk)));
    assert.ok(!existsSync(env.paths.jobDir(oldFailed)));
    assert.ok(store.get(oldOk)!.data_deleted_at);
    assert.equal(store.get(oldFailed), undefined);
    for (const id of [newOk, newFailed, running]) assert.ok(existsSync(env.paths.jobDir(id)), 'kept');
    assert.equal((await cleanup.run({})).summary.job_details.length, 0, 'nothing left to do');
  });

  test('retention can be given per request', async () => {
    const result = await cleanup.run({ failed_retention_hours: 0, success_retention_days: 1 });
    assert.deepEqual(result.summary.job_details.map((d) => d.job_id).sort(), [newOk, newFailed].sort());
  });

  test('status reports settings, last run and disk usage in MB', async () => {
    const status = await cleanup.status();
    assert.equal(status.auto_cleanup_enabled, false);
    assert.equal(status.next_scheduled, null);
    assert.deepEqual(status.retention_settings, { success_retention_days: 7, failed_retention_hours: 12 });
    assert.doesNotMatch(status.last_run!, /Z$/);
    assert.ok(status.disk_usage.results_mb >= 1, 'the running job folder remains');
    assert.ok(Math.abs(status.disk_usage.total_mb - status.disk_usage.uploads_mb - status.disk_usage.results_mb) < 0.01);
  });

  test('the automatic schedule announces its next run', async () => {
    const auto = new CleanupService({ store, paths: env.paths, defaults: cleanup.defaults, intervalMs: 3_600_000 });
    auto.startSchedule();
    const status = await auto.status();
    assert.equal(status.auto_cleanup_enabled, true);
    assert.ok(status.next_scheduled);
    auto.stopSchedule();
  });
});
