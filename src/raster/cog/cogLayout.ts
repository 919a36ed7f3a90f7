/**
 * Byte layout of a Cloud Optimized GeoTIFF as GDAL's COG driver writes it (and its validator,
 * `validate_cloud_optimized_geotiff.py`, checks):
 *
 *   header | GDAL's structural metadata ("ghost area") | IFD of the full-resolution image and its tag values
 *   | IFD of overview 1 (the largest) | … | IFD of the smallest overview
 *   | tiles of the smallest overview | … | tiles of overview 1 | tiles of the full-resolution image
 *
 * Tiles are in row-major order within each image; every tile is preceded by its size (4 bytes, little
 * endian: BLOCK_LEADER=SIZE_AS_UINT4) and followed by a copy of its last 4 bytes
 * (BLOCK_TRAILER=LAST_4_BYTES_REPEATED), so a reader can fetch a tile with one request and check it is whole.
 * With that ghost area GDAL reports `LAYOUT=COG` in the IMAGE_STRUCTURE metadata.
 */
import {
  BLOCK_BYTE_COUNTS_TAG,
  BLOCK_OFFSETS_TAG,
  CLASSIC_TIFF_LIMIT,
  TagType,
  ifdBytes,
  tiffHeaderSize,
  writeIfd,
  writeTiffHeader,
  type TiffTag,
} from '../tiff/tiffLayout.js';

const GHOST_BODY =
  'LAYOUT=IFDS_BEFORE_DATA\nBLOCK_ORDER=ROW_MAJOR\nBLOCK_LEADER=SIZE_AS_UINT4\nBLOCK_TRAILER=LAST_4_BYTES_REPEATED\nKNOWN_INCOMPATIBLE_EDITION=NO\n ';

/** GDAL's structural metadata, exactly as its COG driver writes it after the header (140 bytes of items). */
export const GDAL_GHOST_AREA = `GDAL_STRUCTURAL_METADATA_SIZE=${String(GHOST_BODY.length).padStart(6, '0')} bytes\n${GHOST_BODY}`;

/** Bytes around each tile: the size leader and the repeated last 4 bytes. */
export const BLOCK_LEADER_BYTES = 4;
export const BLOCK_TRAILER_BYTES = 4;

/** One image of the file: its tags (without the block tables, which are added) and its tiles' sizes in row-major order. */
export interface CogImage {
  readonly tags: readonly TiffTag[];
  readonly blockSizes: ArrayLike<number>;
}

/** Everything before the first tile, with the block tables filled in, and where each image's tiles go. */
export interface CogDirectory {
  readonly bytes: Buffer;
  readonly bigTiff: boolean;
  /** Per image (in `images` order): file offset of each tile's data (after its leader). */
  readonly blockOffsets: Float64Array[];
  /** Total file size. */
  readonly fileSize: number;
}

/**
 * Lays out a COG of `images` (the full-resolution image first, then the overviews, largest first) whose
 * tiles have the given sizes: the directory bytes (with the final block tables) and every tile's offset.
 * BigTIFF when asked or when the file would not fit in a classic TIFF.
 */
export function cogDirectory(images: readonly CogImage[], forceBigTiff = false): CogDirectory {
  const classic = layout(images, false);
  return !forceBigTiff && classic.fileSize <= CLASSIC_TIFF_LIMIT ? classic : layout(images, true);
}

function layout(images: readonly CogImage[], bigTiff: boolean): CogDirectory {
  const offsetType = bigTiff ? TagType.LONG8 : TagType.LONG;
  const withTables = images.map(({ tags, blockSizes }) =>
    [
      ...tags,
      { tag: BLOCK_OFFSETS_TAG, type: offsetType, values: new Array<number>(blockSizes.length).fill(0) },
      { tag: BLOCK_BYTE_COUNTS_TAG, type: offsetType, values: Array.from(blockSizes) },
    ].sort((a, b) => a.tag - b.tag),
  );
  const headerSize = tiffHeaderSize(bigTiff);
  const ghost = Buffer.from(GDAL_GHOST_AREA, 'latin1');
  const firstIfd = even(headerSize + ghost.length);
  const ifdStarts: number[] = [];
  let end = firstIfd;
  for (const tags of withTables) {
    ifdStarts.push(end);
    end += ifdBytes(tags, bigTiff);
  }
  const directorySize = end;

  // Tiles: the smallest overview first, the full-resolution image last.
  const blockOffsets = images.map(({ blockSizes }) => new Float64Array(blockSizes.length));
  let position = directorySize;
  for (let k = images.length - 1; k >= 0; k--) {
    const sizes = images[k]!.blockSizes;
    for (let b = 0; b < sizes.length; b++) {
      blockOffsets[k]![b] = position + BLOCK_LEADER_BYTES;
      position += BLOCK_LEADER_BYTES + sizes[b]! + BLOCK_TRAILER_BYTES;
    }
  }

  const bytes = Buffer.alloc(directorySize);
  writeTiffHeader(bytes, bigTiff, firstIfd);
  bytes.write(GDAL_GHOST_AREA, headerSize, 'latin1');
  withTables.forEach((tags, k) => {
    const filled = tags.map((t) => (t.tag === BLOCK_OFFSETS_TAG ? { ...t, values: Array.from(blockOffsets[k]!) } : t));
    writeIfd(bytes, ifdStarts[k]!, filled, bigTiff, ifdStarts[k + 1] ?? 0);
  });
  return { bytes, bigTiff, blockOffsets, fileSize: position };
}

/** The leader (size, 4 bytes LE) and trailer (last 4 bytes repeated) of a compressed tile. */
function blockFraming(block: Uint8Array): { leader: Buffer; trailer: Buffer } {
  const framing = Buffer.alloc(BLOCK_LEADER_BYTES + BLOCK_TRAILER_BYTES);
  writeBlockFraming(block, framing, 0);
  return { leader: framing.subarray(0, BLOCK_LEADER_BYTES), trailer: framing.subarray(BLOCK_LEADER_BYTES) };
}

/** Writes the leader of a compressed tile at `at` in `framing`, its trailer right after it. */
export function writeBlockFraming(block: Uint8Array, framing: Buffer, at: number): void {
  if (block.length < 4) throw new RangeError(`a compressed tile has at least 4 bytes, got ${block.length}`);
  framing.writeUInt32LE(block.length, at);
  framing.set(block.subarray(block.length - BLOCK_TRAILER_BYTES), at + BLOCK_LEADER_BYTES);
}

/** The whole COG in memory: `images` (full resolution first, then overviews, largest first) with their tiles. */
export function assembleCog(images: readonly { tags: readonly TiffTag[]; blocks: readonly Uint8Array[] }[], forceBigTiff = false): Buffer {
  const directory = cogDirectory(
    images.map(({ tags, blocks }) => ({ tags, blockSizes: blocks.map((b) => b.length) })),
    forceBigTiff,
  );
  const out = Buffer.alloc(directory.fileSize);
  directory.bytes.copy(out, 0);
  images.forEach(({ blocks }, k) => {
    blocks.forEach((block, b) => {
      const at = directory.blockOffsets[k]![b]!;
      const { leader, trailer } = blockFraming(block);
      out.set(leader, at - BLOCK_LEADER_BYTES);
      out.set(block, at);
      out.set(trailer, at + block.length);
    });
  });
  return out;
}

function even(n: number): number {
  return n + (n & 1);
}
