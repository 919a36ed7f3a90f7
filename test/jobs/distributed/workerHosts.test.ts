// Needs: gdal, redis, netns
/**
 * Workers on their own hosts (root: each in a network namespace made here, joined to this machine by a veth pair
 * on a private /30, reaching Redis over it and nothing else; the data folders shared through the file system).
 * One worker is killed with SIGKILL while it holds a part: the other takes the part over once its lock expires,
 * never while the killed worker's child still runs, and the job completes with the single-host values.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createTestNetwork, type TestNetwork } from '../../helpers/netns.js';
import { startRedis, type TestRedis } from '../../helpers/redisServer.js';
import { waitFor } from '../../helpers/wait.js';
import { alive } from '../../server/serviceProcess.js';
import { getJson, startTestService, submit, type TestService } from '../../server/helpers.js';
import { assertSameProducts, makeSplitDem, singleHostRun, SPLIT_PARAMS, killWorkers, startWorker, workerEnv, type WorkerProcess } from './helpers.js';

describe('workers on two hosts (network namespaces)', () => {
  const root = mkdtempSync(join(tmpdir(), 'eemt-hosts-'));
  const data = join(root, 'service');
  const reference = join(root, 'reference');
  const networks: TestNetwork[] = [];
  const workers: WorkerProcess[] = [];
  let redis: TestRedis;
  let service: TestService;
  let demPath: string;

  before(async () => {
    mkdirSync(data);
    demPath = makeSplitDem(root);
    for (let i = 0; i < 2; i++) networks.push(createTestNetwork());
    redis = await startRedis({ bind: ['127.0.0.1', ...networks.map((n) => n.hostAddress)] });
    service = await startTestService({
      root: data,
      env: { EEMT_REDIS_URL: redis.url, EEMT_RUNTIME: 'process', EEMT_SPLIT_MIN_CELLS: '10000', EEMT_SPLIT_PARTS: '4' },
    });
    for (const network of networks) workers.push(startWorker(workerEnv(data, redis.urlFor(network.hostAddress)), network.namespace));
    await singleHostRun(demPath, reference);
  });
  after(async () => {
    await killWorkers(workers);
    await service?.stop();
    await redis?.close();
    for (const network of networks) network.close();
    rmSync(root, { recursive: true, force: true });
  });

  test('a worker killed with SIGKILL while it holds a part: the other takes it over and the job completes', async () => {
    const status = await waitFor('both workers in the system status', async () => {
      const { body } = await getJson(`${service.base}/api/system/status`);
      return body.workers?.length === 2 ? body : null;
    }, 60_000, 200);
    assert.equal(status.container_available, true);
    assert.equal(new Set(status.workers.map((w: { id: string }) => w.id)).size, 2);

    const submitted = await submit(service.base, { workflow_type: 'sol', ...SPLIT_PARAMS }, { name: 'dem.tif', bytes: readFileSync(demPath) });
    assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
    const id = submitted.body.job_id;
    const logPath = join(data, 'results', id, 'job.log');

    const victim = await waitFor('a worker holding a part', () => workers.find((w) => w.jobChildren().length > 0), 60_000, 20);
    const survivor = workers.find((w) => w !== victim)!;
    const orphans = victim.jobChildren();
    const heldPart = await waitFor('the held part in the job log', () => {
      if (!existsSync(logPath)) return null;
      const starts = [...readFileSync(logPath, 'utf8').matchAll(/\[part (tiles-\d+-of-\d+|assemble-products(?:-\d+-of-\d+)?) on ([^\]]+)\] started/g)];
      return starts.find((m) => m[2]!.endsWith(`-${victim.pid}`))?.[1];
    });
    process.kill(victim.pid, 'SIGKILL');
    await victim.exit;

    // Until the part is taken over, the killed worker's child must be gone (no part runs twice at once).
    const takeover = new RegExp(`\\[part ${heldPart} on [^\\]]+-${survivor.pid}\\] started`);
    let orphansGoneFirst = false;
    const progress: number[] = [];
    const job = await waitFor('the job to end', async () => {
      if (!orphansGoneFirst && !takeover.test(readFileSync(logPath, 'utf8'))) orphansGoneFirst = orphans.every((pid) => !alive(pid));
      const { body } = await getJson(`${service.base}/api/jobs/${id}`);
      progress.push(body.progress);
      return ['completed', 'failed'].includes(body.status) ? body : null;
    }, 180_000, 50);
    assert.equal(job.status, 'completed', job.error_message);
    assert.ok(orphansGoneFirst, 'the killed worker\'s job child ended before its part was taken over');
    assert.match(readFileSync(logPath, 'utf8'), takeover, 'the surviving worker ran the part');
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i]! >= progress[i - 1]!, `progress went back: ${progress.join(',')}`);
    assert.equal(await assertSameProducts(join(data, 'results', id, 'output'), reference), 742);

    // The killed worker's heartbeat expires: only the survivor is listed.
    await waitFor('the killed worker to leave the status', async () => {
      const { body } = await getJson(`${service.base}/api/system/status`);
      return body.workers.length === 1 && body.workers[0].id.endsWith(`-${survivor.pid}`);
    }, 30_000, 500);
  });
});
