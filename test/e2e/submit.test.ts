// Needs: chromium, gdal
/**
 * The web interface (/) in headless Chromium against the real service with the real job child: the form and its
 * checks, server errors shown next to their fields, upload progress, and a real sol job on a small DEM crop followed
 * to completion and downloaded.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { zipEntries } from '../server/zip.js';
import { climateFiles, europeDem, zipOf } from '../helpers/climateGrids.js';
import { launchBrowser, smallDem, startPagesService, watchErrors, type PagesService } from './helpers.js';

// Page functions run in the browser; this Node-side program has no DOM types.
declare const document: any;

describe('web interface page', () => {
  let svc: PagesService;
  let browser: Browser;
  let page: Page;
  let errors: string[];
  let dem: string;

  const errorOf = (field: string) => page.locator(`#${field}-error`);
  const visibleError = async (field: string) => {
    const slot = errorOf(field);
    await slot.waitFor({ state: 'visible' });
    return (await slot.textContent())!;
  };
  const noErrors = async () => page.locator('.error:not([hidden])').allTextContents();

  before(async () => {
    const browserStarting = launchBrowser();
    svc = await startPagesService();
    dem = smallDem(svc.root);
    browser = await browserStarting;
    page = await browser.newPage({ viewport: { width: 1366, height: 900 }, acceptDownloads: true });
    errors = watchErrors(page, svc.base);
  });

  after(async () => {
    await browser?.close();
    await svc?.stop();
  });

  /** A fresh form (and a clean slate of errors). */
  async function load() {
    await page.goto(`${svc.base}/`);
    await page.locator('#recent-empty, #recent li').first().waitFor({ state: 'attached' });
  }

  it('offers every submission field with the spec defaults, ranges and labels; years only for eemt', async () => {
    await load();
    const field = (label: string | RegExp) => page.getByLabel(label, { exact: typeof label === 'string' });
    assert.equal(await page.getByRole('radio', { name: /Solar radiation \(sol\)/ }).isChecked(), true);
    assert.match((await page.locator('#workflow_type-field').textContent())!, /Typically 5–30 minutes/);
    assert.match((await page.locator('#workflow_type-field').textContent())!, /Typically 1–4 hours/);
    assert.equal(await page.getByLabel('DEM file (GeoTIFF)').getAttribute('type'), 'file');

    const expected: [RegExp, string, string, string][] = [
      [/^Time step/, '15', '3', '15'],
      [/^Linke turbidity/, '3', '1', '8'],
      [/^Albedo/, '0.2', '0', '1'],
      [/^CPU threads/, '4', '1', '32'],
    ];
    for (const [label, value, min, max] of expected) {
      const input = field(label);
      assert.equal(await input.inputValue(), value, String(label));
      assert.equal(await input.getAttribute('min'), min, String(label));
      assert.equal(await input.getAttribute('max'), max, String(label));
    }
    // Plain-words explanations are tied to their inputs.
    assert.match((await field(/^Linke turbidity/).evaluate((i: any) => document.getElementById(i.getAttribute('aria-describedby').split(' ')[0]).textContent))!, /hazy/);
    assert.match((await field(/^Albedo/).evaluate((i: any) => document.getElementById(i.getAttribute('aria-describedby').split(' ')[0]).textContent))!, /reflects/);

    // The climate years appear only for eemt (and are not sent otherwise).
    assert.equal(await page.getByLabel('Start year').isVisible(), false);
    assert.equal(await page.getByLabel('End year').isVisible(), false);
    assert.equal(await page.getByLabel('PET of EEMT-Trad').isVisible(), false);
    await page.getByRole('radio', { name: /Full EEMT analysis/ }).check();
    // The EEMT model choices appear with the eemt workflow, as select boxes with the documented defaults.
    const choices: [string, string, string[]][] = [
      ['PET of EEMT-Trad', 'thornthwaite', ['thornthwaite', 'hamon', 'hamon-linear']],
      ['NPP of EEMT-Topo', 'regression', ['regression', 'lieth']],
      ['Radiation of EEMT-Topo', 'unshaded', ['unshaded', 'shaded', 'realsky']],
      ['Months of Lieth NPP', 'temperature', ['temperature', 'none']],
    ];
    for (const [label, value, options] of choices) {
      const select = page.getByLabel(label);
      assert.equal(await select.isVisible(), true, label);
      assert.equal(await select.inputValue(), value, label);
      assert.deepEqual(await select.evaluate((s: any) => [...s.options].map((o: any) => o.value)), options, label);
    }
    assert.equal(await page.getByLabel('Start year').inputValue(), '2020');
    assert.equal(await page.getByLabel('End year').inputValue(), '2020');
    assert.equal(await page.getByLabel('Start year').getAttribute('min'), '1980');
    assert.equal(await page.getByLabel('End year').getAttribute('max'), '2024');
    assert.equal(await page.getByLabel('Start year').isVisible(), true);

    // The form's own checks, in plain words, next to the field.
    await page.getByLabel('End year').fill('2019');
    await page.getByLabel('Albedo').fill('1.5');
    await page.getByRole('button', { name: 'Submit job' }).click();
    assert.match(await visibleError('dem_file'), /Choose a DEM file/);
    assert.match(await visibleError('albedo_value'), /from 0 to 1/);
    assert.match(await visibleError('end_year'), /must not be before the start year/);
    assert.equal(await page.getByLabel('DEM file (GeoTIFF)').evaluate((i: any) => i === document.activeElement), true);
    assert.equal(await page.getByLabel('Albedo').getAttribute('aria-invalid'), 'true');

    await page.getByRole('radio', { name: /Solar radiation/ }).check();
    assert.equal(await page.getByLabel('Start year').isVisible(), false);
    await page.getByRole('button', { name: 'Reset to defaults' }).click();
    await page.waitForFunction(() => document.querySelectorAll('.error:not([hidden])').length === 0);
    assert.equal(await page.getByLabel('Albedo').inputValue(), '0.2');
    assert.deepEqual(errors, []);
  });

  it('shows upload progress, then the server\'s "not a GeoTIFF" detail next to the file field', async () => {
    await load();
    // A 2 MB upload over a throttled connection, so the progress is seen between 0 and 100 %.
    const big = join(svc.root, 'notes.txt');
    writeFileSync(big, Buffer.alloc(2 * 1024 * 1024, 'x'));
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 2 * 1024 * 1024 });
    try {
      await page.getByLabel('DEM file (GeoTIFF)').setInputFiles(big);
      await page.getByRole('button', { name: 'Submit job' }).click();
      await page.waitForFunction(() => {
        const p = document.getElementById('upload-progress');
        return p.value > 0 && p.value < 100;
      });
      assert.match((await page.locator('#upload-text').textContent())!, /^Uploading… .* of 2\.00 MB \(\d+ %\)/);
      assert.equal(await page.getByRole('button', { name: 'Submit job' }).isDisabled(), true);
      assert.match(await visibleError('dem_file'), /^DEM file must be a GeoTIFF \(\.tif\)/);
    } finally {
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
      await cdp.detach();
    }
    assert.equal(await page.locator('#upload-progress').evaluate((p: any) => p.value), 100);
    assert.equal(await page.getByLabel('DEM file (GeoTIFF)').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('DEM file (GeoTIFF)').evaluate((i: any) => i === document.activeElement), true);
    assert.equal(await page.getByRole('button', { name: 'Submit job' }).isDisabled(), false);
    assert.equal(await page.locator('#job').isVisible(), false);

    // A .tif that is not a GeoTIFF is refused by its content, next to the same field.
    const fake = join(svc.root, 'fake.tif');
    writeFileSync(fake, 'not a tiff');
    await page.getByLabel('DEM file (GeoTIFF)').setInputFiles(fake);
    await page.getByRole('button', { name: 'Submit job' }).click();
    await page.locator('#dem_file-error', { hasText: ':' }).waitFor();
    assert.match((await errorOf('dem_file').textContent())!, /^DEM file must be a GeoTIFF \(\.tif\): /);
    assert.deepEqual(errors, []);
  });

  it('shows the server\'s 422 detail for an out-of-range value next to that field', async () => {
    await load();
    await page.getByLabel('DEM file (GeoTIFF)').setInputFiles(dem);
    // Past the form's own range check: the server is the judge.
    await page.getByLabel('Linke turbidity').evaluate((i: any) => {
      i.removeAttribute('min');
      i.removeAttribute('max');
    });
    await page.getByLabel('Linke turbidity').fill('9');
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/api/submit-job')),
      page.getByRole('button', { name: 'Submit job' }).click(),
    ]);
    assert.equal(response.status(), 422);
    const detail = (await response.json()).detail as string;
    assert.match(detail, /^linke_value /);
    assert.equal(await visibleError('linke_value'), detail);
    assert.deepEqual(await noErrors(), [detail]);
    assert.equal(await page.getByLabel('Linke turbidity').evaluate((i: any) => i === document.activeElement), true);
    assert.equal(await page.locator('#job').isVisible(), false);
  });

  it('follows an eemt submission like any other', async () => {
    await load();
    await page.getByRole('radio', { name: /Full EEMT analysis/ }).check();
    await page.getByLabel('DEM file (GeoTIFF)').setInputFiles(dem);
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/api/submit-job')),
      page.getByRole('button', { name: 'Submit job' }).click(),
    ]);
    // the submission is followed like any other; the job is not waited for here
    assert.equal(response.status(), 200);
    const { job_id } = await response.json();
    await page.locator('#job-id', { hasText: job_id }).waitFor();
    await fetch(`${svc.base}/api/jobs/${job_id}/cancel`, { method: 'POST' });
    assert.deepEqual(errors, []);
  });

  it('eemt: a DEM outside Daymet, then a climate ZIP that lacks a month: each refusal shows at the climate-grids field', async () => {
    const alps = europeDem(svc.root);
    await load();
    await page.getByRole('radio', { name: /Full EEMT analysis/ }).check();
    await page.getByLabel('DEM file (GeoTIFF)').setInputFiles(alps);
    await page.getByRole('button', { name: 'Submit job' }).click();
    assert.match(await visibleError('climate_file'), /outside Daymet's coverage.*climate_file/);

    const files = climateFiles(mkdtempSync(join(svc.root, 'grids-')), 'climatology');
    delete files['vp_07.tif'];
    const zip = await zipOf(join(svc.root, 'grids.zip'), files);
    await page.getByLabel('Climate grids (optional ZIP)').setInputFiles(zip);
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/api/submit-job')),
      page.getByRole('button', { name: 'Submit job' }).click(),
    ]);
    assert.equal(response.status(), 400);
    assert.equal(await visibleError('climate_file'), 'climate_file lacks 1 grid needed for a 12-month climatology: vp_07.tif');
    assert.equal(await page.locator('#job').isVisible(), false);
  });

  it('submits a sol job, follows its status and progress to completion, and downloads the ZIP', async () => {
    await load();
    await page.getByRole('radio', { name: /Solar radiation/ }).check();
    await page.getByLabel('DEM file (GeoTIFF)').setInputFiles(dem);
    await page.getByLabel('CPU threads').fill('2');
    // Record every status and progress value the page shows.
    // (A script string: functions compiled by the test loader may carry helpers the page does not have.)
    await page.evaluate(`(() => {
      const seen = (window.seen = []);
      new MutationObserver(() =>
        seen.push(document.getElementById('job-status').textContent + ':' + document.getElementById('job-progress').value),
      ).observe(document.getElementById('job'), { subtree: true, childList: true, attributes: true, characterData: true });
    })()`);
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/api/submit-job')),
      page.getByRole('button', { name: 'Submit job' }).click(),
    ]);
    assert.equal(response.status(), 200);
    const { job_id: id } = await response.json();
    await page.locator('#job-id', { hasText: id }).waitFor();
    assert.equal(await page.locator('#upload-progress').evaluate((p: any) => p.value), 100);
    assert.match((await page.locator('#upload-text').textContent())!, /^Uploaded small\.tif \(.+\) and submitted as job /);
    assert.match(page.url(), new RegExp(`\\?job=${id}$`));
    assert.equal(await page.locator('#job-file').textContent(), 'small.tif');
    // The estimate made at submission, as the job detail gives it (formatBytes: KB, MB with 1–2 decimals).
    const estimate = ((await (await fetch(`${svc.base}/api/jobs/${id}`)).json()) as { output_estimate_bytes: number }).output_estimate_bytes;
    assert.ok(Number.isInteger(estimate) && estimate > 0, `output_estimate_bytes ${estimate}`);
    const shown = /^about ([\d.]+) (KB|MB)$/.exec((await page.locator('#job-estimate').textContent())!);
    assert.ok(shown, 'the panel shows the estimate');
    assert.ok(Math.abs(Number(shown[1]) * 1024 ** (shown[2] === 'KB' ? 1 : 2) - estimate) / estimate < 0.01, `${shown[0]} vs ${estimate} bytes`);

    const download = page.getByRole('link', { name: 'Download results (ZIP)' });
    await download.waitFor({ state: 'visible', timeout: 120_000 });
    assert.equal(await page.locator('#job-status').textContent(), 'completed');
    assert.equal(await page.locator('#job-progress').evaluate((p: any) => p.value), 100);
    assert.equal(await page.locator('#job-pct').textContent(), '100 %');
    assert.match((await page.locator('#job-completed').textContent())!, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
    assert.match((await page.locator('#announcer').textContent())!, /completed/);
    const seen = (await page.evaluate(() => (globalThis as any).seen)) as string[];
    const statuses = [...new Set(seen.map((s) => s.split(':')[0]))].filter(Boolean);
    assert.ok(statuses.some((s) => s === 'pending' || s === 'running'), `statuses seen: ${statuses.join(', ')}`);
    assert.equal(statuses.at(-1), 'completed');
    const values = seen.map((s) => Number(s.split(':')[1]));
    assert.deepEqual([...values].sort((a, b) => a - b), values, 'progress never goes back');

    const [file] = await Promise.all([page.waitForEvent('download'), download.click()]);
    assert.equal(file.suggestedFilename(), `eemt_results_${id}.zip`);
    const names = zipEntries(readFileSync((await file.path())!)).map((e) => e.name);
    assert.equal(names.filter((n) => /^global\/daily\/total_sun_day_\d+\.tif$/.test(n)).length, 365);
    assert.equal(names.filter((n) => /^global\/monthly\/total_sun_.+_sum\.tif$/.test(n)).length, 12);
    assert.equal(names.filter((n) => /^insol\/daily\/hours_sun_day_\d+\.tif$/.test(n)).length, 365);

    // The recent jobs list shows it, linked to its details in the monitor.
    const recent = page.locator('#recent li', { hasText: 'small.tif' }).first();
    await recent.locator('.badge', { hasText: 'completed' }).waitFor();
    assert.equal(await recent.getByRole('link').getAttribute('href'), `/monitor?job=${id}`);
    assert.equal(await page.getByRole('link', { name: 'Details and log' }).getAttribute('href'), `/monitor?job=${id}`);

    // Reloading the page keeps following the job.
    await page.reload();
    await page.locator('#job-status', { hasText: 'completed' }).waitFor();
    assert.equal(await page.locator('#job-id').textContent(), id);
    assert.deepEqual(errors, []);
  });

  it('shows user-supplied file names as text in the recent jobs list', async () => {
    const name = '<img src=x onerror=alert(1)>.tif';
    const form = new FormData();
    form.append('workflow_type', 'sol');
    form.append('step', '15');
    form.append('dem_file', new Blob([readFileSync(dem)]), name);
    const res = await fetch(`${svc.base}/api/submit-job`, { method: 'POST', body: form });
    assert.equal(res.status, 200);
    const { job_id: id } = (await res.json()) as { job_id: string };
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(`${svc.base}/?job=${id}`);
    await page.locator('#job-file', { hasText: name }).waitFor();
    assert.equal(await page.locator('#recent li a').first().textContent(), name);
    assert.equal(await page.locator('img').count(), 0);
    assert.deepEqual(dialogs, []);
    await fetch(`${svc.base}/api/jobs/${id}/cancel`, { method: 'POST' });
    assert.deepEqual(errors, []);
  });

  it('serves the pages with a strict content security policy, and their assets', async () => {
    for (const path of ['/', '/monitor']) {
      const res = await fetch(`${svc.base}${path}`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type')!, /^text\/html/);
      assert.match(res.headers.get('content-security-policy')!, /script-src 'self'/);
      const etag = res.headers.get('etag')!;
      assert.equal((await fetch(`${svc.base}${path}`, { headers: { 'If-None-Match': etag } })).status, 304);
    }
    for (const asset of ['style.css', 'submit.js', 'monitor.js', 'favicon.svg']) {
      assert.equal((await fetch(`${svc.base}/assets/${asset}`)).status, 200, asset);
    }
    assert.equal((await fetch(`${svc.base}/assets/..%2Fpackage.json`)).status, 404);
  });
});
