// Needs: chromium, gdal
/**
 * The job monitor (/monitor) in headless Chromium against the real service. Jobs run in real child processes with
 * the job layer's stand-in child (quick, and steered by parameters: step 60 keeps running, linke 7.5 fails), so
 * every job state can be set up in a few seconds. The page clock is controlled, so the 5-second auto-refresh is
 * tested without waiting.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { parseParameters } from '../../src/server/parameters.js';
import { zipEntries } from '../server/zip.js';
import { apiJob, apiSubmit, launchBrowser, smallDem, startPagesService, waitFor, watchErrors, type PagesService } from './helpers.js';

// Page functions run in the browser; this Node-side program has no DOM types.
declare const document: any;
declare const window: any;

const XSS_NAME = '<img src=x onerror=alert(1)>.tif';

describe('job monitor page', () => {
  let svc: PagesService;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  const alerts: string[] = [];
  let dem: Buffer;
  let completedId: string;
  let failedId: string;
  let runningId: string;

  const row = (id: string) => page.locator(`tbody tr[data-id="${id}"]`);
  const count = async (status: string) => Number(await page.locator(`#count-${status}`).textContent());
  const jobsRequests: string[] = [];

  before(async () => {
    svc = await startPagesService({ stub: true });
    dem = readFileSync(smallDem(svc.root, 8, 'tiny.tif'));
    const browserStarting = launchBrowser();
    const submitted = async (fields: Record<string, string>, name: string) => {
      const res = await apiSubmit(svc.base, { workflow_type: 'sol', ...fields }, { name, bytes: dem });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.job_id as string;
    };
    completedId = await submitted({}, XSS_NAME);
    failedId = await submitted({ linke_value: '7.5' }, 'fails.tif');
    await waitFor('the first two jobs to end', async () => (await apiJob(svc.base, failedId)).status === 'failed');
    runningId = await submitted({ step: '60' }, 'keeps_running.tif');
    await waitFor('a running job', async () => (await apiJob(svc.base, runningId)).status === 'running');
    assert.equal((await apiJob(svc.base, completedId)).status, 'completed');

    browser = await browserStarting;
    context = await browser.newContext({ viewport: { width: 1366, height: 768 }, acceptDownloads: true });
    await context.clock.install();
    page = await context.newPage();
    errors = watchErrors(page, svc.base);
    page.on('dialog', (dialog) => {
      if (dialog.type() === 'confirm') void dialog.accept();
      else {
        alerts.push(`${dialog.type()}: ${dialog.message()}`);
        void dialog.dismiss();
      }
    });
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/jobs') jobsRequests.push(request.url());
    });
    await page.goto(`${svc.base}/monitor`);
    await page.locator('#count-total').filter({ hasText: '3' }).waitFor();
  });

  after(async () => {
    await browser?.close();
    await svc?.stop();
  });

  it('shows the counts by status and a row per job, with file names as text', async () => {
    assert.deepEqual(
      { pending: await count('pending'), running: await count('running'), completed: await count('completed'), failed: await count('failed') },
      { pending: 0, running: 1, completed: 1, failed: 1 },
    );
    assert.equal(await page.locator('tbody tr').count(), 3);

    // Newest first; every column is there.
    const ids = await page.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => (tr as any).dataset.id));
    assert.deepEqual(ids, [runningId, failedId, completedId]);
    const cells = await row(completedId).locator('td').allTextContents();
    assert.equal(cells[0], completedId.slice(0, 8));
    assert.equal(cells[1], 'sol');
    assert.equal(cells[3], 'completed');
    assert.match(cells[4]!, /100 %/);
    assert.match(cells[5]!, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    assert.equal(await row(completedId).locator('progress').evaluate((p) => (p as any).value), 100);

    // The user-supplied file name is shown as text, never interpreted as HTML.
    assert.equal(cells[2], XSS_NAME);
    // The file name stays text: the only images are the results view's maps.
    assert.equal(await page.locator('img:not(.map-frame > img)').count(), 0);
    assert.deepEqual(alerts, []);

    // Actions by status: cancel while active, delete when finished, download when completed.
    const actions = async (id: string) => (await row(id).locator('td.col-actions').locator('a, button').allTextContents()).join(' ');
    assert.equal(await actions(runningId), 'Details Cancel');
    assert.equal(await actions(failedId), 'Details Delete');
    assert.equal(await actions(completedId), 'Details Download Delete');
    assert.deepEqual(errors, []);
  });

  it('shows the size and free space of every data folder', async () => {
    const storage = page.locator('#storage li');
    await waitFor('the disk space', async () => (await storage.count()) === 5);
    const { storage: folders } = (await (await fetch(`${svc.base}/api/system/status`)).json()) as {
      storage: { name: string; path: string; free_bytes: number; total_bytes: number }[];
    };
    assert.deepEqual(await page.locator('#storage .storage-name').allTextContents(), ['uploads', 'results', 'temp', 'cache', 'database']);
    assert.deepEqual(await page.locator('#storage .storage-path').allTextContents(), folders.map((f) => f.path));
    for (const [k, folder] of folders.entries()) {
      const item = storage.nth(k);
      // the total as the API gives it, in the pages' units
      const total = await page.evaluate((n) => {
        let v = n / 1024;
        const units = ['KB', 'MB', 'GB', 'TB'];
        let i = 0;
        while (v >= 1024 && i < units.length - 1) {
          v /= 1024;
          i++;
        }
        return `${v.toFixed(v < 10 ? 2 : 1)} ${units[i]}`;
      }, folder.total_bytes);
      assert.match((await item.locator('.storage-free').textContent())!, new RegExp(` free of ${total.replace('.', '\\.')}$`));
      // the meter shows the share in use (others write to this disk meanwhile: within a percent)
      const used = Number(await item.locator('meter').getAttribute('value'));
      assert.ok(Math.abs(used - (1 - folder.free_bytes / folder.total_bytes)) < 0.01, `${folder.name}: ${used}`);
      assert.match((await item.locator('meter').getAttribute('aria-label'))!, new RegExp(`^${folder.name}: \\d+ % used$`));
    }
    assert.deepEqual(errors, []);
  });

  it('downloads the results of a completed job as a ZIP', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), row(completedId).getByRole('link', { name: /Download/ }).click()]);
    assert.equal(download.suggestedFilename(), `eemt_results_${completedId}.zip`);
    const zip = readFileSync((await download.path())!);
    const names = zipEntries(zip).map((e) => e.name);
    assert.ok(names.includes('global/daily/total_sun_day_001.tif'), names.join(', '));
  });

  it('refreshes every 5 seconds with a last-updated time, and the switch stops and restarts it', async () => {
    const updated = page.locator('#last-updated');
    const switchInput = page.getByRole('switch', { name: /Auto-refresh/ });
    assert.equal(await switchInput.isChecked(), true);

    const before = await updated.getAttribute('datetime');
    const requests = jobsRequests.length;
    await page.clock.fastForward(5000);
    await waitFor('an automatic refresh', async () => (await updated.getAttribute('datetime')) !== before);
    assert.ok(jobsRequests.length > requests);
    assert.match((await updated.textContent())!, /^\d\d:\d\d:\d\d$/);

    await switchInput.uncheck();
    await page.waitForTimeout(100); // a refresh that was already under way ends
    const stopped = jobsRequests.length;
    const stoppedAt = await updated.getAttribute('datetime');
    await page.clock.fastForward(20_000);
    await page.waitForTimeout(300);
    assert.equal(jobsRequests.length, stopped, 'no refresh while auto-refresh is off');
    assert.equal(await updated.getAttribute('datetime'), stoppedAt);

    await switchInput.check(); // switching it on refreshes at once
    await waitFor('a refresh after switching on', async () => (await updated.getAttribute('datetime')) !== stoppedAt);
    assert.ok(jobsRequests.length > stopped);
  });

  it('details view shows every field, the parameters, timestamps, error message and the log tail', async () => {
    const button = row(failedId).getByRole('button', { name: /^Details/ });
    await button.click();
    const dialog = page.getByRole('dialog', { name: /Job details: fails\.tif/ });
    await dialog.waitFor();
    await dialog.locator('#details-log').filter({ hasText: 'stub child started' }).waitFor();
    assert.match(page.url(), new RegExp(`\\?job=${failedId}$`));

    const facts = Object.fromEntries(
      await dialog.locator('dl.facts').evaluateAll((dls) =>
        dls.flatMap((dl) => [...dl.querySelectorAll('dt')].map((dt) => [dt.textContent!.trim(), (dt.nextElementSibling as any).innerText.trim()])),
      ),
    );
    const job = await apiJob(svc.base, failedId);
    assert.equal(facts['Job id'], job.id);
    assert.equal(facts['Workflow type'], 'sol');
    assert.equal(facts['Status'], 'failed');
    assert.match(facts['Progress']!, new RegExp(`${job.progress} %`));
    assert.equal(facts['Progress message'], job.progress_message);
    assert.equal(facts['DEM file'], 'fails.tif');
    assert.equal(facts['Runtime'], 'process');
    assert.match(facts['Output size (estimated)']!, /^[\d.]+ (KB|MB)$/, 'the estimate made at submission');
    assert.equal(facts['Error message'], 'DEM has no valid cells');
    assert.equal(facts['Time step step'], '15 min');
    assert.equal(facts['Linke turbidity linke_value'], '7.5');
    assert.equal(facts['Albedo albedo_value'], '0.2');
    assert.equal(facts['CPU threads num_threads'], '4');
    for (const [label, key] of [['Created', 'created_at'], ['Started', 'started_at'], ['Completed', 'completed_at']] as const) {
      assert.match(facts[label]!, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/, label);
      const time = dialog.locator('dt', { hasText: new RegExp(`^${label}$`) }).locator('xpath=following-sibling::dd[1]/time');
      assert.equal(await time.getAttribute('datetime'), job[key], key);
    }
    assert.match(facts['Run time']!, /\d+ s/);
    const log = await dialog.locator('#details-log').textContent();
    assert.match(log!, /error: DEM has no valid cells/);
    assert.match(log!, /job process exited/);

    // Keyboard: Escape closes it, the focus goes back to the button that opened it.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    assert.equal(await button.evaluate((b) => b === document.activeElement), true);
    // The dialog's close event (which drops ?job= from the address) is a task queued after the dialog hides.
    await page.waitForURL((url) => !url.searchParams.has('job'), { timeout: 5000 });
    assert.doesNotMatch(page.url(), /\?job=/);

    // A link to /monitor?job=<id> opens the details view directly (the web interface links here).
    await page.goto(`${svc.base}/monitor?job=${completedId}`);
    const direct = page.getByRole('dialog');
    await direct.locator('dd', { hasText: 'none' }).first().waitFor();
    assert.equal(await direct.locator('h2').textContent(), `Job details: ${XSS_NAME}`);
    // The file name stays text: the only images are the results view's maps.
    assert.equal(await page.locator('img:not(.map-frame > img)').count(), 0);
    await page.getByRole('button', { name: 'Close the details' }).click();
    assert.deepEqual(errors, []);
  });

  it('cancels a running job and deletes a finished one', async () => {
    await row(runningId).getByRole('button', { name: /^Cancel/ }).click();
    await row(runningId).locator('td', { hasText: 'failed' }).waitFor();
    assert.equal((await apiJob(svc.base, runningId)).error_message, 'Cancelled by user');
    assert.equal(await count('running'), 0);
    assert.equal(await count('failed'), 2);
    assert.match((await page.locator('#message').textContent())!, /Cancelled job/);
    // Now finished, it can be deleted; the focus stays in the row.
    await row(runningId).getByRole('button', { name: /^Delete/ }).waitFor();

    await row(completedId).getByRole('button', { name: /^Delete/ }).click();
    await row(completedId).waitFor({ state: 'detached' });
    assert.equal((await fetch(`${svc.base}/api/jobs/${completedId}`)).status, 404);
    assert.equal(await count('completed'), 0);
    assert.equal(await count('total'), 2);
    assert.match((await page.locator('#message').textContent())!, /Deleted job/);
    assert.deepEqual(errors, []);
  });

  it('handles hundreds of jobs: all rows, right counts, quick refreshes, no layout break', async () => {
    // One real job keeps the only job slot busy; 300 more wait behind it. They are queued through the job store
    // the way the submit route does after validating a submission (same parameter parsing, DEM in place), because
    // 300 uploads with their DEM checks would take minutes on a shared machine.
    const busy = (await apiSubmit(svc.base, { workflow_type: 'sol', step: '60' }, { name: 'busy.tif', bytes: dem })).body.job_id as string;
    await waitFor('the busy job to run', async () => (await apiJob(svc.base, busy)).status === 'running');
    const parameters = parseParameters('sol', { step: '10', linke_value: '3.5', albedo_value: '0.25', num_threads: '2' });
    for (let i = 0; i < 300; i++) {
      const id = randomUUID();
      mkdirSync(svc.paths.uploadDir(id), { recursive: true });
      copyFileSync(`${svc.root}/tiny.tif`, svc.paths.demPath(id));
      svc.store.create({ id, workflow_type: 'sol', parameters, dem_filename: `dem_${String(i).padStart(3, '0')}_${'long_name_'.repeat(i % 7)}.tif` });
    }
    svc.scheduler.enqueue();

    const updated = page.locator('#last-updated');
    let stamp = await updated.getAttribute('datetime');
    const timedRefresh = async () => {
      await page.clock.fastForward(1000); // a later "last updated" time
      const started = Date.now();
      await page.getByRole('button', { name: 'Refresh now' }).click();
      await waitFor('a refresh', async () => (await updated.getAttribute('datetime')) !== stamp, 10_000);
      stamp = await updated.getAttribute('datetime');
      return Date.now() - started;
    };
    const first = await timedRefresh();
    const expected = (await (await fetch(`${svc.base}/api/jobs`)).json()) as { status: string }[];
    assert.equal(expected.length, 303);
    assert.equal(await page.locator('tbody tr').count(), 303);
    for (const status of ['pending', 'running', 'completed', 'failed']) {
      assert.equal(await count(status), expected.filter((j) => j.status === status).length, status);
    }
    assert.equal(await count('pending'), 300);
    assert.equal(await count('total'), 303);

    // A refresh that only updates rows in place is quick; so is the first one that built 300 rows.
    const again = await timedRefresh();
    assert.ok(first < 3000 && again < 3000, `refreshes took ${first} ms and ${again} ms`);

    // The table scrolls inside its box; the page itself does not grow sideways or to 300 rows' height.
    const layout = await page.evaluate(() => {
      const wrap = document.getElementById('jobs-region')!;
      wrap.scrollTop = wrap.scrollHeight;
      const last = document.querySelector('tbody tr:last-child')!.getBoundingClientRect();
      const box = wrap.getBoundingClientRect();
      return {
        scrolls: wrap.scrollHeight > wrap.clientHeight,
        pageWidth: document.documentElement.scrollWidth,
        viewport: window.innerWidth,
        pageHeight: document.documentElement.scrollHeight,
        lastVisible: last.bottom <= box.bottom + 1 && last.top >= box.top,
        headerTop: document.querySelector('thead th')!.getBoundingClientRect().top - box.top,
      };
    });
    assert.ok(layout.scrolls, 'the table scrolls in its box');
    assert.ok(layout.pageWidth <= layout.viewport, `page is ${layout.pageWidth} px wide in a ${layout.viewport} px window`);
    assert.ok(layout.pageHeight < 1400, `page is ${layout.pageHeight} px high`);
    assert.ok(layout.lastVisible, 'the last row can be scrolled into view');
    assert.ok(Math.abs(layout.headerTop) <= 1, 'the header row stays on top');

    // Filters narrow the table without another request.
    await page.getByLabel('Show').selectOption('running');
    assert.equal(await page.locator('tbody tr:not([hidden])').count(), 1);
    assert.equal(await page.locator('#shown').textContent(), 'Showing 1 of 303 jobs');
    await page.getByLabel('Show').selectOption('');
    await page.getByLabel('Search').fill('dem_29');
    assert.equal(await page.locator('tbody tr:not([hidden])').count(), 10);
    await page.getByLabel('Search').fill('');
    assert.deepEqual(errors, []);
  });
});
