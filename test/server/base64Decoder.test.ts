/**
 * The incremental base64 decoder of inline files (src/server/jsonBody/base64Decoder.ts): the bytes are
 * Buffer.from(…, 'base64')'s whatever the pieces (split anywhere, one character at a time, blocks decoded natively or
 * character by character), with MIME line breaks and other ASCII white space skipped and padding optional; anything
 * else — a character outside the alphabet (base64url's too), padding in the middle, data after padding, a lone last
 * character — is refused.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { Base64Decoder, NotBase64Error } from '../../src/server/jsonBody/base64Decoder.js';
import { seededRandom } from '../helpers/syntheticDaymet.js';

function decode(pieces: string[]): Buffer {
  const decoder = new Base64Decoder();
  const out = pieces.map((piece) => decoder.push(piece));
  out.push(decoder.end());
  return Buffer.concat(out);
}

/** `text` in pieces of random sizes up to `max` characters. */
function pieces(text: string, rng: () => number, max: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; ) {
    const size = 1 + Math.floor(rng() * max);
    out.push(text.slice(at, at + size));
    at += size;
  }
  return out;
}

describe('valid base64', () => {
  test('every length from 0 to 40 bytes, padded and unpadded, split at every position', () => {
    for (let length = 0; length <= 40; length++) {
      const bytes = randomBytes(length);
      const padded = bytes.toString('base64');
      for (const text of [padded, padded.replace(/=+$/, '')]) {
        for (let at = 0; at <= text.length; at++) assert.deepEqual(decode([text.slice(0, at), text.slice(at)]), bytes, `${text} split at ${at}`);
        assert.deepEqual(decode(text.split('')), bytes, `${text} one character at a time`);
      }
    }
  });

  test('1 MiB in random pieces (the native path, blocks of 128 Ki characters) and in pieces of 256', () => {
    const rng = seededRandom(7);
    const bytes = randomBytes(1024 * 1024 + 2);
    const text = bytes.toString('base64');
    assert.deepEqual(decode(pieces(text, rng, 70_000)), bytes);
    assert.deepEqual(decode(pieces(text, () => 0.999, 256)), bytes);
  });

  test('MIME line breaks (CRLF every 76 characters) and other white space are skipped', () => {
    const rng = seededRandom(11);
    const bytes = randomBytes(300_000);
    const mime = bytes.toString('base64').replace(/.{76}/g, '$&\r\n');
    assert.deepEqual(decode(pieces(mime, rng, 5000)), bytes);
    assert.deepEqual(decode(['QU', ' J\tD\n', '\fR\v', 'A', '=', '= ', '\r\n']), Buffer.from('ABCD'));
  });

  test('non-canonical last bits are ignored, as Buffer.from ignores them', () => {
    assert.deepEqual(decode(['QR==']), Buffer.from('QR==', 'base64'));
    assert.deepEqual(decode(['QUJ']), Buffer.from('AB'));
  });
});

describe('invalid base64 is refused', () => {
  const INVALID = ['A', 'AAAAA', 'QUJD!', 'QUJD-_', 'QU=JD', 'QUJD=', 'Q===', 'QQ===', 'QUI=QUJD', 'QUI= x', 'é', 'QUJD\u00a0QUJD', 'QQ==QQ=='];
  for (const text of INVALID) {
    test(JSON.stringify(text), () => {
      assert.throws(() => decode([text]), NotBase64Error);
      assert.throws(() => decode(text.split('')), NotBase64Error, 'one character at a time');
    });
  }

  test('a bad character deep inside a large block (the native check sends it to the character-by-character path)', () => {
    const text = randomBytes(600_000).toString('base64');
    for (const bad of ['*', '-', '_', '=', '\u0000']) {
      const broken = `${text.slice(0, 400_001)}${bad}${text.slice(400_002)}`;
      assert.throws(() => decode(pieces(broken, seededRandom(3), 60_000)), NotBase64Error, JSON.stringify(bad));
    }
  });

  test('padding at a block’s end, or split from its group by a block’s end: only white space may follow', () => {
    const block = 'A'.repeat(128 * 1024);
    const bytes = (text: string) => Buffer.from(text, 'base64').length;
    assert.throws(() => decode([`${block.slice(4)}AQ==`, 'QUJD']), NotBase64Error);
    assert.equal(decode([`${block.slice(4)}AQ==`, ' \n']).length, bytes(`${block.slice(4)}AQ==`));
    assert.throws(() => decode([`${block}AQ`, '=', '=', 'QUJD']), NotBase64Error);
    assert.equal(decode([`${block}AQ`, '=', '=']).length, bytes(`${block}AQ==`));
  });
});
