/**
 * A failed eemt job says so everywhere: its progress message is not left at the last step it reached, and a plain
 * network failure is one line in job.log, not a stack trace. The real job child runs in a process against a Daymet
 * address where nothing listens (connection refused, retried with back-off, then given up).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { after, before, test } from 'node:test';
import { fixture, getJson, startTestService, submit, waitForStatus, type TestService } from './helpers.js';

let svc: TestService;
const previousUrl = process.env.EEMT_DAYMET_URL;

before(async () => {
  // A port that was free a moment ago: nothing listens there.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise((resolve) => probe.close(resolve));
  process.env.EEMT_DAYMET_URL = `http://127.0.0.1:${port}`; // the service passes it on to the job
  svc = await startTestService({ env: { EEMT_RUNTIME: 'process' } });
});
after(async () => {
  await svc.stop();
  if (previousUrl === undefined) delete process.env.EEMT_DAYMET_URL;
  else process.env.EEMT_DAYMET_URL = previousUrl;
});

test('an eemt job whose climate download fails ends failed, with a current progress message and a one-line log entry', { timeout: 120_000 }, async () => {
  const res = await submit(
    svc.base,
    { workflow_type: 'eemt', step: '60', num_threads: '1', start_year: '2020', end_year: '2020' },
    { name: 'mcn_10m.tif', bytes: fixture('mcn_10m.tif') },
  );
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const job = await waitForStatus(svc.base, res.body.job_id, ['completed', 'failed'], 90_000);
  assert.equal(job.status, 'failed');
  assert.match(job.error_message, /^Climate download failed: /);
  assert.equal(job.progress_message, 'failed');
  assert.ok(job.progress < 100);

  const log = readFileSync(svc.paths.logPath(job.id), 'utf8');
  assert.doesNotMatch(log, /^\s+at /m, `no stack trace in job.log:\n${log}`);
  const mentions = log.split('\n').filter((line) => line.includes('Climate download failed'));
  assert.equal(mentions.length, 1, log);
  const lines = (await getJson(`${svc.base}/api/jobs/${job.id}/logs`)).body.lines as string[];
  assert.ok(lines.some((line) => line.endsWith(`error: ${job.error_message}`)));
});
