import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { CleanupService } from '../../src/jobs/cleanup/cleanup.js';
import { makeEnv, PARAMS } from './helpers.js';

describe('data that belongs to no job', () => {
  const env = makeEnv('orphans');
  after(() => env.cleanup());
  const busy = new Set<string>();
  const cleanup = new CleanupService({
    store: env.store,
    paths: env.paths,
    defaults: { success_retention_days: 7, failed_retention_hours: 12 },
    intervalMs: null,
    isBusy: (id) => busy.has(id),
  });

  /** A folder `<kind>/<id>` holding 1 MiB. */
  function folder(dir: string): string {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'data.bin'), Buffer.alloc(1024 * 1024));
    return dir;
  }

  const partialUpload = randomUUID();
  const strayResults = randomUUID();
  const uploading = randomUUID();
  const running = randomUUID();
  const failed = randomUUID();
  const pending = randomUUID();
  folder(env.paths.uploadDir(partialUpload));
  folder(env.paths.jobDir(strayResults));
  folder(env.paths.uploadDir(uploading));
  busy.add(uploading);
  for (const [id, status] of [[running, 'running'], [failed, 'failed'], [pending, 'pending']] as const) {
    env.store.create({ id, workflow_type: 'sol', parameters: PARAMS, dem_filename: 'x.tif' });
    env.upload(id);
    folder(env.paths.tempDir(id));
    if (status !== 'pending') env.store.markRunning(id, 'process', 10, 'x');
    if (status === 'failed') env.store.fail(id, 'boom');
  }
  busy.add(running);
  const notAJob = folder(join(env.paths.dirs.uploadDir, 'keep-me'));

  test('a dry run lists them and removes nothing', async () => {
    const { summary } = await cleanup.run({ dry_run: true });
    const listed = summary.orphaned_data.map((o) => o.path).sort();
    assert.deepEqual(listed, [`results/${strayResults}`, `temp/${failed}`, `temp/${pending}`, `uploads/${partialUpload}`].sort());
    assert.ok(summary.orphaned_data.every((o) => !o.removed && o.size_freed_mb === 1));
    assert.equal(summary.orphaned_data.find((o) => o.job_id === partialUpload)!.reason, 'no job record');
    assert.equal(summary.orphaned_data.find((o) => o.job_id === failed)!.reason, 'the job is not running (failed)');
    assert.ok(summary.total_size_freed_mb >= 4);
    assert.ok(existsSync(env.paths.uploadDir(partialUpload)));
  });

  test('a cleanup run removes them and leaves everything in use alone', async () => {
    const { summary } = await cleanup.run({});
    assert.equal(summary.orphaned_data.filter((o) => o.removed).length, 4);
    for (const gone of [env.paths.uploadDir(partialUpload), env.paths.jobDir(strayResults), env.paths.tempDir(failed), env.paths.tempDir(pending)]) {
      assert.ok(!existsSync(gone), `${gone} removed`);
    }
    for (const kept of [env.paths.uploadDir(uploading), env.paths.tempDir(running), env.paths.uploadDir(failed), env.paths.uploadDir(pending), notAJob]) {
      assert.ok(existsSync(kept), `${kept} kept`);
    }
    assert.deepEqual((await cleanup.run({})).summary.orphaned_data, [], 'nothing left');
  });

  test('at start-up nothing is busy: the scratch space of an interrupted job goes too', async () => {
    busy.clear();
    const removed = await cleanup.removeOrphans();
    assert.deepEqual(removed.map((o) => o.path).sort(), [`temp/${running}`, `uploads/${uploading}`].sort());
    assert.ok(existsSync(env.paths.uploadDir(running)), 'the upload of a job with a record stays');
  });
});
