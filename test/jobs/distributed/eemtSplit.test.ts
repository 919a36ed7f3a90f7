// Needs: gdal, redis
/**
 * A large eemt job on the distributed queue: its solar phase is split into tile-slice parts on two workers, then
 * one worker runs the rest of the job (Daymet climate from a local stand-in, terrain, EEMT maps, README) with the
 * solar year the parts wrote. Every GeoTIFF equals a single-host run of the same job; progress is combined and
 * monotonic.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runEemtWorkflow } from '../../../src/workflows/eemt/index.js';
import { startDaymetServer, type DaymetTestServer } from '../../helpers/daymetServer.js';
import { startRedis, type TestRedis } from '../../helpers/redisServer.js';
import { waitFor } from '../../helpers/wait.js';
import { getJson, startTestService, submit, type TestService } from '../../server/helpers.js';
import { assertSameProducts, killWorkers, makeSplitDem, startWorker, workerEnv, type WorkerProcess } from './helpers.js';

describe('distributed queue: a split eemt job', () => {
  const root = mkdtempSync(join(tmpdir(), 'eemt-dist-eemt-'));
  const data = join(root, 'service');
  const reference = join(root, 'reference');
  let redis: TestRedis;
  let daymet: DaymetTestServer;
  let service: TestService;
  let demPath: string;
  const workers: WorkerProcess[] = [];

  before(async () => {
    mkdirSync(data);
    demPath = makeSplitDem(root);
    daymet = await startDaymetServer();
    redis = await startRedis();
    const env = { EEMT_DAYMET_URL: daymet.url };
    service = await startTestService({
      root: data,
      env: { ...env, EEMT_REDIS_URL: redis.url, EEMT_RUNTIME: 'process', EEMT_SPLIT_MIN_CELLS: '10000', EEMT_SPLIT_PARTS: '2' },
    });
    for (let i = 0; i < 2; i++) workers.push(startWorker(workerEnv(data, redis.url, env)));
    await runEemtWorkflow({
      demPath,
      outDir: reference,
      cacheDir: join(root, 'reference-cache'),
      daymetBaseUrl: daymet.url,
      params: { step: 60, linke_value: 3, albedo_value: 0.2, num_threads: 1, start_year: 2020, end_year: 2020 },
    });
  });
  after(async () => {
    await killWorkers(workers);
    await service?.stop();
    await redis?.close();
    await daymet?.close();
    rmSync(root, { recursive: true, force: true });
  });

  test('solar parts on both workers, then the rest on one: every GeoTIFF equals a single-host run', async () => {
    await waitFor('both workers in the system status', async () => (await getJson(`${service.base}/api/system/status`)).body.workers?.length === 2);
    const fields = { workflow_type: 'eemt', step: '60', linke_value: '3', albedo_value: '0.2', num_threads: '1', start_year: '2020', end_year: '2020' };
    const submitted = await submit(service.base, fields, { name: 'dem.tif', bytes: readFileSync(demPath) });
    assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
    const id = submitted.body.job_id;

    const progress: number[] = [];
    const job = await waitFor(`job ${id} to end`, async () => {
      const { body } = await getJson(`${service.base}/api/jobs/${id}`);
      progress.push(body.progress);
      return ['completed', 'failed'].includes(body.status) ? body : null;
    }, 180_000, 100);
    const log = readFileSync(join(data, 'results', id, 'job.log'), 'utf8');
    assert.equal(job.status, 'completed', `${job.error_message}\n${log}`);
    assert.equal(job.progress, 100);
    assert.ok(progress.every((p) => Number.isInteger(p) && p >= 0 && p <= 100));
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i]! >= progress[i - 1]!, `progress went back: ${progress.join(',')}`);
    assert.ok(new Set(progress.filter((p) => p > 10 && p < 90)).size >= 2, `combined progress moved within 10–90: ${[...new Set(progress)].join(',')}`);

    // The solar parts ran on both workers and had all ended before the rest of the job started, once.
    const solarHosts = new Set([...log.matchAll(/\[part tiles-\d+-of-\d+ on ([^\]]+)\] started/g)].map((m) => m[1]));
    assert.equal(solarHosts.size, 2, `solar parts ran on both workers:\n${log}`);
    const afterStarts = [...log.matchAll(/\[part after-solar on [^\]]+\] started/g)];
    assert.equal(afterStarts.length, 1, log);
    const lastSolarExit = Math.max(...[...log.matchAll(/\[part tiles-\d+-of-\d+ on [^\]]+\] job process exited/g)].map((m) => m.index));
    assert.ok(lastSolarExit < afterStarts[0]!.index, `the rest started after the solar parts:\n${log}`);

    const output = join(data, 'results', id, 'output');
    const count = await assertSameProducts(output, reference);
    assert.ok(count > 742 + 12, `solar, climate, terrain and EEMT maps compared (${count} GeoTIFFs)`);
    assert.match(readFileSync(join(output, 'README.txt'), 'utf8'), /EEMT/);
    assert.ok(daymet.requests.some((r) => r.status === 200), 'climate from the local Daymet server');
  });
});
