/**
 * The process list and the job list of /ogc over HTTP against a real service (SQLite file, job children running
 * the stub child): `limit` (default 10, at most 10000), `next` / `prev` / `self` links that keep the filters, paging
 * through a job list that changes under the client, and every filter of the Job list conformance class (type,
 * processID, status, datetime, minDuration, maxDuration).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ProcessRuntime } from '../../src/runtime/process.js';
import { waitFor } from '../helpers/wait.js';
import { fixture, getJson, startTestService, STUB_CHILD, submit, type TestService } from './helpers.js';

const DEM = { name: 'mcn.tif', bytes: fixture('mcn_10m.tif') };
const EXCEPTION = 'http://www.opengis.net/def/exceptions/ogcapi-processes-1/1.0/';
const stubRuntime = (c: TestService['config']) => new ProcessRuntime({ limits: { cpus: c.cpuLimit, memoryBytes: c.memoryBytes }, childEntry: STUB_CHILD });

type Page = { jobs: any[]; processes: any[]; links: Array<{ href: string; rel: string; type: string }> };
const linkOf = (page: Page, rel: string) => page.links.find((l) => l.rel === rel)?.href;

async function page(url: string): Promise<Page> {
  const res = await getJson(url);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/** Every item of a list, following `next` links from `url` (at most 50 pages). */
async function pageThrough(url: string, key: 'jobs' | 'processes'): Promise<{ items: any[]; pages: Page[] }> {
  const items: any[] = [];
  const pages: Page[] = [];
  let next: string | undefined = url;
  while (next) {
    assert.ok(pages.length < 50, 'at most 50 pages');
    const current = await page(next);
    pages.push(current);
    items.push(...current[key]);
    next = linkOf(current, 'next');
  }
  return { items, pages };
}

async function assertQueryException(url: string, detail: RegExp) {
  const res = await getJson(url);
  assert.equal(res.status, 400, JSON.stringify(res.body));
  assert.equal(res.body.type, `${EXCEPTION}invalid-query-parameter-value`);
  assert.equal(res.body.status, 400);
  assert.match(res.body.detail, detail);
}

describe('OGC API – Processes lists', () => {
  let svc: TestService;
  let jobs: string;
  const id: Record<'done' | 'failing' | 'runner' | 'waiting' | 'cancelled', string> = {} as never;
  const status = (jobId: string) => waitFor(`job ${jobId}`, async () => (await getJson(`${svc.base}/ogc/jobs/${jobId}`)).body, 30_000);
  const waitForOgcStatus = (jobId: string, wanted: string) =>
    waitFor(`job ${jobId} ${wanted}`, async () => {
      const info = (await getJson(`${svc.base}/ogc/jobs/${jobId}`)).body;
      return info.status === wanted ? info : null;
    }, 30_000);

  before(async () => {
    svc = await startTestService({ runtime: stubRuntime });
    jobs = `${svc.base}/ogc/jobs`;
    const sol = async (fields: Record<string, string> = {}) => (await submit(svc.base, { workflow_type: 'sol', ...fields }, DEM)).body.job_id as string;
    id.done = await sol();
    await waitForOgcStatus(id.done, 'successful');
    id.failing = await sol({ linke_value: '7.5' });
    await waitForOgcStatus(id.failing, 'failed');
    id.runner = await sol({ step: '60' });
    await waitForOgcStatus(id.runner, 'running');
    // Behind the running job (one job at a time): they stay accepted.
    id.waiting = (await submit(svc.base, { workflow_type: 'eemt' }, DEM)).body.job_id;
    id.cancelled = await sol();
    assert.equal((await getJson(`${svc.base}/api/jobs/${id.cancelled}/cancel`, { method: 'POST' })).status, 200);
    assert.equal((await status(id.cancelled)).status, 'dismissed');
    assert.equal((await status(id.waiting)).status, 'accepted');
  });
  after(() => svc.stop());

  test('process list: limit and offset pages with next and prev links; limit out of range is 400', async () => {
    const all = (await page(`${svc.base}/ogc/processes`)).processes.map((p: any) => p.id);
    assert.deepEqual(all, ['sol', 'eemt', 'echo']);
    const { items, pages } = await pageThrough(`${svc.base}/ogc/processes?limit=1`, 'processes');
    assert.deepEqual(items.map((p) => p.id), all);
    assert.deepEqual(pages.map((p) => p.processes.length), [1, 1, 1]);
    assert.equal(linkOf(pages[0]!, 'self'), `${svc.base}/ogc/processes?limit=1`);
    assert.equal(linkOf(pages[0]!, 'prev'), undefined);
    assert.equal(linkOf(pages[0]!, 'next'), `${svc.base}/ogc/processes?limit=1&offset=1`);
    assert.equal(linkOf(pages[2]!, 'next'), undefined);
    assert.deepEqual((await page(linkOf(pages[2]!, 'prev')!)).processes.map((p: any) => p.id), ['eemt']);
    const tail = await page(`${svc.base}/ogc/processes?offset=1&limit=2`);
    assert.deepEqual(tail.processes.map((p: any) => p.id), ['eemt', 'echo']);
    assert.deepEqual((await page(linkOf(tail, 'prev')!)).processes.map((p: any) => p.id), ['sol', 'eemt']);
    const beyond = await page(`${svc.base}/ogc/processes?offset=7&limit=2`);
    assert.deepEqual(beyond.processes, []);
    assert.deepEqual((await page(linkOf(beyond, 'prev')!)).processes.map((p: any) => p.id), ['eemt', 'echo']);
    for (const limit of ['0', '10001', '-1', '1.5', 'ten', '0x10']) {
      await assertQueryException(`${svc.base}/ogc/processes?limit=${limit}`, /^limit /);
    }
    await assertQueryException(`${svc.base}/ogc/processes?offset=-1`, /^offset /);
  });

  test('job list: each status, process and type filter selects exactly its jobs', async () => {
    const ids = async (query: string) => (await page(`${jobs}?limit=10000&${query}`)).jobs.map((j: any) => j.jobID).sort();
    const sorted = (...list: string[]) => [...list].sort();
    assert.deepEqual(await ids(''), sorted(...Object.values(id)));
    assert.deepEqual(await ids('status=successful'), [id.done]);
    assert.deepEqual(await ids('status=failed'), [id.failing]);
    assert.deepEqual(await ids('status=running'), [id.runner]);
    assert.deepEqual(await ids('status=accepted'), [id.waiting]);
    assert.deepEqual(await ids('status=dismissed'), [id.cancelled]);
    assert.deepEqual(await ids('status=failed,dismissed&status=accepted'), sorted(id.failing, id.cancelled, id.waiting));
    assert.deepEqual(await ids('processID=eemt'), [id.waiting]);
    assert.deepEqual(await ids('processID=sol&status=accepted'), []);
    assert.deepEqual(await ids('processID=sol&processID=eemt'), sorted(...Object.values(id)));
    assert.deepEqual(await ids('processID=echo'), []);
    assert.deepEqual(await ids('type=process'), sorted(...Object.values(id)));
    assert.deepEqual(await ids('status='), sorted(...Object.values(id)), 'an empty parameter is no filter');
    await assertQueryException(`${jobs}?type=job`, /^type.*allowed values: process$/);
    await assertQueryException(`${jobs}?status=successful,finished`, /^status.*allowed values: accepted, running, successful, failed, dismissed$/);
  });

  test('job list: datetime selects by creation time (instants, intervals, offsets); bad values are 400', async () => {
    const all: any[] = (await page(`${jobs}?limit=10000`)).jobs;
    const ids = async (datetime: string) =>
      (await page(`${jobs}?limit=10000&datetime=${encodeURIComponent(datetime)}`)).jobs.map((j: any) => j.jobID).sort();
    const expected = (keep: (created: string) => boolean) => all.filter((j) => keep(j.created)).map((j) => j.jobID).sort();
    const created = (jobId: string) => all.find((j) => j.jobID === jobId).created as string;
    const [from, to] = [created(id.failing), created(id.waiting)];
    assert.ok(from < to);
    assert.deepEqual(await ids(from), expected((c) => c === from));
    assert.ok((await ids(from)).includes(id.failing));
    assert.deepEqual(await ids(`${from}/${to}`), expected((c) => c >= from && c <= to));
    assert.ok((await ids(`${from}/${to}`)).length >= 3);
    assert.deepEqual(await ids(`../${from}`), expected((c) => c <= from));
    assert.deepEqual(await ids(`/${from}`), expected((c) => c <= from));
    assert.deepEqual(await ids(`${to}/..`), expected((c) => c >= to));
    assert.deepEqual(await ids(`${to}/`), expected((c) => c >= to));
    // The same instant with an offset, and with its "+" left unencoded (it arrives as a space).
    const plusOne = new Date(Date.parse(from) + 3_600_000).toISOString().replace('Z', '+01:00');
    assert.deepEqual(await ids(plusOne), await ids(from));
    assert.deepEqual((await page(`${jobs}?limit=10000&datetime=${plusOne}`)).jobs.map((j: any) => j.jobID).sort(), await ids(from));
    assert.deepEqual(await ids('2000-01-01T00:00:00Z/2000-12-31T23:59:59Z'), []);
    await assertQueryException(`${jobs}?datetime=yesterday`, /^datetime: "yesterday" is not an RFC 3339 date-time/);
    await assertQueryException(`${jobs}?datetime=../..`, /needs at least one end/);
    await assertQueryException(`${jobs}?datetime=${to}/${from}`, /ends before it starts/);
    await assertQueryException(`${jobs}?datetime=2024-02-30T00:00:00Z`, /not an RFC 3339 date-time/);
  });

  test('job list: minDuration and maxDuration select by how long jobs ran; jobs that never started are left out', async () => {
    const all: any[] = (await page(`${jobs}?limit=10000`)).jobs;
    const ids = async (query: string) => (await page(`${jobs}?limit=10000&${query}`)).jobs.map((j: any) => j.jobID).sort();
    const started = all.filter((j) => j.started).map((j) => j.jobID).sort();
    assert.deepEqual(started, [id.done, id.failing, id.runner].sort());
    assert.deepEqual(await ids('minDuration=0'), started);
    assert.deepEqual(await ids('maxDuration=100000'), started);
    assert.deepEqual(await ids('minDuration=100000'), []);
    // A finished job's duration is fixed: finished − started.
    const done = all.find((j) => j.jobID === id.done);
    const seconds = (Date.parse(done.finished) - Date.parse(done.started)) / 1000;
    const ceil = Math.ceil(seconds);
    assert.ok((await ids(`maxDuration=${ceil}`)).includes(id.done));
    assert.ok(!(await ids(`minDuration=${ceil + 1}`)).includes(id.done));
    // The running job's duration grows: it is at least the time since it started.
    const runner = all.find((j) => j.jobID === id.runner);
    const runningFor = Math.floor((Date.now() - Date.parse(runner.started)) / 1000);
    assert.ok((await ids(`minDuration=${runningFor}&status=running`)).includes(id.runner));
    assert.deepEqual(await ids(`minDuration=${ceil}&maxDuration=${ceil}&status=accepted`), []);
    await assertQueryException(`${jobs}?minDuration=5&maxDuration=4`, /minDuration must not be greater than maxDuration/);
    await assertQueryException(`${jobs}?minDuration=-1`, /^minDuration /);
    await assertQueryException(`${jobs}?maxDuration=1.5`, /^maxDuration /);
  });

  test('job list: pages of limit jobs, newest first, with next and prev links that keep the filters', async () => {
    const all: any[] = (await page(`${jobs}?limit=10000`)).jobs;
    assert.deepEqual(
      all.map((j) => j.created),
      [...all.map((j) => j.created)].sort().reverse(),
      'newest first',
    );
    const { items, pages } = await pageThrough(`${jobs}?limit=2`, 'jobs');
    assert.deepEqual(items.map((j) => j.jobID), all.map((j) => j.jobID));
    assert.deepEqual(pages.map((p) => p.jobs.length), [2, 2, 1]);
    assert.equal(linkOf(pages[0]!, 'self'), `${jobs}?limit=2`);
    assert.equal(linkOf(pages[0]!, 'prev'), undefined);
    assert.equal(linkOf(pages[2]!, 'next'), undefined);
    for (const p of pages) for (const link of p.links) assert.equal(link.type, 'application/json');
    // Back from the last page to the first.
    const back = await page(linkOf(pages[2]!, 'prev')!);
    assert.deepEqual(back.jobs.map((j) => j.jobID), pages[1]!.jobs.map((j) => j.jobID));
    const first = await page(linkOf(back, 'prev')!);
    assert.deepEqual(first.jobs.map((j) => j.jobID), pages[0]!.jobs.map((j) => j.jobID));
    assert.equal(linkOf(first, 'prev'), undefined);
    // Filters stay in the links.
    const sol = await pageThrough(`${jobs}?processID=sol&limit=1&status=successful,failed,running`, 'jobs');
    assert.deepEqual(sol.items.map((j) => j.jobID), [id.runner, id.failing, id.done]);
    for (const p of sol.pages.slice(1)) {
      const self = new URL(linkOf(p, 'self')!);
      assert.equal(self.searchParams.get('processID'), 'sol');
      assert.equal(self.searchParams.get('status'), 'successful,failed,running');
      assert.equal(self.searchParams.get('limit'), '1');
    }
  });

  test('job list: paging while jobs are submitted and dismissed neither repeats nor skips a job', async () => {
    const before = (await page(`${jobs}?limit=10000`)).jobs.map((j: any) => j.jobID);
    const first = await page(`${jobs}?limit=2`);
    assert.deepEqual(first.jobs.map((j) => j.jobID), before.slice(0, 2));
    // Meanwhile: a new job, and a job of the next page and one of this page dismissed.
    const added = (await submit(svc.base, { workflow_type: 'sol' }, DEM)).body.job_id;
    const [gone1, gone2] = [before[0], before[3]];
    for (const jobId of [gone1, gone2]) assert.equal((await getJson(`${jobs}/${jobId}`, { method: 'DELETE' })).status, 200);
    const rest = await pageThrough(linkOf(first, 'next')!, 'jobs');
    assert.deepEqual(rest.items.map((j) => j.jobID), before.slice(2).filter((j: string) => j !== gone2));
    assert.ok(!rest.items.some((j) => j.jobID === added));
    // The first page, read again, starts with the new job.
    assert.equal((await page(`${jobs}?limit=2`)).jobs[0].jobID, added);
  });

  test('job list: 10 jobs by default and a next link; at most 10000; before and after together are 400', async () => {
    for (let i = 0; i < 12; i++) {
      const jobId = randomUUID();
      svc.store.create({ id: jobId, workflow_type: 'sol', parameters: { step: 15, linke_value: 3, albedo_value: 0.2, num_threads: 1 }, dem_filename: 'x.tif' });
      svc.store.markRunning(jobId, 'process', 1, 'start');
      svc.store.complete(jobId);
    }
    const total = (await page(`${jobs}?limit=10000`)).jobs.length;
    assert.ok(total >= 12);
    const firstPage = await page(jobs);
    assert.equal(firstPage.jobs.length, 10);
    assert.ok(linkOf(firstPage, 'next'));
    assert.equal((await pageThrough(jobs, 'jobs')).items.length, total);
    for (const limit of ['0', '10001', 'abc', '2.5']) await assertQueryException(`${jobs}?limit=${limit}`, /^limit /);
    await assertQueryException(`${jobs}?before=5&after=2`, /before and after cannot both be given/);
    await assertQueryException(`${jobs}?before=-5`, /^before /);
  });
});
