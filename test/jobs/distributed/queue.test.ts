// Needs: gdal, redis
/**
 * The distributed queue end to end on one machine: a real redis-server (AOF on) on a free loopback port, the
 * service with EEMT_REDIS_URL, and `eemt worker` processes on the same data folders. A large sol job is split into
 * tile-slice parts run by two workers and assembled; its products equal a single-host run. Redis down at submission, Redis
 * restarted under a running job, cancel reaching the worker and a service restart are each checked here.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Queue } from 'bullmq';
import { PARTS_QUEUE } from '../../../src/jobs/queue/distributed.js';
import { startRedis, type TestRedis } from '../../helpers/redisServer.js';
import { waitFor } from '../../helpers/wait.js';
import { alive } from '../../server/serviceProcess.js';
import { getJson, startTestService, submit, type TestService } from '../../server/helpers.js';
import { assertSameProducts, makeSplitDem, singleHostRun, SPLIT_PARAMS, killWorkers, startWorker, workerEnv, type WorkerProcess } from './helpers.js';
import { jobEntries } from '../../helpers/dataFolders.js';

describe('distributed queue (Redis, two workers)', () => {
  const root = mkdtempSync(join(tmpdir(), 'eemt-dist-'));
  const data = join(root, 'service');
  const reference = join(root, 'reference');
  /** Products of the jobs that check recovery: their outputs in `chosenReference` (the year is computed all the same). */
  const CHOSEN = 'monthly,daily:172';
  const chosenReference = join(root, 'reference-products');
  let redis: TestRedis;
  let service: TestService;
  let dem: Buffer;
  const workers: WorkerProcess[] = [];

  const serviceEnv = () => ({ EEMT_REDIS_URL: redis.url, EEMT_RUNTIME: 'process', EEMT_SPLIT_MIN_CELLS: '10000', EEMT_SPLIT_PARTS: '4' });
  const startService = async () => {
    service = await startTestService({ root: data, env: serviceEnv() });
  };
  const submitSol = (products?: string) =>
    submit(service.base, { workflow_type: 'sol', ...SPLIT_PARAMS, ...(products !== undefined ? { products } : {}) }, { name: 'dem.tif', bytes: dem });

  /** Polls the job until it ends; every progress value seen, in order. */
  async function follow(id: string, timeoutMs = 120_000): Promise<{ job: any; progress: number[] }> {
    const progress: number[] = [];
    const job = await waitFor(`job ${id} to end`, async () => {
      const { body } = await getJson(`${service.base}/api/jobs/${id}`);
      progress.push(body.progress);
      return ['completed', 'failed'].includes(body.status) ? body : null;
    }, timeoutMs, 100);
    return { job, progress };
  }

  before(async () => {
    mkdirSync(data);
    const demPath = makeSplitDem(root);
    dem = readFileSync(demPath);
    redis = await startRedis();
    await startService();
    for (let i = 0; i < 2; i++) workers.push(startWorker(workerEnv(data, redis.url)));
    await singleHostRun(demPath, reference);
    await singleHostRun(demPath, chosenReference, CHOSEN);
  });
  after(async () => {
    await killWorkers(workers);
    await service?.stop();
    await redis?.close();
    rmSync(root, { recursive: true, force: true });
  });

  test('a split sol job runs on both workers: products equal to a single-host run, progress monotonic, workers listed', async () => {
    const status = await waitFor('both workers in the system status', async () => {
      const { body } = await getJson(`${service.base}/api/system/status`);
      return body.workers?.length === 2 ? body : null;
    });
    assert.equal(status.container_available, true);
    for (const worker of status.workers) {
      assert.ok(worker.id && worker.host && worker.cpus >= 1 && worker.running === 0 && !Number.isNaN(Date.parse(worker.last_seen)));
    }

    const submitted = await submitSol();
    assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
    const id = submitted.body.job_id;
    const { job, progress } = await follow(id);
    assert.equal(job.status, 'completed', job.error_message);
    assert.equal(job.progress, 100);
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i]! >= progress[i - 1]!, `progress went back: ${progress.join(',')}`);
    assert.ok(progress.every((p) => Number.isInteger(p) && p >= 0 && p <= 100));
    assert.ok(new Set(progress.filter((p) => p > 10 && p < 90)).size >= 2, `combined progress moved within 10–90: ${[...new Set(progress)].join(',')}`);

    assert.equal(await assertSameProducts(join(data, 'results', id, 'output'), reference), 742);
    const log = readFileSync(join(data, 'results', id, 'job.log'), 'utf8');
    const hosts = new Set([...log.matchAll(/\[part tiles-\d+-of-\d+ on ([^\]]+)\] started/g)].map((m) => m[1]));
    assert.equal(hosts.size, 2, `parts ran on both workers:\n${log}`);
    assert.ok(!existsSync(join(data, 'temp', id)), 'scratch space removed');
  });

  test('a split sol job with products: every slice computes only the files chosen, assembled as on one host', async () => {
    const submitted = await submitSol(CHOSEN);
    assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
    const id = submitted.body.job_id;
    const { job } = await follow(id);
    assert.equal(job.status, 'completed', job.error_message);
    assert.equal(job.parameters.products, CHOSEN);
    const log = readFileSync(join(data, 'results', id, 'job.log'), 'utf8');
    assert.ok(/\[part tiles-\d+-of-\d+ on [^\]]+\] started/.test(log), `split into tile slices:\n${log}`);
    assert.equal(await assertSameProducts(join(data, 'results', id, 'output'), chosenReference), 13);
    assert.ok(!existsSync(join(data, 'results', id, 'output', '.solar-slices')), 'the slices are removed');
  });

  test('Redis down at submission: 503 "Job queue unavailable", nothing stored, reads served; recovers when Redis returns', async () => {
    const before = (await getJson(`${service.base}/api/jobs`)).body.length;
    await redis.stop();
    const refused = await submitSol();
    assert.equal(refused.status, 503);
    assert.match(refused.body.detail, /^Job queue unavailable: /);
    const jobs = await getJson(`${service.base}/api/jobs`);
    assert.equal(jobs.status, 200);
    assert.equal(jobs.body.length, before, 'no job stored');
    assert.equal(jobEntries(join(data, 'uploads')).length, before, 'no upload kept');
    // The same through OGC API – Processes: an exception document with the 503, nothing stored either.
    const ogc = await fetch(`${service.base}/ogc/processes/sol/execution`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Prefer: 'respond-async' },
      body: JSON.stringify({ inputs: { dem: { value: dem.toString('base64'), mediaType: 'image/tiff; application=geotiff' }, step: 30, linke_value: 3, albedo_value: 0.2, num_threads: 1 } }),
    });
    const exception = (await ogc.json()) as { status: number; detail: string };
    assert.equal(ogc.status, 503);
    assert.equal(exception.status, 503);
    assert.match(exception.detail, /^Job queue unavailable: /);
    assert.equal((await getJson(`${service.base}/api/jobs`)).body.length, before, 'no job stored by the OGC execution');
    assert.equal(jobEntries(join(data, 'uploads')).length, before, 'no upload kept by the OGC execution');
    const status = await getJson(`${service.base}/api/system/status`);
    assert.equal(status.status, 200);
    assert.equal(status.body.container_available, false);

    await redis.start();
    const accepted = await waitFor('a submission to be accepted again', async () => {
      const attempt = await submitSol();
      return attempt.status === 200 ? attempt : null;
    }, 30_000, 500);
    // Queued for real: a worker takes it (then it is cancelled, the run itself is the first test's).
    await waitFor('the accepted job to run', async () => (await getJson(`${service.base}/api/jobs/${accepted.body.job_id}`)).body.status === 'running', 30_000, 100);
    assert.equal((await getJson(`${service.base}/api/jobs/${accepted.body.job_id}/cancel`, { method: 'POST' })).status, 200);
  });

  test('Redis restarted (AOF) under a running job: the job completes with every product asked for', async () => {
    const submitted = await submitSol(CHOSEN);
    assert.equal(submitted.status, 200);
    const id = submitted.body.job_id;
    await waitFor('a part running', () => workers.some((w) => w.jobChildren().length > 0), 60_000);
    await redis.stop({ kill: true });
    await redis.start();
    const { job } = await follow(id, 180_000);
    assert.equal(job.status, 'completed', job.error_message);
    assert.equal(await assertSameProducts(join(data, 'results', id, 'output'), chosenReference), 13);
  });

  test('cancel reaches the worker: its job child ends within 5 s and the parts leave the queue', async () => {
    const submitted = await submitSol();
    const id = submitted.body.job_id;
    const children = await waitFor('a part running', () => {
      const pids = workers.flatMap((w) => w.jobChildren());
      return pids.length > 0 ? pids : null;
    }, 60_000);
    const cancelled = Date.now();
    const res = await getJson(`${service.base}/api/jobs/${id}/cancel`, { method: 'POST' });
    assert.equal(res.status, 200);
    await waitFor('the job children to end', () => children.every((pid) => !alive(pid)), 5_000);
    assert.ok(Date.now() - cancelled <= 5_000);
    const job = (await getJson(`${service.base}/api/jobs/${id}`)).body;
    assert.equal(job.status, 'failed');
    assert.equal(job.error_message, 'Cancelled by user');
    const parts = new Queue(PARTS_QUEUE, { connection: { url: redis.url } });
    try {
      await waitFor('the parts to leave the queue', async () => {
        const left = await parts.getJobs(['wait', 'active', 'delayed', 'prioritized', 'waiting-children', 'failed', 'completed']);
        return left.every((j) => j.data.jobId !== id);
      }, 15_000, 200);
    } finally {
      await parts.close();
    }
  });

  test('a service restart loses no job and runs no part twice', async () => {
    const submitted = await submitSol(CHOSEN);
    const id = submitted.body.job_id;
    await waitFor('a part running', () => workers.some((w) => w.jobChildren().length > 0), 60_000);
    await service.close();
    await startService();
    const { job } = await follow(id, 180_000);
    assert.equal(job.status, 'completed', job.error_message);
    const log = readFileSync(join(data, 'results', id, 'job.log'), 'utf8');
    const starts = [...log.matchAll(/\[part (tiles-\d+-of-\d+|assemble-products(?:-\d+-of-\d+)?) on [^\]]+\] started/g)].map((m) => m[1]);
    assert.deepEqual([...starts].sort(), ['assemble-products', 'assemble-products-2-of-4', 'assemble-products-3-of-4', 'assemble-products-4-of-4', 'tiles-1-of-4', 'tiles-2-of-4', 'tiles-3-of-4', 'tiles-4-of-4'], `each part started once:\n${log}`);
    assert.equal(await assertSameProducts(join(data, 'results', id, 'output'), chosenReference), 13);
  });
});
