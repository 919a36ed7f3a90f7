/**
 * The Docker runtime against a real engine: Podman's Docker-compatible API on a unix socket, with the job image
 * built offline by scripts/build-job-image.mjs (test/runtime/podman.ts). First the runtime on its own (what a
 * job container can and cannot do, from inside), then the whole service with EEMT_RUNTIME=docker and
 * DOCKER_HOST pointing at the engine: a sol job to its results, the limits as the engine reports them, cancel,
 * and a job over its memory limit.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { JobStore } from '../../src/jobs/store/store.js';
import { DockerRuntime, JOB_LABEL, jobUser } from '../../src/runtime/docker.js';
import type { RuntimeLimits } from '../../src/runtime/types.js';
import { climateFiles, europeDem, zipOf } from '../helpers/climateGrids.js';
import { startDaymetServer } from '../helpers/daymetServer.js';
import { getJson, startTestService, submit, waitForStatus, type TestService } from '../server/helpers.js';
import { zipEntries } from '../server/zip.js';
import { collect, FIXTURE_DEM, makeLaunch, makeLayout, type Layout } from './helpers.js';
import { PODMAN_MISSING, startPodman, type PodmanEngine } from './podman.js';

const MiB = 1024 ** 2;
const PROBE = new URL('./fixtures/containerProbe.mjs', import.meta.url);

/** A 40 × 40 window of mcn_10m (a sol job on it takes about a second). */
function tinyDem(folder: string): string {
  const path = join(folder, 'tiny.tif');
  execFileSync('gdal_translate', ['-q', '-srcwin', '60', '60', '40', '40', FIXTURE_DEM.pathname, path]);
  return path;
}

async function until<T>(what: string, seconds: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${seconds} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('docker runtime on a real Podman engine', { skip: PODMAN_MISSING }, () => {
  let engine: PodmanEngine;
  let layout: Layout;
  let hostServer: Server;
  let hostPort = 0;
  let hostConnections = 0;

  before(async () => {
    engine = await startPodman();
    console.log(`podman started in ${engine.startSeconds.engine.toFixed(1)} s, job image built in ${engine.startSeconds.image.toFixed(1)} s`);
    layout = makeLayout();
    hostServer = createServer((socket) => {
      hostConnections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => hostServer.listen(0, '127.0.0.1', resolve));
    hostPort = (hostServer.address() as { port: number }).port;
  });
  after(async () => {
    hostServer?.close();
    await engine?.stop();
    layout?.cleanup();
  });

  const runtime = (limits: RuntimeLimits, childPath?: string) =>
    new DockerRuntime({ limits, image: engine.image, socketPath: engine.socketPath, ...(childPath ? { childPath } : {}) });

  /** A launch whose DEM folder (/input in the container) also holds the probe child and its orders. */
  function probeLaunch(jobId: string, orders: object) {
    const launch = makeLaunch(layout, jobId);
    const inputDir = join(layout.uploads, jobId);
    copyFileSync(PROBE, join(inputDir, 'probe.mjs'));
    writeFileSync(join(inputDir, 'probe.json'), JSON.stringify(orders));
    return launch;
  }

  test('is available with the built image; a missing image and an absent engine are named', async () => {
    assert.equal(await runtime({ cpus: 1, memoryBytes: 512 * MiB }).check(), null);
    const missing = new DockerRuntime({ limits: { cpus: 1, memoryBytes: 512 * MiB }, image: 'eemt:absent', socketPath: engine.socketPath });
    assert.match((await missing.check()) ?? '', /Docker image eemt:absent not found \(build it with: node scripts\/build-job-image\.mjs --tag eemt:absent\)/);
    const absent = new DockerRuntime({ limits: { cpus: 1, memoryBytes: 512 * MiB }, image: engine.image, socketPath: join(layout.root, 'none.sock') });
    assert.match((await absent.check()) ?? '', /^Docker engine not reachable: /);
    assert.equal((await absent.status()).available, false);
  });

  test('a sol container has no network, a read-only system, no capabilities and only its own folders writable', async () => {
    const launch = probeLaunch('probe-sol', { mode: 'probe', hostPort });
    const handlers = collect();
    const job = await runtime({ cpus: 1, memoryBytes: 256 * MiB }, '/input/probe.mjs').start(launch, handlers);
    const exit = await job.done;
    assert.deepEqual(exit, { code: 0, signal: null, outOfMemory: false }, handlers.logs.join('\n'));
    assert.deepEqual(handlers.messages.map((m) => m.type), ['started', 'done']);
    const result = JSON.parse(readFileSync(join(launch.jobDir, 'output', 'probe-result.json'), 'utf8'));

    const user = jobUser();
    assert.deepEqual([result.uid, result.gid], [user.uid, user.gid]);
    if (process.getuid?.() === 0) assert.equal(result.uid, 65534, 'a service running as root runs its jobs as nobody');
    assert.equal(result.capEff, '0000000000000000', 'no capabilities');

    assert.deepEqual(result.interfaces, ['lo'], 'only a loopback interface');
    assert.equal(result.ownLoopback, 'connected', "the probe's own connection works");
    assert.equal(result.hostLoopback, 'ECONNREFUSED', "the host's loopback server is out of reach");
    assert.equal(hostConnections, 0);

    assert.equal(result.writes['/job/output/written.txt'], 'written');
    assert.equal(result.writes['/scratch/written.txt'], 'written');
    // (Podman puts a tmpfs on /tmp of a read-only container, Docker does not; jobs use /scratch.)
    for (const path of ['/app/written.txt', '/input/written.txt', '/job/job.json', '/job/written.txt']) {
      assert.equal(result.writes[path], 'EROFS', path);
    }
    assert.equal(result.demBytes, statSync(launch.demPath).size, 'the DEM is readable');
    assert.equal(Number(result.memoryLimit), 256 * MiB, 'the kernel enforces the memory limit');
    for (const name of result.env) assert.ok(!name.startsWith('EEMT_') || name === 'EEMT_JOB_ID', `no service setting ${name}`);
    assert.deepEqual(result.eemtModules, ['loaded', 'loaded', 'loaded'], 'the image has every module the workflows import');

    const leftovers = await engine.docker.listContainers({ all: true, filters: { label: [`${JOB_LABEL}=probe-sol`] } });
    assert.deepEqual(leftovers, [], 'the container is removed after the job');
  });

  test("a job over V8's heap limit ends flagged as out of memory", async () => {
    const launch = probeLaunch('probe-heap', { mode: 'heap' });
    const handlers = collect();
    const job = await runtime({ cpus: 1, memoryBytes: 256 * MiB }, '/input/probe.mjs').start(launch, handlers);
    const exit = await job.done;
    assert.equal(exit.outOfMemory, true, handlers.logs.join('\n'));
    assert.notEqual(exit.code, 0);
    assert.ok(handlers.logs.some((l) => /JavaScript heap out of memory/.test(l)));
  });

  test('a container that cannot start is removed, and the start fails with the reason', async () => {
    // an image without node: the engine creates the container, then cannot start its command
    const folder = join(layout.root, 'broken-image');
    mkdirSync(join(folder, 'etc'), { recursive: true });
    writeFileSync(join(folder, 'etc', 'passwd'), 'root:x:0:0:root:/:/sbin/nologin\n');
    const tar = spawn('tar', ['-C', folder, '-cf', '-', '.'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const response = await engine.docker.importImage(tar.stdout, { repo: 'eemt-broken:test' } as object);
    for await (const _ of response as AsyncIterable<unknown>);
    const broken = new DockerRuntime({ limits: { cpus: 1, memoryBytes: 256 * MiB }, image: 'eemt-broken:test', socketPath: engine.socketPath });
    assert.equal(await broken.check(), null);
    await assert.rejects(broken.start(makeLaunch(layout, 'no-node'), collect()), /executable file not found|no such file/i);
    assert.deepEqual(await engine.docker.listContainers({ all: true, filters: { label: [`${JOB_LABEL}=no-node`] } }), []);
  });

  test('a job whose engine goes away ends with a clear reason, and its container is removed once the engine is back', async () => {
    const launch = makeLaunch(layout, 'engine-lost', { params: { step: 3, linke_value: 3, albedo_value: 0.2, num_threads: 1 } });
    const handlers = collect();
    const job = await runtime({ cpus: 1, memoryBytes: 512 * MiB }).start(launch, handlers);
    await until('the job child starts', 30, async () => (handlers.messages.length > 0 ? true : undefined));
    await engine.restart(); // the service process dies; the container keeps running, as after a crash
    const exit = await job.done;
    assert.match(exit.lost ?? '', /^Lost the job container: the connection to the container engine broke \(/);
    assert.deepEqual(await engine.docker.listContainers({ all: true, filters: { label: [`${JOB_LABEL}=engine-lost`] } }), []);
  });

  describe('through the service: EEMT_RUNTIME=docker, the engine at DOCKER_HOST', () => {
    let svc: TestService;
    let small: TestService;
    let dem: Buffer;
    const previousHost = process.env.DOCKER_HOST;

    before(async () => {
      process.env.DOCKER_HOST = engine.dockerHost;
      const limits = { EEMT_RUNTIME: 'docker', CONTAINER_IMAGE: engine.image, CONTAINER_CPU_LIMIT: '1.5' };
      svc = await startTestService({ env: { ...limits, CONTAINER_MEMORY_LIMIT: '768M' } });
      // The DEM limit sized from 64M would refuse the DEM at submission; this service must let it reach the job.
      small = await startTestService({ env: { ...limits, CONTAINER_MEMORY_LIMIT: '64M', EEMT_MAX_DEM_CELLS: '1000000' } });
      dem = readFileSync(tinyDem(layout.root));
    });
    after(async () => {
      await svc?.stop();
      await small?.stop();
      if (previousHost === undefined) delete process.env.DOCKER_HOST;
      else process.env.DOCKER_HOST = previousHost;
    });

    test('a sol job completes in a container and its results open in GDAL', async () => {
      const status = (await getJson(`${svc.base}/api/system/status`)).body;
      assert.equal(status.container_available, true, JSON.stringify(status));
      assert.equal(status.runtime, 'docker');
      assert.equal(status.image_name, engine.image);

      const res = await submit(svc.base, { workflow_type: 'sol', step: '60', num_threads: '2' }, { name: 'tiny.tif', bytes: dem });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const id = res.body.job_id as string;
      const job = await waitForStatus(svc.base, id, ['completed', 'failed'], 120_000);
      const logs = (await getJson(`${svc.base}/api/jobs/${id}/logs?tail=20`)).body.lines.join('\n');
      assert.equal(job.status, 'completed', `${job.error_message}\n${logs}`);
      assert.equal(job.runtime, 'docker');

      const zip = Buffer.from(await (await fetch(`${svc.base}/api/jobs/${id}/results`)).arrayBuffer());
      const tifs = zipEntries(zip).filter((e) => e.name.endsWith('.tif'));
      assert.equal(tifs.length, 742);
      const output = join(svc.config.resultsDir, id, 'output');
      const daily = join(output, 'global', 'daily', 'total_sun_day_172.tif');
      assert.match(execFileSync('gdalinfo', ['-stats', daily], { encoding: 'utf8' }), /Size is 40, 40/);
      assert.equal(statSync(daily).uid, jobUser().uid, 'written by the job user');
    });

    test('a running container carries the configured limits; cancel removes it within seconds', async () => {
      const res = await submit(svc.base, { workflow_type: 'sol', step: '3', num_threads: '2' }, { name: 'mcn.tif', bytes: readFileSync(FIXTURE_DEM) });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const id = res.body.job_id as string;
      await until('the workflow runs', 60, async () => {
        const job = (await getJson(`${svc.base}/api/jobs/${id}`)).body;
        assert.ok(['pending', 'running'].includes(job.status), `${job.status}: ${job.error_message}`);
        return job.progress > 10 ? job : undefined;
      });
      const [summary] = await engine.docker.listContainers({ filters: { label: [`${JOB_LABEL}=${id}`] } });
      assert.ok(summary, 'the job container is running');
      const info = await engine.docker.getContainer(summary.Id).inspect();
      assert.equal(info.Name.replace(/^\//, ''), `eemt-job-${id}`);
      assert.equal(info.HostConfig.Memory, 768 * MiB);
      assert.equal(info.HostConfig.MemorySwap, 768 * MiB, 'no swap beyond the memory limit');
      assert.equal(info.HostConfig.NanoCpus, 1.5e9);
      assert.equal(info.HostConfig.PidsLimit, 1024);
      assert.equal(info.HostConfig.NetworkMode, 'none');
      assert.equal(info.HostConfig.ReadonlyRootfs, true);
      assert.equal(info.Config.User, `${jobUser().uid}:${jobUser().gid}`);
      const system = (await getJson(`${svc.base}/api/system/status`)).body;
      assert.deepEqual(system.container_stats.running_jobs, [`eemt-job-${id}`]);

      const cancelledAt = Date.now();
      const cancel = await getJson(`${svc.base}/api/jobs/${id}/cancel`, { method: 'POST' });
      assert.equal(cancel.status, 200);
      await until('the container is gone', 10, async () => {
        const left = await engine.docker.listContainers({ all: true, filters: { label: [`${JOB_LABEL}=${id}`] } });
        return left.length === 0 ? true : undefined;
      });
      console.log(`container removed ${((Date.now() - cancelledAt) / 1000).toFixed(1)} s after cancel`);
      await svc.scheduler.idle();
      const job = (await getJson(`${svc.base}/api/jobs/${id}`)).body;
      assert.equal(job.status, 'failed');
      assert.equal(job.error_message, 'Cancelled by user');
    });

    test('an eemt job reaches a Daymet server on the host loopback and writes the climate cache', async () => {
      const daymet = await startDaymetServer();
      const previousUrl = process.env.EEMT_DAYMET_URL;
      process.env.EEMT_DAYMET_URL = daymet.url; // loopback: the container shares the host's network
      try {
        const res = await submit(
          svc.base,
          { workflow_type: 'eemt', step: '60', num_threads: '2', start_year: '2020', end_year: '2020' },
          { name: 'tiny.tif', bytes: dem },
        );
        assert.equal(res.status, 200, JSON.stringify(res.body));
        const id = res.body.job_id as string;
        const job = await waitForStatus(svc.base, id, ['completed', 'failed'], 180_000);
        const logs = (await getJson(`${svc.base}/api/jobs/${id}/logs?tail=20`)).body.lines.join('\n');
        assert.equal(job.status, 'completed', `${job.error_message}\n${logs}`);
        assert.ok(daymet.requests.some((r) => r.status === 200), 'the climate came from the host');
        const names = zipEntries(Buffer.from(await (await fetch(`${svc.base}/api/jobs/${id}/results`)).arrayBuffer())).map((e) => e.name);
        assert.ok(names.includes('eemt/EEMT_Topo_annual_2020.tif'), names.slice(0, 5).join(', '));
        const cached = readdirSync(svc.config.cacheDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
        assert.ok(cached.length > 0, 'responses cached');
        for (const e of cached) assert.equal(statSync(join(e.parentPath, e.name)).uid, jobUser().uid);
      } finally {
        if (previousUrl === undefined) delete process.env.EEMT_DAYMET_URL;
        else process.env.EEMT_DAYMET_URL = previousUrl;
        await daymet.close();
      }
    });

    test('an eemt job in the Alps with a climate file reads it from /input, without network', async () => {
      const grids = mkdtempSync(join(tmpdir(), 'eemt-docker-grids-'));
      try {
        const zip = await zipOf(join(grids, 'grids.zip'), climateFiles(grids, 'climatology'));
        const res = await submit(
          svc.base,
          { workflow_type: 'eemt', step: '60', num_threads: '2', start_year: '2020', end_year: '2020' },
          { name: 'alps.tif', bytes: readFileSync(europeDem(grids)) },
          { name: 'grids.zip', bytes: readFileSync(zip) },
        );
        assert.equal(res.status, 200, JSON.stringify(res.body));
        const id = res.body.job_id as string;
        const job = await waitForStatus(svc.base, id, ['completed', 'failed'], 180_000);
        const logs = (await getJson(`${svc.base}/api/jobs/${id}/logs?tail=20`)).body.lines.join('\n');
        assert.equal(job.status, 'completed', `${job.error_message}\n${logs}`);
        assert.equal(job.parameters.climate_source.archive.name, 'grids.zip');
        const names = zipEntries(Buffer.from(await (await fetch(`${svc.base}/api/jobs/${id}/results`)).arrayBuffer())).map((e) => e.name);
        assert.ok(names.includes('climate/tmin/tmin_2020_jan.tif') && names.includes('eemt/EEMT_Trad_annual_2020.tif'));
      } finally {
        rmSync(grids, { recursive: true, force: true });
      }
    });

    test('a container left running by a service process that died is removed when the service starts again', async () => {
      // the earlier process: its job record says running, and its container runs on
      const root = mkdtempSync(join(tmpdir(), 'eemt-restart-'));
      const store = new JobStore(join(root, 'jobs.db'));
      const id = randomUUID();
      store.create({ id, workflow_type: 'sol', parameters: { step: 3, linke_value: 3, albedo_value: 0.2, num_threads: 1 }, dem_filename: 'mcn.tif' });
      store.markRunning(id, 'docker', 10, 'running');
      store.close();
      const orphan = makeLaunch(layout, id, { params: { step: 3, linke_value: 3, albedo_value: 0.2, num_threads: 1 } });
      const handlers = collect();
      const job = await runtime({ cpus: 1, memoryBytes: 512 * MiB }).start(orphan, handlers);
      await until('the orphan runs', 30, async () => (handlers.messages.length > 0 ? true : undefined));

      const restarted = await startTestService({ root, env: { EEMT_RUNTIME: 'docker', CONTAINER_IMAGE: engine.image } });
      try {
        await until('the orphan container is removed', 15, async () => {
          const left = await engine.docker.listContainers({ all: true, filters: { label: [`${JOB_LABEL}=${id}`] } });
          return left.length === 0 ? true : undefined;
        });
        await job.done;
        assert.ok(!handlers.messages.some((m) => m.type === 'done'), 'the orphan was stopped, not finished');
        const record = (await getJson(`${restarted.base}/api/jobs/${id}`)).body;
        assert.equal(record.status, 'failed');
        assert.match(record.error_message, /^Interrupted/);
      } finally {
        await restarted.stop();
        rmSync(root, { recursive: true, force: true });
      }
    });

    test('a job over its memory limit fails with the out-of-memory message', async () => {
      const res = await submit(small.base, { workflow_type: 'sol', step: '60', num_threads: '2' }, { name: 'mcn.tif', bytes: readFileSync(FIXTURE_DEM) });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const id = res.body.job_id as string;
      const job = await waitForStatus(small.base, id, ['completed', 'failed'], 120_000);
      const logs = (await getJson(`${small.base}/api/jobs/${id}/logs?tail=20`)).body.lines.join('\n');
      assert.equal(job.status, 'failed', logs);
      assert.match(job.error_message, /out of memory.*the limit is 64 MiB/, logs);
    });
  });
});
