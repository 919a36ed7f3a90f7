import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { startTestService, type TestService } from './helpers.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
let svc: TestService;
let browser: Browser;

before(async () => {
  svc = await startTestService({ env: { EEMT_RUNTIME: 'process' } });
  if (CHROMIUM) browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
});
after(async () => {
  await browser?.close();
  await svc.stop();
});

for (const [path, expected] of [
  ['/docs', /submit-job/],
  ['/redoc', /submit-job/i],
] as const) {
  test(`${path} renders with no internet access`, { skip: !CHROMIUM && 'chromium not installed' }, async () => {
    const page = await browser.newPage();
    const external: string[] = [];
    await page.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.hostname === '127.0.0.1' || url.protocol === 'data:' || url.protocol === 'blob:') return route.continue();
      external.push(route.request().url());
      return route.abort();
    });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${svc.base}${path}`);
    const check = `new RegExp(${JSON.stringify(expected.source)}, 'i').test(document.body.innerText)`;
    await page.waitForFunction(check, undefined, { timeout: 20_000 });
    assert.deepEqual(external, [], 'no request left the machine');
    assert.deepEqual(errors, []);
    await page.close();
  });
}
