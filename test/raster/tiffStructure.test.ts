import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { RasterFormatError } from '../../src/raster/index.js';
import {
  bytesSource,
  describeBytes,
  inspectTiff,
  inspectTiffFile,
  MAX_IMAGE_DIRECTORIES,
  type ByteSource,
  type TiffLimits,
} from '../../src/raster/tiff/tiffStructure.js';
import {
  selfLoopingDirectory,
  sharedTileDem,
  smallDem,
  tiffLayout,
  withNextDirectory,
  withTagCount,
  withTagValue,
} from '../security/hostileTiffs.js';
import { FIXTURE_DEM, gdal, gdalinfo, tempDir, translate } from './gdal.js';

const { dir, cleanup } = tempDir('eemt-structure');
after(cleanup);

/** A byte source that counts what is read. */
function counting(bytes: Uint8Array): ByteSource & { bytesRead: number } {
  const source = bytesSource(bytes);
  const counted = {
    size: source.size,
    bytesRead: 0,
    async read(position: number, length: number) {
      counted.bytesRead += length;
      return source.read(position, length);
    },
  };
  return counted;
}

async function rejects(bytes: Uint8Array, code: RasterFormatError['code'], message: RegExp, limits: TiffLimits = {}): Promise<void> {
  await assert.rejects(inspectTiff(bytesSource(bytes), limits), (error: unknown) => {
    assert.ok(error instanceof RasterFormatError, String(error));
    assert.equal(error.code, code, error.message);
    assert.match(error.message, message);
    return true;
  });
}

describe('the TIFF structure of files GDAL writes', () => {
  let small: Buffer;
  before(() => {
    small = readFileSync(smallDem(dir));
  });

  test('the fixture: classic little-endian, striped, georeferenced', async () => {
    const info = gdalinfo(FIXTURE_DEM);
    const tiff = await inspectTiffFile(FIXTURE_DEM);
    assert.deepEqual([tiff.width, tiff.height], info.size);
    assert.equal(tiff.littleEndian, true);
    assert.equal(tiff.bigTiff, false);
    assert.equal(tiff.imageCount, 1);
    assert.equal(tiff.samplesPerPixel, 1);
    assert.deepEqual(tiff.bitsPerSample, [64]);
    assert.equal(tiff.sampleFormat, 3);
    assert.equal(tiff.blocks.tiled, false);
    assert.deepEqual([tiff.blocks.blockWidth, tiff.blocks.blockHeight], info.bands[0]!.block);
    assert.equal(tiff.blocks.count, Math.ceil(211 / info.bands[0]!.block[1]));
    assert.equal(tiff.blocks.decodedBytes, 228 * info.bands[0]!.block[1] * 8);
    assert.ok(tiff.hasGeoKeys && tiff.hasGeoTransform);
  });

  test('BigTIFF, big-endian, tiled DEFLATE with overviews', async () => {
    const path = translate(FIXTURE_DEM, join(dir, 'big.tif'), ['-co', 'BIGTIFF=YES', '-co', 'ENDIANNESS=BIG', '-co', 'TILED=YES', '-co', 'BLOCKXSIZE=64', '-co', 'BLOCKYSIZE=32', '-co', 'COMPRESS=DEFLATE']);
    gdal('gdaladdo', ['-q', path, '2', '4']);
    const tiff = await inspectTiffFile(path);
    assert.equal(tiff.bigTiff, true);
    assert.equal(tiff.littleEndian, false);
    assert.equal(tiff.imageCount, 3, 'the image and two overviews');
    assert.equal(tiff.compression, 8);
    assert.deepEqual([tiff.blocks.blockWidth, tiff.blocks.blockHeight, tiff.blocks.blocksAcross, tiff.blocks.blocksDown], [64, 32, 4, 7]);
    assert.equal(tiff.blocks.offsets.length, 28);
  });

  test('sparse tiles (offset and size 0) are allowed', async () => {
    const path = join(dir, 'sparse.tif');
    gdal('gdal_create', ['-q', '-of', 'GTiff', '-outsize', '600', '500', '-ot', 'Float32', '-a_srs', 'EPSG:26913', '-a_ullr', '0', '5000', '6000', '0', '-co', 'TILED=YES', '-co', 'SPARSE_OK=TRUE', path]);
    const tiff = await inspectTiffFile(path);
    assert.equal(tiff.blocks.count, 3 * 2);
    assert.ok(tiff.blocks.byteCounts.every((n) => n === 0));
  });

  test('the cell limit: equal is accepted, one more is refused naming the setting', async () => {
    assert.equal((await inspectTiff(bytesSource(small), { maxCells: 1200 })).width, 40);
    await rejects(small, 'TOO_LARGE', /^40 × 30 cells is more than the limit of 1199 cells \(EEMT_MAX_DEM_CELLS\)$/, { maxCells: 1199, maxCellsSetting: 'EEMT_MAX_DEM_CELLS' });
    await rejects(small, 'TOO_LARGE', /^40 × 30 cells is more than the limit of 1199 cells$/, { maxCells: 1199 });
  });

  test('describeBytes', () => {
    assert.equal(describeBytes(512), '512 bytes');
    assert.equal(describeBytes(10_240), '10.0 KB');
    assert.equal(describeBytes(0x3fffffff * 2), '2.0 GB');
  });
});

describe('hostile structures are refused before anything large is read', () => {
  let small: Buffer;
  let big: Buffer;
  before(() => {
    small = readFileSync(smallDem(dir));
    const bigPath = smallDem(dir, 'small-big.tif', ['-co', 'BIGTIFF=YES', '-co', 'ENDIANNESS=BIG']);
    gdal('gdaladdo', ['-q', bigPath, '2']);
    big = readFileSync(bigPath);
  });

  test('a directory whose next offset points at itself', async () => {
    const looped = selfLoopingDirectory(small);
    assert.match(gdal('gdalinfo', [writeTemp('loop.tif', looped)]), /Size is 40, 30/, 'GDAL still opens it');
    await rejects(looped, 'DAMAGED', /chain of image directories loops back to the directory at byte 8/);
  });

  test('a loop through two directories of a big-endian BigTIFF', async () => {
    assert.equal(tiffLayout(big).directories.length, 2);
    await rejects(withNextDirectory(big, 1, 0), 'DAMAGED', /loops back/);
  });

  test(`a chain of more than ${MAX_IMAGE_DIRECTORIES} directories`, async () => {
    // Append copies of a one-entry directory, each pointing at the next.
    const layout = tiffLayout(small);
    const count = MAX_IMAGE_DIRECTORIES + 5;
    const start = small.length + (small.length & 1);
    const chain = Buffer.alloc(start + count * 18);
    small.copy(chain);
    chain.writeUInt32LE(start, layout.directories[0]! + 2 + 12 * small.readUInt16LE(layout.directories[0]!));
    for (let k = 0; k < count; k++) {
      const at = start + k * 18;
      chain.writeUInt16LE(1, at);
      chain.writeUInt16LE(256, at + 2);
      chain.writeUInt16LE(3, at + 4);
      chain.writeUInt32LE(1, at + 6);
      chain.writeUInt16LE(4, at + 10);
      chain.writeUInt32LE(k === count - 1 ? 0 : at + 18, at + 14);
    }
    await rejects(chain, 'DAMAGED', new RegExp(`more than ${MAX_IMAGE_DIRECTORIES} image directories`));
  });

  test('a GeoKeyDirectory count of 0x3FFFFFFF: refused after reading a few hundred bytes', async () => {
    const hostile = withTagCount(small, 34735, 0x3fffffff);
    const source = counting(hostile);
    await assert.rejects(inspectTiff(source), /tag 34735 \(GeoKeyDirectory\) declares 1073741823 values \(2\.0 GB\).*past the end of the 9\.\d KB file/);
    assert.ok(source.bytesRead < 2048, `${source.bytesRead} bytes read`);
  });

  test('a BigTIFF tag count of 2^62', async () => {
    await rejects(withTagCount(big, 34735, 2 ** 62), 'TRUNCATED', /tag 34735 \(GeoKeyDirectory\) declares .* values/);
  });

  test('a directory with more entries than the file holds, or pointing past the end', async () => {
    const b = Buffer.from(small);
    b.writeUInt16LE(4000, tiffLayout(small).directories[0]!);
    await rejects(b, 'TRUNCATED', /image directory 0 \(4000 entries\).*runs past the end/);
    const far = Buffer.from(small);
    far.writeUInt32LE(small.length + 100, 4);
    await rejects(far, 'TRUNCATED', /image directory 0 at byte \d+ runs past the end/);
  });

  test('tiles far larger than the image can need', async () => {
    const tiled = readFileSync(smallDem(dir, 'small-tiled.tif', ['-co', 'TILED=YES', '-co', 'BLOCKXSIZE=16', '-co', 'BLOCKYSIZE=16']));
    let hostile = withTagValue(tiled, 322, 65520);
    hostile = withTagValue(hostile, 323, 65520);
    await rejects(hostile, 'DAMAGED', /tiles of 65520 × 65520 cells are larger than its 40 × 30 image can need/);
  });

  test('a tile table shorter than the image, and a tile bigger than its cells can need', async () => {
    const tiled = readFileSync(smallDem(dir, 'small-tiled2.tif', ['-co', 'TILED=YES', '-co', 'BLOCKXSIZE=16', '-co', 'BLOCKYSIZE=16']));
    await rejects(withTagCount(tiled, 324, 2), 'DAMAGED', /tag 324 \(TileOffsets\) lists 2 tiles, but the image has 6/);
    // 16 × 16 Float64 cells need 2 KB; a 6000-byte tile (inside the file) is not one of them.
    assert.equal((await inspectTiff(bytesSource(tiled))).blocks.decodedBytes, 16 * 16 * 8);
    const b = Buffer.from(tiled);
    writeFirstTableValue(b, 325, 6000);
    writeFirstTableValue(b, 324, 0);
    await rejects(b, 'DAMAGED', /tile 0 holds 5\.9 KB, more than its 16 × 16 cells can need/);
  });

  test('the 30000 × 30000 shared-tile bomb: refused by the cell limit after reading its header', async () => {
    const bomb = sharedTileDem(30000, 30000);
    const source = counting(bomb);
    await assert.rejects(inspectTiff(source, { maxCells: 10_000_000, maxCellsSetting: 'EEMT_MAX_DEM_CELLS' }), /30000 × 30000 cells is more than the limit of 10000000 cells/);
    assert.ok(source.bytesRead < 4096, `${source.bytesRead} bytes read`);
  });

  function writeTemp(name: string, bytes: Uint8Array): string {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    return path;
  }
});

/** Sets the first value of the out-of-line SHORT or LONG table of `tag` in a classic little-endian TIFF. */
function writeFirstTableValue(b: Buffer, tag: number, value: number): void {
  const ifd = b.readUInt32LE(4);
  const n = b.readUInt16LE(ifd);
  for (let k = 0; k < n; k++) {
    const at = ifd + 2 + 12 * k;
    if (b.readUInt16LE(at) !== tag) continue;
    const table = b.readUInt32LE(at + 8);
    if (b.readUInt16LE(at + 2) === 3) b.writeUInt16LE(value, table);
    else b.writeUInt32LE(value, table);
    return;
  }
  throw new Error(`no tag ${tag}`);
}
