// Needs: bwrap
import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { BubblewrapRuntime } from '../../src/runtime/bubblewrap.js';
import { collect, makeLaunch, makeLayout, PROBE_CHILD, type Layout } from './helpers.js';

const GiB = 1024 ** 3;

describe('bubblewrap runtime (real sandbox)', () => {
  let layout: Layout;
  let server: Server;
  let port = 0;
  let accepted = 0;

  before(async () => {
    layout = makeLayout();
    server = createServer((socket) => {
      accepted++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  after(() => {
    server.close();
    layout.cleanup();
  });

  const runtime = () =>
    new BubblewrapRuntime({
      limits: { cpus: 2, memoryBytes: 1 * GiB },
      hiddenPaths: [] as string[],
      childEntry: PROBE_CHILD,
    });

  test('is available here', async () => {
    assert.equal(await runtime().check(), null);
  });

  test('a job writes only its own folder and cannot reach the network', async () => {
    const rt = new BubblewrapRuntime({
      limits: { cpus: 2, memoryBytes: 1 * GiB },
      hiddenPaths: [layout.uploads, layout.results, layout.temp],
      childEntry: PROBE_CHILD,
    });
    const other = makeLaunch(layout, 'other-job');
    writeFileSync(join(other.jobDir, 'secret.txt'), 'other job data');
    const launch = makeLaunch(layout, 'job-a');
    const repoFile = fileURLToPath(new URL('../../escape-test.txt', import.meta.url));
    const outside = [
      join(other.jobDir, 'escaped.txt'),
      join(layout.root, 'escaped.txt'),
      repoFile,
      '/etc/eemt-escaped',
      launch.demPath,
    ];
    writeFileSync(join(launch.jobDir, 'probe.json'), JSON.stringify({ mode: 'probe', port, outside }));
    const handlers = collect();
    const job = await rt.start(launch, handlers);
    const exit = await job.done;
    assert.equal(exit.code, 0, handlers.logs.join('\n'));

    const result = JSON.parse(readFileSync(join(launch.jobDir, 'output', 'probe-result.json'), 'utf8'));
    for (const path of outside) assert.notEqual(result.writes[path], 'written', `${path} must not be writable`);
    assert.ok(!existsSync(join(other.jobDir, 'escaped.txt')));
    assert.ok(!existsSync(join(layout.root, 'escaped.txt')));
    assert.ok(!existsSync(repoFile));
    assert.equal(result.demReadable, true, 'the DEM is readable');
    assert.notEqual(result.network, 'connected');
    assert.equal(accepted, 0, 'no connection reached the host');
    assert.ok(result.pid < 10, `own PID namespace (pid ${result.pid})`);
    assert.equal(result.threads, 2, 'threads capped at the CPU limit');
    assert.ok(!result.env.includes('EEMT_DB_PATH'));
    assert.deepEqual([result.uid, result.gid], [65534, 65534], 'an unprivileged uid inside the sandbox');
    assert.equal(result.shadow, 'EACCES', 'no root file permissions, even when the service runs as root');
    assert.equal(result.logWrite, 'EROFS', 'the job folder is read-only: job.log belongs to the service');
    assert.equal(result.logLink, 'EROFS', 'no links planted next to job.log');
    assert.equal(result.specWrite, 'EROFS');
    if (process.getuid!() === 0) {
      const owner = statSync(join(launch.jobDir, 'output', 'probe-result.json')).uid;
      assert.equal(owner, 65534, 'a root service starts the job as uid 65534 on the host too');
    }

    assert.deepEqual(handlers.messages.map((m) => m.type), ['started', 'progress', 'done']);
    assert.ok(handlers.logs.includes('probe child running'));
    assert.ok(handlers.logs.includes('a line of ordinary output'));
  });

  test('a root service does not start a job its unprivileged user cannot reach, and says which folder', { skip: process.getuid!() !== 0 && 'only a root service drops to the job user' }, async () => {
    const closed = makeLayout();
    chmodSync(closed.root, 0o700);
    try {
      const launch = makeLaunch(closed, 'job-closed');
      await assert.rejects(runtime().start(launch, collect()), new RegExp(`the job user \\(uid 65534\\) cannot enter ${closed.root}; make it searchable \\(chmod o\\+x\\)`));
    } finally {
      closed.cleanup();
    }
  });

  test('the memory limit is enforced', async () => {
    const rt = new BubblewrapRuntime({ limits: { cpus: 1, memoryBytes: 512 * 1024 ** 2 }, childEntry: PROBE_CHILD });
    const launch = makeLaunch(layout, 'job-mem');
    writeFileSync(join(launch.jobDir, 'probe.json'), JSON.stringify({ mode: 'alloc' }));
    const handlers = collect();
    const job = await rt.start(launch, handlers);
    const exit = await job.done;
    const resultPath = join(launch.jobDir, 'output', 'probe-result.json');
    assert.equal(handlers.messages[0]?.type, 'started', handlers.logs.join('\n'));
    if (exit.code === 0) {
      const result = JSON.parse(readFileSync(resultPath, 'utf8'));
      assert.ok(result.allocatedMb < 512, `allocation stopped under the limit: ${result.alloc}`);
    } else {
      assert.ok(!existsSync(resultPath), 'the child died before finishing');
    }
  });

  test('kill stops a running job promptly', async () => {
    const rt = runtime();
    const launch = makeLaunch(layout, 'job-kill');
    writeFileSync(join(launch.jobDir, 'probe.json'), JSON.stringify({ mode: 'sleep' }));
    const handlers = collect();
    const job = await rt.start(launch, handlers);
    const deadline = Date.now() + 15_000;
    while (!handlers.messages.some((m) => m.type === 'progress')) {
      assert.ok(Date.now() < deadline, `the child did not start: ${handlers.logs.join('\n')}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const status = await rt.status();
    assert.deepEqual(status.runningJobs, ['eemt-job-job-kill']);
    const t0 = Date.now();
    job.kill();
    const exit = await job.done;
    assert.ok(Date.now() - t0 < 5000);
    assert.notEqual(exit.code, 0);
    assert.deepEqual((await rt.status()).runningJobs, []);
  });
});
