import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { resultEntries, zipStream } from '../../src/jobs/catalogue/results.js';

const dir = mkdtempSync(join(tmpdir(), 'results-zip-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function streamedLength(stream: NodeJS.ReadableStream): Promise<number> {
  let n = 0;
  for await (const chunk of stream) n += (chunk as Buffer).length;
  return n;
}

test('the predicted size of a stored archive is its size, also when the central directory passes 64 KiB', async () => {
  for (const count of [10, 800]) {
    const out = join(dir, `out-${count}`);
    mkdirSync(join(out, 'global', 'daily'), { recursive: true });
    for (let i = 0; i < count; i++) writeFileSync(join(out, 'global', 'daily', `total_sun_day_with_a_long_name_${i}.tif`), Buffer.alloc(100, i));
    const files = await resultEntries(out);
    const zip = zipStream(out, files, [{ name: 'stac.json', bytes: Buffer.from('{}') }]);
    const [size, length] = await Promise.all([zip.size, streamedLength(zip.stream)]);
    assert.equal(size, length, `${count} files`);
  }
});
