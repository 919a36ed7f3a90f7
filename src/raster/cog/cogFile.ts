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
import { closeSync, constants, fstatSync, ftruncateSync, openSync, writevSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { promisify } from 'node:util';
import { constants as zlibConstants, inflate, inflateSync } from 'node:zlib';
import { BLOCK_LEADER_BYTES, BLOCK_TRAILER_BYTES, cogDirectory, writeBlockFraming } from './cogLayout.js';
import { decodeFloatPredictorRows } from '../tiff/floatPredictor.js';
import { wasmBandDecoder, type WasmBandDecoder } from '../tiff/bandDecoderWasm.js';
import { OverviewPyramid } from './overviews.js';
import type { BandStatistics } from '../geotiff/statistics.js';
import type { TiffTag } from '../tiff/tiffLayout.js';
import { overviewTags, overviewTileEncoder, type RasterTiling, type TileCompression } from '../geotiff/writeGeoTiff.js';

/**
 * Where the full-resolution tiles are: the file holding them and each tile's offset and size there (row-major
 * index) — or, with `tiles`, the compressed tiles themselves by tile index (tiles never written to `path`).
 */
export interface TileSource {
  readonly path: string;
  readonly tiling: RasterTiling;
  readonly offsets: ArrayLike<number>;
  readonly byteCounts: ArrayLike<number>;
  readonly tiles?: readonly Uint8Array[];
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
  if (source.tiles) return writeCogFromMemory(target, source, source.tiles, options);
  const { tiling } = source;
  const tiles = await open(source.path, 'r');
  try {
    // a small file is read in one go (most of the 742 files of a year); a large one tile row by tile row
    const whole = await readWholeIfSmall(tiles, source, options.wholeReadBytes ?? WHOLE_READ_BYTES);
    const rowOf = (ty: number) => (whole ? Promise.resolve(tileRowIn(whole, source, ty)) : readTileRow(tiles, source, ty));
    const pyramid = new OverviewPyramid(tiling, overviewTileEncoder(tiling, options.compression));
    if (pyramid.hasLevels) {
      const band = new TileRowBand(source);
      // inflated on libuv's thread pool, a tile row at a time (overlapping with the other files being assembled)
      for (let ty = 0; ty < tiling.down; ty++) band.push(pyramid, ty, await Promise.all((await rowOf(ty)).map((bytes) => inflateAsync(bytes, band.inflateOptions))));
    }
    const levels = pyramid.finish();
    const directory = directoryOf(pyramid, levels, source, options);
    const out = await open(target, 'w');
    try {
      // front to back: directory, overview tiles (smallest level first), full-resolution tiles
      const writer = new SequentialWriter(out);
      await writer.add([directory.bytes]);
      for (let k = levels.length - 1; k >= 0; k--) await writer.add(framedBlocks(levels[k]!.tiles));
      for (let ty = 0; ty < tiling.down; ty++) await writer.add(framedBlocks(await rowOf(ty)));
      await writer.flush();
      if (writer.position !== directory.fileSize) throw new Error(`${target}: wrote ${writer.position} bytes, the layout has ${directory.fileSize}`);
    } finally {
      await out.close();
    }
    return directory.fileSize;
  } finally {
    await tiles.close();
  }
}

/**
 * `writeCogFromTiles` for tiles in memory (`tiles`, by tile index), synchronously: the file is a few hundred
 * kB at most here, and a thread-pool round trip per file operation cost several times the operations
 * themselves (742 files: ≈ 0.6 CPU-seconds against 0.1 on the 2-core development machine).
 */
export function writeCogFromMemory(target: string, source: TileSource, tiles: readonly Uint8Array[], options: CogFileOptions): number {
  const { tiling } = source;
  const pyramid = new OverviewPyramid(tiling, overviewTileEncoder(tiling, options.compression));
  if (pyramid.hasLevels) {
    const band = new TileRowBand(source);
    for (let ty = 0; ty < tiling.down; ty++) band.push(pyramid, ty, tilesOfRow(tiles, tiling, ty).map((tile) => inflateSync(tile, band.inflateOptions)));
  }
  const levels = pyramid.finish();
  const directory = directoryOf(pyramid, levels, source, options);
  const buffers: Uint8Array[] = [directory.bytes];
  for (let k = levels.length - 1; k >= 0; k--) buffers.push(...framedBlocks(levels[k]!.tiles));
  buffers.push(...framedBlocks(tiles));
  // not truncated on opening: on ext4 the close of a file truncated to nothing and written again waits for its
  // blocks to be allocated (its `auto_da_alloc`): 50 µs a file, a third of the whole file's cost
  const out = openSync(target, constants.O_WRONLY | constants.O_CREAT);
  try {
    const written = writeAllSync(out, buffers);
    if (written !== directory.fileSize) throw new Error(`${target}: wrote ${written} bytes, the layout has ${directory.fileSize}`);
    if (fstatSync(out).size > written) ftruncateSync(out, written);
  } finally {
    closeSync(out);
  }
  return directory.fileSize;
}

/** The COG's directory: the full-resolution image (its tags given the pyramid's statistics) and its overview levels. */
function directoryOf(pyramid: OverviewPyramid, levels: ReturnType<OverviewPyramid['finish']>, source: TileSource, options: CogFileOptions): ReturnType<typeof cogDirectory> {
  return cogDirectory(
    [{ tags: options.tags(pyramid.statistics()), blockSizes: source.byteCounts }, ...levels.map((level) => ({ tags: overviewTags(level.tiling), blockSizes: level.tiles.map((t) => t.length) }))],
    options.bigTiff ?? false,
  );
}

/** Bytes of one tile's leader and trailer. */
const FRAMING_BYTES = BLOCK_LEADER_BYTES + BLOCK_TRAILER_BYTES;

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

/**
 * `blocks` in order, each between its leader and trailer (`writeBlockFraming`), the framing of all of
 * them in one buffer.
 */
function framedBlocks(blocks: readonly Uint8Array[]): Uint8Array[] {
  const framing = Buffer.allocUnsafe(blocks.length * FRAMING_BYTES);
  const out: Uint8Array[] = [];
  blocks.forEach((block, b) => {
    const at = b * FRAMING_BYTES;
    writeBlockFraming(block, framing, at);
    out.push(framing.subarray(at, at + BLOCK_LEADER_BYTES), block, framing.subarray(at + BLOCK_LEADER_BYTES, at + FRAMING_BYTES));
  });
  return out;
}

/** The compressed tiles of tile row `ty`, from tiles in memory. */
function tilesOfRow(tiles: readonly Uint8Array[], tiling: RasterTiling, ty: number): Uint8Array[] {
  return tiles.slice(ty * tiling.across, (ty + 1) * tiling.across);
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

/** Decodes tile rows (inflated tiles of one tile row at a time) and feeds their full-resolution rows to a pyramid. */
class TileRowBand {
  readonly rawBytes: number;
  /**
   * zlib's options for a tile: at most its raw bytes, made in one output chunk (zlib's default 16 KiB chunks cost
   * a thread-pool round trip each and a copy to join them: a third of the CPU time of inflating a 192 × 192 tile).
   */
  readonly inflateOptions: { maxOutputLength: number; chunkSize: number };
  /** The thread's WebAssembly decoder, or null without the module. */
  private readonly decoder: WasmBandDecoder | null;
  /** The band of one tile row: the decoder's, or an array of its own. */
  private readonly band: Float32Array;

  constructor(private readonly source: TileSource) {
    const { width, tileWidth, tileHeight } = source.tiling;
    this.rawBytes = tileWidth * tileHeight * 4;
    // (a byte more than the tile: zlib sees the stream's end within the chunk)
    this.inflateOptions = { maxOutputLength: this.rawBytes, chunkSize: Math.max(zlibConstants.Z_MIN_CHUNK, this.rawBytes + 1) };
    this.decoder = wasmBandDecoder(width, tileWidth, tileHeight);
    this.band = this.decoder?.band ?? new Float32Array(width * tileHeight);
  }

  /** Decodes tile row `ty` into the band and pushes its rows to `pyramid`, at once (the WebAssembly band is the thread's). */
  push(pyramid: OverviewPyramid, ty: number, inflated: readonly Uint8Array[]): void {
    const { width, height, tileWidth, tileHeight, across } = this.source.tiling;
    const { decoder, band } = this;
    const rows = Math.min(tileHeight, height - ty * tileHeight);
    for (let tx = 0; tx < across; tx++) {
      const data = inflated[tx]!;
      if (data.length !== this.rawBytes) throw new Error(`tile ${ty * across + tx} of ${this.source.path} holds ${data.length} bytes, expected ${this.rawBytes}`);
      // the tile's cells inside the raster, straight into the band
      const col0 = tx * tileWidth;
      const cols = Math.min(tileWidth, width - col0);
      if (decoder) decoder.decodeTile(data, rows, col0, cols);
      else decodeFloatPredictorRows(data, tileWidth, rows, new Uint32Array(band.buffer, band.byteOffset + 4 * col0, band.length - col0), width, cols);
    }
    // (tile rows of an even height pair their own rows: the first overview level is made with the band)
    if (decoder && tileHeight % 2 === 0) pyramid.pushAveragedRows(decoder.reduce(rows, pyramid.stats), Math.ceil(rows / 2), rows);
    else for (let r = 0; r < rows; r++) pyramid.pushRow(band.subarray(r * width, (r + 1) * width));
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
      batch = unwritten(batch, bytesWritten);
    }
  }
}

/** writev of all `buffers` from the start of the file `fd`, synchronously, until every byte is written; returns the bytes written. */
function writeAllSync(fd: number, buffers: Uint8Array[]): number {
  let position = 0;
  for (let i = 0; i < buffers.length; i += 1024) {
    let batch = buffers.slice(i, i + 1024);
    while (batch.length > 0) {
      const written = writevSync(fd, batch, position);
      position += written;
      batch = unwritten(batch, written);
    }
  }
  return position;
}

/** What is left of `batch` after its first `written` bytes. */
function unwritten(batch: Uint8Array[], written: number): Uint8Array[] {
  let skip = written;
  const rest: Uint8Array[] = [];
  for (const b of batch) {
    if (skip >= b.length) skip -= b.length;
    else {
      rest.push(skip > 0 ? b.subarray(skip) : b);
      skip = 0;
    }
  }
  return rest;
}
