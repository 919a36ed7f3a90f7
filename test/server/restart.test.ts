import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ProcessRuntime } from '../../src/runtime/process.js';
import { fixture, getJson, startTestService, STUB_CHILD, submit, waitForStatus } from './helpers.js';

const root = mkdtempSync(join(tmpdir(), 'eemt-restart-'));
after(() => rmSync(root, { recursive: true, force: true }));
const runtime = (c: { cpuLimit: number; memoryBytes: number }) =>
  new ProcessRuntime({ limits: { cpus: c.cpuLimit, memoryBytes: c.memoryBytes }, childEntry: STUB_CHILD });

test('jobs survive a restart: a job that was running fails with a message, a pending one is resumed', async () => {
  const first = await startTestService({ root, runtime });
  const DEM = { name: 'a.tif', bytes: fixture('mcn_10m.tif') };
  const done = (await submit(first.base, { workflow_type: 'sol' }, DEM)).body.job_id;
  await waitForStatus(first.base, done, ['completed']);
  // Simulate a crash: records left running and pending by a service that died.
  const running = randomUUID();
  const pending = randomUUID();
  await first.stop();
  const { JobStore } = await import('../../src/jobs/store/store.js');
  const { copyFileSync, mkdirSync } = await import('node:fs');
  const store = new JobStore(first.config.dbPath);
  for (const id of [running, pending]) {
    store.create({ id, workflow_type: 'sol', parameters: { step: 15, linke_value: 3, albedo_value: 0.2, num_threads: 1 }, dem_filename: 'x.tif' });
    mkdirSync(join(first.config.uploadDir, id), { recursive: true });
    copyFileSync(new URL('../fixtures/mcn_10m.tif', import.meta.url), join(first.config.uploadDir, id, 'dem.tif'));
  }
  store.markRunning(running, 'process', 40, 'day 100/365');
  store.close();

  const second = await startTestService({ root, runtime });
  try {
    const crashed = (await getJson(`${second.base}/api/jobs/${running}`)).body;
    assert.equal(crashed.status, 'failed');
    assert.match(crashed.error_message, /service stopped while the job was running/);
    const resumed = await waitForStatus(second.base, pending, ['completed', 'failed']);
    assert.equal(resumed.status, 'completed');
    assert.equal((await getJson(`${second.base}/api/jobs/${done}`)).body.status, 'completed');
    const zip = await fetch(`${second.base}/api/jobs/${done}/results`);
    assert.equal(zip.status, 200);
    assert.ok((await zip.arrayBuffer()).byteLength > 0);
  } finally {
    await second.stop();
  }
});
