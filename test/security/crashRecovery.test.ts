/**
 * kill -9 of the real service (a child process, bubblewrap runtime, its own folders) in the middle of an
 * upload, of running and pending jobs, and of a results download; after each restart on the same folders:
 * no job record lost, every status truthful, no job process left over, and no folder that belongs to no job.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fixture, getJson, submit, waitForStatus } from '../server/helpers.js';
import { zipEntries } from '../server/zip.js';
import { smallDem } from './hostileTiffs.js';
import { waitFor } from '../jobs/helpers.js';
import { processesMentioning, startServiceProcess, type ServiceProcess } from './serviceProcess.js';
import { jobEntries } from '../helpers/dataFolders.js';

const ENV = { EEMT_RUNTIME: 'bubblewrap', EEMT_MAX_CONCURRENT_JOBS: '1' };



describe('kill -9 and restart', () => {
  const root = mkdtempSync(join(tmpdir(), 'eemt-crash-')); // 0700: the job user reaches its folders all the same
  const data = join(root, 'service');
  let service: ServiceProcess;
  let small: Buffer;
  /** Every job record seen so far, with the status it must have after a restart. */
  const known = new Map<string, string>();

  before(async () => {
    small = readFileSync(smallDem(root));
    service = await startServiceProcess(data, ENV);
  });
  after(async () => {
    await service?.kill9();
    rmSync(root, { recursive: true, force: true });
  });

  async function restart(): Promise<void> {
    service = await startServiceProcess(data, ENV);
  }

  /** Every record is still there with its expected status, and every data folder belongs to a job. */
  async function assertConsistent(): Promise<void> {
    const jobs = (await getJson(`${service.base}/api/jobs`)).body as { id: string; status: string }[];
    const byId = new Map(jobs.map((j) => [j.id, j.status]));
    for (const [id, status] of known) assert.equal(byId.get(id), status, `job ${id}`);
    assert.equal(jobs.length, known.size, 'no record lost, none made up');
    for (const folder of ['uploads', 'results']) {
      for (const name of jobEntries(join(data, folder))) assert.ok(byId.has(name), `${folder}/${name} belongs to no job`);
    }
    const running = jobs.filter((j) => j.status === 'running').map((j) => j.id);
    for (const name of jobEntries(join(data, 'temp'))) assert.ok(running.includes(name), `temp/${name} of a job that is not running`);
  }

  test('(a) during a streaming upload: the partial upload is gone after the restart, and no job was made', async () => {
    const boundary = 'crash-test-boundary';
    const req = request(`${service.base}/api/submit-job`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'transfer-encoding': 'chunked' },
    });
    req.on('error', () => undefined); // the service dies under it
    req.write(`--${boundary}\r\nContent-Disposition: form-data; name="workflow_type"\r\n\r\nsol\r\n`);
    req.write(`--${boundary}\r\nContent-Disposition: form-data; name="dem_file"; filename="big.tif"\r\nContent-Type: image/tiff\r\n\r\n`);
    const chunk = Buffer.alloc(1024 * 1024, 1);
    let partial: string | null = null;
    for (let i = 0; i < 200 && !partial; i++) {
      await new Promise<void>((resolve) => req.write(chunk, () => resolve()));
      partial = jobEntries(join(data, 'uploads')).map((id) => join(data, 'uploads', id, 'dem.tif')).find((p) => existsSync(p) && statSync(p).size > 4 * 1024 * 1024) ?? null;
    }
    assert.ok(partial, 'the upload is being written to disk');
    await service.kill9();
    req.destroy();
    assert.ok(existsSync(partial), 'the partial upload survived the crash');

    await restart();
    assert.ok(!existsSync(partial), 'and is removed at start-up');
    await assertConsistent();
  });

  let interrupted = '';
  let resumed = '';
  test('(b) with a running and a pending job: running → failed with the interruption message, pending → resumed and completed, no job process left', async () => {
    const long = await submit(service.base, { workflow_type: 'sol', step: '15', num_threads: '1' }, { name: 'mcn.tif', bytes: fixture('mcn_10m.tif') });
    assert.equal(long.status, 200, JSON.stringify(long.body));
    interrupted = long.body.job_id;
    const next = await submit(service.base, { workflow_type: 'sol', step: '60', num_threads: '1' }, { name: 'small.tif', bytes: small });
    assert.equal(next.status, 200, JSON.stringify(next.body));
    resumed = next.body.job_id;
    // Wait until the first job computes (its workflow reports progress) while the second waits.
    const deadline = Date.now() + 60_000;
    for (;;) {
      const job = (await getJson(`${service.base}/api/jobs/${interrupted}`)).body;
      if (job.status === 'running' && job.progress >= 11) break;
      assert.ok(job.status === 'running' || job.status === 'pending', `job is ${job.status}: ${job.error_message}`);
      assert.ok(Date.now() < deadline, `still at ${job.progress}%`);
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal((await getJson(`${service.base}/api/jobs/${resumed}`)).body.status, 'pending');
    assert.notDeepEqual(processesMentioning(interrupted), [], 'the job runs in its own processes');
    assert.ok(existsSync(join(data, 'temp', interrupted)), 'with its scratch folder');

    await service.kill9();
    await waitFor(() => processesMentioning(interrupted).length === 0, 15_000, 'the job processes to end with the service');

    await restart();
    const failed = (await getJson(`${service.base}/api/jobs/${interrupted}`)).body;
    assert.equal(failed.status, 'failed');
    assert.equal(failed.error_message, 'Interrupted: the service stopped while the job was running; please resubmit it');
    assert.ok(!existsSync(join(data, 'temp', interrupted)), 'its scratch folder is gone');
    const done = await waitForStatus(service.base, resumed, ['completed', 'failed'], 120_000);
    assert.equal(done.status, 'completed', done.error_message);
    known.set(interrupted, 'failed');
    known.set(resumed, 'completed');
    await assertConsistent();
  });

  test('(c) during a results download: the job stays completed and its ZIP downloads whole after the restart', async () => {
    const res = await fetch(`${service.base}/api/jobs/${resumed}/results`);
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    const first = await reader.read();
    assert.ok(first.value && first.value.length > 0, 'the download has started');
    await service.kill9();
    await reader.read().catch(() => undefined);

    await restart();
    await assertConsistent();
    const again = await fetch(`${service.base}/api/jobs/${resumed}/results`);
    assert.equal(again.status, 200);
    const names = zipEntries(Buffer.from(await again.arrayBuffer())).map((e) => e.name);
    assert.equal(names.filter((n) => n.endsWith('.tif')).length, 742);
    assert.deepEqual(names.filter((n) => n.endsWith('.json')), ['stac.json', 'stac/daily-global.json', 'stac/daily-hours.json']);
    await service.stop();
  });
});
