/**
 * Turning a file of compressed full-resolution tiles, appended in any order (as the `sol` pipeline makes
 * them; or the same tiles still in memory), into a Cloud Optimized GeoTIFF (`cogLayout.ts`): its overview
 * levels are built from the tiles read back one tile row at a time (`overviews.ts`, which also gathers the band statistics written into the
 * directory), then the file is written front to back — directory, overview tiles (smallest level first),
 * the full-resolution tiles copied in row-major order. A file of tiles up to 4 MiB is read in one go.
 *
 * Memory: one tile row of decoded cells (or the small file), one band per overview level, the compressed
 * overview tiles (about a third of the compressed full-resolution tiles) until they are written, and at most
 * 4 MiB of tiles gathered for a write.
 */
import { open, type FileHandle } from 'node:fs/promises';
import { promisify } from 'node:util';
import { inflate } from 'node:zlib';
import { blockFraming, cogDirectory } from './cogLayout.js';
import { decodeFloatPredictorRows } from './floatPredictor.js';
import { OverviewPyramid, type BandStatistics } from './overviews.js';
import type { TiffTag } from './tiffLayout.js';
import { overviewTags, tileEncoder, type RasterTiling, type TileCompression } from './writeGeoTiff.js';

/**
 * Where the full-resolution tiles are: the file holding them and each tile's offset and size there (row-major
 * index) — or, with `bytes`, those bytes themselves (tiles never written to `path`; offsets index `bytes`).
 */
export interface TileSource {
  readonly path: string;
  readonly tiling: RasterTiling;
  readonly offsets: ArrayLike<number>;
  readonly byteCounts: ArrayLike<number>;
  readonly bytes?: Uint8Array;
}

export interface CogFileOptions {
  /** The full-resolution image's tags (without block tables), given its statistics when it has overviews (else null). */
  readonly tags: (statistics: BandStatistics | null) => readonly TiffTag[];
  /** zlib settings of the overview tiles. */
  readonly compression: TileCompression;
  readonly bigTiff?: boolean;
  /** Files of tiles up to this size are read in one go, larger ones tile row by tile row (default 4 MiB). */
  readonly wholeReadBytes?: number;
}

/** Writes the COG `target` from the tiles of `source`; returns the bytes written. */
export async function writeCogFromTiles(target: string, source: TileSource, options: CogFileOptions): Promise<number> {
  const { tiling, byteCounts } = source;
  const tiles = source.bytes ? null : await open(source.path, 'r');
  try {
    // a small file is read in one go (most of the 742 files of a year); a large one tile row by tile row
    const whole = tiles ? await readWholeIfSmall(tiles, source, options.wholeReadBytes ?? WHOLE_READ_BYTES) : source.bytes!;
    const rowOf = (ty: number) => (whole ? Promise.resolve(tileRowIn(whole, source, ty)) : readTileRow(tiles!, source, ty));
    const pyramid = new OverviewPyramid(tiling, tileEncoder(tiling, options.compression));
    if (pyramid.hasLevels) await pushAllRows(rowOf, source, pyramid);
    const levels = pyramid.finish();
    const directory = cogDirectory(
      [{ tags: options.tags(pyramid.statistics()), blockSizes: byteCounts }, ...levels.map((level) => ({ tags: overviewTags(level.tiling), blockSizes: level.tiles.map((t) => t.length) }))],
      options.bigTiff ?? false,
    );
    const out = await open(target, 'w');
    try {
      // front to back: directory, overview tiles (smallest level first), full-resolution tiles
      const writer = new SequentialWriter(out);
      await writer.add([directory.bytes]);
      for (let k = levels.length - 1; k >= 0; k--) await writer.add(levels[k]!.tiles.flatMap(framedBlock));
      for (let ty = 0; ty < tiling.down; ty++) await writer.add((await rowOf(ty)).flatMap(framedBlock));
      await writer.flush();
      if (writer.position !== directory.fileSize) throw new Error(`${target}: wrote ${writer.position} bytes, the layout has ${directory.fileSize}`);
    } finally {
      await out.close();
    }
    return directory.fileSize;
  } finally {
    await tiles?.close();
  }
}

/** Files of tiles up to this size are read whole by default. */
const WHOLE_READ_BYTES = 4 * 2 ** 20;
/** Bytes gathered before a vectored write. */
const WRITE_BATCH_BYTES = 4 * 2 ** 20;

/** Appends buffers to a file from its start, gathering them into writes of about WRITE_BATCH_BYTES. */
class SequentialWriter {
  position = 0;
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;

  constructor(private readonly handle: FileHandle) {}

  async add(buffers: Uint8Array[]): Promise<void> {
    for (const b of buffers) {
      this.pending.push(b);
      this.pendingBytes += b.length;
    }
    if (this.pendingBytes >= WRITE_BATCH_BYTES) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    await writeAllAt(this.handle, this.pending, this.position);
    this.position += this.pendingBytes;
    this.pending = [];
    this.pendingBytes = 0;
  }
}

/** The whole file of tiles when it is at most `limit` bytes, else null. */
async function readWholeIfSmall(handle: FileHandle, source: TileSource, limit: number): Promise<Buffer | null> {
  let end = 0;
  for (let t = 0; t < source.tiling.count; t++) end = Math.max(end, source.offsets[t]! + source.byteCounts[t]!);
  if (end > limit) return null;
  const bytes = Buffer.allocUnsafe(end);
  const { bytesRead } = await handle.read(bytes, 0, end, 0);
  if (bytesRead !== end) throw new Error(`${source.path} is truncated: ${bytesRead} of ${end} bytes`);
  return bytes;
}

/** The compressed tiles of tile row `ty` within the whole file's bytes. */
function tileRowIn(whole: Uint8Array, source: TileSource, ty: number): Uint8Array[] {
  const { across } = source.tiling;
  return Array.from({ length: across }, (_, tx) => {
    const t = ty * across + tx;
    return whole.subarray(source.offsets[t]!, source.offsets[t]! + source.byteCounts[t]!);
  });
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

const inflateAsync = promisify(inflate);

/** Decodes the tiles row by row and feeds every full-resolution row to the pyramid. */
async function pushAllRows(rowOf: (ty: number) => Promise<Uint8Array[]>, source: TileSource, pyramid: OverviewPyramid): Promise<void> {
  const { width, height, tileWidth, tileHeight, across, down } = source.tiling;
  const rawBytes = tileWidth * tileHeight * 4;
  const band = new Float32Array(width * tileHeight);
  const tile = new Float32Array(tileWidth * tileHeight);
  const bits = new Uint32Array(tile.buffer);
  for (let ty = 0; ty < down; ty++) {
    const compressed = await rowOf(ty);
    const rows = Math.min(tileHeight, height - ty * tileHeight);
    // inflated on libuv's thread pool, a tile row at a time (overlapping with the other files being assembled)
    const inflated = await Promise.all(compressed.map((bytes) => inflateAsync(bytes, { maxOutputLength: rawBytes })));
    for (let tx = 0; tx < across; tx++) {
      const data = inflated[tx]!;
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
