/**
 * The pages and the API documentation opened from another machine over plain http. `/docs` was once blank there:
 * its content security policy carried `upgrade-insecure-requests`, so a browser at http://<host>:5000/docs asked
 * for its scripts over https. Browsers exempt loopback addresses from that rule, so the test needs a client on
 * another network stack: Chromium runs in a network namespace and reaches the service at the non-loopback address
 * of a veth pair (root and iproute2; skipped with a reason otherwise).
 */
import assert from 'node:assert/strict';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { createTestNetwork, type TestNetwork } from '../helpers/netns.js';
import { CHROMIUM_PATH, skipUnless } from '../helpers/systemTools.js';
import { launchBrowser, startPagesService, type PagesService } from './helpers.js';

const skip = skipUnless('chromium', 'netns');

describe('pages and API documentation from another machine over http', { skip }, () => {
  let network: TestNetwork;
  let svc: PagesService;
  let browser: Browser;

  before(async () => {
    network = createTestNetwork();
    svc = await startPagesService({ stub: true, host: network.hostAddress });
    const wrapper = join(svc.root, 'chromium-in-namespace');
    writeFileSync(wrapper, `#!/bin/sh\nexec ip netns exec ${network.namespace} ${CHROMIUM_PATH} "$@"\n`);
    chmodSync(wrapper, 0o755);
    browser = await launchBrowser(wrapper);
  });
  after(async () => {
    await browser?.close();
    await svc?.stop();
    network?.close();
  });

  for (const [path, expected] of [
    ['/docs', /POST\s*\/api\/submit-job/],
    ['/redoc', /submit-job/i],
    ['/', /Submit a job/],
    ['/monitor', /Job monitor/],
  ] as const) {
    test(`${path} renders with every resource fetched over http from the service`, async () => {
      assert.ok(!svc.base.includes('127.0.0.1'), `the service listens on ${svc.base}`);
      const page = await browser.newPage();
      const requests: string[] = [];
      const failures: string[] = [];
      page.on('request', (r) => requests.push(r.url()));
      page.on('requestfailed', (r) => failures.push(`${r.url()}: ${r.failure()?.errorText}`));
      page.on('pageerror', (e) => failures.push(`pageerror: ${e.message}`));
      const response = await page.goto(`${svc.base}${path}`);
      assert.equal(response?.status(), 200);
      await page.locator('body', { hasText: expected }).waitFor({ timeout: 20_000 });
      assert.doesNotMatch(response?.headers()['content-security-policy'] ?? '', /upgrade-insecure-requests/i);
      const elsewhere = requests.filter((url) => !url.startsWith(`${svc.base}/`) && !/^(data|blob):/.test(url));
      assert.deepEqual(elsewhere, [], 'every request goes to the service over http');
      assert.ok(requests.length > 1, 'the page loaded its scripts');
      assert.deepEqual(failures, []);
      await page.close();
    });
  }
});
