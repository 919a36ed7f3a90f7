import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { deflateSync } from 'node:zlib';
import {
  BlockTooLargeError,
  inflateBounded,
  lzwDecodeBounded,
  packBitsDecodeBounded,
  prepareZstd,
  zstdDecodeBounded,
} from '../../src/raster/tiff/boundedDecoders.js';
import { RasterFormatError, readDemFromBuffer } from '../../src/raster/index.js';
import { inspectTiff, bytesSource } from '../../src/raster/tiff/tiffStructure.js';
import { inflateBombDem, shrunkStripDem, zlibOfZeros } from '../security/hostileTiffs.js';
import { FIXTURE_DEM, gdalRead, tempDir, translate } from './gdal.js';

const { dir, cleanup } = tempDir('eemt-decoders');
after(cleanup);

/** The bytes of the single strip of a GDAL-written file. */
async function singleStrip(path: string): Promise<Buffer> {
  const bytes = readFileSync(path);
  const tiff = await inspectTiff(bytesSource(bytes));
  assert.equal(tiff.blocks.count, 1);
  return bytes.subarray(tiff.blocks.offsets[0]!, tiff.blocks.offsets[0]! + tiff.blocks.byteCounts[0]!);
}

describe('bounded decoders decode what GDAL writes', () => {
  test('LZW: a 48 108-byte strip with dictionary resets equals GDAL’s own decoding', async () => {
    const args = ['-ot', 'Byte', '-scale', '2290', '2620', '0', '255', '-co', 'BLOCKYSIZE=211'];
    const lzw = translate(FIXTURE_DEM, join(dir, 'lzw.tif'), [...args, '-co', 'COMPRESS=LZW']);
    const expected = Uint8Array.from(gdalRead(lzw, dir, 'Float32'));
    const strip = await singleStrip(lzw);
    const decoded = lzwDecodeBounded(strip, 228 * 211);
    assert.equal(decoded.length, 228 * 211);
    assert.deepEqual(decoded, expected);
    // More than 3838 codes of at most 12 bits: the 4096-entry dictionary filled and was reset at least once.
    assert.ok((strip.length * 8) / 12 > 4096 - 258, `${strip.length} compressed bytes`);
  });

  test('PackBits: the example of the TIFF 6.0 specification (section 9)', () => {
    const packed = Buffer.from('FEAA0280002AFDAA0380002A22F7AA', 'hex');
    const unpacked = Buffer.from('AAAAAA80002AAAAAAAAA80002A22AAAAAAAAAAAAAAAAAAAA', 'hex');
    assert.deepEqual(Buffer.from(packBitsDecodeBounded(packed, 24)), unpacked);
    assert.throws(() => packBitsDecodeBounded(packed, 23), BlockTooLargeError);
  });

  test('DEFLATE: exactly the declared size is fine, one byte more is not', async () => {
    const data = Buffer.alloc(4096, 7);
    assert.equal((await inflateBounded(deflateSync(data), 4096)).length, 4096);
    await assert.rejects(inflateBounded(deflateSync(data), 4095), (error: unknown) => {
      assert.ok(error instanceof BlockTooLargeError);
      assert.match(error.message, /more than the 4095 bytes/);
      return true;
    });
  });
});

describe('blocks that decode to more than their cells hold are stopped, not allocated', () => {
  for (const compression of ['LZW', 'PACKBITS', 'ZSTD', 'DEFLATE']) {
    test(`${compression}: a strip of 64 MiB (or 4 MiB for PackBits) declared as 256 × 256 cells`, async () => {
      const side = compression === 'PACKBITS' ? 2048 : 8192;
      const hostile = shrunkStripDem(dir, compression, side);
      const strip = await singleStrip(writeBack(hostile, `${compression}.tif`));
      const decode = { LZW: lzwDecodeBounded, PACKBITS: packBitsDecodeBounded, ZSTD: zstdDecodeBounded, DEFLATE: inflateBounded }[compression]!;
      await prepareZstd();
      // (DEFLATE's rejects: it inflates on the thread pool)
      await assert.rejects(async () => decode(strip, 256 * 256), BlockTooLargeError);
      await assert.rejects(readDemFromBuffer(hostile), (error: unknown) => {
        assert.ok(error instanceof RasterFormatError, String(error));
        assert.equal(error.code, 'DAMAGED');
        assert.match(error.message, /decodes to more than the 65536 bytes its cells hold/);
        return true;
      });
    });
  }

  test('a 1 MB tile that inflates to 1 GiB, declared as 1024 × 1024 Float32 cells', async () => {
    await assert.rejects(readDemFromBuffer(inflateBombDem(1024 ** 3)), /decodes to more than the 4194304 bytes its cells hold/);
  });

  test('the zlib stream of zeros inflates to exactly its size', async () => {
    const stream = zlibOfZeros(32 * 1024 ** 2);
    const out = await inflateBounded(stream, 32 * 1024 ** 2);
    assert.equal(out.length, 32 * 1024 ** 2);
    assert.ok(out.every((v) => v === 0));
  });

  function writeBack(bytes: Buffer, name: string): string {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    return path;
  }
});
