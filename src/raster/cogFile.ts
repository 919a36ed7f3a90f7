/**
 * Turning a file of compressed full-resolution tiles, appended in any order (as the `sol` pipeline makes
 * them), into a Cloud Optimized GeoTIFF (`cogLayout.ts`): its overview levels are built from the tiles read
 * back one tile row at a time (`overviews.ts`), then the file is written front to back — directory,
 * overview tiles (smallest level first), the full-resolution tiles copied in row-major order.
 *
 * Memory: one tile row of decoded cells, one band per overview level, and the compressed overview tiles
 * (about a third of the compressed full-resolution tiles) until they are written.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { inflateSync } from 'node:zlib';
import { blockFraming, cogDirectory } from './cogLayout.js';
import { decodeFloatPredictorRows } from './floatPredictor.js';
import { OverviewPyramid } from './overviews.js';
import type { TiffTag } from './tiffLayout.js';
import { overviewTags, tileEncoder, type RasterTiling, type TileCompression } from './writeGeoTiff.js';

/** Where the full-resolution tiles are: the file holding them and each tile's offset and size there (row-major index). */
export interface TileSource {
  readonly path: string;
  readonly tiling: RasterTiling;
  readonly offsets: ArrayLike<number>;
  readonly byteCounts: ArrayLike<number>;
}

export interface CogFileOptions {
  /** The full-resolution image's tags (without block tables). */
  readonly tags: readonly TiffTag[];
  /** zlib settings of the overview tiles. */
  readonly compression: TileCompression;
  readonly bigTiff?: boolean;
}

/** Writes the COG `target` from the tiles of `source`; returns the bytes written. */
export async function writeCogFromTiles(target: string, source: TileSource, options: CogFileOptions): Promise<number> {
  const { tiling, byteCounts } = source;
  const tiles = await open(source.path, 'r');
  try {
    const pyramid = new OverviewPyramid(tiling, tileEncoder(tiling, options.compression));
    if (pyramid.hasLevels) await pushAllRows(tiles, source, pyramid);
    const levels = pyramid.finish();
    const directory = cogDirectory(
      [{ tags: options.tags, blockSizes: byteCounts }, ...levels.map((level) => ({ tags: overviewTags(level.tiling), blockSizes: level.tiles.map((t) => t.length) }))],
      options.bigTiff ?? false,
    );
    const out = await open(target, 'w');
    try {
      await writeAllAt(out, [directory.bytes], 0);
      for (let k = levels.length - 1; k >= 0; k--) {
        const framed = levels[k]!.tiles.flatMap(framedBlock);
        await writeAllAt(out, framed, directory.blockOffsets[k + 1]![0]! - 4);
      }
      for (let ty = 0; ty < tiling.down; ty++) {
        const row = await readTileRow(tiles, source, ty);
        await writeAllAt(out, row.flatMap(framedBlock), directory.blockOffsets[0]![ty * tiling.across]! - 4);
      }
    } finally {
      await out.close();
    }
    return directory.fileSize;
  } finally {
    await tiles.close();
  }
}

function framedBlock(block: Uint8Array): Uint8Array[] {
  const { leader, trailer } = blockFraming(block);
  return [leader, block, trailer];
}

/** The compressed tiles of tile row `ty`, in order. */
async function readTileRow(handle: FileHandle, source: TileSource, ty: number): Promise<Buffer[]> {
  const { across } = source.tiling;
  const out: Buffer[] = [];
  for (let tx = 0; tx < across; tx++) {
    const t = ty * across + tx;
    const bytes = Buffer.allocUnsafe(source.byteCounts[t]!);
    const { bytesRead } = await handle.read(bytes, 0, bytes.length, source.offsets[t]!);
    if (bytesRead !== bytes.length) throw new Error(`tile ${t} is truncated in ${source.path}`);
    out.push(bytes);
  }
  return out;
}

/** Decodes the tiles row by row and feeds every full-resolution row to the pyramid. */
async function pushAllRows(handle: FileHandle, source: TileSource, pyramid: OverviewPyramid): Promise<void> {
  const { width, height, tileWidth, tileHeight, across, down } = source.tiling;
  const rawBytes = tileWidth * tileHeight * 4;
  const band = new Float32Array(width * tileHeight);
  const tile = new Float32Array(tileWidth * tileHeight);
  const bits = new Uint32Array(tile.buffer);
  for (let ty = 0; ty < down; ty++) {
    const compressed = await readTileRow(handle, source, ty);
    const rows = Math.min(tileHeight, height - ty * tileHeight);
    for (let tx = 0; tx < across; tx++) {
      const data = inflateSync(compressed[tx]!, { maxOutputLength: rawBytes });
      if (data.length !== rawBytes) throw new Error(`tile ${ty * across + tx} of ${source.path} holds ${data.length} bytes, expected ${rawBytes}`);
      decodeFloatPredictorRows(data, tileWidth, tileHeight, bits);
      const col0 = tx * tileWidth;
      const cols = Math.min(tileWidth, width - col0);
      for (let r = 0; r < rows; r++) band.set(tile.subarray(r * tileWidth, r * tileWidth + cols), r * width + col0);
    }
    for (let r = 0; r < rows; r++) pyramid.pushRow(band.subarray(r * width, (r + 1) * width));
  }
}

/** writev of all `buffers` at `position`, repeated until every byte is written (and at most 1024 at a time). */
export async function writeAllAt(handle: FileHandle, buffers: Uint8Array[], position: number): Promise<void> {
  let pos = position;
  for (let i = 0; i < buffers.length; i += 1024) {
    let batch = buffers.slice(i, i + 1024);
    while (batch.length > 0) {
      const { bytesWritten } = await handle.writev(batch, pos);
      pos += bytesWritten;
      let skip = bytesWritten;
      const rest: Uint8Array[] = [];
      for (const b of batch) {
        if (skip >= b.length) skip -= b.length;
        else {
          rest.push(skip > 0 ? b.subarray(skip) : b);
          skip = 0;
        }
      }
      batch = rest;
    }
  }
}
