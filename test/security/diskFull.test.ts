// Needs: gdal, bwrap
/**
 * A full disk, for real: the results folder of a real service process (bubblewrap runtime) is a 40 MiB tmpfs mounted
 * for the test. (a) A job whose output estimate does not fit is refused at submission with 507 and a message naming
 * the folder, its free space and the estimate. (b) A job that fits when it starts but finds the disk full while it
 * writes (a ballast file fills the tmpfs once it runs) fails with `Out of disk space in <results folder> (<free>
 * free)`, its partial outputs are gone by the time it is reported failed, and the next small job completes. (c) kill -9
 * of the service while a job computes, with its files being assembled on disk: after the restart, no `.part` file and
 * no partial output of it remain. The system status reports the tmpfs's size and free space.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { getJson, submit, waitForStatus } from '../server/helpers.js';
import { waitFor } from '../helpers/wait.js';
import { processesMentioning, startServiceProcess, type ServiceProcess } from './serviceProcess.js';
import { jobEntries } from '../helpers/dataFolders.js';
import { FIXTURE_DEM } from '../raster/gdal.js';
import { demWindow, filesUnder, freeBytes, mountTmpfs, unmount } from '../helpers/tmpfs.js';

const ENV = { EEMT_RUNTIME: 'bubblewrap', EEMT_MAX_CONCURRENT_JOBS: '1' };
const TMPFS_BYTES = 40 * 1024 ** 2;
const MB = 1024 ** 2;

describe('a full results folder (a 40 MiB tmpfs)', () => {
  const root = mkdtempSync(join(tmpdir(), 'eemt-disk-full-'));
  chmodSync(root, 0o755); // the job user must reach the data folders
  const data = join(root, 'service');
  const results = join(data, 'results');
  const ballast = join(results, 'ballast');
  let mounted = false;
  let service: ServiceProcess;
  let tiny: Buffer;
  let fitting: Buffer;

  /** Fills the tmpfs with a ballast file (beside any earlier one) until `bytes` are left free. */
  function fillLeaving(bytes: number): void {
    assert.ok(freeBytes(results) > bytes, `only ${freeBytes(results)} bytes are free on the tmpfs`);
    writeFileSync(ballast, Buffer.alloc(freeBytes(results) - bytes + (existsSync(ballast) ? statSync(ballast).size : 0)));
  }

  /** Waits until job `id` computes (its workflow has started: past the space check at its start). */
  async function runningJob(id: string): Promise<void> {
    await waitFor('the job to start computing', async () => {
      const job = (await getJson(`${service.base}/api/jobs/${id}`)).body;
      assert.ok(job.status === 'pending' || job.status === 'running', `job is ${job.status}: ${job.error_message}`);
      return job.status === 'running' && job.progress >= 10;
    }, 60_000);
  }

  before(async () => {
    mkdirSync(results, { recursive: true });
    mountTmpfs(results, TMPFS_BYTES);
    mounted = true;
    tiny = demWindow(root, 8);
    fitting = demWindow(root, 100);
    service = await startServiceProcess(data, ENV);
  });
  after(async () => {
    await service?.kill9();
    if (mounted) unmount(results);
    rmSync(root, { recursive: true, force: true });
  });

  test('the system status reports the size and free space of the results folder', async () => {
    const status = (await getJson(`${service.base}/api/system/status`)).body;
    const folder = status.storage.find((f: { name: string }) => f.name === 'results');
    assert.equal(folder.path, results);
    assert.equal(folder.total_bytes, TMPFS_BYTES);
    assert.ok(Math.abs(folder.free_bytes - freeBytes(results)) <= MB, `${folder.free_bytes} free, statfs says ${freeBytes(results)}`);
    assert.deepEqual(status.storage.map((f: { name: string }) => f.name), ['uploads', 'results', 'temp', 'cache', 'database']);
  });

  test('(a) a job whose outputs would not fit is refused with 507, naming the folder, its free space and the estimate', async () => {
    // mcn_10m: a year of sol products is about 80 MB
    const res = await submit(service.base, { workflow_type: 'sol', step: '15' }, { name: 'mcn.tif', bytes: readFileSync(FIXTURE_DEM) });
    assert.equal(res.status, 507, JSON.stringify(res.body));
    process.stdout.write(`# ${res.body.detail}\n`);
    const match = /^Not enough disk space in (.+): (\d+\.\d) MB free, the job needs about (\d+\.\d) MB$/.exec(res.body.detail);
    assert.ok(match, res.body.detail);
    assert.equal(match[1], results);
    assert.ok(Math.abs(Number(match[2]) - freeBytes(results) / MB) <= 0.5, res.body.detail);
    assert.ok(Number(match[3]) > 80 && Number(match[3]) < 120, `the estimate of mcn_10m: ${res.body.detail}`);
    assert.deepEqual((await getJson(`${service.base}/api/jobs`)).body, [], 'no job is kept');
    assert.deepEqual(jobEntries(join(data, 'uploads')), [], 'nor its upload');

    // the same on the OGC API: an exception document with the same detail
    const ogc = await getJson(`${service.base}/ogc/processes/sol/execution`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ inputs: { dem: { value: readFileSync(FIXTURE_DEM).toString('base64'), mediaType: 'image/tiff; application=geotiff' }, step: 15 } }),
    });
    assert.equal(ogc.status, 507);
    assert.equal(ogc.body.status, 507);
    assert.equal(ogc.body.detail, res.body.detail);
  });

  test('(a2) a job that fitted when it was submitted but not when it starts fails at once, with the same message', { timeout: 180_000 }, async () => {
    // a running job (100 × 100 cells at 3 minutes, about 33 MB with its margin) holds the only job slot; with two threads
    // it is cut into 8 or more tiles, so it has written little or nothing when it is cancelled below (what it wrote is
    // removed when it is cancelled, and counts as free space for the job after it)
    const running = await submit(service.base, { workflow_type: 'sol', step: '3', num_threads: '2' }, { name: 'fits.tif', bytes: fitting });
    assert.equal(running.status, 200, JSON.stringify(running.body));
    await runningJob(running.body.job_id);
    // an 8 × 8 job (about 4.3 MB) fits beside what the running one has still to write, and waits
    const waiting = await submit(service.base, { workflow_type: 'sol', step: '60', num_threads: '1' }, { name: 'tiny.tif', bytes: tiny });
    assert.equal(waiting.status, 200, JSON.stringify(waiting.body));
    const id = waiting.body.job_id as string;
    assert.equal((await getJson(`${service.base}/api/jobs/${id}`)).body.status, 'pending');
    // a third (40 × 40 cells, about 6 MB) does not: what the two before it need is set aside
    const third = await submit(service.base, { workflow_type: 'sol', step: '60', num_threads: '1' }, { name: 'small.tif', bytes: demWindow(root, 40) });
    assert.equal(third.status, 507, JSON.stringify(third.body));
    assert.match(third.body.detail, /^Not enough disk space in .+: \d+\.\d MB free, of which the jobs queued or running before it need about \d+\.\d MB, the job needs about \d\.\d MB$/);

    // the disk fills up meanwhile; when the slot is free, the waiting job no longer fits
    fillLeaving(2 * MB);
    assert.equal((await getJson(`${service.base}/api/jobs/${running.body.job_id}/cancel`, { method: 'POST' })).status, 200);
    const failed = await waitForStatus(service.base, id, ['completed', 'failed'], 60_000);
    assert.equal(failed.status, 'failed');
    process.stdout.write(`# ${failed.error_message}\n`);
    const match = /^Not enough disk space in (.+): (\d+\.\d) MB free, the job needs about (\d+\.\d) MB$/.exec(failed.error_message);
    assert.ok(match, failed.error_message);
    assert.equal(match[1], results);
    // the free space it reports is the folder's (the ballast's 2 MB, plus what the cancelled job had written and then
    // removed), and less than it needs
    const freeMb = freeBytes(results) / MB;
    assert.ok(Math.abs(Number(match[2]) - freeMb) <= 0.1, `${failed.error_message}; ${freeMb.toFixed(2)} MB free now`);
    assert.ok(Number(match[2]) < Number(match[3]) && Number(match[3]) > 3 && Number(match[3]) < 6, failed.error_message);
    assert.equal(failed.started_at !== null, true, 'it was started, and failed at once');
    assert.deepEqual(filesUnder(join(results, id, 'output')), [], 'without writing anything');
    rmSync(ballast);
  });

  test('(b) a job that finds the disk full fails with "Out of disk space", its outputs are removed at once, and the next job completes', { timeout: 180_000 }, async () => {
    // 100 × 100 cells at 3 minutes: estimated at about 30 MB (fits), writes about 24 MB
    const res = await submit(service.base, { workflow_type: 'sol', step: '3', num_threads: '1' }, { name: 'fits.tif', bytes: fitting });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const id = res.body.job_id as string;
    // Once it computes (past the check at its start), a ballast file leaves 6 MB of the tmpfs free.
    await runningJob(id);
    fillLeaving(6 * MB);
    const outputDir = join(results, id, 'output');
    assert.ok(filesUnder(outputDir).every((file) => !file.endsWith('.tif')), 'no product was finished before the ballast');

    const failed = await waitForStatus(service.base, id, ['completed', 'failed'], 120_000);
    assert.equal(failed.status, 'failed');
    process.stdout.write(`# ${failed.error_message}\n`);
    const match = /^Out of disk space in (.+) \((\d+(?:\.\d)? (?:B|KB|MB)) free\)$/.exec(failed.error_message);
    assert.ok(match, failed.error_message);
    assert.equal(match[1], results, 'the service folder, not a path inside the sandbox');
    assert.deepEqual(filesUnder(outputDir), [], 'its partial outputs are gone by the time it is reported failed');
    const log = readFileSync(join(results, id, 'job.log'), 'utf8');
    assert.match(log, /Out of disk space in .+: partial outputs removed \(\d/);
    assert.ok(freeBytes(results) >= 5.5 * MB, `${freeBytes(results)} bytes free again`);

    // the record stays, with its message and its log
    const record = (await getJson(`${service.base}/api/jobs/${id}`)).body;
    assert.equal(record.error_message, failed.error_message);
    assert.ok((await getJson(`${service.base}/api/jobs/${id}/logs?tail=5`)).body.lines.length > 0);

    // the next job that fits (8 × 8 cells, about 4 MB with the margin) runs and completes
    const next = await submit(service.base, { workflow_type: 'sol', step: '60', num_threads: '1' }, { name: 'tiny.tif', bytes: tiny });
    assert.equal(next.status, 200, JSON.stringify(next.body));
    const done = await waitForStatus(service.base, next.body.job_id, ['completed', 'failed'], 120_000);
    assert.equal(done.status, 'completed', done.error_message);
    assert.equal(filesUnder(join(results, next.body.job_id, 'output')).filter((file) => file.endsWith('.tif')).length, 742);
  });

  test('(c) kill -9 while a job assembles its files: after the restart no .part file and no partial output remain', { timeout: 180_000 }, async () => {
    rmSync(ballast, { force: true });
    const res = await submit(service.base, { workflow_type: 'sol', step: '3', num_threads: '1' }, { name: 'fits.tif', bytes: fitting });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const id = res.body.job_id as string;
    const outputDir = join(results, id, 'output');
    // the products' files are created on disk (as `.part` files) while the tiles are computed
    await waitFor('.part files of the running job', () => filesUnder(outputDir).some((file) => file.endsWith('.part')), 60_000);
    await service.kill9();
    await waitFor('the job processes to end with the service', () => processesMentioning(id).length === 0, 15_000);
    const left = filesUnder(outputDir).filter((file) => file.endsWith('.part'));
    assert.ok(left.length > 0, 'the crash left .part files');

    service = await startServiceProcess(data, ENV);
    const job = (await getJson(`${service.base}/api/jobs/${id}`)).body;
    assert.equal(job.status, 'failed');
    assert.equal(job.error_message, 'Interrupted: the service stopped while the job was running; please resubmit it');
    assert.deepEqual(filesUnder(outputDir), [], 'no partial output of it remains');
    assert.deepEqual(filesUnder(join(results, id)).filter((file) => file.endsWith('.part')), [], 'no .part file of it anywhere');
    assert.ok(existsSync(join(results, id, 'job.log')), 'its log stays');
    assert.match(readFileSync(join(results, id, 'job.log'), 'utf8'), /interrupted: partial outputs removed \(\d/);
    assert.ok(!existsSync(join(data, 'temp', id)), 'nor its scratch folder');
  });
});
