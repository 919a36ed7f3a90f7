/**
 * /docs (Swagger UI) and /redoc render with no internet access: every resource comes from the service.
 *
 * The pages' scripts are delayed on purpose, so the text appears only after the test has started waiting for it.
 * This once failed now and then with `EvalError … violates … script-src 'self'`: the wait used Playwright's
 * `waitForFunction` with a string predicate, which re-evaluates the string with `eval` in the page on every poll,
 * and the pages' content security policy forbids eval. It passed only when the page had rendered before the first
 * check. The wait now uses a locator, which needs no eval in the page.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../e2e/helpers.js';
import { skipUnless } from '../helpers/systemTools.js';
import { startTestService, type TestService } from './helpers.js';

const skip = skipUnless('chromium');
let svc: TestService;
let browser: Browser;

before(async () => {
  if (skip) return;
  svc = await startTestService({ env: { EEMT_RUNTIME: 'process' } });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await svc?.stop();
});

for (const [path, expected, script] of [
  ['/docs', /POST\s*\/api\/submit-job/, '/docs/static/swagger-ui-bundle.js'],
  ['/redoc', /submit-job/i, '/redoc/redoc.standalone.js'],
] as const) {
  test(`${path} renders with no internet access, however late its script arrives`, { skip }, async () => {
    const page = await browser.newPage();
    const external: string[] = [];
    let delayed = 0;
    await page.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.protocol === 'data:' || url.protocol === 'blob:') return route.continue();
      if (url.origin !== new URL(svc.base).origin) {
        external.push(url.href);
        return route.abort();
      }
      if (url.pathname !== script) return route.continue();
      delayed++;
      return new Promise<void>((resolve) => setTimeout(() => resolve(route.continue()), 1500));
    });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${svc.base}${path}`, { waitUntil: 'commit' });
    assert.equal(await page.locator('body', { hasText: expected }).count(), 0, 'not rendered before its script arrives');
    await page.locator('body', { hasText: expected }).waitFor({ timeout: 20_000 });
    assert.equal(delayed, 1, `${script} was requested once`);
    assert.deepEqual(external, [], 'no request left the machine');
    assert.deepEqual(errors, []);
    await page.close();
  });
}
