import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { listRegularFiles, NotRegularFileError, openRegularFile, tailLines } from '../../src/jobs/store/files.js';
import { zipStream } from '../../src/jobs/catalogue/results.js';
import { tempDir } from '../raster/gdal.js';

const { dir, cleanup } = tempDir('eemt-files');
after(cleanup);
const secret = join(dir, 'secret.txt');
writeFileSync(secret, 'TOP SECRET\n');

describe('reading files a job could have written', () => {
  test('a link, a FIFO or a folder is refused; a regular file is read', async () => {
    const folder = join(dir, 'a');
    mkdirSync(folder);
    writeFileSync(join(folder, 'job.log'), 'one\ntwo\nthree\n');
    assert.deepEqual(await tailLines(join(folder, 'job.log'), 2), ['two', 'three']);
    symlinkSync(secret, join(folder, 'link.log'));
    execFileSync('mkfifo', [join(folder, 'fifo.log')]);
    for (const name of ['link.log', 'fifo.log', '.']) {
      await assert.rejects(tailLines(join(folder, name), 10), NotRegularFileError, name);
    }
    assert.deepEqual(await tailLines(join(folder, 'missing.log'), 10), []);
  });

  test('listing skips links, FIFOs and linked folders', async () => {
    const out = join(dir, 'out');
    mkdirSync(join(out, 'global'), { recursive: true });
    writeFileSync(join(out, 'global', 'a.tif'), 'a');
    symlinkSync(secret, join(out, 'leak.tif'));
    symlinkSync(dir, join(out, 'leakdir'));
    execFileSync('mkfifo', [join(out, 'fifo.tif')]);
    assert.deepEqual((await listRegularFiles(out)).map((f) => f.rel), ['global/a.tif']);
  });

  test('a listed file swapped for a link, or reached through a swapped folder, is not read', async () => {
    const out = join(dir, 'swap');
    mkdirSync(join(out, 'global'), { recursive: true });
    writeFileSync(join(out, 'global', 'a.tif'), 'a');
    const [listed] = await listRegularFiles(out);
    // The folder on the way becomes a link to a folder holding a file of the same name.
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, 'a.tif'), 'TOP SECRET');
    renameSync(join(out, 'global'), join(out, 'moved'));
    symlinkSync(elsewhere, join(out, 'global'));
    await assert.rejects(openRegularFile(join(out, listed!.rel), listed!.stats), NotRegularFileError);
    // And the ZIP stream ends with an error instead of including it.
    const zip = zipStream(out, [listed!]);
    const chunks: Buffer[] = [];
    await assert.rejects(
      new Promise((resolve, reject) => {
        zip.stream.on('data', (c: Buffer) => chunks.push(c));
        zip.stream.on('end', resolve);
        zip.stream.on('error', reject);
      }),
      NotRegularFileError,
    );
    assert.ok(!Buffer.concat(chunks).includes('TOP SECRET'));
    rmSync(join(out, 'global'));
  });
});
