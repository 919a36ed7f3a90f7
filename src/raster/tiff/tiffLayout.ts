/**
 * Byte layout of little-endian TIFFs (classic or BigTIFF): the header and IFD writers that the Cloud
 * Optimized GeoTIFF layout (`cogLayout.ts`) builds on, and a plain single-image TIFF — header, one IFD, the
 * tag values that do not fit in their entries (among them the block tables), then the blocks — with the
 * directory first (`tiffDirectory` + `blockTables`; `assembleTiff` in memory, which the tests use to build
 * TIFFs of any shape).
 */

export const TagType = { ASCII: 2, SHORT: 3, LONG: 4, DOUBLE: 12, LONG8: 16 } as const;
type TagTypeCode = (typeof TagType)[keyof typeof TagType];

const TYPE_SIZE: Record<TagTypeCode, number> = { 2: 1, 3: 2, 4: 4, 12: 8, 16: 8 };

export interface TiffTag {
  readonly tag: number;
  readonly type: TagTypeCode;
  /** Numbers, or for ASCII a string (written as UTF-8 with a NUL terminator added). */
  readonly values: readonly number[] | string;
}

/** Tags written by the layout itself. */
export const BLOCK_OFFSETS_TAG = 324;
export const BLOCK_BYTE_COUNTS_TAG = 325;

/** Largest file a classic TIFF can address. */
export const CLASSIC_TIFF_LIMIT = 2 ** 32 - 1;

/** The directory part of a file: everything before the first block, with the block tables still zero. */
export interface TiffDirectory {
  /** Header, IFD and out-of-line tag values; the blocks start right after it. */
  readonly bytes: Buffer;
  readonly bigTiff: boolean;
  readonly blockCount: number;
  /** File positions of the block offset and byte-count tables (each blockCount entries of 4 or 8 bytes). */
  readonly offsetsPosition: number;
  readonly byteCountsPosition: number;
}

/**
 * Lays out the directory for `tags` (without the block tables, which are added) and `blockCount` blocks.
 * `bigTiff` must be decided up front: use it when the blocks may not fit below CLASSIC_TIFF_LIMIT.
 */
function tiffDirectory(tags: readonly TiffTag[], blockCount: number, bigTiff: boolean): TiffDirectory {
  const offsetType: TagTypeCode = bigTiff ? TagType.LONG8 : TagType.LONG;
  const zeros = new Array<number>(blockCount).fill(0);
  const allTags = [
    ...tags,
    { tag: BLOCK_OFFSETS_TAG, type: offsetType, values: zeros },
    { tag: BLOCK_BYTE_COUNTS_TAG, type: offsetType, values: zeros },
  ].sort((a, b) => a.tag - b.tag);

  const headerSize = tiffHeaderSize(bigTiff);
  const out = Buffer.alloc(headerSize + ifdBytes(allTags, bigTiff));
  writeTiffHeader(out, bigTiff, headerSize);
  const positions = writeIfd(out, headerSize, allTags, bigTiff, 0);
  return { bytes: out, bigTiff, blockCount, offsetsPosition: positions.get(BLOCK_OFFSETS_TAG)!, byteCountsPosition: positions.get(BLOCK_BYTE_COUNTS_TAG)! };
}

/** The two block tables of `directory` filled in, to be written at offsetsPosition and byteCountsPosition. */
function blockTables(directory: TiffDirectory, offsets: ArrayLike<number>, byteCounts: ArrayLike<number>): { offsets: Buffer; byteCounts: Buffer } {
  const type = directory.bigTiff ? TagType.LONG8 : TagType.LONG;
  const size = TYPE_SIZE[type] * directory.blockCount;
  const table = (values: ArrayLike<number>) => {
    if (values.length !== directory.blockCount) throw new RangeError(`expected ${directory.blockCount} block entries, got ${values.length}`);
    const bytes = Buffer.alloc(size);
    writeValues(bytes, 0, type, Array.from(values));
    return bytes;
  };
  return { offsets: table(offsets), byteCounts: table(byteCounts) };
}

/**
 * Builds the whole file in memory: `tags` (without the block tables) and the compressed blocks in order.
 * Uses BigTIFF when asked or when the file would not fit in a classic TIFF.
 */
export function assembleTiff(tags: readonly TiffTag[], blocks: readonly Uint8Array[], forceBigTiff = false): Buffer {
  const blockBytes = blocks.reduce((n, b) => n + b.length, 0);
  const classic = tiffDirectory(tags, blocks.length, false);
  const directory = forceBigTiff || classic.bytes.length + blockBytes > CLASSIC_TIFF_LIMIT ? tiffDirectory(tags, blocks.length, true) : classic;
  const out = Buffer.alloc(directory.bytes.length + blockBytes);
  directory.bytes.copy(out, 0);
  const offsets: number[] = [];
  let position = directory.bytes.length;
  for (const b of blocks) {
    offsets.push(position);
    out.set(b, position);
    position += b.length;
  }
  const tables = blockTables(
    directory,
    offsets,
    blocks.map((b) => b.length),
  );
  tables.offsets.copy(out, directory.offsetsPosition);
  tables.byteCounts.copy(out, directory.byteCountsPosition);
  return out;
}

/** Bytes of the TIFF header: 8 (classic) or 16 (BigTIFF). */
export function tiffHeaderSize(bigTiff: boolean): number {
  return bigTiff ? 16 : 8;
}

/** Writes the little-endian header at the start of `out`, pointing to the first IFD at `firstIfd`. */
export function writeTiffHeader(out: Buffer, bigTiff: boolean, firstIfd: number): void {
  out.write('II', 0, 'latin1');
  if (bigTiff) {
    out.writeUInt16LE(43, 2);
    out.writeUInt16LE(8, 4);
    out.writeUInt16LE(0, 6);
    out.writeBigUInt64LE(BigInt(firstIfd), 8);
  } else {
    out.writeUInt16LE(42, 2);
    out.writeUInt32LE(firstIfd, 4);
  }
}

/** Bytes of an IFD with `tags`: its entries, the next-IFD offset and the out-of-line values after them. */
export function ifdBytes(tags: readonly TiffTag[], bigTiff: boolean): number {
  const entrySize = bigTiff ? 20 : 12;
  return (bigTiff ? 8 : 2) + entrySize * tags.length + (bigTiff ? 8 : 4) + tagDataBytes(tags, bigTiff);
}

/**
 * Writes the IFD of `tags` (sorted by tag number) at `at`, its out-of-line values right after its entries,
 * and `nextIfd` as the next-IFD offset; returns the file position of every tag's values.
 */
export function writeIfd(out: Buffer, at: number, tags: readonly TiffTag[], bigTiff: boolean, nextIfd: number): Map<number, number> {
  const entrySize = bigTiff ? 20 : 12;
  let entry = at;
  if (bigTiff) {
    out.writeBigUInt64LE(BigInt(tags.length), entry);
    entry += 8;
  } else {
    out.writeUInt16LE(tags.length, entry);
    entry += 2;
  }
  let data = entry + entrySize * tags.length + (bigTiff ? 8 : 4);
  if (bigTiff) out.writeBigUInt64LE(BigInt(nextIfd), data - 8);
  else out.writeUInt32LE(nextIfd, data - 4);
  const inlineLimit = bigTiff ? 8 : 4;
  const positions = new Map<number, number>();
  for (const t of tags) {
    const count = valueCount(t.values);
    const size = count * TYPE_SIZE[t.type];
    out.writeUInt16LE(t.tag, entry);
    out.writeUInt16LE(t.type, entry + 2);
    let valuePos: number;
    if (bigTiff) {
      out.writeBigUInt64LE(BigInt(count), entry + 4);
      valuePos = entry + 12;
    } else {
      out.writeUInt32LE(count, entry + 4);
      valuePos = entry + 8;
    }
    let valuesAt = valuePos;
    if (size > inlineLimit) {
      if (bigTiff) out.writeBigUInt64LE(BigInt(data), valuePos);
      else out.writeUInt32LE(data, valuePos);
      valuesAt = data;
      data += padded(size);
    }
    writeValues(out, valuesAt, t.type, t.values);
    positions.set(t.tag, valuesAt);
    entry += entrySize;
  }
  return positions;
}

function writeValues(out: Buffer, at: number, type: TagTypeCode, values: readonly number[] | string): void {
  if (typeof values === 'string') {
    out.write(values, at, 'utf8');
    return;
  }
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (type === TagType.SHORT) out.writeUInt16LE(v, at + 2 * i);
    else if (type === TagType.LONG) out.writeUInt32LE(v, at + 4 * i);
    else if (type === TagType.DOUBLE) out.writeDoubleLE(v, at + 8 * i);
    else if (type === TagType.LONG8) out.writeBigUInt64LE(BigInt(v), at + 8 * i);
  }
}

/** Bytes of out-of-line tag values (each padded to an even length). */
function tagDataBytes(tags: readonly TiffTag[], big: boolean): number {
  let n = 0;
  for (const t of tags) {
    const count = valueCount(t.values);
    const size = count * TYPE_SIZE[t.type];
    if (size > (big ? 8 : 4)) n += padded(size);
  }
  return n;
}

/** Number of values; for ASCII the UTF-8 byte length plus the NUL terminator. */
function valueCount(values: readonly number[] | string): number {
  return typeof values === 'string' ? Buffer.byteLength(values, 'utf8') + 1 : values.length;
}

function padded(size: number): number {
  return size + (size & 1);
}
