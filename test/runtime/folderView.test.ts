/**
 * The view of the host's folders that a root service gives the job user (src/runtime/folderView.ts): which
 * folders it replaces and the bwrap arguments that build it, on real folders whose modes say what the job user
 * (uid 65534, in no group of theirs) may search.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { folderViewFor, jobUserCanSearch } from '../../src/runtime/folderView.js';

describe('folder view for the job user', () => {
  let root: string;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'eemt-view-'));
    chmodSync(root, 0o755); // each test makes its own closed folders inside
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  /** `tree` under a fresh folder of mode `mode` inside root; folders end in '/', modes after ':'. */
  function make(name: string, mode: number, tree: string[]): string {
    const base = join(root, name);
    mkdirSync(base);
    chmodSync(base, mode);
    for (const entry of tree) {
      const [path, octal] = entry.split(':') as [string, string | undefined];
      const full = join(base, path);
      mkdirSync(path.endsWith('/') ? full : dirname(full), { recursive: true });
      if (!path.endsWith('/')) writeFileSync(full, 'x');
      if (octal) chmodSync(full, parseInt(octal, 8));
    }
    return base;
  }

  test('the job user may search by owner, group or other bits', async () => {
    const base = make('modes', 0o755, ['others/:700', 'group/:750', 'mine/:700', 'open/:711']);
    const { chownSync } = await import('node:fs');
    chownSync(join(base, 'group'), 0, 65534);
    chownSync(join(base, 'mine'), 65534, 65534);
    assert.equal(await jobUserCanSearch(join(base, 'others')), false);
    assert.equal(await jobUserCanSearch(join(base, 'group')), true);
    assert.equal(await jobUserCanSearch(join(base, 'mine')), true);
    assert.equal(await jobUserCanSearch(join(base, 'open')), true);
    assert.equal(await jobUserCanSearch(join(base, 'missing')), true, 'nothing to replace');
  });

  test('folders open to the job user need no view', async () => {
    const base = make('open', 0o755, ['results/job/', 'uploads/job/', 'uploads/job/dem.tif']);
    const view = await folderViewFor([{ path: join(base, 'results/job') }, { path: join(base, 'uploads/job/dem.tif') }]);
    assert.deepEqual(view.closed, []);
    assert.deepEqual(view.args, []);
    assert.equal(view.shows(join(base, 'results')), true);
  });

  test('a closed data folder is replaced by one holding only the job paths, at their own paths', async () => {
    const base = make('private', 0o700, ['results/job/output/', 'results/other/', 'uploads/job/dem.tif', 'jobs.db', 'temp/job/']);
    const view = await folderViewFor([
      { path: join(base, 'results/job') },
      { path: join(base, 'temp/job') },
      { path: join(base, 'uploads/job/dem.tif') },
    ]);
    assert.deepEqual(view.closed, [base]);
    const p = (rel: string) => join(base, rel);
    assert.deepEqual(view.args, [
      '--tmpfs', base,
      '--dir', p('results'), '--dir', p('temp'), '--dir', p('uploads'),
      '--bind', p('results/job'), p('results/job'), '--bind', p('temp/job'), p('temp/job'), '--dir', p('uploads/job'),
      '--bind', p('uploads/job/dem.tif'), p('uploads/job/dem.tif'),
    ]);
    // what the view holds, and what it hides
    for (const shown of ['', 'results', 'results/job', 'results/job/output', 'uploads/job/dem.tif']) assert.equal(view.shows(p(shown)), true, shown);
    for (const hidden of ['jobs.db', 'results/other', 'uploads/job/other.tif']) assert.equal(view.shows(p(hidden)), false, hidden);
  });

  test('only the closed folder is replaced; folders below it in a bound path are checked again', async () => {
    const base = make('deep', 0o755, ['a/:700', 'a/b/c/', 'a/b/c/d/:700', 'a/b/c/d/e/']);
    const view = await folderViewFor([{ path: join(base, 'a/b/c') }, { path: join(base, 'a/b/c/d/e') }]);
    assert.deepEqual(view.closed, [join(base, 'a'), join(base, 'a/b/c/d')]);
    assert.deepEqual(view.args, [
      '--tmpfs', join(base, 'a'),
      '--dir', join(base, 'a/b'),
      '--bind', join(base, 'a/b/c'), join(base, 'a/b/c'),
      '--tmpfs', join(base, 'a/b/c/d'),
      '--bind', join(base, 'a/b/c/d/e'), join(base, 'a/b/c/d/e'),
    ]);
  });

  test('a closed code folder is shown with its entries bound back, links as links', async () => {
    const base = make('clone', 0o700, ['package.json', 'dist/', 'node_modules/']);
    symlinkSync('dist', join(base, 'latest'));
    const view = await folderViewFor([{ path: base, entries: true }]);
    assert.deepEqual(view.closed, [base]);
    const entries = view.args.slice(2);
    assert.deepEqual(view.args.slice(0, 2), ['--tmpfs', base]);
    const binds = new Set<string>();
    for (let i = 0; i < entries.length; i += 3) {
      if (entries[i] === '--symlink') assert.deepEqual(entries.slice(i, i + 3), ['--symlink', 'dist', join(base, 'latest')]);
      else {
        assert.equal(entries[i], '--bind');
        assert.equal(entries[i + 1], entries[i + 2]);
        binds.add(entries[i + 1]!);
      }
    }
    assert.deepEqual([...binds].sort(), ['dist', 'node_modules', 'package.json'].map((e) => join(base, e)));
    // a code folder that is closed to the job user but needs no entries is only reached
    const reached = await folderViewFor([{ path: base }]);
    assert.deepEqual(reached.args, []);
  });

  test('paths are placed by their real paths', async () => {
    const base = make('real', 0o700, ['data/results/job/']);
    const link = join(root, 'data-link');
    symlinkSync(join(base, 'data'), link);
    const view = await folderViewFor([{ path: join(link, 'results/job') }]);
    assert.deepEqual(view.closed, [base]);
    assert.ok(view.args.includes(join(base, 'data/results/job')));
    assert.equal(view.shows(join(link, 'results/job')), true);
  });
});
