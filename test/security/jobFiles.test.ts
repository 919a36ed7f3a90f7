/**
 * Files a job can write are never read through links: a job that swaps its job.log for a link to the job
 * database's WAL, and plants links and a FIFO among its outputs, gets neither into its logs nor its ZIP,
 * and no request hangs on a FIFO.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ProcessRuntime } from '../../src/runtime/process.js';
import { fixture, getJson, startTestService, submit, waitForStatus, type TestService } from '../server/helpers.js';
import { zipEntries } from '../server/zip.js';

const LINK_CHILD = new URL('./fixtures/linkPlantingChild.ts', import.meta.url);

describe('a job that plants links in its folder', () => {
  let svc: TestService;
  let id: string;
  before(async () => {
    svc = await startTestService({
      runtime: (c) => new ProcessRuntime({ limits: { cpus: c.cpuLimit, memoryBytes: c.memoryBytes }, childEntry: LINK_CHILD }),
    });
    const res = await submit(svc.base, { workflow_type: 'sol' }, { name: 'secret-name.tif', bytes: fixture('mcn_10m.tif') });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    id = res.body.job_id;
    const job = await waitForStatus(svc.base, id, ['completed', 'failed']);
    assert.equal(job.status, 'completed', job.error_message);
  });
  after(() => svc.stop());

  test('the planted links are there (the attack happened)', () => {
    const wal = `${svc.config.dbPath}-wal`;
    assert.ok(existsSync(wal));
    assert.ok(lstatSync(svc.paths.logPath(id)).isSymbolicLink());
    assert.ok(readFileSync(svc.paths.logPath(id)).includes('secret-name.tif'), 'following the link would leak the database');
    assert.ok(lstatSync(join(svc.paths.outputDir(id), 'leak.tif')).isSymbolicLink());
  });

  test('GET logs does not follow job.log to the database', async () => {
    const logs = await getJson(`${svc.base}/api/jobs/${id}/logs`);
    assert.equal(logs.status, 200);
    assert.deepEqual(logs.body, { job_id: id, lines: [] });
  });

  test('the results ZIP holds the real output only: no link, no FIFO, nothing from outside', async () => {
    const res = await fetch(`${svc.base}/api/jobs/${id}/results`, { signal: AbortSignal.timeout(10_000) });
    assert.equal(res.status, 200);
    const zip = Buffer.from(await res.arrayBuffer());
    // the job's one real product, and the STAC Items the service adds (test/server/stac.test.ts)
    assert.deepEqual(zipEntries(zip).map((e) => e.name), ['stac.json', 'stac/daily-global.json', 'global/daily/total_sun_day_001.tif']);
    assert.ok(!zip.includes('secret-name.tif'));
  });

  test('a FIFO as job.log: GET logs answers at once', async () => {
    rmSync(svc.paths.logPath(id));
    execFileSync('mkfifo', [svc.paths.logPath(id)]);
    const logs = await getJson(`${svc.base}/api/jobs/${id}/logs`, { signal: AbortSignal.timeout(5000) });
    assert.deepEqual(logs.body, { job_id: id, lines: [] });
  });
});
