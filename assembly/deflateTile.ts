/**
 * Compressing one GeoTIFF tile of Float32 values, compiled to WebAssembly (built by `scripts/build-wasm.mjs`
 * into build/wasm/deflateTile.wasm, loaded by src/raster/tiff/tileEncoderWasm.ts): the TIFF floating-point
 * predictor (Predictor 3, as src/raster/tiff/floatPredictor.ts), then one zlib stream (RFC 1950) of DEFLATE blocks
 * (RFC 1951) with Huffman codes made for their bytes, whose only matches are runs of the byte
 * before (distance 1) — what zlib's Z_RLE strategy looks for, the strategy the writer chose by measurement —
 * in blocks of as many symbols as zlib's, each with codes of its own. A tile that would not shrink is stored.
 *
 * The JavaScript side passes the tile's values and scratch in the imported memory: `work` (WORK_BYTES) for
 * the tables, `pred` (4 bytes per value) for the predicted bytes, `runs` (3 bytes per byte) and `out`
 * (outputCapacity bytes).
 */

const LITLEN_CODES: i32 = 286;
const DIST_CODES: i32 = 30;
const CL_CODES: i32 = 19;
const MAX_BITS: i32 = 15;
const MAX_CL_BITS: i32 = 7;
const MIN_MATCH: i32 = 3;
const MAX_MATCH: i32 = 258;
/** Literals and runs per block: zlib's at memLevel 8 (lit_bufsize − 1). */
const BLOCK_SYMBOLS: i32 = 16383;

// the work area (byte offsets)
const FREQ_LL: usize = 0; // u32[286]
const FREQ_CL: usize = 1280; // u32[19]
const LEN_LL: usize = 1360; // u8[286]
const LEN_D: usize = 1664; // u8[30]
const LEN_CL: usize = 1696; // u8[19]
const CODE_LL: usize = 1728; // u16[286] (bit-reversed)
const CODE_D: usize = 2304; // u16[30]
const CODE_CL: usize = 2368; // u16[19]
const CL_SEQUENCE: usize = 2416; // u16[316]: code-length symbols, extra bits << 5
const KEYS: usize = 3072; // u64[286]: frequency << 16 | symbol
const PARENT: usize = 5376; // u32[572]: parent of each tree node
const DEPTH: usize = 7680; // u8[572]
const BL_COUNT: usize = 8256; // u32[16]
const NEXT_CODE: usize = 8320; // u32[16]
const COUNTS: usize = 8384; // u32[32]
const HISTOGRAMS: usize = 8704; // u32[4][256]
const INTERNAL: usize = 12800; // u32[286]: weights of the internal tree nodes
export const WORK_BYTES: i32 = 13952;

/** First length of each length code 257…285, and its extra bits. */
const LENGTH_BASE = memory.data<u16>([3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]);
const LENGTH_EXTRA = memory.data<u8>([0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]);
/** The length code index (0…28) of each match length 3…258, at length − 3: filled from LENGTH_BASE when the module starts. */
const LENGTH_CODE = memory.data(MAX_MATCH - MIN_MATCH + 1);
for (let length = MIN_MATCH, code = 0; length <= MAX_MATCH; length++) {
  while (code < 28 && <i32>load<u16>(LENGTH_BASE + (<usize>(code + 1) << 1)) <= length) code++;
  store<u8>(LENGTH_CODE + <usize>(length - MIN_MATCH), <u8>code);
}
/** The order in which the code-length code's lengths are sent. */
const CL_ORDER = memory.data<u8>([16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]);

/** Bytes `out` must hold for a tile of `bytes` predicted bytes. */
export function outputCapacity(bytes: i32): i32 {
  return bytes + (bytes >> 2) + 1024;
}

// the bit writer
let bitBuffer: u64 = 0;
let bitCount: i32 = 0;
let outAt: usize = 0;

@inline function putBits(value: u32, length: i32): void {
  bitBuffer |= (<u64>value) << (<u64>bitCount);
  bitCount += length;
  if (bitCount >= 32) {
    store<u32>(outAt, <u32>bitBuffer);
    outAt += 4;
    bitBuffer >>= 32;
    bitCount -= 32;
  }
}

/** Writes the whole bytes of the bit buffer, leaving at most 7 bits in it. */
function flushWhole(): void {
  while (bitCount >= 8) {
    store<u8>(outAt, <u8>bitBuffer);
    outAt += 1;
    bitBuffer >>= 8;
    bitCount -= 8;
  }
}

/** Writes the bit buffer to the last byte, padding it with zero bits. */
function flushBits(): void {
  flushWhole();
  if (bitCount > 0) {
    store<u8>(outAt, <u8>bitBuffer);
    outAt += 1;
  }
  bitCount = 0;
  bitBuffer = 0;
}

/**
 * Predictor 3 of `height` rows of `width` values (IEEE bit patterns at `values`) into `pred`: byte k of each value
 * minus byte k of the value before (four values at a time with SIMD), laid out as four planes per row, most
 * significant byte first; the first byte of each plane is differenced against the last of the plane before.
 */
function predict(values: usize, width: i32, height: i32, pred: usize): void {
  const w = <usize>width;
  for (let r: usize = 0; r < <usize>height; r++) {
    const src = values + r * w * 4;
    const dst = pred + r * w * 4;
    const first = load<u32>(src);
    const last = load<u32>(src + (w - 1) * 4);
    store<u8>(dst, <u8>(first >> 24));
    store<u8>(dst + w, <u8>((first >> 16) - (last >> 24)));
    store<u8>(dst + 2 * w, <u8>((first >> 8) - (last >> 16)));
    store<u8>(dst + 3 * w, <u8>(first - (last >> 8)));
    let i: usize = 1;
    for (; i + 4 <= w; i += 4) {
      const difference = i8x16.sub(v128.load(src + i * 4), v128.load(src + i * 4 - 4));
      // bytes 3, 7, 11, 15 (most significant of each value) first, then 2, 6, 10, 14, …
      const planes = i8x16.shuffle(difference, difference, 3, 7, 11, 15, 2, 6, 10, 14, 1, 5, 9, 13, 0, 4, 8, 12);
      store<u32>(dst + i, i32x4.extract_lane(planes, 0));
      store<u32>(dst + w + i, i32x4.extract_lane(planes, 1));
      store<u32>(dst + 2 * w + i, i32x4.extract_lane(planes, 2));
      store<u32>(dst + 3 * w + i, i32x4.extract_lane(planes, 3));
    }
    for (; i < w; i++) {
      const v = load<u32>(src + i * 4);
      const u = load<u32>(src + i * 4 - 4);
      store<u8>(dst + i, <u8>((v >> 24) - (u >> 24)));
      store<u8>(dst + w + i, <u8>((v >> 16) - (u >> 16)));
      store<u8>(dst + 2 * w + i, <u8>((v >> 8) - (u >> 8)));
      store<u8>(dst + 3 * w + i, <u8>(v - u));
    }
  }
}

@inline function lanesSum(v: v128): u32 {
  return <u32>(i32x4.extract_lane(v, 0) + i32x4.extract_lane(v, 1) + i32x4.extract_lane(v, 2) + i32x4.extract_lane(v, 3));
}

/** Adler-32 (RFC 1950) of `length` bytes at `data`, 16 bytes at a time with SIMD. */
function adler32(data: usize, length: i32): u32 {
  // weights 16…1 of a 16-byte chunk's bytes in the second sum
  const weightsLow = i16x8(16, 15, 14, 13, 12, 11, 10, 9);
  const weightsHigh = i16x8(8, 7, 6, 5, 4, 3, 2, 1);
  let a: u32 = 1;
  let b: u32 = 0;
  let at: i32 = 0;
  while (at < length) {
    // blocks of at most 5552 bytes keep the sums below 2³² before the reduction (as zlib's NMAX)
    const end = min(length, at + 5552);
    const chunks = (end - at) >> 4;
    let sums = i32x4.splat(0);
    let prefix = i32x4.splat(0);
    let weighted = i32x4.splat(0);
    for (let c = 0; c < chunks; c++) {
      const v = v128.load(data + <usize>(at + (c << 4)));
      prefix = i32x4.add(prefix, sums);
      sums = i32x4.add(sums, i32x4.extadd_pairwise_i16x8_u(i16x8.extadd_pairwise_i8x16_u(v)));
      weighted = i32x4.add(weighted, i32x4.add(i32x4.dot_i16x8_s(i16x8.extend_low_i8x16_u(v), weightsLow), i32x4.dot_i16x8_s(i16x8.extend_high_i8x16_u(v), weightsHigh)));
    }
    const n = <u32>(chunks << 4);
    b = (b + n * a + 16 * (lanesSum(prefix) % 65521) + lanesSum(weighted)) % 65521;
    a = (a + lanesSum(sums)) % 65521;
    at += chunks << 4;
    for (; at < end; at++) {
      a += <u32>load<u8>(data + <usize>at);
      b += a;
    }
    a %= 65521;
    b %= 65521;
  }
  return (b << 16) | a;
}

/** Where the last `tokenize` stopped. */
let tokenEnd: i32 = 0;

/**
 * The runs of the byte before (3…258 long, as zlib's Z_RLE finds them) in the bytes from `start` at `data` (of
 * `length`), up to BLOCK_SYMBOLS literals and runs, as (position, length) pairs of u32 at `runs`, with the
 * frequencies of the literals (counted in four tables at HISTOGRAMS, by position mod 4, summed into FREQ_LL) and
 * of the run lengths' codes; returns the number of runs, and where it stopped in `tokenEnd`. Sixteen bytes are
 * compared with the byte before each at a time (SIMD): most of the mantissa planes have no run.
 */
function tokenize(data: usize, start: i32, length: i32, runs: usize, work: usize): i32 {
  const histograms = work + HISTOGRAMS;
  let count = 0;
  let symbols = 0;
  let i = start;
  if (i == 0) {
    countLiteral(histograms, 0, load<u8>(data));
    symbols++;
    i++;
  }
  while (i < length && symbols < BLOCK_SYMBOLS) {
    if (i + 16 <= length && symbols + 16 <= BLOCK_SYMBOLS) {
      const equal = i8x16.bitmask(i8x16.eq(v128.load(data + <usize>i), v128.load(data + <usize>i - 1)));
      if (equal == 0) {
        for (let k = 0; k < 16; k++) countLiteral(histograms, i + k, load<u8>(data + <usize>(i + k)));
        i += 16;
        symbols += 16;
        continue;
      }
      // the literals before the first byte equal to the one before it
      const literals = ctz(equal);
      for (let k = 0; k < literals; k++) countLiteral(histograms, i + k, load<u8>(data + <usize>(i + k)));
      i += literals;
      symbols += literals;
      if (i >= length || symbols >= BLOCK_SYMBOLS) break;
    }
    const run = runLength(data, i, load<u8>(data + <usize>i - 1), min(MAX_MATCH, length - i));
    if (run >= MIN_MATCH) {
      store<u32>(runs + (<usize>count << 3), i);
      store<u32>(runs + (<usize>count << 3) + 4, run);
      count++;
      const at = work + FREQ_LL + (<usize>(257 + lengthCode(run)) << 2);
      store<u32>(at, load<u32>(at) + 1);
      i += run;
    } else {
      countLiteral(histograms, i, load<u8>(data + <usize>i));
      i++;
    }
    symbols++;
  }
  const freq = work + FREQ_LL;
  for (let b: usize = 0; b < 256; b++) {
    store<u32>(freq + (b << 2), load<u32>(histograms + (b << 2)) + load<u32>(histograms + 1024 + (b << 2)) + load<u32>(histograms + 2048 + (b << 2)) + load<u32>(histograms + 3072 + (b << 2)));
  }
  tokenEnd = i;
  return count;
}

@inline function countLiteral(histograms: usize, position: i32, byte: u8): void {
  const at = histograms + (<usize>(position & 3) << 10) + (<usize>byte << 2);
  store<u32>(at, load<u32>(at) + 1);
}

/** How many of the bytes from `i` (at most `limit`) equal `byte`. */
@inline function runLength(data: usize, i: i32, byte: u8, limit: i32): i32 {
  let run = 0;
  const splat = i8x16.splat(byte);
  while (run + 16 <= limit) {
    const equal = i8x16.bitmask(i8x16.eq(v128.load(data + <usize>(i + run)), splat));
    if (equal != 0xffff) return run + ctz(~equal);
    run += 16;
  }
  while (run < limit && load<u8>(data + <usize>(i + run)) == byte) run++;
  return run;
}

/** Index 0…28 of the length code of a match of `length` (3…258). */
@inline function lengthCode(length: i32): i32 {
  return <i32>load<u8>(LENGTH_CODE + <usize>(length - MIN_MATCH));
}

/**
 * Huffman code lengths (at most `maxBits`) of the `n` symbols with frequencies at `freq` (u32) into `lengths`
 * (u8): a Huffman tree from the symbols sorted by frequency (two queues), its depths limited as in JPEG
 * (ITU T.81 Annex K.3), the shortest lengths given to the most frequent symbols. A lone symbol gets length 1.
 */
function huffmanLengths(freq: usize, n: i32, maxBits: i32, lengths: usize, work: usize): void {
  const keys = work + KEYS;
  const parent = work + PARENT;
  const depth = work + DEPTH;
  let m = 0;
  for (let s = 0; s < n; s++) {
    store<u8>(lengths + <usize>s, 0);
    const f = load<u32>(freq + (<usize>s << 2));
    if (f > 0) {
      store<u64>(keys + (<usize>m << 3), ((<u64>f) << 16) | <u64>s);
      m++;
    }
  }
  if (m == 0) return;
  if (m == 1) {
    store<u8>(lengths + <usize>(<i32>(load<u64>(keys) & 0xffff)), 1);
    return;
  }
  // (the parent table and the literal histograms are free until the tree is built)
  sortKeys(keys, m, parent, work + HISTOGRAMS);
  // leaves 0…m−1 (ascending frequency), internal nodes m…2m−2 made in ascending weight (their weights at `internal`)
  const internal = work + INTERNAL;
  let leaf = 0;
  let node = m;
  let end = m;
  for (let k = 0; k < m - 1; k++) {
    let a = 0;
    if (leaf < m && (node >= end || leafWeight(keys, leaf) <= load<u32>(internal + (<usize>(node - m) << 2)))) a = leaf++;
    else a = node++;
    let b = 0;
    if (leaf < m && (node >= end || leafWeight(keys, leaf) <= load<u32>(internal + (<usize>(node - m) << 2)))) b = leaf++;
    else b = node++;
    const wa = a < m ? leafWeight(keys, a) : load<u32>(internal + (<usize>(a - m) << 2));
    const wb = b < m ? leafWeight(keys, b) : load<u32>(internal + (<usize>(b - m) << 2));
    store<u32>(internal + (<usize>(end - m) << 2), wa + wb);
    store<u32>(parent + (<usize>a << 2), end);
    store<u32>(parent + (<usize>b << 2), end);
    end++;
  }
  // depths from the root down; leaves counted per depth (up to 31: deeper trees cannot occur for 2³² tokens)
  const counts = work + COUNTS;
  for (let i = 0; i < 32; i++) store<u32>(counts + (<usize>i << 2), 0);
  const root = 2 * m - 2;
  store<u8>(depth + <usize>root, 0);
  let deepest = 0;
  for (let v = root - 1; v >= 0; v--) {
    const d = min(<i32>load<u8>(depth + <usize>load<u32>(parent + (<usize>v << 2))) + 1, 31);
    store<u8>(depth + <usize>v, <u8>d);
    if (v < m) {
      const at = counts + (<usize>d << 2);
      store<u32>(at, load<u32>(at) + 1);
      deepest = max(deepest, d);
    }
  }
  // lengths beyond maxBits moved up the tree (ITU T.81 Annex K.3, Adjust_BITS)
  for (let i = deepest; i > maxBits; i--) {
    while (countAt(counts, i) > 0) {
      let j = i - 2;
      while (countAt(counts, j) == 0) j--;
      addCount(counts, i, -2);
      addCount(counts, i - 1, 1);
      addCount(counts, j + 1, 2);
      addCount(counts, j, -1);
    }
  }
  // the most frequent symbols (last in the sorted keys) get the shortest lengths
  let v = m - 1;
  for (let length = 1; length <= maxBits; length++) {
    for (let c: u32 = 0; c < countAt(counts, length); c++) {
      const symbol = <i32>(load<u64>(keys + (<usize>v << 3)) & 0xffff);
      store<u8>(lengths + <usize>symbol, <u8>length);
      v--;
    }
  }
}

@inline function leafWeight(keys: usize, leaf: i32): u32 {
  return <u32>(load<u64>(keys + (<usize>leaf << 3)) >> 16);
}

@inline function countAt(counts: usize, i: i32): u32 {
  return load<u32>(counts + (<usize>i << 2));
}

@inline function addCount(counts: usize, i: i32, delta: i32): void {
  store<u32>(counts + (<usize>i << 2), <u32>(<i32>countAt(counts, i) + delta));
}

/**
 * Sorts the `m` u64 keys (frequency << 16 | symbol, in ascending symbol order, every frequency below 2¹⁶) ascending:
 * a stable sort by frequency keeps equal frequencies in symbol order. Two stable counting passes over the
 * frequency's bytes (the high one only when a frequency reaches 256), through `temp` (room for m keys) and
 * 256 u32 counts at `counts`.
 */
function sortKeys(keys: usize, m: i32, temp: usize, counts: usize): void {
  let highest: u64 = 0;
  for (let i = 0; i < m; i++) highest |= load<u64>(keys + (<usize>i << 3));
  sortByByte(keys, temp, m, 16, counts);
  if ((highest >> 24) == 0) {
    memory.copy(keys, temp, <usize>m << 3);
    return;
  }
  sortByByte(temp, keys, m, 24, counts);
}

/** Stable counting sort of `m` u64 keys at `from` into `to` by the byte of each key at bit `shift`. */
function sortByByte(from: usize, to: usize, m: i32, shift: u64, counts: usize): void {
  memory.fill(counts, 0, 1024);
  for (let i = 0; i < m; i++) {
    const at = counts + (<usize>((load<u64>(from + (<usize>i << 3)) >> shift) & 0xff) << 2);
    store<u32>(at, load<u32>(at) + 1);
  }
  let start: u32 = 0;
  for (let b: usize = 0; b < 256; b++) {
    const count = load<u32>(counts + (b << 2));
    store<u32>(counts + (b << 2), start);
    start += count;
  }
  for (let i = 0; i < m; i++) {
    const key = load<u64>(from + (<usize>i << 3));
    const at = counts + (<usize>((key >> shift) & 0xff) << 2);
    const place = load<u32>(at);
    store<u32>(at, place + 1);
    store<u64>(to + (<usize>place << 3), key);
  }
}

/** Canonical codes (bit-reversed, for LSB-first output) of `n` symbols with `lengths` (u8) into `codes` (u16). */
function canonicalCodes(lengths: usize, n: i32, codes: usize, work: usize): void {
  const blCount = work + BL_COUNT;
  const nextCode = work + NEXT_CODE;
  for (let i = 0; i < 16; i++) store<u32>(blCount + (<usize>i << 2), 0);
  for (let s = 0; s < n; s++) {
    const at = blCount + (<usize>load<u8>(lengths + <usize>s) << 2);
    store<u32>(at, load<u32>(at) + 1);
  }
  store<u32>(blCount, 0);
  let code: u32 = 0;
  for (let bits = 1; bits <= MAX_BITS; bits++) {
    code = (code + load<u32>(blCount + (<usize>(bits - 1) << 2))) << 1;
    store<u32>(nextCode + (<usize>bits << 2), code);
  }
  for (let s = 0; s < n; s++) {
    const length = <i32>load<u8>(lengths + <usize>s);
    if (length == 0) continue;
    const at = nextCode + (<usize>length << 2);
    const c = load<u32>(at);
    store<u32>(at, c + 1);
    // reversed: DEFLATE sends Huffman codes most significant bit first into an LSB-first stream
    store<u16>(codes + (<usize>s << 1), <u16>(reverseBits(c) >> (32 - length)));
  }
}

@inline function reverseBits(x: u32): u32 {
  x = ((x >> 1) & 0x55555555) | ((x & 0x55555555) << 1);
  x = ((x >> 2) & 0x33333333) | ((x & 0x33333333) << 2);
  x = ((x >> 4) & 0x0f0f0f0f) | ((x & 0x0f0f0f0f) << 4);
  x = ((x >> 8) & 0x00ff00ff) | ((x & 0x00ff00ff) << 8);
  return (x >> 16) | (x << 16);
}

/** The code-length sequence of the two alphabets (RFC 1951 §3.2.7: 16 repeats, 17 and 18 zeros) with its frequencies; returns its length. */
function codeLengthSequence(hlit: i32, hdist: i32, work: usize): i32 {
  const total = hlit + hdist;
  const sequence = work + CL_SEQUENCE;
  const freq = work + FREQ_CL;
  for (let i = 0; i < CL_CODES; i++) store<u32>(freq + (<usize>i << 2), 0);
  let count = 0;
  let i = 0;
  while (i < total) {
    const length = lengthAt(i, hlit, work);
    let run = 1;
    while (i + run < total && lengthAt(i + run, hlit, work) == length) run++;
    let left = run;
    if (length == 0) {
      while (left >= 11) {
        const n = min(left, 138);
        count = pushCl(sequence, freq, count, 18, n - 11);
        left -= n;
      }
      if (left >= 3) {
        count = pushCl(sequence, freq, count, 17, left - 3);
        left = 0;
      }
    } else {
      count = pushCl(sequence, freq, count, length, 0);
      left--;
      while (left >= 3) {
        const n = min(left, 6);
        count = pushCl(sequence, freq, count, 16, n - 3);
        left -= n;
      }
    }
    for (; left > 0; left--) count = pushCl(sequence, freq, count, length, 0);
    i += run;
  }
  return count;
}

@inline function lengthAt(i: i32, hlit: i32, work: usize): i32 {
  return i < hlit ? <i32>load<u8>(work + LEN_LL + <usize>i) : <i32>load<u8>(work + LEN_D + <usize>(i - hlit));
}

@inline function pushCl(sequence: usize, freq: usize, count: i32, symbol: i32, extra: i32): i32 {
  store<u16>(sequence + (<usize>count << 1), <u16>(symbol | (extra << 5)));
  const at = freq + (<usize>symbol << 2);
  store<u32>(at, load<u32>(at) + 1);
  return count + 1;
}

/**
 * Compresses the `width` × `height` Float32 tile at `values` into `out` as a zlib stream; returns its length
 * in bytes. `pred` (4·width·height bytes), `runs` (3 bytes per predicted byte) and `work` (WORK_BYTES) are
 * scratch; `out` holds at least outputCapacity(4·width·height) bytes.
 */
export function encodeTile(values: usize, width: i32, height: i32, pred: usize, runs: usize, work: usize, out: usize): i32 {
  const length = 4 * width * height;
  predict(values, width, height, pred);
  store<u8>(out, 0x78); // zlib: DEFLATE, 32 KiB window
  store<u8>(out + 1, 0x01); // no dictionary, fastest; (0x7801 % 31 == 0)
  outAt = out + 2;
  bitBuffer = 0;
  bitCount = 0;
  // blocks of at most BLOCK_SYMBOLS literals and runs, each with its own codes (as zlib's, which adapt to the
  // planes and rows of a large tile)
  let position = 0;
  while (position < length) {
    memory.fill(work, 0, <usize>WORK_BYTES);
    const runCount = tokenize(pred, position, length, runs, work);
    const end = tokenEnd;
    writeBlock(pred, position, end, end == length, runs, runCount, work);
    position = end;
  }
  flushBits();
  let size = <i32>(outAt - out);
  const storedSize = 2 + length + 5 * max(1, (length + 65534) / 65535) + 4;
  if (size + 4 > storedSize) size = stored(pred, length, out);
  const checksum = adler32(pred, length);
  store<u8>(out + <usize>size, <u8>(checksum >> 24));
  store<u8>(out + <usize>size + 1, <u8>(checksum >> 16));
  store<u8>(out + <usize>size + 2, <u8>(checksum >> 8));
  store<u8>(out + <usize>size + 3, <u8>checksum);
  return size + 4;
}

/** One block with dynamic Huffman codes of the bytes from `start` to `end` of `pred`, with the runs found in them. */
function writeBlock(pred: usize, start: i32, end: i32, last: bool, runs: usize, runCount: i32, work: usize): void {
  const freqLL = work + FREQ_LL;
  store<u32>(freqLL + (256 << 2), 1); // end of block
  huffmanLengths(freqLL, LITLEN_CODES, MAX_BITS, work + LEN_LL, work);
  // distance 1 only: codes 0 and 1 of one bit (a complete code; 1 is never used)
  store<u8>(work + LEN_D, 1);
  store<u8>(work + LEN_D + 1, 1);
  canonicalCodes(work + LEN_LL, LITLEN_CODES, work + CODE_LL, work);
  canonicalCodes(work + LEN_D, DIST_CODES, work + CODE_D, work);
  let hlit = LITLEN_CODES;
  while (hlit > 257 && load<u8>(work + LEN_LL + <usize>(hlit - 1)) == 0) hlit--;
  const hdist = 2;
  const clCount = codeLengthSequence(hlit, hdist, work);
  huffmanLengths(work + FREQ_CL, CL_CODES, MAX_CL_BITS, work + LEN_CL, work);
  canonicalCodes(work + LEN_CL, CL_CODES, work + CODE_CL, work);
  let hclen = CL_CODES;
  while (hclen > 4 && load<u8>(work + LEN_CL + <usize>load<u8>(CL_ORDER + <usize>(hclen - 1))) == 0) hclen--;

  putBits(last ? 1 : 0, 1);
  putBits(2, 2); // dynamic Huffman codes
  putBits(<u32>(hlit - 257), 5);
  putBits(<u32>(hdist - 1), 5);
  putBits(<u32>(hclen - 4), 4);
  for (let i = 0; i < hclen; i++) putBits(<u32>load<u8>(work + LEN_CL + <usize>load<u8>(CL_ORDER + <usize>i)), 3);
  for (let i = 0; i < clCount; i++) {
    const entry = <i32>load<u16>(work + CL_SEQUENCE + (<usize>i << 1));
    const symbol = entry & 31;
    putBits(<u32>load<u16>(work + CODE_CL + (<usize>symbol << 1)), <i32>load<u8>(work + LEN_CL + <usize>symbol));
    if (symbol == 16) putBits(<u32>(entry >> 5), 2);
    else if (symbol == 17) putBits(<u32>(entry >> 5), 3);
    else if (symbol == 18) putBits(<u32>(entry >> 5), 7);
  }
  const codeLL = work + CODE_LL;
  const lenLL = work + LEN_LL;
  const distCode = <u64>load<u16>(work + CODE_D);
  // the literals and runs: at most 15 + 5 + 1 bits each, added to at most 7 bits left over, written 8 bytes at a time
  flushWhole();
  let buffer = bitBuffer;
  let count = <u64>bitCount;
  let at = outAt;
  let position = start;
  for (let r = 0; r <= runCount; r++) {
    const runStart = r < runCount ? <i32>load<u32>(runs + (<usize>r << 3)) : end;
    for (; position < runStart; position++) {
      const byte = <usize>load<u8>(pred + <usize>position);
      buffer |= (<u64>load<u16>(codeLL + (byte << 1))) << count;
      count += <u64>load<u8>(lenLL + byte);
      store<u64>(at, buffer);
      const bytes = count >> 3;
      at += <usize>bytes;
      buffer = buffer >> (bytes << 3);
      count &= 7;
    }
    if (r == runCount) break;
    const run = <i32>load<u32>(runs + (<usize>r << 3) + 4);
    const code = lengthCode(run);
    const symbol = <usize>(257 + code);
    const extra = <u64>load<u8>(LENGTH_EXTRA + <usize>code);
    const symbolLength = <u64>load<u8>(lenLL + symbol);
    let bits = <u64>load<u16>(codeLL + (symbol << 1));
    bits |= (<u64>(run - <i32>load<u16>(LENGTH_BASE + (<usize>code << 1)))) << symbolLength;
    bits |= distCode << (symbolLength + extra);
    buffer |= bits << count;
    count += symbolLength + extra + 1;
    store<u64>(at, buffer);
    const bytes = count >> 3;
    at += <usize>bytes;
    buffer = buffer >> (bytes << 3);
    count &= 7;
    position += run;
  }
  outAt = at;
  bitBuffer = buffer;
  bitCount = <i32>count;
  putBits(<u32>load<u16>(codeLL + (256 << 1)), <i32>load<u8>(lenLL + 256));
}

/** The zlib header and `length` bytes of `data` in stored blocks (up to 65 535 bytes each) at `out`; returns the bytes written. */
function stored(data: usize, length: i32, out: usize): i32 {
  store<u8>(out, 0x78);
  store<u8>(out + 1, 0x01);
  let at = out + 2;
  let done = 0;
  do {
    const n = min(65535, length - done);
    store<u8>(at, done + n == length ? 1 : 0);
    store<u16>(at + 1, <u16>n);
    store<u16>(at + 3, <u16>~n);
    memory.copy(at + 5, data + <usize>done, <usize>n);
    at += 5 + <usize>n;
    done += n;
  } while (done < length);
  return <i32>(at - out);
}

/**
 * The floating-point predictor undone (floatPredictor.ts's `decodeFloatPredictorRows`, to the bit): the
 * `rows` rows of `width` values' predicted bytes at `data` (a decompressed tile) back into their u32 bit
 * patterns, row r at `bits` + 4·r·`stride`, only its first `cols` values. Each value is the one before it plus
 * the differences of its four bytes (added bytewise: no carries between bytes), so four values at a time are one
 * shuffle of their four planes' bytes and two shifted adds; a row's first value starts from the sums of the
 * planes before each of its bytes (the predictor differences each plane's first byte against the last byte of
 * the plane before).
 */
export function undoPredictor(data: usize, width: i32, rows: i32, bits: usize, stride: i32, cols: i32): void {
  const w = <usize>width;
  const zero = i32x4.splat(0);
  for (let r: usize = 0; r < <usize>rows; r++) {
    const src = data + r * w * 4;
    const dst = bits + r * <usize>stride * 4;
    const s0 = planeSum(src, w);
    const s1 = planeSum(src + w, w);
    const s2 = planeSum(src + 2 * w, w);
    // the value "before" the first: its bytes are the sums of the planes before each plane (most significant first)
    let previous: u32 = ((s0 & 0xff) << 16) | (((s0 + s1) & 0xff) << 8) | ((s0 + s1 + s2) & 0xff);
    let i: usize = 0;
    for (; i + 4 <= <usize>cols; i += 4) {
      let planes = i32x4.splat(load<u32>(src + i));
      planes = i32x4.replace_lane(planes, 1, load<u32>(src + w + i));
      planes = i32x4.replace_lane(planes, 2, load<u32>(src + 2 * w + i));
      planes = i32x4.replace_lane(planes, 3, load<u32>(src + 3 * w + i));
      // the four values' byte differences, least significant byte first
      let sums = i8x16.shuffle(planes, planes, 12, 8, 4, 0, 13, 9, 5, 1, 14, 10, 6, 2, 15, 11, 7, 3);
      sums = i8x16.add(sums, i8x16.shuffle(sums, zero, 16, 16, 16, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11));
      sums = i8x16.add(sums, i8x16.shuffle(sums, zero, 16, 16, 16, 16, 16, 16, 16, 16, 0, 1, 2, 3, 4, 5, 6, 7));
      const values = i8x16.add(sums, i32x4.splat(previous));
      v128.store(dst + i * 4, values);
      previous = i32x4.extract_lane(values, 3);
    }
    for (; i < <usize>cols; i++) {
      const o = src + i;
      const step = (<u32>load<u8>(o) << 24) | (<u32>load<u8>(o + w) << 16) | (<u32>load<u8>(o + 2 * w) << 8) | <u32>load<u8>(o + 3 * w);
      previous = bytewiseAdd(previous, step);
      store<u32>(dst + i * 4, previous);
    }
  }
}

/** Byte lanes of `v` moved up by `k` (1, 2, 4 or 8): lane j gets lane j − k, the first k lanes 0. */
@inline function shiftLanesUp(v: v128, k: i32): v128 {
  const zero = i32x4.splat(0);
  if (k == 1) return i8x16.shuffle(v, zero, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14);
  if (k == 2) return i8x16.shuffle(v, zero, 16, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13);
  if (k == 4) return i8x16.shuffle(v, zero, 16, 16, 16, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
  return i8x16.shuffle(v, zero, 16, 16, 16, 16, 16, 16, 16, 16, 0, 1, 2, 3, 4, 5, 6, 7);
}

/** The running byte sums of a plane's 16 bytes `v` from `carry` (the sum before them, in every lane). */
@inline function planeRunningSums(v: v128, carry: v128): v128 {
  v = i8x16.add(v, shiftLanesUp(v, 1));
  v = i8x16.add(v, shiftLanesUp(v, 2));
  v = i8x16.add(v, shiftLanesUp(v, 4));
  v = i8x16.add(v, shiftLanesUp(v, 8));
  return i8x16.add(v, carry);
}

/**
 * The floating-point predictor undone for float64 values (floatPredictor.ts's `decodeFloat64PredictorRows`, to
 * the bit): the `rows` rows of `width` values' predicted bytes at `data` (eight byte planes per row, most
 * significant first) back into their f64 bit patterns (little-endian, as WebAssembly's memory is), row r at `out`
 * + 8·r·`stride`, only its first `cols` values. Each plane's bytes are running sums along the row, continuing from
 * the plane before; sixteen values at a time, each plane's sums are four shifted adds and the eight planes are
 * then interleaved into the values' bytes.
 */
export function undoPredictor64(data: usize, width: i32, rows: i32, out: usize, stride: i32, cols: i32): void {
  const w = <usize>width;
  for (let r: usize = 0; r < <usize>rows; r++) {
    const src = data + r * w * 8;
    const dst = out + r * <usize>stride * 8;
    // the sum before each plane's first byte
    let before: u32 = 0;
    let c0 = i8x16.splat(0);
    before += planeSum(src, w);
    let c1 = i8x16.splat(<i8>before);
    before += planeSum(src + w, w);
    let c2 = i8x16.splat(<i8>before);
    before += planeSum(src + 2 * w, w);
    let c3 = i8x16.splat(<i8>before);
    before += planeSum(src + 3 * w, w);
    let c4 = i8x16.splat(<i8>before);
    before += planeSum(src + 4 * w, w);
    let c5 = i8x16.splat(<i8>before);
    before += planeSum(src + 5 * w, w);
    let c6 = i8x16.splat(<i8>before);
    before += planeSum(src + 6 * w, w);
    let c7 = i8x16.splat(<i8>before);
    let i: usize = 0;
    for (; i + 16 <= <usize>cols; i += 16) {
      const p0 = planeRunningSums(v128.load(src + i), c0);
      const p1 = planeRunningSums(v128.load(src + w + i), c1);
      const p2 = planeRunningSums(v128.load(src + 2 * w + i), c2);
      const p3 = planeRunningSums(v128.load(src + 3 * w + i), c3);
      const p4 = planeRunningSums(v128.load(src + 4 * w + i), c4);
      const p5 = planeRunningSums(v128.load(src + 5 * w + i), c5);
      const p6 = planeRunningSums(v128.load(src + 6 * w + i), c6);
      const p7 = planeRunningSums(v128.load(src + 7 * w + i), c7);
      c0 = i8x16.shuffle(p0, p0, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15);
      c1 = i8x16.shuffle(p1, p1, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15);
      c2 = i8x16.shuffle(p2, p2, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15);
      c3 = i8x16.shuffle(p3, p3, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15);
      c4 = i8x16.shuffle(p4, p4, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15);
      c5 = i8x16.shuffle(p5, p5, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15);
      c6 = i8x16.shuffle(p6, p6, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15);
      c7 = i8x16.shuffle(p7, p7, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15);
      // bytes of each value, least significant (plane 7) first: pairs, then quads, then the eight
      const a = i8x16.shuffle(p7, p6, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
      const a_ = i8x16.shuffle(p7, p6, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
      const b = i8x16.shuffle(p5, p4, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
      const b_ = i8x16.shuffle(p5, p4, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
      const c = i8x16.shuffle(p3, p2, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
      const c_ = i8x16.shuffle(p3, p2, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
      const d = i8x16.shuffle(p1, p0, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
      const d_ = i8x16.shuffle(p1, p0, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
      storeEightValues(dst + i * 8, a, b, c, d);
      storeEightValues(dst + (i + 8) * 8, a_, b_, c_, d_);
    }
    // the last values one by one, each plane's running sum from its carry
    let s0 = <u32>i8x16.extract_lane_u(c0, 0), s1 = <u32>i8x16.extract_lane_u(c1, 0);
    let s2 = <u32>i8x16.extract_lane_u(c2, 0), s3 = <u32>i8x16.extract_lane_u(c3, 0);
    let s4 = <u32>i8x16.extract_lane_u(c4, 0), s5 = <u32>i8x16.extract_lane_u(c5, 0);
    let s6 = <u32>i8x16.extract_lane_u(c6, 0), s7 = <u32>i8x16.extract_lane_u(c7, 0);
    for (; i < <usize>cols; i++) {
      const o = src + i;
      s0 = (s0 + <u32>load<u8>(o)) & 0xff;
      s1 = (s1 + <u32>load<u8>(o + w)) & 0xff;
      s2 = (s2 + <u32>load<u8>(o + 2 * w)) & 0xff;
      s3 = (s3 + <u32>load<u8>(o + 3 * w)) & 0xff;
      s4 = (s4 + <u32>load<u8>(o + 4 * w)) & 0xff;
      s5 = (s5 + <u32>load<u8>(o + 5 * w)) & 0xff;
      s6 = (s6 + <u32>load<u8>(o + 6 * w)) & 0xff;
      s7 = (s7 + <u32>load<u8>(o + 7 * w)) & 0xff;
      store<u32>(dst + i * 8, (s4 << 24) | (s5 << 16) | (s6 << 8) | s7);
      store<u32>(dst + i * 8 + 4, (s0 << 24) | (s1 << 16) | (s2 << 8) | s3);
    }
  }
}

/**
 * The `count` f64 values at `values` rounded to f32 at `out` (which may be `values`: each is read before it is
 * written over), every NaN as the one NaN JavaScript stores (0x7fc00000).
 */
export function narrowToF32(values: usize, count: i32, out: usize): void {
  const nan = i32x4.splat(0x7fc00000);
  let i: usize = 0;
  for (; i + 4 <= <usize>count; i += 4) {
    const low = f32x4.demote_f64x2_zero(v128.load(values + i * 8));
    const high = f32x4.demote_f64x2_zero(v128.load(values + i * 8 + 16));
    const four = i8x16.shuffle(low, high, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
    v128.store(out + i * 4, v128.bitselect(nan, four, f32x4.ne(four, four)));
  }
  for (; i < <usize>count; i++) {
    const v = <f32>load<f64>(values + i * 8);
    if (v != v) store<u32>(out + i * 4, 0x7fc00000);
    else store<f32>(out + i * 4, v);
  }
}

/** Every NaN among the `count` f64 values at `values` made the one NaN JavaScript stores (0x7ff8000000000000). */
export function canonicalNaN64(values: usize, count: i32): void {
  const nan = i64x2.splat(0x7ff8000000000000);
  let i: usize = 0;
  for (; i + 2 <= <usize>count; i += 2) {
    const two = v128.load(values + i * 8);
    v128.store(values + i * 8, v128.bitselect(nan, two, f64x2.ne(two, two)));
  }
  for (; i < <usize>count; i++) {
    const v = load<f64>(values + i * 8);
    if (v != v) store<u64>(values + i * 8, 0x7ff8000000000000);
  }
}

/** Every NaN among the `count` f32 values at `values` made the one NaN JavaScript stores (0x7fc00000). */
export function canonicalNaN32(values: usize, count: i32): void {
  const nan = i32x4.splat(0x7fc00000);
  let i: usize = 0;
  for (; i + 4 <= <usize>count; i += 4) {
    const four = v128.load(values + i * 4);
    v128.store(values + i * 4, v128.bitselect(nan, four, f32x4.ne(four, four)));
  }
  for (; i < <usize>count; i++) {
    const v = load<f32>(values + i * 4);
    if (v != v) store<u32>(values + i * 4, 0x7fc00000);
  }
}

/**
 * Eight f64 values at `at` from their bytes interleaved in pairs: `a` (planes 7 and 6), `b` (5, 4), `c` (3, 2) and
 * `d` (1, 0), each holding the pairs of values 0–7.
 */
@inline function storeEightValues(at: usize, a: v128, b: v128, c: v128, d: v128): void {
  const lowAB = i8x16.shuffle(a, b, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23);
  const highAB = i8x16.shuffle(a, b, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31);
  const lowCD = i8x16.shuffle(c, d, 0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23);
  const highCD = i8x16.shuffle(c, d, 8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15, 30, 31);
  v128.store(at, i8x16.shuffle(lowAB, lowCD, 0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23));
  v128.store(at + 16, i8x16.shuffle(lowAB, lowCD, 8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31));
  v128.store(at + 32, i8x16.shuffle(highAB, highCD, 0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23));
  v128.store(at + 48, i8x16.shuffle(highAB, highCD, 8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31));
}

/** The sum of the `count` bytes at `at`, mod 256. */
@inline function planeSum(at: usize, count: usize): u32 {
  let lanes = i32x4.splat(0);
  let i: usize = 0;
  for (; i + 16 <= count; i += 16) lanes = i8x16.add(lanes, v128.load(at + i));
  const quads = i32x4.extadd_pairwise_i16x8_u(i16x8.extadd_pairwise_i8x16_u(lanes));
  let sum = <u32>(i32x4.extract_lane(quads, 0) + i32x4.extract_lane(quads, 1) + i32x4.extract_lane(quads, 2) + i32x4.extract_lane(quads, 3));
  for (; i < count; i++) sum += <u32>load<u8>(at + i);
  return sum & 0xff;
}

/** `a` + `b` byte by byte, each mod 256. */
@inline function bytewiseAdd(a: u32, b: u32): u32 {
  return ((a & 0x7f7f7f7f) + (b & 0x7f7f7f7f)) ^ ((a ^ b) & 0x80808080);
}

// The fields of statistics.ts's StatisticsAccumulator as `accumulateStatistics` keeps them (f64 each, in this order).
const STAT_COUNT: usize = 0;
const STAT_CELLS: usize = 8;
const STAT_MIN: usize = 16;
const STAT_MAX: usize = 24;
const STAT_SHIFT: usize = 32;
const STAT_SUM: usize = 40;
const STAT_SUM_SQUARES: usize = 48;

/**
 * statistics.ts's `StatisticsAccumulator.add` of the `rows` rows of `width` f32 values at `band`, one row after the
 * other, to the accumulator's fields at `state` (STAT_…): the same comparisons and the same f64 sums in the same
 * order, so the same numbers.
 */
export function accumulateStatistics(band: usize, width: i32, rows: i32, state: usize): void {
  let count = load<f64>(state + STAT_COUNT);
  let min = load<f64>(state + STAT_MIN);
  let max = load<f64>(state + STAT_MAX);
  let shift = load<f64>(state + STAT_SHIFT);
  let sum = load<f64>(state + STAT_SUM);
  let sumSquares = load<f64>(state + STAT_SUM_SQUARES);
  const cells = <usize>width * <usize>rows;
  for (let i: usize = 0; i < cells; i++) {
    const v = <f64>load<f32>(band + (i << 2));
    if (v != v) continue;
    if (shift != shift) shift = v;
    if (v < min) min = v;
    if (v > max) max = v;
    const d = v - shift;
    sum += d;
    sumSquares += d * d;
    count++;
  }
  store<f64>(state + STAT_COUNT, count);
  store<f64>(state + STAT_CELLS, load<f64>(state + STAT_CELLS) + <f64>cells);
  store<f64>(state + STAT_MIN, min);
  store<f64>(state + STAT_MAX, max);
  store<f64>(state + STAT_SHIFT, shift);
  store<f64>(state + STAT_SUM, sum);
  store<f64>(state + STAT_SUM_SQUARES, sumSquares);
}

// The fields of statistics.ts's PartialStatistics as `partialStatistics` writes them (f64 each, in this order).
const PARTIAL_COUNT: usize = 0;
const PARTIAL_MIN: usize = 8;
const PARTIAL_MAX: usize = 16;
const PARTIAL_MEAN: usize = 24;
const PARTIAL_M2: usize = 32;
export const PARTIAL_STATISTICS_BYTES: i32 = 40;

/**
 * statistics.ts's `partialStatistics` of the first `cols` f32 values of each of the `rows` rows at `values`, rows
 * `stride` values apart, into the fields at `out` (PARTIAL_…; mean and m2 0 without a valid value): the same two
 * passes, comparisons and f64 sums in the same order, so the same numbers.
 */
export function partialStatistics(values: usize, cols: i32, rows: i32, stride: i32, out: usize): void {
  let count: f64 = 0;
  let sum: f64 = 0;
  let min: f64 = Infinity;
  let max: f64 = -Infinity;
  for (let r = 0; r < rows; r++) {
    const row = values + ((<usize>r * <usize>stride) << 2);
    for (let i: usize = 0; i < <usize>cols; i++) {
      const v = <f64>load<f32>(row + (i << 2));
      if (v != v) continue;
      count++;
      sum += v;
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  let mean: f64 = 0;
  let m2: f64 = 0;
  if (count > 0) {
    mean = sum / count;
    for (let r = 0; r < rows; r++) {
      const row = values + ((<usize>r * <usize>stride) << 2);
      for (let i: usize = 0; i < <usize>cols; i++) {
        const v = <f64>load<f32>(row + (i << 2));
        if (v == v) m2 += (v - mean) * (v - mean);
      }
    }
  }
  store<f64>(out + PARTIAL_COUNT, count);
  store<f64>(out + PARTIAL_MIN, min);
  store<f64>(out + PARTIAL_MAX, max);
  store<f64>(out + PARTIAL_MEAN, mean);
  store<f64>(out + PARTIAL_M2, m2);
}

/**
 * overviews.ts's `averageRowPair` of each pair of the `rows` rows of `width` f32 values at `band` (rows 0 and 1, 2
 * and 3, …; the last of an odd count alone) into the rows of ceil(width / 2) values at `out`: the mean of the
 * valid cells of each 2 × 2 block, summed in f64 in the same order, NaN where none is valid.
 */
export function averageRowPairs(band: usize, width: i32, rows: i32, out: usize): void {
  const w = <usize>width;
  const half = (w + 1) >> 1;
  for (let r: usize = 0; r < <usize>rows; r += 2) {
    const upper = band + r * w * 4;
    const hasLower = r + 1 < <usize>rows;
    const lower = upper + w * 4;
    const target = out + (r >> 1) * half * 4;
    for (let i: usize = 0; i < half; i++) {
      const c: usize = i << 1;
      let sum: f64 = 0;
      let n: i32 = 0;
      const a = <f64>load<f32>(upper + (c << 2));
      if (a == a) (sum += a), n++;
      const right = c + 1 < w;
      if (right) {
        const b = <f64>load<f32>(upper + ((c + 1) << 2));
        if (b == b) (sum += b), n++;
      }
      if (hasLower) {
        const d = <f64>load<f32>(lower + (c << 2));
        if (d == d) (sum += d), n++;
        if (right) {
          const e = <f64>load<f32>(lower + ((c + 1) << 2));
          if (e == e) (sum += e), n++;
        }
      }
      store<f32>(target + (i << 2), n == 0 ? <f32>NaN : <f32>(sum / <f64>n));
    }
  }
}
