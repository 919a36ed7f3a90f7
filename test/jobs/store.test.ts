import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { JobStore, MIGRATIONS } from '../../src/jobs/store/store.js';

const root = mkdtempSync(join(tmpdir(), 'eemt-store-'));
after(() => rmSync(root, { recursive: true, force: true }));
const params = { step: 15, linke_value: 3, albedo_value: 0.2, num_threads: 4 };

describe('job store (SQLite file)', () => {
  test('creates the schema in WAL mode and reopens it', () => {
    const path = join(root, 'a', 'jobs.db');
    const store = new JobStore(path);
    assert.equal(store.schemaVersion, MIGRATIONS.length);
    assert.equal(store.db.pragma('journal_mode', { simple: true }), 'wal');
    const id = randomUUID();
    store.create({ id, workflow_type: 'sol', parameters: params, dem_filename: 'x.tif' });
    store.close();
    const again = new JobStore(path);
    assert.equal(again.get(id)?.dem_filename, 'x.tif');
    again.close();
  });

  test('upgrades a version-1 database keeping its jobs', () => {
    const path = join(root, 'old.db');
    const db = new Database(path);
    db.exec(MIGRATIONS[0]!);
    db.pragma('user_version = 1');
    const id = randomUUID();
    db.prepare(`INSERT INTO jobs (id, workflow_type, status, created_at, parameters, dem_filename) VALUES (?, 'sol', 'completed', '2024-01-01T00:00:00.000Z', ?, 'old.tif')`).run(
      id,
      JSON.stringify(params),
    );
    db.close();
    const store = new JobStore(path);
    assert.equal(store.schemaVersion, MIGRATIONS.length);
    const job = store.get(id)!;
    assert.equal(job.status, 'completed');
    assert.equal(job.runtime, null);
    assert.equal(store.lastCleanupRun(), undefined);
    store.close();
  });

  test('refuses a database from a newer service', () => {
    const path = join(root, 'new.db');
    const db = new Database(path);
    db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    db.close();
    assert.throws(() => new JobStore(path), /newer than this service/);
  });

  test('records jobs through their states; progress never goes back and reaches 100 only on completion', () => {
    const store = new JobStore(join(root, 'states.db'));
    const id = randomUUID();
    const created = store.create({ id, workflow_type: 'eemt', parameters: { ...params, start_year: 2019, end_year: 2020 }, dem_filename: 'd.tif' });
    assert.equal(created.status, 'pending');
    assert.equal(created.started_at, null);
    assert.equal(created.completed_at, null);
    assert.match(created.created_at, /Z$/);
    assert.deepEqual(created.parameters, { ...params, start_year: 2019, end_year: 2020 });
    assert.equal(store.markRunning(id, 'bubblewrap', 2, 'starting'), true);
    assert.equal(store.markRunning(id, 'bubblewrap', 2, 'starting'), false);
    store.setProgress(id, 50, 'half');
    store.setProgress(id, 30, null);
    assert.equal(store.get(id)!.progress, 50);
    assert.equal(store.get(id)!.progress_message, 'half');
    store.setProgress(id, 100, 'x');
    assert.equal(store.get(id)!.progress, 99);
    assert.equal(store.complete(id), true);
    const done = store.get(id)!;
    assert.equal(done.status, 'completed');
    assert.equal(done.progress, 100);
    assert.match(done.completed_at!, /Z$/);
    assert.equal(store.fail(id, 'late'), false, 'an ended job does not change');
    store.close();
  });

  test('lists newest first with status filter and limit; non-UUID ids are unknown', () => {
    const store = new JobStore(join(root, 'list.db'));
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    for (const id of ids) store.create({ id, workflow_type: 'sol', parameters: params, dem_filename: `${id}.tif` });
    store.setProgress(ids[1]!, 40, 'climate: point 3 of 20');
    store.fail(ids[1]!, 'boom');
    assert.equal(store.get(ids[1]!)!.progress_message, 'failed', 'the last step is not left as if it were current');
    assert.deepEqual(store.list().map((j) => j.id), [...ids].reverse());
    assert.deepEqual(store.list({ status: 'failed' }).map((j) => j.id), [ids[1]]);
    assert.deepEqual(store.list({ limit: 2 }).map((j) => j.id), [ids[2], ids[1]]);
    assert.deepEqual(store.pending().map((j) => j.id), [ids[0], ids[2]]);
    assert.equal(store.get('../../etc/passwd'), undefined);
    assert.equal(store.get("1' OR '1'='1"), undefined);
    assert.equal(store.get(ids[0]!.toUpperCase())?.id, ids[0]);
    assert.deepEqual(store.countByStatus(), { pending: 2, running: 0, completed: 0, failed: 1 });
    store.close();
  });

  test('after a restart, running jobs fail with a message and pending ones stay', () => {
    const store = new JobStore(join(root, 'restart.db'));
    const [a, b] = [randomUUID(), randomUUID()];
    store.create({ id: a, workflow_type: 'sol', parameters: params, dem_filename: 'a.tif' });
    store.create({ id: b, workflow_type: 'sol', parameters: params, dem_filename: 'b.tif' });
    store.markRunning(a, 'process', 2, 'x');
    assert.deepEqual(store.failInterrupted('interrupted'), [a]);
    assert.equal(store.get(a)!.status, 'failed');
    assert.equal(store.get(a)!.error_message, 'interrupted');
    assert.equal(store.get(a)!.progress_message, 'failed');
    assert.equal(store.get(b)!.status, 'pending');
    store.close();
  });
  test('every change raises the revision and is announced; a repeated progress report is no change', () => {
    const store = new JobStore(join(root, 'revisions.db'));
    const seen: string[] = [];
    const stop = store.onChange((id) => seen.push(id));
    const id = randomUUID();
    store.create({ id, workflow_type: 'sol', parameters: params, dem_filename: 'r.tif' });
    const revisions = [store.get(id)!.revision];
    assert.ok(store.markRunning(id, 'process', 2, 'starting'));
    revisions.push(store.get(id)!.revision);
    store.setProgress(id, 40, 'day 1/365');
    revisions.push(store.get(id)!.revision);
    store.setProgress(id, 40, 'day 1/365'); // nothing new
    store.setProgress(id, 30, null); // lower: nothing new
    assert.equal(store.get(id)!.revision, revisions.at(-1));
    store.setProgress(id, 40, 'day 2/365'); // new message, same percentage
    revisions.push(store.get(id)!.revision);
    assert.ok(store.complete(id));
    revisions.push(store.get(id)!.revision);
    for (let i = 1; i < revisions.length; i++) assert.ok(revisions[i]! > revisions[i - 1]!, revisions.join(','));
    assert.deepEqual(seen, [id, id, id, id, id]);
    stop();
    store.delete(id);
    assert.equal(seen.length, 5, 'a removed listener hears nothing');
    store.close();
  });
});
