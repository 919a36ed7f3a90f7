/**
 * Two services on one database once corrupted each other: the second marked the first one's running jobs failed,
 * took a pending job and then died with EADDRINUSE. These tests run real service processes on shared folders: a
 * second service must exit 2 with a message naming the first and change nothing; after a `kill -9` of the first,
 * the next service takes over; a service whose port is taken exits before it touches any job.
 *
 * Jobs that stay running without using the CPU: eemt jobs whose climate download waits on a local Daymet stand-in
 * that never answers.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { JobStore } from '../../src/jobs/store/store.js';
import { waitFor } from '../helpers/wait.js';
import { startDaymetServer, type DaymetTestServer } from '../helpers/daymetServer.js';
import { fixture, getJson, submit, waitForStatus } from './helpers.js';
import { alive, jobProcesses, serviceEnv, startServiceProcess, type ServiceProcess } from './serviceProcess.js';

const DEM = { name: 'mcn_10m.tif', bytes: fixture('mcn_10m.tif') };
const EEMT = { workflow_type: 'eemt', step: '60', num_threads: '1', start_year: '2020', end_year: '2020' };

let daymet: DaymetTestServer;
const roots: string[] = [];
const started: ServiceProcess[] = [];
const jobChildren = new Set<number>();

function root(): string {
  const dir = mkdtempSync(join(tmpdir(), 'eemt-lock-'));
  roots.push(dir);
  return dir;
}

function start(env: Record<string, string>): ServiceProcess {
  const service = startServiceProcess(env);
  started.push(service);
  return service;
}

/**
 * What a second service could change about the jobs: everything but the progress, which the first service's
 * running job moves on by itself (its download reports while it waits).
 */
async function jobsSnapshot(base: string): Promise<string> {
  const list = (await getJson(`${base}/api/jobs`)).body as { id: string }[];
  const details = await Promise.all(list.map(async (j) => (await getJson(`${base}/api/jobs/${j.id}`)).body));
  return JSON.stringify(details.map(({ progress: _p, progress_message: _m, ...rest }) => rest));
}

before(async () => {
  daymet = await startDaymetServer();
  daymet.behaviour.hang = true;
});

after(async () => {
  for (const service of started) if (!service.exited()) process.kill(-service.pid, 'SIGKILL');
  for (const pid of jobChildren) if (alive(-pid)) process.kill(-pid, 'SIGKILL');
  await daymet.close();
  for (const dir of roots) rmSync(dir, { recursive: true, force: true });
});

test('a second service on the same database and folders exits 2, names the first, and changes nothing', { timeout: 120_000 }, async () => {
  const dir = root();
  const env = serviceEnv(dir, { EEMT_DAYMET_URL: daymet.url, EEMT_MAX_CONCURRENT_JOBS: '1' });
  const first = start(env);
  const base = await first.address();
  const running = (await submit(base, EEMT, DEM)).body.job_id as string;
  await waitFor('the first job waiting for its climate download', async () => {
    const job = (await getJson(`${base}/api/jobs/${running}`)).body;
    return job.status === 'running' && /limate/.test(job.progress_message ?? '');
  });
  const pending = (await submit(base, EEMT, DEM)).body.job_id as string;
  for (const pid of jobProcesses(first.pid)) jobChildren.add(pid);
  assert.equal(jobChildren.size, 1, 'one job process runs');
  const before = await jobsSnapshot(base);
  const folders = () => ['uploads', 'results', 'temp'].map((d) => readdirSync(join(dir, d)).sort().join(','));
  const foldersBefore = folders();

  const port = new URL(base).port;
  const other = root();
  const attempts: [string, Record<string, string>][] = [
    ['same folders, same port', { ...env, EEMT_PORT: port }],
    ['same folders, another port', env],
    ['same database, other folders', { ...serviceEnv(other), EEMT_DB_PATH: env.EEMT_DB_PATH! }],
    ['other database, same results folder', { ...serviceEnv(other), EEMT_RESULTS_DIR: env.EEMT_RESULTS_DIR! }],
  ];
  for (const [what, attemptEnv] of attempts) {
    const second = start(attemptEnv);
    const exit = await second.exit;
    assert.equal(exit.code, 2, `${what}: ${second.output()}`);
    const message = second.output().trim();
    assert.equal(message.split('\n').length, 1, `${what}: one line: ${message}`);
    assert.match(message, new RegExp(`^eemt-service: .+ is in use by another eemt-service \\(pid ${first.pid} on .+, listening on ${base.replace(/\./g, '\\.')}, started .+\\)\\. .*Nothing was changed\\.$`), what);
  }

  assert.equal(await jobsSnapshot(base), before, 'no job record changed');
  assert.deepEqual(folders(), foldersBefore, 'no job folder changed');
  assert.equal((await getJson(`${base}/api/jobs/${running}`)).body.status, 'running');
  assert.equal((await getJson(`${base}/api/jobs/${pending}`)).body.status, 'pending');
  assert.ok([...jobChildren].every(alive), 'the job process still runs');
  assert.equal((await getJson(`${base}/health`)).status, 200);

  for (const id of [pending, running]) assert.equal((await getJson(`${base}/api/jobs/${id}/cancel`, { method: 'POST' })).status, 200);
  process.kill(first.pid, 'SIGTERM');
  assert.equal((await first.exit).code, 0, first.output());
});

test('after a kill -9 of the first service, the next one takes over its database at once', { timeout: 120_000 }, async () => {
  const dir = root();
  const env = serviceEnv(dir, { EEMT_DAYMET_URL: daymet.url, EEMT_MAX_CONCURRENT_JOBS: '1' });
  const first = start(env);
  let base = await first.address();
  const running = (await submit(base, EEMT, DEM)).body.job_id as string;
  await waitForStatus(base, running, ['running']);
  const pending = (await submit(base, EEMT, DEM)).body.job_id as string;
  await waitFor('the job process', () => jobProcesses(first.pid).length > 0);
  for (const pid of jobProcesses(first.pid)) jobChildren.add(pid);
  process.kill(first.pid, 'SIGKILL');
  await first.exit;

  const second = start(env);
  base = await second.address();
  const interrupted = (await getJson(`${base}/api/jobs/${running}`)).body;
  assert.equal(interrupted.status, 'failed');
  assert.match(interrupted.error_message, /service stopped while the job was running/);
  await waitForStatus(base, pending, ['running']);
  assert.equal((await getJson(`${base}/api/jobs/${pending}/cancel`, { method: 'POST' })).status, 200);
  process.kill(second.pid, 'SIGTERM');
  assert.equal((await second.exit).code, 0, second.output());
});

test('a service whose port is taken exits 2 before it touches any job', { timeout: 60_000 }, async () => {
  const dir = root();
  const env = serviceEnv(dir);
  // Records left by a service that died: one running, one pending.
  const store = new JobStore(env.EEMT_DB_PATH!);
  const params = { step: 15, linke_value: 3, albedo_value: 0.2, num_threads: 1 };
  store.create({ id: '11111111-1111-4111-8111-111111111111', workflow_type: 'sol', parameters: params, dem_filename: 'a.tif' });
  store.create({ id: '22222222-2222-4222-8222-222222222222', workflow_type: 'sol', parameters: params, dem_filename: 'b.tif' });
  store.markRunning('11111111-1111-4111-8111-111111111111', 'process', 40, 'day 100/365');
  const before = JSON.stringify(store.list());
  store.close();

  const occupant: Server = createServer();
  await new Promise<void>((resolve) => occupant.listen(0, '127.0.0.1', resolve));
  const port = (occupant.address() as { port: number }).port;
  try {
    const service = start({ ...env, EEMT_PORT: String(port) });
    const exit = await service.exit;
    assert.equal(exit.code, 2, service.output());
    assert.match(service.output().trim(), new RegExp(`^eemt-service: cannot listen on 127\\.0\\.0\\.1:${port}: the address is already in use .*No job was touched\\.$`));
  } finally {
    occupant.close();
  }
  const after = new JobStore(env.EEMT_DB_PATH!);
  assert.equal(JSON.stringify(after.list()), before, 'the running record is still running, the pending one pending');
  after.close();
});

test('the locks live inside the data folders and beside the database, never in the folders above them', { timeout: 60_000 }, async () => {
  const dir = root();
  const data = join(dir, 'shared');
  const env = serviceEnv(dir, {
    EEMT_UPLOAD_DIR: join(data, 'uploads'),
    EEMT_RESULTS_DIR: join(data, 'results'),
    EEMT_TEMP_DIR: join(data, 'temp'),
    EEMT_DB_PATH: join(dir, 'db', 'jobs.db'),
  });
  const service = start(env);
  await service.address();
  assert.deepEqual(readdirSync(data).sort(), ['results', 'temp', 'uploads'], 'nothing beside the data folders');
  for (const folder of ['results', 'temp', 'uploads']) {
    assert.deepEqual(readdirSync(join(data, folder)).sort(), ['.eemt-service.lock', '.eemt-service.lock.json']);
  }
  assert.deepEqual(readdirSync(join(dir, 'db')).filter((name) => name.includes('.lock')).sort(), ['jobs.db.lock', 'jobs.db.lock.json']);

  // the locks inside the folders still keep a second service away
  const second = start({ ...env, EEMT_DB_PATH: join(dir, 'other.db') });
  assert.equal((await second.exit).code, 2, second.output());
  assert.match(second.output(), /shared\/(uploads|results|temp) is in use by another eemt-service/);
  process.kill(service.pid, 'SIGTERM');
  assert.equal((await service.exit).code, 0, service.output());
});
