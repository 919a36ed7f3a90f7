/**
 * A bounded walk over the structure of a TIFF file (classic or BigTIFF, either byte order), done before any
 * decoder sees the file, so that a hostile file cannot make the reader loop, allocate or read without limit.
 *
 * Every number the file declares is checked against the file's size before it is used: the chain of image
 * directories (IFDs) is followed with loop detection and a maximum count, every tag's count × type size
 * must fit in the file and under a cap, the first image's strip/tile tables must have one entry per block
 * with every block inside the file and no larger than its cells can need, and the declared cells (and the
 * decoded bytes of one block) are bounded. The result is a plain summary of the first image.
 */
import { open } from 'node:fs/promises';
import { RasterFormatError } from '../types.js';

/** Random access to the bytes of a file (or of a buffer holding one). */
export interface ByteSource {
  readonly size: number;
  /** `length` bytes from `position`; the range is inside the source. */
  read(position: number, length: number): Promise<Uint8Array>;
}

/** A byte source over bytes in memory. */
export function bytesSource(bytes: Uint8Array): ByteSource {
  return { size: bytes.length, read: async (position, length) => bytes.subarray(position, position + length) };
}

/** Opens `path` as a byte source; reads only what is asked for. */
async function openFileSource(path: string): Promise<ByteSource & { close(): Promise<void> }> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    return {
      size,
      async read(position, length) {
        const buffer = Buffer.alloc(length);
        const { bytesRead } = await handle.read(buffer, 0, length, position);
        return buffer.subarray(0, bytesRead);
      },
      close: () => handle.close(),
    };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Limits the caller sets (the structural caps below always apply). */
export interface TiffLimits {
  /** Largest width × height accepted (default: no limit beyond the structural caps). */
  readonly maxCells?: number;
  /** Name of the setting behind `maxCells`, quoted when a file breaks it (e.g. `EEMT_MAX_DEM_CELLS`). */
  readonly maxCellsSetting?: string;
}

/** At most this many image directories are followed (GDAL's overviews and masks need a handful). */
export const MAX_IMAGE_DIRECTORIES = 1024;
/** At most this many entries in one image directory (GDAL writes about 20). */
const MAX_DIRECTORY_ENTRIES = 4096;
/** A tag's values may take at most this many bytes (the strip/tile tables are bounded by the block count). */
const MAX_TAG_BYTES = 16 * 1024 * 1024;
/** At most this many strips or tiles (a table of 128 MiB in BigTIFF). */
const MAX_BLOCKS = 2 ** 24;
/** A strip or tile may have more cells than the image only up to this many (e.g. 256 × 256 tiles of a 3 × 3 DEM). */
const SMALL_IMAGE_BLOCK_CELLS = 2 ** 20;

/** How the first image's pixels are cut into strips or tiles. */
export interface TiffBlockLayout {
  readonly tiled: boolean;
  readonly blockWidth: number;
  /** Tile length, or rows per strip (at most the image height). */
  readonly blockHeight: number;
  readonly blocksAcross: number;
  readonly blocksDown: number;
  /** Blocks per sample plane × planes (PlanarConfiguration 2 has one plane per sample). */
  readonly count: number;
  readonly offsets: readonly number[];
  readonly byteCounts: readonly number[];
  /** Bytes one block decodes to (the bound every decompressor is held to). */
  readonly decodedBytes: number;
}

/** What the walk found: the file's form and its first image. */
export interface TiffSummary {
  readonly littleEndian: boolean;
  readonly bigTiff: boolean;
  readonly fileSize: number;
  /** Image directories in the chain (the first is the raster; others are overviews, masks, pages). */
  readonly imageCount: number;
  readonly width: number;
  readonly height: number;
  readonly samplesPerPixel: number;
  readonly bitsPerSample: readonly number[];
  /** TIFF SampleFormat of the first sample: 1 unsigned, 2 signed, 3 float (default 1). */
  readonly sampleFormat: number;
  readonly compression: number;
  readonly predictor: number;
  readonly planarConfiguration: number;
  readonly blocks: TiffBlockLayout;
  /** Tag numbers present in the first image directory. */
  readonly tags: ReadonlySet<number>;
  readonly hasGeoKeys: boolean;
  /** ModelTransformation, or ModelTiepoint with ModelPixelScale. */
  readonly hasGeoTransform: boolean;
}

export const Tag = {
  ImageWidth: 256,
  ImageLength: 257,
  BitsPerSample: 258,
  Compression: 259,
  StripOffsets: 273,
  SamplesPerPixel: 277,
  RowsPerStrip: 278,
  StripByteCounts: 279,
  PlanarConfiguration: 284,
  Predictor: 317,
  TileWidth: 322,
  TileLength: 323,
  TileOffsets: 324,
  TileByteCounts: 325,
  SampleFormat: 339,
  ModelPixelScale: 33550,
  ModelTiepoint: 33922,
  ModelTransformation: 34264,
  GeoKeyDirectory: 34735,
  GeoDoubleParams: 34736,
  GeoAsciiParams: 34737,
  GdalMetadata: 42112,
  GdalNodata: 42113,
} as const;

const TAG_NAMES: Readonly<Record<number, string>> = Object.fromEntries(Object.entries(Tag).map(([name, id]) => [id, name]));

/** Bytes per value of each TIFF field type (TIFF 6.0 and BigTIFF). */
const TYPE_SIZES: Readonly<Record<number, number>> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4, 16: 8, 17: 8, 18: 8 };

/** One directory entry, checked: its values lie inside the file. */
interface Entry {
  readonly tag: number;
  readonly type: number;
  readonly count: number;
  /** Where the values are: inside the entry itself, or at an offset in the file. */
  readonly valueAt: number;
  readonly byteLength: number;
}

function damaged(detail: string): RasterFormatError {
  return new RasterFormatError('DAMAGED', `The TIFF is damaged: ${detail}.`);
}

/** Something the file points at lies past its end: the file was cut short, or the pointer is damaged. */
function pastEnd(detail: string): RasterFormatError {
  return new RasterFormatError('TRUNCATED', `The TIFF is truncated or damaged: ${detail}.`);
}

function tagName(tag: number): string {
  const name = TAG_NAMES[tag];
  return name ? `tag ${tag} (${name})` : `tag ${tag}`;
}

/** "2.0 GB", "10.2 KB", "512 bytes". */
export function describeBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ['KB', 'MB', 'GB', 'TB', 'PB', 'EB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** Reads numbers of a TIFF field type from raw bytes in the file's byte order. */
function decodeValues(bytes: Uint8Array, type: number, count: number, little: boolean): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Array<number>(count);
  for (let i = 0; i < count; i++) {
    switch (type) {
      case 1: case 2: case 7: out[i] = view.getUint8(i); break;
      case 6: out[i] = view.getInt8(i); break;
      case 3: out[i] = view.getUint16(2 * i, little); break;
      case 8: out[i] = view.getInt16(2 * i, little); break;
      case 4: case 13: out[i] = view.getUint32(4 * i, little); break;
      case 9: out[i] = view.getInt32(4 * i, little); break;
      case 11: out[i] = view.getFloat32(4 * i, little); break;
      case 12: out[i] = view.getFloat64(8 * i, little); break;
      case 5: out[i] = view.getUint32(8 * i, little) / view.getUint32(8 * i + 4, little); break;
      case 10: out[i] = view.getInt32(8 * i, little) / view.getInt32(8 * i + 4, little); break;
      case 16: case 18: out[i] = Number(view.getBigUint64(8 * i, little)); break;
      case 17: out[i] = Number(view.getBigInt64(8 * i, little)); break;
      default: throw damaged(`field type ${type} is unknown`);
    }
  }
  return out;
}

/** The walker: the file's byte order and form, and reads that never leave the file. */
class TiffReader {
  constructor(
    readonly source: ByteSource,
    readonly little: boolean,
    readonly big: boolean,
  ) {}

  get size(): number {
    return this.source.size;
  }

  async bytes(position: number, length: number, what: string): Promise<Uint8Array> {
    if (!(position >= 0 && length >= 0 && position + length <= this.size)) {
      throw pastEnd(`${what} at byte ${position} runs past the end of the ${describeBytes(this.size)} file`);
    }
    const data = await this.source.read(position, length);
    if (data.length < length) throw pastEnd(`${what} could not be read (the file is shorter than it says)`);
    return data;
  }

  /** An unsigned offset or count (LONG, or LONG8 in BigTIFF) at `at` of `bytes`. */
  offsetIn(bytes: Uint8Array, at: number): number {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    if (!this.big) return view.getUint32(at, this.little);
    const value = view.getBigUint64(at, this.little);
    return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.POSITIVE_INFINITY : Number(value);
  }

  /** The entries of the directory at `offset` and the offset of the next one (0 at the end of the chain). */
  async directory(offset: number, index: number): Promise<{ entries: Entry[]; next: number }> {
    const countBytes = this.big ? 8 : 2;
    const entrySize = this.big ? 20 : 12;
    const head = await this.bytes(offset, countBytes, `image directory ${index}`);
    const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
    const declared = this.big ? this.offsetIn(head, 0) : view.getUint16(0, this.little);
    if (declared === 0) throw damaged(`image directory ${index} has no entries`);
    if (declared > MAX_DIRECTORY_ENTRIES) {
      throw damaged(`image directory ${index} declares ${declared} entries (at most ${MAX_DIRECTORY_ENTRIES} are read)`);
    }
    const body = await this.bytes(offset + countBytes, declared * entrySize + (this.big ? 8 : 4), `image directory ${index} (${declared} entries)`);
    const entries: Entry[] = [];
    const inline = this.big ? 8 : 4;
    for (let k = 0; k < declared; k++) {
      const at = k * entrySize;
      const ev = new DataView(body.buffer, body.byteOffset + at, entrySize);
      const tag = ev.getUint16(0, this.little);
      const type = ev.getUint16(2, this.little);
      const count = this.big ? this.offsetIn(body, at + 4) : ev.getUint32(4, this.little);
      const size = TYPE_SIZES[type];
      if (size === undefined) {
        // Readers skip entries of unknown types; only the tags used below must be well formed.
        entries.push({ tag, type, count: 0, valueAt: 0, byteLength: 0 });
        continue;
      }
      const byteLength = count * size;
      const valuePos = offset + countBytes + at + (this.big ? 12 : 8);
      let valueAt = valuePos;
      if (byteLength > inline) {
        valueAt = this.offsetIn(body, at + (this.big ? 12 : 8));
        if (!(byteLength <= this.size && valueAt <= this.size - byteLength)) {
          throw pastEnd(
            `${tagName(tag)} declares ${count} values (${describeBytes(byteLength)}) at byte ${valueAt}, ` +
              `which runs past the end of the ${describeBytes(this.size)} file`,
          );
        }
      }
      entries.push({ tag, type, count, valueAt, byteLength });
    }
    const next = this.offsetIn(body, declared * entrySize);
    return { entries, next };
  }

  async values(entry: Entry, maxBytes = MAX_TAG_BYTES): Promise<number[]> {
    if (entry.byteLength > maxBytes) {
      throw damaged(`${tagName(entry.tag)} holds ${describeBytes(entry.byteLength)} of values (at most ${describeBytes(maxBytes)} are read)`);
    }
    return decodeValues(await this.bytes(entry.valueAt, entry.byteLength, tagName(entry.tag)), entry.type, entry.count, this.little);
  }
}

/** Byte order, form and first directory offset from the header; throws NOT_TIFF or DAMAGED. */
async function readHeader(source: ByteSource): Promise<{ reader: TiffReader; first: number }> {
  if (source.size < 8) throw new RasterFormatError('NOT_TIFF', 'The file is too short to be a TIFF.');
  const head = await source.read(0, Math.min(16, source.size));
  const order = String.fromCharCode(head[0]!, head[1]!);
  if (order !== 'II' && order !== 'MM') throw new RasterFormatError('NOT_TIFF', 'The file is not a TIFF image.');
  const little = order === 'II';
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const magic = view.getUint16(2, little);
  if (magic === 42) {
    const reader = new TiffReader(source, little, false);
    return { reader, first: view.getUint32(4, little) };
  }
  if (magic !== 43) throw new RasterFormatError('NOT_TIFF', 'The file is not a TIFF image.');
  if (source.size < 16) throw pastEnd('the BigTIFF header is cut short');
  if (view.getUint16(4, little) !== 8 || view.getUint16(6, little) !== 0) throw damaged('the BigTIFF header declares an unusual offset size');
  const reader = new TiffReader(source, little, true);
  return { reader, first: reader.offsetIn(head, 8) };
}

/**
 * Walks the TIFF in `source` within the limits and returns a summary of its first image. Throws
 * RasterFormatError: NOT_TIFF, DAMAGED (structure inconsistent with the file) or TOO_LARGE (a limit).
 */
export async function inspectTiff(source: ByteSource, limits: TiffLimits = {}): Promise<TiffSummary> {
  const { reader, first } = await readHeader(source);
  const headerSize = reader.big ? 16 : 8;

  // The chain of directories: each visited once, at most MAX_IMAGE_DIRECTORIES of them.
  const visited = new Set<number>();
  let firstEntries: Entry[] = [];
  let offset = first;
  while (offset !== 0) {
    if (visited.has(offset)) {
      throw damaged(`its chain of image directories loops back to the directory at byte ${offset}`);
    }
    if (visited.size >= MAX_IMAGE_DIRECTORIES) throw damaged(`it chains more than ${MAX_IMAGE_DIRECTORIES} image directories`);
    if (offset < headerSize) throw damaged(`image directory ${visited.size} points into the file header (byte ${offset})`);
    const { entries, next } = await reader.directory(offset, visited.size);
    if (visited.size === 0) firstEntries = entries;
    visited.add(offset);
    offset = next;
  }
  if (visited.size === 0) throw damaged('it holds no image directory');
  return summarizeFirstImage(reader, firstEntries, visited.size, limits);
}

async function summarizeFirstImage(reader: TiffReader, entries: readonly Entry[], imageCount: number, limits: TiffLimits): Promise<TiffSummary> {
  const byTag = new Map<number, Entry>();
  for (const entry of entries) if (!byTag.has(entry.tag)) byTag.set(entry.tag, entry);
  const numbers = async (tag: number): Promise<number[] | undefined> => {
    const entry = byTag.get(tag);
    return entry && entry.count > 0 ? reader.values(entry) : undefined;
  };
  const scalar = async (tag: number, fallback?: number): Promise<number> => {
    const values = await numbers(tag);
    const value = values?.[0] ?? fallback;
    if (value === undefined) throw damaged(`the first image has no ${tagName(tag)}`);
    if (!Number.isFinite(value) || value < 0) throw damaged(`${tagName(tag)} is ${value}`);
    return value;
  };

  const width = await scalar(Tag.ImageWidth);
  const height = await scalar(Tag.ImageLength);
  if (width === 0 || height === 0) throw damaged(`the first image is ${width} × ${height} cells`);
  const cells = width * height;
  if (limits.maxCells !== undefined && cells > limits.maxCells) {
    const setting = limits.maxCellsSetting ? ` (${limits.maxCellsSetting})` : '';
    throw new RasterFormatError('TOO_LARGE', `${width} × ${height} cells is more than the limit of ${limits.maxCells} cells${setting}`);
  }

  const samplesPerPixel = await scalar(Tag.SamplesPerPixel, 1);
  if (samplesPerPixel < 1 || samplesPerPixel > 65535) throw damaged(`SamplesPerPixel is ${samplesPerPixel}`);
  const bitsPerSample = (await numbers(Tag.BitsPerSample)) ?? [1];
  if (bitsPerSample.some((b) => !(Number.isInteger(b) && b >= 1 && b <= 64))) throw damaged(`BitsPerSample is ${bitsPerSample.join(', ')}`);
  const bitsOf = (sample: number) => bitsPerSample[Math.min(sample, bitsPerSample.length - 1)]!;
  const sampleFormat = (await numbers(Tag.SampleFormat))?.[0] ?? 1;
  const compression = await scalar(Tag.Compression, 1);
  const predictor = await scalar(Tag.Predictor, 1);
  const planarConfiguration = await scalar(Tag.PlanarConfiguration, 1);
  if (planarConfiguration !== 1 && planarConfiguration !== 2) throw damaged(`PlanarConfiguration is ${planarConfiguration}`);

  const tiled = byTag.has(Tag.TileOffsets) || byTag.has(Tag.TileWidth);
  const blockWidth = tiled ? await scalar(Tag.TileWidth) : width;
  const blockHeight = tiled ? await scalar(Tag.TileLength) : Math.min(height, await scalar(Tag.RowsPerStrip, height));
  if (blockWidth === 0 || blockHeight === 0) throw damaged(`its ${tiled ? 'tiles' : 'strips'} are ${blockWidth} × ${blockHeight} cells`);
  if (blockWidth * blockHeight > Math.max(cells, SMALL_IMAGE_BLOCK_CELLS)) {
    throw damaged(`its ${tiled ? 'tiles' : 'strips'} of ${blockWidth} × ${blockHeight} cells are larger than its ${width} × ${height} image can need`);
  }
  const blocksAcross = Math.ceil(width / blockWidth);
  const blocksDown = Math.ceil(height / blockHeight);
  const planes = planarConfiguration === 2 ? samplesPerPixel : 1;
  const count = blocksAcross * blocksDown * planes;
  if (count > MAX_BLOCKS) throw damaged(`it is cut into ${count} ${tiled ? 'tiles' : 'strips'} (at most ${MAX_BLOCKS} are read)`);
  let bitsPerBlockCell = 0;
  for (let s = 0; s < (planes === 1 ? samplesPerPixel : 1); s++) bitsPerBlockCell += bitsOf(s);
  const decodedBytes = Math.ceil((blockWidth * bitsPerBlockCell) / 8) * blockHeight;

  const offsetsTag = tiled ? Tag.TileOffsets : Tag.StripOffsets;
  const countsTag = tiled ? Tag.TileByteCounts : Tag.StripByteCounts;
  const tableLimit = count * 8;
  const offsetsEntry = byTag.get(offsetsTag);
  const countsEntry = byTag.get(countsTag);
  if (!offsetsEntry || !countsEntry) throw damaged(`it lists no ${tiled ? 'tiles' : 'strips'} of pixel data`);
  for (const entry of [offsetsEntry, countsEntry]) {
    if (entry.count < count) throw damaged(`${tagName(entry.tag)} lists ${entry.count} ${tiled ? 'tiles' : 'strips'}, but the image has ${count}`);
  }
  const offsets = (await reader.values(offsetsEntry, Math.max(tableLimit, 8))).slice(0, count);
  const byteCounts = (await reader.values(countsEntry, Math.max(tableLimit, 8))).slice(0, count);
  const maxBlockBytes = decodedBytes * 2 + 1024;
  const kind = tiled ? 'tile' : 'strip';
  for (let k = 0; k < count; k++) {
    const at = offsets[k]!;
    const length = byteCounts[k]!;
    if (length === 0) continue; // a sparse block (GDAL's SPARSE_OK): decoded as nodata/zero
    if (!(Number.isSafeInteger(at) && Number.isSafeInteger(length))) throw damaged(`${kind} ${k} has an invalid position`);
    if (at + length > reader.size) {
      throw new RasterFormatError(
        'TRUNCATED',
        `The GeoTIFF is truncated: it is ${reader.size} bytes long but its pixel data runs to byte ${at + length} (incomplete upload or copy?).`,
      );
    }
    if (length > maxBlockBytes) {
      throw damaged(`${kind} ${k} holds ${describeBytes(length)}, more than its ${blockWidth} × ${blockHeight} cells can need`);
    }
  }

  const tags = new Set(byTag.keys());
  return {
    littleEndian: reader.little,
    bigTiff: reader.big,
    fileSize: reader.size,
    imageCount,
    width,
    height,
    samplesPerPixel,
    bitsPerSample,
    sampleFormat,
    compression,
    predictor,
    planarConfiguration,
    blocks: { tiled, blockWidth, blockHeight, blocksAcross, blocksDown, count, offsets, byteCounts, decodedBytes },
    tags,
    hasGeoKeys: tags.has(Tag.GeoKeyDirectory),
    hasGeoTransform: tags.has(Tag.ModelTransformation) || (tags.has(Tag.ModelTiepoint) && tags.has(Tag.ModelPixelScale)),
  };
}

/** `inspectTiff` on the file at `path`, reading only the bytes the walk needs. */
export async function inspectTiffFile(path: string, limits: TiffLimits = {}): Promise<TiffSummary> {
  const source = await openFileSource(path);
  try {
    return await inspectTiff(source, limits);
  } finally {
    await source.close();
  }
}
