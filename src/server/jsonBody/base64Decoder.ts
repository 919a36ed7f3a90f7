/**
 * Base64 (RFC 4648, standard alphabet) decoded piece by piece, as a JSON string's pieces arrive: the pieces may
 * split a four-character group anywhere. Line breaks and other ASCII white space are skipped (MIME-style base64
 * breaks its lines every 76 characters; in JSON they arrive as the escapes `\n`, `\r`), padding is optional, and
 * anything else is refused (NotBase64Error).
 *
 * Pieces are gathered into blocks of about BLOCK_CHARS characters. A block of the alphabet only (white space
 * removed) is decoded by Node's native decoder and checked by encoding it back (a character outside the alphabet
 * would be skipped or read as base64url, and the text would not come back the same); any other block (padding, a
 * bad character, a group left open by one) is decoded character by character.
 */

/** Characters gathered before a block is decoded. */
const BLOCK_CHARS = 128 * 1024;

const SKIP = -2;
const PAD = -3;
/** The value of each ASCII character: 0–63 for the alphabet, SKIP for white space, PAD for '=', -1 otherwise. */
const VALUE = new Int8Array(128).fill(-1);
'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'.split('').forEach((c, i) => (VALUE[c.charCodeAt(0)] = i));
for (const c of ' \t\n\r\f\v') VALUE[c.charCodeAt(0)] = SKIP;
VALUE['='.charCodeAt(0)] = PAD;

const WHITE_SPACE = /[ \t\n\r\f\v]/;
const WHITE_SPACE_ALL = /[ \t\n\r\f\v]+/g;

export class NotBase64Error extends Error {
  constructor() {
    super('not valid base64');
    this.name = 'NotBase64Error';
  }
}

export class Base64Decoder {
  private pending: string[] = [];
  private pendingChars = 0;
  /** Alphabet characters of an unfinished group, carried to the next block (fast path only; 0–3). */
  private carry = '';
  /** State of the character-by-character path: characters of the current group (0–3), their bits, and '=' seen. */
  private have = 0;
  private bits = 0;
  private padding = 0;

  /** The next piece of text; returns the bytes decoded now (empty until a block is complete). */
  push(text: string): Buffer {
    this.pending.push(text);
    this.pendingChars += text.length;
    return this.pendingChars >= BLOCK_CHARS ? this.decodeBlock(false) : EMPTY;
  }

  /** The text is complete: the rest of its bytes. */
  end(): Buffer {
    return this.decodeBlock(true);
  }

  private decodeBlock(last: boolean): Buffer {
    let block = this.carry + (this.pending.length === 1 ? this.pending[0]! : this.pending.join(''));
    this.pending = [];
    this.pendingChars = 0;
    this.carry = '';
    if (WHITE_SPACE.test(block)) block = block.replace(WHITE_SPACE_ALL, '');
    const out = Buffer.allocUnsafe(Math.floor(((block.length + 3) * 3) / 4));
    let at = 0;
    if (this.have === 0 && this.padding === 0) {
      // The fast path: whole groups by the native decoder, the open group carried to the next block.
      const whole = last ? block.length : block.length - (block.length % 4);
      const groups = block.slice(0, whole - (whole % 4));
      const written = out.write(groups, 0, 'base64');
      if (out.toString('base64', 0, written) === groups) {
        at = written;
        // Padding ends the text: only white space may follow.
        if (groups.endsWith('=')) this.padding = 1;
        if (!last) {
          this.carry = block.slice(groups.length);
          return out.subarray(0, at);
        }
        block = block.slice(groups.length);
      }
    }
    at = this.decodeCharacters(block, out, at);
    if (last) at = this.endCharacters(out, at);
    return out.subarray(0, at);
  }

  /** Decodes `text` character by character into `out` from `at`; returns the offset after the last byte. */
  private decodeCharacters(text: string, out: Buffer, at: number): number {
    let { have, bits } = this;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      const value = code < 128 ? VALUE[code]! : -1;
      if (value >= 0) {
        if (this.padding > 0) throw new NotBase64Error();
        bits = (bits << 6) | value;
        if (++have === 4) {
          out[at++] = bits >>> 16;
          out[at++] = (bits >>> 8) & 0xff;
          out[at++] = bits & 0xff;
          have = 0;
          bits = 0;
        }
      } else if (value === PAD) {
        // '=' completes a group: "xx==" or "xxx=" (a group of one character cannot be completed).
        this.padding++;
        if (this.padding > (have === 2 ? 2 : have === 3 ? 1 : 0)) throw new NotBase64Error();
      } else if (value !== SKIP) {
        throw new NotBase64Error();
      }
    }
    this.have = have;
    this.bits = bits;
    return at;
  }

  /** The last, short group (at most 2 bytes). */
  private endCharacters(out: Buffer, at: number): number {
    const { have, bits } = this;
    if (have === 1) throw new NotBase64Error();
    if (have === 2) {
      out[at++] = bits >>> 4;
    } else if (have === 3) {
      out[at++] = bits >>> 10;
      out[at++] = (bits >>> 2) & 0xff;
    }
    return at;
  }
}

const EMPTY = Buffer.alloc(0);
