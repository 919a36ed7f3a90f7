/**
 * TIFF floating-point predictor (Predictor = 3), exactly as libtiff's fpDiff/fpAcc do it for one sample
 * per pixel: each row of W float32 values is rearranged into 4 byte planes, most significant byte first
 * (plane p holds byte p of every value, counting from the sign/exponent byte), and then every byte of
 * the 4W-byte row is replaced by its difference (mod 256) from the byte before it in that row.
 * The result does not depend on the file's byte order.
 */

/**
 * Encodes `rows` rows of `width` float32 values, given as their IEEE-754 bit patterns, into `out`
 * (4 * width * rows bytes).
 */
export function encodeFloatPredictorRows(bits: Uint32Array, width: number, rows: number, out: Uint8Array): void {
  // One pass per row: the byte-plane difference of value i against value i-1 is the difference of the
  // shifted words mod 256 (higher bytes contribute multiples of 256). The first byte of each plane is
  // differenced against the last byte of the previous plane, the very first against 0.
  const w1 = width;
  const w2 = 2 * width;
  const w3 = 3 * width;
  for (let r = 0; r < rows; r++) {
    const src = r * width;
    const dst = 4 * src;
    const first = bits[src]!;
    const last = bits[src + width - 1]!;
    out[dst] = first >>> 24;
    out[dst + w1] = ((first >>> 16) - (last >>> 24)) & 0xff;
    out[dst + w2] = ((first >>> 8) - (last >>> 16)) & 0xff;
    out[dst + w3] = (first - (last >>> 8)) & 0xff;
    let prev = first;
    for (let i = 1; i < width; i++) {
      const v = bits[src + i]!;
      const o = dst + i;
      out[o] = ((v >>> 24) - (prev >>> 24)) & 0xff;
      out[o + w1] = ((v >>> 16) - (prev >>> 16)) & 0xff;
      out[o + w2] = ((v >>> 8) - (prev >>> 8)) & 0xff;
      out[o + w3] = (v - prev) & 0xff;
      prev = v;
    }
  }
}

/**
 * Inverse of `encodeFloatPredictorRows`: restores the float32 bit patterns of `rows` rows into `bits`, row r at
 * `r * stride` — only its first `cols` values when asked (a tile's cells inside the raster, decoded straight
 * into a band of the whole raster's width).
 *
 * The running byte sum goes through a row's four planes one after the other; each plane's sum starts from the
 * sum of the planes before it (mod 256), so one pass over the row's values can restore all four bytes of each
 * value at once (a pass summing the first three planes finds where each starts): 4–5 times faster than four
 * passes of read-modify-write on `bits`, which the COG assembly pays for every tile it decodes.
 */
export function decodeFloatPredictorRows(data: Uint8Array, width: number, rows: number, bits: Uint32Array, stride = width, cols = width): void {
  const w1 = width;
  const w2 = 2 * width;
  const w3 = 3 * width;
  for (let r = 0; r < rows; r++) {
    const dst = r * stride;
    const src = 4 * r * width;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    for (let i = 0; i < width; i++) {
      s0 += data[src + i]!;
      s1 += data[src + w1 + i]!;
      s2 += data[src + w2 + i]!;
    }
    // the sums before each plane's first byte
    let a0 = 0;
    let a1 = s0 & 0xff;
    let a2 = (s0 + s1) & 0xff;
    let a3 = (s0 + s1 + s2) & 0xff;
    for (let i = 0; i < cols; i++) {
      const o = src + i;
      a0 = (a0 + data[o]!) & 0xff;
      a1 = (a1 + data[o + w1]!) & 0xff;
      a2 = (a2 + data[o + w2]!) & 0xff;
      a3 = (a3 + data[o + w3]!) & 0xff;
      bits[dst + i] = ((a0 << 24) | (a1 << 16) | (a2 << 8) | a3) >>> 0;
    }
  }
}

/** Index of a float64's upper 32 bits among its two words in this host's memory (0 on a big-endian host). */
const HIGH_WORD = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;

/**
 * `decodeFloatPredictorRows` for float64 values: each row of `width` values is eight byte planes (most significant
 * first), summed bytewise along the row. Restores the bit patterns of `rows` rows into `words` (a Uint32Array over
 * float64 storage: two words per value, in this host's order), row r at value `r * stride`, its first `cols` values.
 */
export function decodeFloat64PredictorRows(data: Uint8Array, width: number, rows: number, words: Uint32Array, stride = width, cols = width): void {
  const start = new Int32Array(8);
  const high = HIGH_WORD;
  const low = 1 - HIGH_WORD;
  for (let r = 0; r < rows; r++) {
    const dst = 2 * r * stride;
    const src = 8 * r * width;
    // the sums before each plane's first byte
    let sum = 0;
    for (let p = 0; p < 8; p++) {
      start[p] = sum & 0xff;
      if (p < 7) for (let i = src + p * width, end = i + width; i < end; i++) sum += data[i]!;
    }
    let a0 = start[0]!, a1 = start[1]!, a2 = start[2]!, a3 = start[3]!;
    let a4 = start[4]!, a5 = start[5]!, a6 = start[6]!, a7 = start[7]!;
    for (let i = 0; i < cols; i++) {
      const o = src + i;
      a0 = (a0 + data[o]!) & 0xff;
      a1 = (a1 + data[o + width]!) & 0xff;
      a2 = (a2 + data[o + 2 * width]!) & 0xff;
      a3 = (a3 + data[o + 3 * width]!) & 0xff;
      a4 = (a4 + data[o + 4 * width]!) & 0xff;
      a5 = (a5 + data[o + 5 * width]!) & 0xff;
      a6 = (a6 + data[o + 6 * width]!) & 0xff;
      a7 = (a7 + data[o + 7 * width]!) & 0xff;
      words[dst + 2 * i + high] = ((a0 << 24) | (a1 << 16) | (a2 << 8) | a3) >>> 0;
      words[dst + 2 * i + low] = ((a4 << 24) | (a5 << 16) | (a6 << 8) | a7) >>> 0;
    }
  }
}
