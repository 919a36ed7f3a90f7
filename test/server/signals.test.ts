/**
 * Killing `npm start` by its pid once left `node dist/server/main.js` running. The start command must hand signals
 * to the service, and the service must stop cleanly on SIGTERM and SIGINT: its job processes stopped (the jobs fail
 * as interrupted), idle connections closed, exit code 0, nothing left running.
 *
 * `npm start` rebuilds what is older than its sources, so it runs in a copy of the project (sources, package files,
 * this checkout's build, a link to node_modules) to leave this checkout's build alone. The copy keeps every file's
 * time, so a current build stays current there and `npm start` starts at once (test/project/buildState.test.ts checks
 * the rebuilding).
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { JobStore } from '../../src/jobs/store/store.js';
import { waitFor } from '../helpers/wait.js';
import { startDaymetServer, type DaymetTestServer } from '../helpers/daymetServer.js';
import { fixture, submit, waitForStatus } from './helpers.js';
import { alive, jobProcesses, REPO_ROOT, serviceEnv, startServiceProcess, type ServiceProcess } from './serviceProcess.js';

const DEM = { name: 'mcn_10m.tif', bytes: fixture('mcn_10m.tif') };
const EEMT = { workflow_type: 'eemt', step: '60', num_threads: '1', start_year: '2020', end_year: '2020' };

let daymet: DaymetTestServer;
let project: string;
const roots: string[] = [];
const started: ServiceProcess[] = [];
const jobs = new Set<number>();

before(async () => {
  daymet = await startDaymetServer();
  daymet.behaviour.hang = true;
  project = mkdtempSync(join(tmpdir(), 'eemt-project-'));
  for (const entry of ['src', 'assembly', 'web', 'scripts', 'public', 'bin', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'dist', 'build']) {
    if (existsSync(join(REPO_ROOT, entry))) cpSync(join(REPO_ROOT, entry), join(project, entry), { recursive: true, preserveTimestamps: true });
  }
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(project, 'node_modules'));
});

after(async () => {
  for (const service of started) if (alive(-service.pid)) process.kill(-service.pid, 'SIGKILL');
  for (const pid of jobs) if (alive(-pid)) process.kill(-pid, 'SIGKILL');
  await daymet.close();
  for (const dir of [project, ...roots]) rmSync(dir, { recursive: true, force: true });
});

/** The service's own pid, from its log (under npm it is a child of npm). */
function servicePid(service: ServiceProcess): number {
  return Number(/"pid":(\d+)/.exec(service.output())![1]);
}

/** Runs a service with one eemt job running and one idle keep-alive connection, then sends `signal` to `target`. */
async function stopWith(signal: NodeJS.Signals, command?: { file: string; args: string[]; cwd: string }) {
  const root = mkdtempSync(join(tmpdir(), 'eemt-signal-'));
  roots.push(root);
  const env = serviceEnv(root, { EEMT_DAYMET_URL: daymet.url });
  const service = startServiceProcess(env, command);
  started.push(service);
  const base = await service.address(120_000);
  const id = (await submit(base, EEMT, DEM)).body.job_id as string;
  await waitForStatus(base, id, ['running']);
  const pid = servicePid(service);
  const jobPids = await waitFor('the job process', () => {
    const found = jobProcesses(pid);
    return found.length > 0 ? found : null;
  });
  for (const job of jobPids) jobs.add(job);

  const idle = connect(Number(new URL(base).port), '127.0.0.1');
  idle.on('error', () => undefined);
  idle.write('GET /health HTTP/1.1\r\nHost: test\r\nConnection: keep-alive\r\n\r\n');
  let idleClosed = false;
  idle.on('close', () => (idleClosed = true));
  await new Promise((resolve) => idle.once('data', resolve));

  process.kill(service.pid, signal);
  const exit = await Promise.race([service.exit, new Promise<null>((r) => setTimeout(() => r(null), 30_000).unref())]);
  assert.ok(exit, `the start command did not exit after ${signal}:\n${service.output()}`);
  assert.equal(exit.code, 0, service.output());
  await waitFor('the service process gone', () => !alive(pid), 5000);
  await waitFor('the job process gone', () => jobPids.every((job) => !alive(job)), 15_000);
  assert.ok(!alive(-service.pid), 'nothing of the start command is left running');
  await waitFor('the idle connection closed', () => idleClosed, 5000);
  assert.match(service.output(), new RegExp(`"msg":"${signal}: stopping"`));
  assert.match(service.output(), /"msg":"stopped"/);

  const store = new JobStore(env.EEMT_DB_PATH!);
  const job = store.get(id)!;
  store.close();
  assert.equal(job.status, 'failed');
  assert.match(job.error_message!, /service stopped while the job was running/);
}

test('npm start hands SIGTERM to the service, which stops its jobs and exits 0; nothing is left running', { timeout: 180_000 }, async () => {
  await stopWith('SIGTERM', { file: 'npm', args: ['start', '--silent'], cwd: project });
});

test('SIGINT stops the service the same way', { timeout: 120_000 }, async () => {
  await stopWith('SIGINT');
});
