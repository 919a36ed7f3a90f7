// Needs: python-clients
/**
 * The Python path of docs/python.md: the script on that page, run as it is with Debian's Python and its OWSLib,
 * requests and rasterio, against a real service process — processes listed, a sol job executed and followed to
 * successful, a result COG opened over HTTP, the STAC catalogue walked.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, test } from 'node:test';
import { DEBIAN_PYTHON } from '../helpers/systemTools.js';
import { REPO_ROOT, serviceEnv, startServiceProcess } from '../server/serviceProcess.js';

const run = promisify(execFile);
const roots: string[] = [];
after(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** The one Python block of docs/python.md. */
function scriptOfTheDocs(): string {
  const page = readFileSync(join(REPO_ROOT, 'docs/python.md'), 'utf8');
  const blocks = [...page.matchAll(/```python\n([\s\S]*?)```/g)].map((m) => m[1]!);
  assert.equal(blocks.length, 1, 'docs/python.md has one script');
  return blocks[0]!;
}

test("docs/python.md's script runs as it is against a real service", { timeout: 600_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), 'eemt-python-'));
  roots.push(root);
  const script = join(root, 'eemt_client.py');
  writeFileSync(script, scriptOfTheDocs());
  const service = startServiceProcess(serviceEnv(root, { CONTAINER_CPU_LIMIT: '2', CONTAINER_MEMORY_LIMIT: '2G' }));
  try {
    const base = await service.address();
    const { stdout } = await run(DEBIAN_PYTHON, [script, base, join(REPO_ROOT, 'test/fixtures/mcn_10m.tif')], { cwd: root, timeout: 540_000 });
    assert.match(stdout, /^process sol: /m);
    assert.match(stdout, /^process eemt: /m);
    const id = /^job (\S+) successful$/m.exec(stdout)?.[1];
    assert.ok(id, stdout);
    assert.match(stdout, /^June: 228 x 211 cells, EPSG:26913, unit Wh m-2 month-1$/m);
    const mean = Number(/^June: mean ([\d.]+)/m.exec(stdout)?.[1]);
    assert.ok(mean > 150_000 && mean < 300_000, `June's mean ${mean} Wh m-2 month-1`);
    assert.match(stdout, /^collection sol: /m);
    assert.match(stdout, new RegExp(`^item ${id} in sol, \\d+ assets$`, 'm'));
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- service:\n${service.output().slice(-4000)}`);
  } finally {
    process.kill(-service.pid, 'SIGTERM');
    await service.exit;
  }
});
