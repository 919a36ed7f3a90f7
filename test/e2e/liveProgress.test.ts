// Needs: chromium, gdal
/**
 * Live progress in the pages, in headless Chromium against the real service (stub job child in real processes):
 * `/` and the monitor's details view follow a job through its Server-Sent Events without polling, and fall back to
 * polling when the event stream cannot be opened. The page clock is controlled, so "no polling" is checked by
 * moving the clock far past the polling interval rather than by waiting.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import { apiJob, apiSubmit, launchBrowser, smallDem, startPagesService, waitFor, watchErrors, type PagesService } from './helpers.js';

describe('live progress in the pages (events, and polling when they fail)', () => {
  let svc: PagesService;
  let browser: Browser;
  let dem: Buffer;
  const contexts: BrowserContext[] = [];

  before(async () => {
    const browserStarting = launchBrowser();
    svc = await startPagesService({ stub: true, env: { EEMT_MAX_CONCURRENT_JOBS: '4' } });
    dem = readFileSync(smallDem(svc.root, 8, 'tiny.tif'));
    browser = await browserStarting;
  });
  after(async () => {
    for (const c of contexts) await c.close();
    await browser?.close();
    await svc?.stop();
  });

  /** A job the stub child keeps running (step 60) until it is cancelled. */
  async function runningJob(name: string): Promise<string> {
    const res = await apiSubmit(svc.base, { workflow_type: 'sol', step: '60' }, { name, bytes: dem });
    assert.equal(res.status, 200);
    const id = res.body.job_id as string;
    await waitFor('the job to run', async () => (await apiJob(svc.base, id)).status === 'running');
    return id;
  }

  /** A page with a controlled clock; `statusGets` counts GET /api/jobs/{id} (not its events). */
  async function openPage(id: string, options: { blockEvents?: boolean } = {}) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    contexts.push(context);
    await context.clock.install();
    const page = await context.newPage();
    const errors = watchErrors(page, svc.base);
    const statusGets: string[] = [];
    const eventRequests: string[] = [];
    page.on('request', (request) => {
      const path = new URL(request.url()).pathname;
      if (path === `/api/jobs/${id}`) statusGets.push(path);
      if (path === `/api/jobs/${id}/events`) eventRequests.push(path);
    });
    if (options.blockEvents) await page.route('**/api/jobs/*/events', (route) => route.abort('connectionrefused'));
    return { page, errors, statusGets, eventRequests };
  }

  const cancel = async (id: string) => assert.equal((await fetch(`${svc.base}/api/jobs/${id}/cancel`, { method: 'POST' })).status, 200);

  it('/ follows a running job through its events: no polling, and the end arrives by itself', async () => {
    const id = await runningJob('live.tif');
    const { page, errors, statusGets, eventRequests } = await openPage(id);
    await page.goto(`${svc.base}/?job=${id}`);
    await page.locator('#job[data-feed="events"] .status-running').waitFor();
    await page.locator('#job-message', { hasText: 'waiting' }).waitFor();
    assert.equal(await page.locator('#job-pct').textContent(), '14 %');
    await waitFor('the event stream', () => eventRequests.length === 1);
    const before = statusGets.length;
    // A minute of page time: polling would have asked 30 times.
    await page.clock.fastForward(60_000);
    assert.equal(statusGets.length, before, 'no polling while the events flow');

    await cancel(id);
    await page.locator('#job .status-failed').waitFor();
    assert.equal(await page.locator('#job-error').textContent(), 'Cancelled by user');
    assert.equal(await page.locator('#job').getAttribute('data-feed'), 'events');
    assert.ok(statusGets.length <= before + 1, 'one request for the final record');
    assert.deepEqual(errors, []);
  });

  it('/ falls back to polling when the event stream cannot be opened', async () => {
    const id = await runningJob('polled.tif');
    const { page, statusGets } = await openPage(id, { blockEvents: true });
    await page.goto(`${svc.base}/?job=${id}`);
    await page.locator('#job[data-feed="polling"] .status-running').waitFor();
    const before = statusGets.length;
    await page.clock.fastForward(2_100);
    await waitFor('a poll', () => statusGets.length > before, 5_000);

    await cancel(id);
    await waitFor('the page to see the end', async () => {
      await page.clock.fastForward(2_100);
      return (await page.locator('#job .status-failed').count()) === 1;
    }, 10_000);
    assert.equal(await page.locator('#job-error').textContent(), 'Cancelled by user');
  });

  it('the monitor details view of a running job updates from its events and shows the end', async () => {
    const id = await runningJob('monitored.tif');
    const { page, errors } = await openPage(id);
    await page.goto(`${svc.base}/monitor?job=${id}`);
    const dialog = page.getByRole('dialog');
    await page.locator('dialog[data-feed="events"]').waitFor();
    await dialog.locator('[data-field="progress_message"]', { hasText: 'waiting' }).waitFor();
    await cancel(id);
    // The view turns to failed without a refresh of the list (the clock stands still).
    await dialog.locator('dd', { hasText: 'Cancelled by user' }).waitFor();
    await dialog.locator('.status-failed').first().waitFor();
    assert.deepEqual(errors, []);
  });

  it('with the event stream blocked, the details view polls the job instead', async () => {
    const id = await runningJob('monitored-polled.tif');
    const { page } = await openPage(id, { blockEvents: true });
    await page.goto(`${svc.base}/monitor?job=${id}`);
    await page.locator('dialog[data-feed="polling"]').waitFor();
    await cancel(id);
    await waitFor('the details view to see the end', async () => {
      await page.clock.fastForward(2_100);
      return (await page.getByRole('dialog').locator('dd', { hasText: 'Cancelled by user' }).count()) === 1;
    }, 10_000);
  });
});
