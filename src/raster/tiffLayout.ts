/**
 * Byte layout of a little-endian single-image TIFF (classic or BigTIFF): header, one IFD, the tag values
 * that do not fit in their entries, then the image blocks (strips or tiles) in order. The block offset
 * and byte-count tags are filled in here.
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

/** Tags written by `assembleTiff` itself. */
export const BLOCK_OFFSETS_TAG = 324;
export const BLOCK_BYTE_COUNTS_TAG = 325;

/** Largest file a classic TIFF can address. */
export const CLASSIC_TIFF_LIMIT = 2 ** 32 - 1;

/**
 * Builds the file: `tags` (without the tile offset/byte-count tags, which are added) and the compressed
 * tiles. Uses BigTIFF when asked or when the file would not fit in a classic TIFF.
 */
export function assembleTiff(tags: readonly TiffTag[], blocks: readonly Uint8Array[], forceBigTiff = false): Buffer {
  const blockBytes = blocks.reduce((n, b) => n + b.length, 0);
  const classicEstimate = 8 + 6 + 12 * (tags.length + 2) + tagDataBytes(tags, false) + 8 * blocks.length + blockBytes;
  const big = forceBigTiff || classicEstimate > CLASSIC_TIFF_LIMIT;
  const offsetType: TagTypeCode = big ? TagType.LONG8 : TagType.LONG;
  const placeholder = new Array<number>(blocks.length).fill(0);
  const allTags = [
    ...tags,
    { tag: BLOCK_OFFSETS_TAG, type: offsetType, values: placeholder },
    { tag: BLOCK_BYTE_COUNTS_TAG, type: offsetType, values: blocks.map((b) => b.length) },
  ].sort((a, b) => a.tag - b.tag);

  const headerSize = big ? 16 : 8;
  const entrySize = big ? 20 : 12;
  const ifdSize = (big ? 8 : 2) + entrySize * allTags.length + (big ? 8 : 4);
  const dataStart = headerSize + ifdSize;
  const blockStart = dataStart + tagDataBytes(allTags, big);
  const offsets: number[] = [];
  let position = blockStart;
  for (const b of blocks) {
    offsets.push(position);
    position += b.length;
  }
  const out = Buffer.alloc(position);

  // Header.
  out.write('II', 0, 'latin1');
  if (big) {
    out.writeUInt16LE(43, 2);
    out.writeUInt16LE(8, 4);
    out.writeUInt16LE(0, 6);
    out.writeBigUInt64LE(BigInt(headerSize), 8);
  } else {
    out.writeUInt16LE(42, 2);
    out.writeUInt32LE(headerSize, 4);
  }

  // IFD and out-of-line values.
  let entry = headerSize;
  if (big) {
    out.writeBigUInt64LE(BigInt(allTags.length), entry);
    entry += 8;
  } else {
    out.writeUInt16LE(allTags.length, entry);
    entry += 2;
  }
  let data = dataStart;
  const inlineLimit = big ? 8 : 4;
  for (const t of allTags) {
    const values = t.tag === BLOCK_OFFSETS_TAG ? offsets : t.values;
    const count = valueCount(values);
    const size = count * TYPE_SIZE[t.type];
    out.writeUInt16LE(t.tag, entry);
    out.writeUInt16LE(t.type, entry + 2);
    let valuePos: number;
    if (big) {
      out.writeBigUInt64LE(BigInt(count), entry + 4);
      valuePos = entry + 12;
    } else {
      out.writeUInt32LE(count, entry + 4);
      valuePos = entry + 8;
    }
    if (size > inlineLimit) {
      if (big) out.writeBigUInt64LE(BigInt(data), valuePos);
      else out.writeUInt32LE(data, valuePos);
      writeValues(out, data, t.type, values);
      data += padded(size);
    } else {
      writeValues(out, valuePos, t.type, values);
    }
    entry += entrySize;
  }
  // Next-IFD offset stays 0. Blocks follow the tag data.
  for (let k = 0; k < blocks.length; k++) out.set(blocks[k]!, offsets[k]!);
  return out;
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
