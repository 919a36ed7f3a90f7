/**
 * Hostile GeoTIFFs for the regression tests, made from a small real GeoTIFF by byte patches or assembled
 * from a constant compressed tile: directory loops, huge tag counts, declared-size bombs, blocks that
 * inflate past their declared size. Each is a few KB to 2 MB on disk.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { constants, deflateRawSync, deflateSync } from 'node:zlib';
import { encodeGeoKeyDirectory } from '../../src/raster/geotiff/geoKeys.js';
import { assembleTiff, TagType, type TiffTag } from '../../src/raster/tiff/tiffLayout.js';
import { UTM13N_KEYS } from '../raster/tiffBuilder.js';

export const FIXTURE_DEM = new URL('../fixtures/mcn_10m.tif', import.meta.url).pathname;

/** Runs a GDAL tool quietly. */
function gdal(tool: string, args: readonly string[]): void {
  execFileSync(tool, [...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, GDAL_PAM_ENABLED: 'NO' } });
}

/** A small real GeoTIFF DEM (40 × 30 Float64 cells cut from the fixture, about 10 KB) written to `dir`. */
export function smallDem(dir: string, name = 'small.tif', options: readonly string[] = []): string {
  const path = join(dir, name);
  gdal('gdal_translate', ['-q', '-srcwin', '0', '0', '40', '30', ...options, FIXTURE_DEM, path]);
  return path;
}

interface Layout {
  little: boolean;
  big: boolean;
  /** Offsets of the image directories, in chain order. */
  directories: number[];
}

function readOffset(b: Buffer, at: number, layout: Pick<Layout, 'little' | 'big'>): number {
  if (layout.big) return Number(layout.little ? b.readBigUInt64LE(at) : b.readBigUInt64BE(at));
  return layout.little ? b.readUInt32LE(at) : b.readUInt32BE(at);
}

function writeOffset(b: Buffer, at: number, value: number, layout: Pick<Layout, 'little' | 'big'>): void {
  if (layout.big) {
    if (layout.little) b.writeBigUInt64LE(BigInt(value), at);
    else b.writeBigUInt64BE(BigInt(value), at);
  } else if (layout.little) b.writeUInt32LE(value, at);
  else b.writeUInt32BE(value, at);
}

function entryCount(b: Buffer, ifd: number, layout: Layout): number {
  if (layout.big) return readOffset(b, ifd, layout);
  return layout.little ? b.readUInt16LE(ifd) : b.readUInt16BE(ifd);
}

/** Byte order, form and directory chain of a well-formed TIFF. */
export function tiffLayout(b: Buffer): Layout {
  const little = b.toString('latin1', 0, 2) === 'II';
  const big = (little ? b.readUInt16LE(2) : b.readUInt16BE(2)) === 43;
  const layout: Layout = { little, big, directories: [] };
  let offset = readOffset(b, big ? 8 : 4, layout);
  while (offset !== 0 && layout.directories.length < 100) {
    layout.directories.push(offset);
    offset = readOffset(b, nextPointerAt(b, offset, layout), layout);
  }
  return layout;
}

function nextPointerAt(b: Buffer, ifd: number, layout: Layout): number {
  const n = entryCount(b, ifd, layout);
  return layout.big ? ifd + 8 + 20 * n : ifd + 2 + 12 * n;
}

/** Points the next-directory offset of directory `from` at directory `to` (a copy of `bytes`). */
export function withNextDirectory(bytes: Buffer, from: number, to: number): Buffer {
  const b = Buffer.from(bytes);
  const layout = tiffLayout(b);
  writeOffset(b, nextPointerAt(b, layout.directories[from]!, layout), layout.directories[to]!, layout);
  return b;
}

/** The attack: the first directory's next-directory offset points at itself. */
export function selfLoopingDirectory(bytes: Buffer): Buffer {
  return withNextDirectory(bytes, 0, 0);
}

/** Where the entry of `tag` in the first directory is. */
function entryAt(b: Buffer, tag: number): { at: number; layout: Layout } {
  const layout = tiffLayout(b);
  const ifd = layout.directories[0]!;
  const n = entryCount(b, ifd, layout);
  for (let k = 0; k < n; k++) {
    const at = layout.big ? ifd + 8 + 20 * k : ifd + 2 + 12 * k;
    if ((layout.little ? b.readUInt16LE(at) : b.readUInt16BE(at)) === tag) return { at, layout };
  }
  throw new Error(`tag ${tag} not in the first directory`);
}

/** Sets the value count of `tag` in the first directory (e.g. GeoKeyDirectory to 0x3FFFFFFF). */
export function withTagCount(bytes: Buffer, tag: number, count: number): Buffer {
  const b = Buffer.from(bytes);
  const { at, layout } = entryAt(b, tag);
  writeOffset(b, at + 4, count, layout);
  return b;
}

/** Sets a SHORT or LONG single value stored in the entry of `tag` (e.g. ImageWidth, TileWidth). */
export function withTagValue(bytes: Buffer, tag: number, value: number): Buffer {
  const b = Buffer.from(bytes);
  const { at, layout } = entryAt(b, tag);
  const type = layout.little ? b.readUInt16LE(at + 2) : b.readUInt16BE(at + 2);
  const valueAt = at + (layout.big ? 12 : 8);
  if (type === TagType.SHORT) {
    if (layout.little) b.writeUInt16LE(value, valueAt);
    else b.writeUInt16BE(value, valueAt);
  } else if (type === TagType.LONG) {
    if (layout.little) b.writeUInt32LE(value, valueAt);
    else b.writeUInt32BE(value, valueAt);
  } else {
    throw new Error(`tag ${tag} has type ${type}`);
  }
  return b;
}

/** The tags of a tiled Float32 DEFLATE GeoTIFF in NAD83 / UTM 13N (10 m cells), without the tile tables. */
function tiledFloat32Tags(width: number, height: number, tile: number): TiffTag[] {
  const keys = encodeGeoKeyDirectory(UTM13N_KEYS);
  return [
    { tag: 256, type: TagType.LONG, values: [width] },
    { tag: 257, type: TagType.LONG, values: [height] },
    { tag: 258, type: TagType.SHORT, values: [32] },
    { tag: 259, type: TagType.SHORT, values: [8] },
    { tag: 262, type: TagType.SHORT, values: [1] },
    { tag: 277, type: TagType.SHORT, values: [1] },
    { tag: 284, type: TagType.SHORT, values: [1] },
    { tag: 322, type: TagType.SHORT, values: [tile] },
    { tag: 323, type: TagType.SHORT, values: [tile] },
    { tag: 339, type: TagType.SHORT, values: [3] },
    { tag: 33550, type: TagType.DOUBLE, values: [10, 10, 0] },
    { tag: 33922, type: TagType.DOUBLE, values: [0, 0, 0, 352120, 3964370, 0] },
    { tag: 34735, type: TagType.SHORT, values: Array.from(keys.directory) },
    { tag: 34737, type: TagType.ASCII, values: keys.ascii },
  ];
}

/** One DEFLATE tile of `tile` × `tile` Float32 cells, all `value`. */
function constantTile(tile: number, value: number): Buffer {
  return deflateSync(Buffer.from(new Float32Array(tile * tile).fill(value).buffer), { level: 9 });
}

/**
 * The declared-size bomb: a `width` × `height` Float32 DEM of constant 1000 m in 256 × 256 DEFLATE
 * tiles, each tile stored (20000 × 20000: 6241 tiles, about 1.8 MB) — what
 * `gdal_create -outsize 20000 20000 -ot Float32 -burn 1000 -co TILED=YES -co COMPRESS=DEFLATE` writes.
 */
export function constantTiledDem(width: number, height: number): Buffer {
  const tile = 256;
  const count = Math.ceil(width / tile) * Math.ceil(height / tile);
  const block = constantTile(tile, 1000);
  return assembleTiff(tiledFloat32Tags(width, height, tile), Array.from({ length: count }, () => block));
}

/**
 * The second bomb: a `width` × `height` tiled DEM whose tile table points every tile at one
 * compressed tile (30000 × 30000: about 110 KB of tables).
 */
export function sharedTileDem(width: number, height: number): Buffer {
  const tile = 256;
  const count = Math.ceil(width / tile) * Math.ceil(height / tile);
  const block = constantTile(tile, 1000);
  const empty = new Uint8Array(0);
  const b = assembleTiff(tiledFloat32Tags(width, height, tile), [block, ...Array.from({ length: count - 1 }, () => empty)]);
  const offsets = entryAt(b, 324);
  const counts = entryAt(b, 325);
  const offsetsAt = b.readUInt32LE(offsets.at + 8);
  const countsAt = b.readUInt32LE(counts.at + 8);
  const first = b.readUInt32LE(offsetsAt);
  for (let k = 0; k < count; k++) {
    b.writeUInt32LE(first, offsetsAt + 4 * k);
    b.writeUInt32LE(block.length, countsAt + 4 * k);
  }
  return b;
}

/**
 * A zlib stream that inflates to `totalBytes` zero bytes (a multiple of 16 MiB), about a thousandth of that
 * in size: one sync-flushed DEFLATE chunk repeated, a final empty block, the Adler-32 of the zeros.
 */
export function zlibOfZeros(totalBytes: number): Buffer {
  const chunkBytes = 16 * 1024 * 1024;
  if (totalBytes % chunkBytes !== 0) throw new Error('totalBytes must be a multiple of 16 MiB');
  const chunk = deflateRawSync(Buffer.alloc(chunkBytes), { level: 9, finishFlush: constants.Z_SYNC_FLUSH });
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE((((totalBytes % 65521) << 16) | 1) >>> 0);
  return Buffer.concat([Buffer.from([0x78, 0xda]), ...Array.from({ length: totalBytes / chunkBytes }, () => chunk), Buffer.from([0x03, 0x00]), adler]);
}

/**
 * A `side` × `side` Float32 DEM in one DEFLATE tile (4 MiB of cells for 1024) whose compressed tile
 * inflates to `inflatedBytes` (a 1 GiB stream is about 1 MB, so its size looks plausible for the tile).
 */
export function inflateBombDem(inflatedBytes: number, side = 1024): Buffer {
  return assembleTiff(tiledFloat32Tags(side, side, side), [zlibOfZeros(inflatedBytes)]);
}

/**
 * A Byte DEM compressed with `compression` (LZW, PACKBITS, ZSTD, DEFLATE) whose single strip holds
 * `side` × `side` cells but whose header declares `declared` × `declared`: the strip decodes to far more
 * than its cells hold. Written by GDAL, then patched.
 */
export function shrunkStripDem(dir: string, compression: string, side = 8192, declared = 256): Buffer {
  const path = join(dir, `strip-${compression}-${side}.tif`);
  gdal('gdal_create', [
    '-q', '-of', 'GTiff', '-outsize', String(side), String(side), '-ot', 'Byte', '-burn', '7',
    '-a_srs', 'EPSG:26913', '-a_ullr', '352120', '3964370', String(352120 + side), String(3964370 - side),
    '-co', `COMPRESS=${compression}`, '-co', `BLOCKYSIZE=${side}`, path,
  ]);
  let b: Buffer = readFileSync(path);
  for (const tag of [256, 257, 278]) b = withTagValue(b, tag, declared);
  return b;
}
