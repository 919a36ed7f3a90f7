// Needs: gdal, redis
/**
 * A full disk on the distributed queue: a real redis-server, the service with EEMT_REDIS_URL and an `eemt worker`
 * process, whose shared results folder is a 40 MiB tmpfs mounted for the test. A job that fitted at submission but
 * not when a worker takes it fails at once with the refusal's message; a job that finds the disk full while it writes
 * fails with `Out of disk space in <results folder> (<free> free)` and its partial outputs are removed; the next small
 * job completes.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startRedis, type TestRedis } from '../../helpers/redisServer.js';
import { demWindow, filesUnder, freeBytes, mountTmpfs, unmount } from '../../helpers/tmpfs.js';
import { waitFor } from '../../helpers/wait.js';
import { getJson, startTestService, submit, waitForStatus, type TestService } from '../../server/helpers.js';
import { killWorkers, startWorker, workerEnv, type WorkerProcess } from './helpers.js';

const MB = 1024 ** 2;

describe('distributed queue: a full results folder (a 40 MiB tmpfs)', () => {
  const root = mkdtempSync(join(tmpdir(), 'eemt-dist-full-'));
  const data = join(root, 'service');
  const results = join(data, 'results');
  const ballast = join(results, 'ballast');
  let mounted = false;
  let redis: TestRedis;
  let service: TestService;
  const workers: WorkerProcess[] = [];
  let tiny: Buffer;
  let fitting: Buffer;

  const fillLeaving = (bytes: number) => {
    assert.ok(freeBytes(results) > bytes, `only ${freeBytes(results)} bytes are free on the tmpfs`);
    writeFileSync(ballast, Buffer.alloc(freeBytes(results) - bytes));
  };

  before(async () => {
    mkdirSync(results, { recursive: true });
    mountTmpfs(results, 40 * MB);
    mounted = true;
    tiny = demWindow(root, 8);
    fitting = demWindow(root, 100);
    redis = await startRedis();
    service = await startTestService({ root: data, env: { EEMT_REDIS_URL: redis.url, EEMT_RUNTIME: 'process' } });
  });
  after(async () => {
    await killWorkers(workers);
    await service?.stop();
    await redis?.close();
    if (mounted) unmount(results);
    rmSync(root, { recursive: true, force: true });
  });

  test('a job that fitted at submission but not when a worker takes it fails at once, naming the folder and the sizes', { timeout: 120_000 }, async () => {
    // no worker yet: the job waits in the queue while the disk fills up
    const res = await submit(service.base, { workflow_type: 'sol', step: '3', num_threads: '1' }, { name: 'fits.tif', bytes: fitting });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    fillLeaving(2 * MB);
    workers.push(startWorker(workerEnv(data, redis.url)));
    const job = await waitForStatus(service.base, res.body.job_id, ['completed', 'failed'], 90_000);
    assert.equal(job.status, 'failed');
    const match = /^Not enough disk space in (.+): (\d+\.\d) MB free, the job needs about (\d+\.\d) MB$/.exec(job.error_message);
    assert.ok(match, job.error_message);
    assert.equal(match[1], results);
    assert.ok(Number(match[2]) <= 2.1 && Number(match[3]) > 25 && Number(match[3]) < 40, job.error_message);
    assert.deepEqual(filesUnder(join(results, res.body.job_id, 'output')), [], 'nothing was written');
    rmSync(ballast);
  });

  test('a part that finds the disk full fails its job with "Out of disk space", its outputs are removed, and the next job completes', { timeout: 180_000 }, async () => {
    const res = await submit(service.base, { workflow_type: 'sol', step: '3', num_threads: '1' }, { name: 'fits.tif', bytes: fitting });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const id = res.body.job_id as string;
    const outputDir = join(results, id, 'output');
    // once its files are being made (past the check at its start), only 6 MB are left for its 24 MB
    await waitFor('the part to create its files', () => filesUnder(outputDir).some((file) => file.endsWith('.part')), 60_000);
    fillLeaving(6 * MB);
    const job = await waitForStatus(service.base, id, ['completed', 'failed'], 120_000);
    assert.equal(job.status, 'failed');
    const match = /^Out of disk space in (.+) \((\d+(?:\.\d)? (?:B|KB|MB)) free\)$/.exec(job.error_message);
    assert.ok(match, job.error_message);
    assert.equal(match[1], results);
    assert.deepEqual(filesUnder(outputDir), [], 'its partial outputs are removed');
    assert.match(readFileSync(join(results, id, 'job.log'), 'utf8'), /Out of disk space in .+: partial outputs removed/);

    const next = await submit(service.base, { workflow_type: 'sol', step: '60', num_threads: '1' }, { name: 'tiny.tif', bytes: tiny });
    assert.equal(next.status, 200, JSON.stringify(next.body));
    const done = await waitForStatus(service.base, next.body.job_id, ['completed', 'failed'], 120_000);
    assert.equal(done.status, 'completed', done.error_message);
    const status = (await getJson(`${service.base}/api/system/status`)).body;
    assert.equal(status.storage.find((f: { name: string }) => f.name === 'results').total_bytes, 40 * MB);
  });
});
