// Needs: chromium, gdal
/**
 * The results view in headless Chromium against the real service with the real job child: a sol job on the test DEM
 * and an eemt job (against a local Daymet stand-in) run to completion, then `/` and the monitor's details view show
 * the annual map with its legend (the legend's numbers are the preview JSON's), the hillshade toggle, the day picker,
 * the chart of the 12 monthly means (bar heights in the ratio of the means) and, for eemt, the EEMT maps.
 * With EEMT_SCREENSHOT_DIR set, screenshots of both pages are written there.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startDaymetServer, type DaymetTestServer } from '../helpers/daymetServer.js';
import { apiJob, apiSubmit, DEM, launchBrowser, smallDem, startPagesService, waitFor, watchErrors, type PagesService } from './helpers.js';

// Page functions run in the browser; this Node-side program has no DOM types.
declare const document: any;

const SCREENSHOTS = process.env.EEMT_SCREENSHOT_DIR;
const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

describe('results view (maps, legend, monthly chart)', { timeout: 600_000 }, () => {
  let svc: PagesService;
  let daymet: DaymetTestServer;
  let browser: Browser;
  let solId: string;
  let eemtId: string;
  const previousUrl = process.env.EEMT_DAYMET_URL;

  before(async () => {
    const browserStarting = launchBrowser();
    daymet = await startDaymetServer();
    process.env.EEMT_DAYMET_URL = daymet.url; // the job child reads it
    svc = await startPagesService({ env: { EEMT_MAX_CONCURRENT_JOBS: '2' } });
    if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true });
    const sol = await apiSubmit(svc.base, { workflow_type: 'sol', step: '60', num_threads: '2' }, { name: 'mcn_10m.tif', bytes: readFileSync(DEM) });
    assert.equal(sol.status, 200, JSON.stringify(sol.body));
    solId = sol.body.job_id;
    const crop = readFileSync(smallDem(svc.root, 64, 'crop64.tif'));
    const eemt = await apiSubmit(svc.base, { workflow_type: 'eemt', step: '60', num_threads: '1', start_year: '2020', end_year: '2020' }, { name: 'crop64.tif', bytes: crop });
    assert.equal(eemt.status, 200, JSON.stringify(eemt.body));
    eemtId = eemt.body.job_id;
    for (const id of [solId, eemtId]) {
      const job = await waitFor(`job ${id} to end`, async () => {
        const j = await apiJob(svc.base, id);
        return j.status === 'completed' || j.status === 'failed' ? j : null;
      }, 400_000, 500);
      assert.equal(job.status, 'completed', job.error_message);
    }
    browser = await browserStarting;
  });
  after(async () => {
    await browser?.close();
    await svc?.stop();
    await daymet?.close();
    if (previousUrl === undefined) delete process.env.EEMT_DAYMET_URL;
    else process.env.EEMT_DAYMET_URL = previousUrl;
  });

  const legendOf = async (id: string, product: string) => (await (await fetch(`${svc.base}/api/jobs/${id}/preview/${product}.json`)).json()) as any;
  const number = (text: string | null) => Number(text!.replace(/,/g, ''));

  /** Every image of the page has loaded (none broken). */
  async function imagesLoaded(page: Page, selector = 'img') {
    await waitFor('the images to load', () =>
      page.evaluate((sel: string) => [...document.querySelectorAll(sel)].every((img: any) => img.complete && img.naturalWidth > 0), selector),
    10_000);
  }

  /** The legend's minimum and maximum equal the preview JSON's (to the shown precision), with the unit. */
  async function checkLegend(page: Page, figure: string, legend: any) {
    const min = number(await page.locator(`${figure} .legend-min`).textContent());
    const max = number(await page.locator(`${figure} .legend-max`).textContent());
    assert.ok(Math.abs(min - legend.min) <= Math.max(0.5, Math.abs(legend.min) * 0.005), `legend min ${min} vs ${legend.min}`);
    assert.ok(Math.abs(max - legend.max) <= Math.max(0.5, Math.abs(legend.max) * 0.005), `legend max ${max} vs ${legend.max}`);
    assert.ok((await page.locator(`${figure} .legend-unit`).textContent())!.length > 0);
  }

  /** 12 bars, one per month, with heights in the ratio of the months' means; month labels and the unit on the axes. */
  async function checkChart(page: Page, scope: string, id: string) {
    const bars = page.locator(`${scope} .chart .bar`);
    await waitFor('the chart', async () => (await bars.count()) === 12, 10_000);
    const heights = await bars.evaluateAll((els: any[]) => els.map((e) => Number(e.getAttribute('height'))));
    const means = await Promise.all(MONTHS.map(async (m) => (await legendOf(id, `month-${m}`)).mean as number));
    const june = heights[5]! / means[5]!;
    heights.forEach((hgt, i) => assert.ok(Math.abs(hgt / means[i]! - june) / june < 0.01, `bar ${MONTHS[i]} height ${hgt} for mean ${means[i]}`));
    assert.ok(means[5]! > means[11]!, 'June is brighter than December');
    assert.deepEqual(await page.locator(`${scope} .chart .month`).allTextContents(), ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']);
    assert.match((await page.locator(`${scope} .chart .axis-title`).first().textContent())!, /Wh m⁻² month⁻¹/);
    const brightest = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][means.indexOf(Math.max(...means))];
    assert.match((await page.locator(`${scope} .chart-summary`).textContent())!, new RegExp(`Brightest month${brightest},`));
  }

  it('/ shows the finished sol job: annual map with legend, hillshade, day picker, monthly chart', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
    const errors = watchErrors(page, svc.base);
    await page.goto(`${svc.base}/?job=${solId}`);
    const panel = page.locator('#results-panel');
    await panel.waitFor();
    const img = panel.locator('.map-main img');
    await waitFor('the annual map', async () => /\/preview\/annual\.png$/.test((await img.getAttribute('src')) ?? ''), 10_000);
    await imagesLoaded(page);
    assert.equal(await panel.locator('.map-main .map-title').textContent(), 'Annual global irradiation (sum of the 12 monthly sums)');
    await checkLegend(page, '#results-panel .map-main', await legendOf(solId, 'annual'));
    await checkChart(page, '#results-panel', solId);
    assert.equal(await panel.locator('.map-day').isDisabled(), true, 'the day picker is for daily maps');
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, 'index-sol.png'), fullPage: true });

    // Hillshade: another image of the same map.
    await panel.getByLabel('Hillshade').check();
    await waitFor('the hillshaded map', async () => /annual\.png\?hillshade=1$/.test((await img.getAttribute('src')) ?? ''), 10_000);
    await imagesLoaded(page);
    const plain = Buffer.from(await (await fetch(`${svc.base}/api/jobs/${solId}/preview/annual.png`)).arrayBuffer());
    const shaded = Buffer.from(await (await fetch(`${svc.base}/api/jobs/${solId}/preview/annual.png?hillshade=1`)).arrayBuffer());
    assert.notDeepEqual(plain, shaded);

    // Daily maps: the day picker swaps the map and its legend.
    await panel.getByLabel('Map').selectOption('day');
    await panel.getByLabel('Day of year').fill('10');
    await waitFor('day 10', async () => /day-10\.png\?hillshade=1$/.test((await img.getAttribute('src')) ?? ''), 10_000);
    await imagesLoaded(page);
    assert.equal(await panel.locator('.map-main .map-title').textContent(), 'Daily global irradiation, day 10');
    assert.equal(await panel.locator('.map-day-label').textContent(), '10 · 10 Jan');
    await checkLegend(page, '#results-panel .map-main', await legendOf(solId, 'day-10'));
    await panel.getByLabel('Map').selectOption('hours-day');
    await waitFor('hours of day 10', async () => /hours-day-10\.png/.test((await img.getAttribute('src')) ?? ''), 10_000);
    await page.locator('#results-panel .legend-unit', { hasText: /^h$/ }).waitFor();
    await imagesLoaded(page);
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('the monitor details view shows the eemt job with the EEMT maps, and the sol job with its chart', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
    const errors = watchErrors(page, svc.base);
    await page.goto(`${svc.base}/monitor?job=${eemtId}`);
    const dialog = page.getByRole('dialog');
    await dialog.locator('.map-eemt').nth(1).locator('.legend').waitFor({ timeout: 15_000 });
    await imagesLoaded(page, 'dialog img');
    const titles = await dialog.locator('.map-eemt .map-title').allTextContents();
    assert.deepEqual(titles, ['EEMT-TOPO, annual (2020)', 'EEMT-TRAD, annual (2020)']);
    await checkLegend(page, 'dialog .map-eemt:nth-child(1)', await legendOf(eemtId, 'eemt-topo-annual'));
    await checkLegend(page, 'dialog .map-eemt:nth-child(2)', await legendOf(eemtId, 'eemt-trad-annual'));
    await checkChart(page, 'dialog', eemtId);
    await dialog.getByLabel('Map').selectOption('twi');
    await dialog.locator('.map-main .map-title', { hasText: 'Topographic wetness index' }).waitFor();
    await imagesLoaded(page, 'dialog img');
    await dialog.getByLabel('Map').selectOption('annual');
    await dialog.locator('.map-main .map-title', { hasText: 'Annual global irradiation' }).waitFor();
    await imagesLoaded(page, 'dialog img');
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, 'monitor-eemt.png') });

    await page.getByRole('button', { name: 'Close the details' }).click();
    await page.goto(`${svc.base}/monitor?job=${solId}`);
    await checkChart(page, 'dialog', solId);
    await imagesLoaded(page, 'dialog img');
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, 'monitor-sol.png') });
    assert.deepEqual(errors, []);
    await page.close();
  });
});
