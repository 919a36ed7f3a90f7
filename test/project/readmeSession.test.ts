// Needs: gdal, curl, unzip
/**
 * The README's curl session (submit, poll, download, unzip, gdalinfo) runs as written against a real service: the
 * shell block under "A session with curl" is taken from the README, pointed at the test service, run by bash in a
 * temp folder, and must end with the output the README shows. The job is a real sol job (60-minute step).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startTestService, type TestService } from '../server/helpers.js';
import { REPO_ROOT } from '../server/serviceProcess.js';

let svc: TestService;
let work: string;

before(async () => {
  svc = await startTestService({ env: { EEMT_RUNTIME: 'process' } });
  work = mkdtempSync(join(tmpdir(), 'eemt-readme-'));
  mkdirSync(join(work, 'test/fixtures'), { recursive: true });
  copyFileSync(join(REPO_ROOT, 'test/fixtures/mcn_10m.tif'), join(work, 'test/fixtures/mcn_10m.tif'));
});
after(async () => {
  await svc.stop();
  rmSync(work, { recursive: true, force: true });
});

/** The first fenced block of `language` after `heading` in the README. */
function block(readme: string, heading: string, language: string): string {
  const start = readme.indexOf(heading);
  assert.ok(start >= 0, `README has "${heading}"`);
  const match = new RegExp('```' + language + '\\n([^]*?)```').exec(readme.slice(start));
  assert.ok(match, `a ${language || 'plain'} block after "${heading}"`);
  return match[1]!;
}

test('the README curl session submits, polls, downloads, unzips and reads a result as it says', { timeout: 180_000 }, async () => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const session = block(readme, '### A session with curl', 'sh');
  const expectedEnd = block(readme, 'which ends with', '');
  assert.match(session, /http:\/\/127\.0\.0\.1:5000\//);
  const script = session.replaceAll('http://127.0.0.1:5000', svc.base);
  // Asynchronous: the service answers from this process's event loop.
  const run = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], { cwd: work, encoding: 'utf8', timeout: 150_000 });
  assert.match(run.stdout, /"status":"completed"/);
  assert.match(run.stdout, /"progress":100/);
  assert.ok(run.stdout.endsWith(expectedEnd), `output ends with the README's lines:\n${run.stdout}`);
});
