/**
 * Pages of the job list (JobStore.page) on a real SQLite file with a controlled clock: filters by workflow type,
 * state, creation time and duration, and key-based paging that stays consistent while jobs are added and deleted.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, beforeEach, describe, test } from 'node:test';
import type { JobListFilter } from '../../src/jobs/store/jobPages.js';
import { JobStore } from '../../src/jobs/store/store.js';
import { CANCELLED_MESSAGE, type JobRecord } from '../../src/jobs/types.js';

const root = mkdtempSync(join(tmpdir(), 'eemt-pages-'));
after(() => rmSync(root, { recursive: true, force: true }));
const params = { step: 15, linke_value: 3, albedo_value: 0.2, num_threads: 4 };
const T0 = Date.parse('2024-03-01T12:00:00.000Z');

describe('job list pages (SQLite)', () => {
  let store: JobStore;
  let clock = T0;
  /** Moves the store's clock to `seconds` after T0. */
  const at = (seconds: number) => {
    clock = T0 + seconds * 1000;
  };
  const create = (type: 'sol' | 'eemt' = 'sol'): string => {
    const id = randomUUID();
    store.create({ id, workflow_type: type, parameters: params, dem_filename: 'd.tif' });
    return id;
  };
  const ids = (jobs: JobRecord[]) => jobs.map((j) => j.id);
  /** Every job that matches `filter`, following `olderBefore` cursors `limit` at a time (at most 100 pages). */
  const pageThrough = (filter: JobListFilter, limit: number): string[] => {
    const seen: string[] = [];
    let before: number | undefined;
    for (let n = 0; n < 100; n++) {
      const page = store.page(filter, { limit, ...(before !== undefined ? { before } : {}) });
      assert.ok(page.jobs.length <= limit);
      seen.push(...ids(page.jobs));
      if (page.olderBefore === undefined) return seen;
      before = page.olderBefore;
    }
    throw new Error('more than 100 pages');
  };

  beforeEach(() => {
    clock = T0;
    store = new JobStore(join(mkdtempSync(join(root, 'db-')), 'jobs.db'), { now: () => new Date(clock) });
  });

  test('pages newest first with next and previous cursors, and no cursor past either end', () => {
    const made = Array.from({ length: 7 }, (_, i) => {
      at(i);
      return create();
    });
    const newestFirst = [...made].reverse();
    const first = store.page({}, { limit: 3 });
    assert.deepEqual(ids(first.jobs), newestFirst.slice(0, 3));
    assert.equal(first.newerAfter, undefined);
    assert.notEqual(first.olderBefore, undefined);
    const second = store.page({}, { limit: 3, before: first.olderBefore! });
    assert.deepEqual(ids(second.jobs), newestFirst.slice(3, 6));
    const third = store.page({}, { limit: 3, before: second.olderBefore! });
    assert.deepEqual(ids(third.jobs), newestFirst.slice(6));
    assert.equal(third.olderBefore, undefined);
    // Back from the last page: the second page again, then the first (which has nothing newer).
    const back = store.page({}, { limit: 3, after: third.newerAfter! });
    assert.deepEqual(ids(back.jobs), ids(second.jobs));
    const backAgain = store.page({}, { limit: 3, after: back.newerAfter! });
    assert.deepEqual(ids(backAgain.jobs), ids(first.jobs));
    assert.equal(backAgain.newerAfter, undefined);
    assert.equal(backAgain.olderBefore, first.olderBefore);
    // Exactly a page's worth: no cursor to an empty page.
    assert.equal(store.page({}, { limit: 7 }).olderBefore, undefined);
    assert.equal(store.page({}, { limit: 10 }).jobs.length, 7);
  });

  test('jobs added or deleted while paging: the following pages neither repeat nor skip a job', () => {
    const made = Array.from({ length: 6 }, () => create());
    const first = store.page({}, { limit: 2 });
    assert.deepEqual(ids(first.jobs), [made[5], made[4]]);
    // Meanwhile: two new jobs, and one of the first page and one of the next page deleted.
    const newer = [create(), create()];
    store.delete(made[4]!);
    store.delete(made[2]!);
    const second = store.page({}, { limit: 2, before: first.olderBefore! });
    assert.deepEqual(ids(second.jobs), [made[3], made[1]]);
    const third = store.page({}, { limit: 2, before: second.olderBefore! });
    assert.deepEqual(ids(third.jobs), [made[0]]);
    assert.equal(third.olderBefore, undefined);
    // The first page, read again, shows the new jobs.
    assert.deepEqual(ids(store.page({}, { limit: 2 }).jobs), [newer[1], newer[0]]);
    // A page whose jobs were all deleted is empty, and still leads on both sides.
    const lone = store.page({}, { limit: 1, before: second.olderBefore! });
    store.delete(made[0]!);
    const empty = store.page({}, { limit: 1, before: second.olderBefore! });
    assert.deepEqual(empty.jobs, []);
    assert.equal(empty.olderBefore, undefined);
    assert.deepEqual(ids(store.page({}, { limit: 1, after: empty.newerAfter! }).jobs), [made[1]]);
    assert.equal(lone.jobs.length, 1);
  });

  test('filters by workflow type and state (cancelled apart from failed), in the same pages', () => {
    const sol = [create('sol'), create('sol'), create('sol'), create('sol')];
    const eemt = [create('eemt'), create('eemt')];
    store.markRunning(sol[1]!, 'process', 1, 'start');
    store.markRunning(sol[2]!, 'process', 1, 'start');
    store.complete(sol[2]!);
    store.markRunning(sol[3]!, 'process', 1, 'start');
    store.fail(sol[3]!, 'DEM has no valid cells');
    store.fail(eemt[0]!, CANCELLED_MESSAGE);
    assert.deepEqual(pageThrough({ workflowTypes: ['eemt'] }, 1), [eemt[1], eemt[0]]);
    assert.deepEqual(pageThrough({ workflowTypes: ['sol', 'eemt'] }, 4).length, 6);
    assert.deepEqual(pageThrough({ workflowTypes: ['echo'] }, 4), []);
    assert.deepEqual(pageThrough({ workflowTypes: [] }, 4), []);
    assert.deepEqual(pageThrough({ states: ['pending'] }, 1), [eemt[1], sol[0]]);
    assert.deepEqual(pageThrough({ states: ['running'] }, 1), [sol[1]]);
    assert.deepEqual(pageThrough({ states: ['completed'] }, 1), [sol[2]]);
    assert.deepEqual(pageThrough({ states: ['failed'] }, 1), [sol[3]]);
    assert.deepEqual(pageThrough({ states: ['cancelled'] }, 1), [eemt[0]]);
    assert.deepEqual(pageThrough({ states: ['failed', 'cancelled', 'completed'] }, 2), [eemt[0], sol[3], sol[2]]);
    assert.deepEqual(pageThrough({ states: ['pending'], workflowTypes: ['sol'] }, 2), [sol[0]]);
  });

  test('filters by creation time: bounds are inclusive, to the millisecond', () => {
    const made = [0, 10, 20, 30].map((s) => {
      at(s);
      return create();
    });
    const iso = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();
    assert.deepEqual(pageThrough({ createdFrom: iso(10), createdTo: iso(20) }, 1), [made[2], made[1]]);
    assert.deepEqual(pageThrough({ createdFrom: iso(10.001) }, 10), [made[3], made[2]]);
    assert.deepEqual(pageThrough({ createdTo: iso(9.999) }, 10), [made[0]]);
    assert.deepEqual(pageThrough({ createdFrom: iso(30), createdTo: iso(30) }, 10), [made[3]]);
  });

  test('filters by duration: finished − started, now − started while running; jobs that never started are left out', () => {
    at(0);
    const quick = create();
    const slow = create();
    const running = create();
    const waiting = create();
    const cancelledWaiting = create();
    store.markRunning(quick, 'process', 1, 'start');
    store.markRunning(slow, 'process', 1, 'start');
    store.markRunning(running, 'process', 1, 'start');
    at(30);
    store.complete(quick);
    store.fail(cancelledWaiting, CANCELLED_MESSAGE);
    at(120);
    store.fail(slow, 'out of memory');
    at(90);
    // At 90 s: quick ran 30 s, slow 120 s, running 90 s so far; waiting and cancelledWaiting never started.
    const sorted = (list: string[]) => [...list].sort();
    assert.deepEqual(sorted(pageThrough({ minDurationSeconds: 0 }, 10)), sorted([quick, slow, running]));
    assert.deepEqual(sorted(pageThrough({ minDurationSeconds: 30 }, 10)), sorted([quick, slow, running]));
    assert.deepEqual(sorted(pageThrough({ minDurationSeconds: 31 }, 10)), sorted([slow, running]));
    assert.deepEqual(pageThrough({ maxDurationSeconds: 30 }, 10), [quick]);
    assert.deepEqual(pageThrough({ minDurationSeconds: 60, maxDurationSeconds: 100 }, 10), [running]);
    at(200);
    assert.deepEqual(sorted(pageThrough({ minDurationSeconds: 120 }, 1)), sorted([slow, running]));
    assert.deepEqual(pageThrough({ maxDurationSeconds: 10_000, states: ['pending', 'cancelled'] }, 10), []);
    assert.ok(pageThrough({}, 10).includes(waiting));
  });
});
