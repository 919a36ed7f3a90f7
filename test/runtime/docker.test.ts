import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DockerRuntime, JOB_LABEL } from '../../src/runtime/docker.js';
import { FakeDockerEngine } from './fakeDockerEngine.js';
import { collect, makeLaunch, makeLayout, type Layout } from './helpers.js';

const GiB = 1024 ** 3;

describe('docker runtime (fake Engine API on a unix socket)', () => {
  let layout: Layout;
  let engine: FakeDockerEngine;
  let runtime: DockerRuntime;

  before(async () => {
    layout = makeLayout();
    engine = new FakeDockerEngine(join(layout.root, 'docker.sock'));
    await engine.listen();
    runtime = new DockerRuntime({ limits: { cpus: 2.5, memoryBytes: 8 * GiB }, image: 'eemt:test', socketPath: engine.socketPath });
  });
  after(async () => {
    await engine.close();
    layout.cleanup();
  });

  test('is unavailable without the image, with a reason', async () => {
    const reason = await runtime.check();
    assert.match(reason ?? '', /image eemt:test not found/);
    const status = await runtime.status();
    assert.equal(status.available, false);
  });

  test('is unavailable when the engine does not answer', async () => {
    const rt = new DockerRuntime({ limits: runtime.limits, image: 'eemt:test', socketPath: join(layout.root, 'none.sock') });
    assert.match((await rt.check()) ?? '', /Docker engine not reachable/);
  });

  test('runs a job container with the limits, mounts and no network for sol', async () => {
    engine.images.add('eemt:test');
    assert.equal(await runtime.check(), null);
    engine.script = {
      stdout: [JSON.stringify({ type: 'started', pid: 1 }), JSON.stringify({ type: 'progress', fraction: 0.5, message: 'half' }), 'plain output', JSON.stringify({ type: 'done', files: ['global/a.tif'], seconds: 1 })],
      stderr: ['a log line'],
      files: { 'output/global/a.tif': 'tif' },
      exitCode: 0,
    };
    const launch = makeLaunch(layout, 'job-d1', { params: { step: 15, linke_value: 3, albedo_value: 0.2, num_threads: 16 } });
    const handlers = collect();
    const job = await runtime.start(launch, handlers);
    const exit = await job.done;
    assert.deepEqual(exit, { code: 0, signal: null });
    assert.deepEqual(handlers.messages.map((m) => m.type), ['started', 'progress', 'done']);
    assert.ok(handlers.logs.includes('a log line'));
    assert.ok(handlers.logs.includes('plain output'));
    assert.ok(existsSync(join(launch.jobDir, 'output', 'global', 'a.tif')));

    const c = [...engine.containers.values()][0]!;
    assert.equal(c.name, 'eemt-job-job-d1');
    assert.equal(c.body.Image, 'eemt:test');
    assert.equal(c.body.HostConfig.NanoCpus, 2.5e9);
    assert.equal(c.body.HostConfig.Memory, 8 * GiB);
    assert.equal(c.body.HostConfig.NetworkMode, 'none');
    assert.equal(c.body.Labels[JOB_LABEL], 'job-d1');
    assert.ok(c.body.HostConfig.Binds.includes(`${launch.jobDir}:/job:rw`));
    assert.ok(c.body.HostConfig.Binds.includes(`${join(layout.uploads, 'job-d1')}:/input:ro`));
    assert.ok(c.removed, 'the container is removed after the job');

    const spec = JSON.parse(readFileSync(join(launch.jobDir, 'job.json'), 'utf8'));
    assert.equal(spec.demPath, '/input/dem.tif');
    assert.equal(spec.outDir, '/job/output');
    assert.equal(spec.params.num_threads, 2, 'threads capped at the CPU limit');
  });

  test('eemt jobs get the network; kill stops the container; status lists running jobs', async () => {
    engine.script = { stdout: [JSON.stringify({ type: 'started', pid: 1 })], stderr: [], files: {}, exitCode: 0, hang: true };
    const launch = makeLaunch(layout, 'job-d2', { workflowType: 'eemt', network: true });
    const handlers = collect();
    const job = await runtime.start(launch, handlers);
    while (handlers.messages.length === 0) await new Promise((r) => setTimeout(r, 10));
    const status = await runtime.status();
    assert.equal(status.available, true);
    assert.deepEqual(status.runningJobs, ['eemt-job-job-d2']);
    assert.equal(status.cpus, 16);
    assert.equal(status.memoryBytes, 64 * GiB);
    const c = [...engine.containers.values()].find((x) => x.name === 'eemt-job-job-d2')!;
    assert.equal(c.body.HostConfig.NetworkMode, 'bridge');
    job.kill();
    const exit = await job.done;
    assert.equal(exit.code, 137);
    assert.ok(engine.requests.includes(`POST /containers/${c.id}/stop`));
  });
});
