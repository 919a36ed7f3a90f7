/**
 * Decompressors for geotiff.js that never produce more bytes than a strip or tile declares.
 *
 * geotiff.js's own decoders grow their output until the compressed stream ends (LZW and PackBits into
 * JavaScript arrays), so a few kilobytes of hostile data can inflate to gigabytes before anything notices.
 * These replacements are told the decoded size of one block (width × height × bytes per cell of a strip or
 * tile) and stop with `BlockTooLargeError` as soon as a stream would go past it. Importing this module
 * registers them for the compressions the raster reader supports (none, LZW, DEFLATE, PackBits, ZSTD).
 */
import { inflate } from 'node:zlib';
import { addDecoder, getDecoder, BaseDecoder, type ImageFileDirectory } from 'geotiff';
import type { ZSTDDecoder } from 'zstddec/stream';

/** A compressed block that decodes to more bytes than its cells hold. */
export class BlockTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`a compressed strip or tile decodes to more than the ${maxBytes} bytes its cells hold`);
    this.name = 'BlockTooLargeError';
  }
}

/** Largest output piece of `inflateBounded` (allocated at its start, whatever the stream holds). */
const INFLATE_CHUNK_BYTES = 2 ** 20;

/**
 * DEFLATE (zlib stream), at most `maxBytes` of output, inflated on libuv's thread pool: the blocks a read asks for
 * at once (a row of tiles) inflate on several cores. A 99 M-cell Float64 DEM's 795 MB inflate in about 2.2 s on one
 * thread.
 */
export function inflateBounded(input: Uint8Array, maxBytes: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    // output in one piece up to INFLATE_CHUNK_BYTES (zlib's default 16 KiB pieces are copied together at the end)
    const chunkSize = Math.max(64, Math.min(maxBytes, INFLATE_CHUNK_BYTES));
    inflate(input, { maxOutputLength: Math.max(1, maxBytes), chunkSize }, (error, out) => {
      if (!error) resolve(out);
      else reject((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' ? new BlockTooLargeError(maxBytes) : error);
    });
  });
}

const LZW_CLEAR = 256;
const LZW_END = 257;
const LZW_FIRST_FREE = 258;
const LZW_MAX_CODES = 4096;

/**
 * TIFF LZW (TIFF 6.0 section 13: codes of 9–12 bits, most significant bit first, the code width growing one
 * code early as libtiff writes it), at most `maxBytes` of output.
 */
export function lzwDecodeBounded(input: Uint8Array, maxBytes: number): Uint8Array {
  const out = new Uint8Array(maxBytes);
  const prefix = new Int16Array(LZW_MAX_CODES);
  const suffix = new Uint8Array(LZW_MAX_CODES);
  const first = new Uint8Array(LZW_MAX_CODES);
  const length = new Uint16Array(LZW_MAX_CODES);
  for (let c = 0; c < 256; c++) {
    prefix[c] = -1;
    suffix[c] = c;
    first[c] = c;
    length[c] = 1;
  }
  const totalBits = input.length * 8;
  let bitPos = 0;
  let width = 9;
  let next = LZW_FIRST_FREE;
  let previous = -1;
  let pos = 0;

  const readCode = (): number => {
    if (bitPos + width > totalBits) return LZW_END; // a stream cut short ends like libtiff's does
    let code = 0;
    for (let i = 0; i < width; i++) {
      const bit = (input[(bitPos + i) >> 3]! >> (7 - ((bitPos + i) & 7))) & 1;
      code = (code << 1) | bit;
    }
    bitPos += width;
    return code;
  };
  const emit = (code: number): void => {
    const n = length[code]!;
    if (pos + n > maxBytes) throw new BlockTooLargeError(maxBytes);
    let c = code;
    for (let i = n - 1; i >= 0; i--) {
      out[pos + i] = suffix[c]!;
      c = prefix[c]!;
    }
    pos += n;
  };
  const add = (base: number, byte: number): void => {
    if (next >= LZW_MAX_CODES) return;
    prefix[next] = base;
    suffix[next] = byte;
    first[next] = first[base]!;
    length[next] = length[base]! + 1;
    next++;
    if (next >= (1 << width) - 1 && width < 12) width++;
  };

  for (;;) {
    const code = readCode();
    if (code === LZW_END) break;
    if (code === LZW_CLEAR) {
      width = 9;
      next = LZW_FIRST_FREE;
      previous = -1;
      continue;
    }
    if (previous === -1) {
      if (code > 255) throw new Error(`corrupt LZW data: code ${code} after a clear code`);
      emit(code);
    } else if (code < next) {
      emit(code);
      add(previous, first[code]!);
    } else if (code === next && next < LZW_MAX_CODES) {
      add(previous, first[previous]!);
      emit(code);
    } else {
      throw new Error(`corrupt LZW data: code ${code} is not defined yet`);
    }
    previous = code;
  }
  return pos === maxBytes ? out : out.slice(0, pos);
}

/** PackBits (TIFF 6.0 section 9), at most `maxBytes` of output. */
export function packBitsDecodeBounded(input: Uint8Array, maxBytes: number): Uint8Array {
  const out = new Uint8Array(maxBytes);
  let pos = 0;
  let i = 0;
  while (i < input.length) {
    const header = (input[i]! << 24) >> 24;
    i++;
    if (header >= 0) {
      const n = header + 1;
      if (pos + n > maxBytes) throw new BlockTooLargeError(maxBytes);
      out.set(input.subarray(i, i + n), pos);
      pos += Math.min(n, input.length - i);
      i += n;
    } else if (header !== -128) {
      const n = 1 - header;
      if (pos + n > maxBytes) throw new BlockTooLargeError(maxBytes);
      if (i < input.length) out.fill(input[i]!, pos, pos + n);
      pos += n;
      i++;
    }
  }
  return pos === maxBytes ? out : out.slice(0, pos);
}

/** The ZSTD decoder, once a ZSTD-compressed file was met (most DEMs are not: its module is loaded then only). */
let zstd: ZSTDDecoder | null = null;

/** Loads the ZSTD decoder (WebAssembly); needed once before `zstdDecodeBounded`. */
export async function prepareZstd(): Promise<void> {
  if (zstd) return;
  const { ZSTDDecoder } = await import('zstddec/stream');
  const decoder = new ZSTDDecoder();
  await decoder.init();
  zstd ??= decoder;
}

/**
 * ZSTD, at most `maxBytes` of output: the output buffer has that size, so a stream that needs more fails
 * (zstd reports it as an error, which comes back as an empty result).
 */
export function zstdDecodeBounded(input: Uint8Array, maxBytes: number): Uint8Array {
  if (!zstd) throw new Error('the ZSTD decoder is not loaded (prepareZstd)');
  const out = zstd.decode(input, Math.max(1, maxBytes));
  if (out.length === 0 && input.length > 0) throw new BlockTooLargeError(maxBytes);
  return out;
}

interface BoundedParameters {
  tileWidth: number;
  tileHeight: number;
  planarConfiguration: number;
  bitsPerSample: number | number[];
  predictor: number;
  /** Decoded bytes of one block. */
  maxBytes: number;
}

/** geotiff.js's decoder parameters plus the decoded size of one block; strips are at most the image height. */
async function boundedParameters(fd: ImageFileDirectory): Promise<BoundedParameters> {
  const load = async (name: string) => (await fd.loadValue(name as never)) as unknown;
  const tiled = !fd.hasTag('StripOffsets' as never);
  const imageHeight = Number(await load('ImageLength'));
  const tileWidth = Number(tiled ? await load('TileWidth') : await load('ImageWidth'));
  const tileHeight = tiled ? Number(await load('TileLength')) : Math.min(imageHeight, Number((await load('RowsPerStrip')) || imageHeight));
  const planarConfiguration = Number((await load('PlanarConfiguration')) ?? 1);
  const rawBits = await load('BitsPerSample');
  const bits = typeof rawBits === 'number' ? [rawBits] : Array.from((rawBits as ArrayLike<number>) ?? [1]);
  const samples = Number((await load('SamplesPerPixel')) ?? 1);
  const bitsPerCell = planarConfiguration === 2 ? bits[0]! : Array.from({ length: samples }, (_, s) => bits[Math.min(s, bits.length - 1)]!).reduce((a, b) => a + b, 0);
  return {
    tileWidth,
    tileHeight,
    planarConfiguration,
    bitsPerSample: bits,
    predictor: Number((await load('Predictor')) || 1),
    maxBytes: Math.ceil((tileWidth * bitsPerCell) / 8) * tileHeight,
  };
}

/** A block's decoding, at most `maxBytes` of output. */
type BoundedDecode = (input: Uint8Array, maxBytes: number) => Uint8Array | Promise<Uint8Array>;

function boundedDecoder(decode: BoundedDecode): typeof BaseDecoder {
  return class extends BaseDecoder {
    override async decodeBlock(buffer: ArrayBufferLike): Promise<ArrayBufferLike> {
      const out = await decode(new Uint8Array(buffer), (this.parameters as unknown as BoundedParameters).maxBytes);
      // (a copy where `out` is part of a larger buffer: Node's small Buffers share one, and a Buffer's slice is a view)
      return out.byteOffset === 0 && out.byteLength === out.buffer.byteLength ? out.buffer : out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength);
    }
  } as unknown as typeof BaseDecoder;
}

/** The bounded decoders by TIFF Compression code (DEFLATE has two), the ones the raster reader supports. */
const BOUNDED_DECODERS: readonly [codes: number[], load: () => Promise<BoundedDecode>][] = [
  [[8, 32946], async () => inflateBounded],
  [[5], async () => lzwDecodeBounded],
  [[32773], async () => packBitsDecodeBounded],
  [
    [50000],
    async () => {
      await prepareZstd();
      return zstdDecodeBounded;
    },
  ],
];

// Registered in place of geotiff.js's own decoders (which the reader never uses); decoding stays in this thread but
// for DEFLATE, which inflates on libuv's thread pool.
for (const [codes, load] of BOUNDED_DECODERS) addDecoder(codes, async () => boundedDecoder(await load()), boundedParameters as never, false);

/** The compressions decoded by this module's bounded decoders. */
const BOUNDED_COMPRESSIONS: ReadonlySet<number> = new Set(BOUNDED_DECODERS.flatMap(([codes]) => codes));

/**
 * The bounded decoder of `fd`'s blocks (as geotiff.js's readRasters makes it), or null when its compression is
 * not one of this module's. Its `decode` gives a block decompressed, with the predictor `fd` declares undone.
 */
export async function boundedBlockDecoder(fd: ImageFileDirectory): Promise<BaseDecoder | null> {
  const compression = Number((await fd.loadValue('Compression' as never)) ?? 1);
  if (!BOUNDED_COMPRESSIONS.has(compression)) return null;
  return getDecoder(compression as never, (await boundedParameters(fd)) as never);
}
