/**
 * The bounded JSON scanner of request bodies (src/server/jsonBody/scanner.ts): the value it builds is JSON.parse's
 * (numbers, escapes, unicode, `__proto__`, repeated keys, white space around the body), whatever the chunks the body
 * arrives in — every split of a small document, and generated documents against JSON.parse; invalid JSON is refused;
 * each bound is refused with 400 (413 for the text total) naming the bound and where it was broken, and a body that
 * breaks a bound is refused at the chunk that breaks it; strings at the streamed places go to their sink.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HttpError } from '../../src/server/errors.js';
import { DEFAULT_JSON_BOUNDS, type JsonBounds, type JsonPath } from '../../src/server/jsonBody/bounds.js';
import { BoundedJsonScanner, type StreamedStrings } from '../../src/server/jsonBody/scanner.js';
import { seededRandom } from '../helpers/syntheticDaymet.js';

/** Scans `chunks` (strings as UTF-8 bytes, or bytes); the value, or the HttpError it was refused with. */
function scan(chunks: (string | Buffer)[], bounds: Partial<JsonBounds> = {}, streamed?: StreamedStrings): unknown {
  const scanner = new BoundedJsonScanner({ ...DEFAULT_JSON_BOUNDS, ...bounds }, streamed);
  for (const chunk of chunks) scanner.write(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return scanner.end();
}

/** The refusal of `chunks`: [status, detail]. */
function refusal(chunks: (string | Buffer)[], bounds: Partial<JsonBounds> = {}): [number, string] {
  try {
    scan(chunks, bounds);
  } catch (error) {
    assert.ok(error instanceof HttpError, String(error));
    return [error.statusCode, error.detail];
  }
  assert.fail(`accepted: ${JSON.stringify(chunks).slice(0, 200)}`);
}

const NOT_JSON: [number, string] = [400, 'Request body is not valid JSON'];

/** Object.is-equal all the way down (so -0 is not 0), with the same own keys in the same order. */
function assertSameValue(actual: unknown, expected: unknown, where = 'value'): void {
  if (typeof expected !== 'object' || expected === null) {
    assert.ok(Object.is(actual, expected), `${where}: ${String(actual)} is not ${String(expected)}`);
    return;
  }
  assert.equal(Array.isArray(actual), Array.isArray(expected), where);
  assert.equal(Object.getPrototypeOf(actual), Object.getPrototypeOf(expected), `${where}: prototype`);
  assert.deepEqual(Object.keys(actual as object), Object.keys(expected), `${where}: keys`);
  for (const key of Object.keys(expected)) {
    assertSameValue((actual as Record<string, unknown>)[key], (expected as Record<string, unknown>)[key], `${where}.${key}`);
  }
}

describe('the value is JSON.parse’s', () => {
  const DOCUMENT =
    ' \r\n{"a": [1, -0, 2.5e-3, -1E+2, 0.1, 123456789012345678901234567890, 1e999, true, false, null],' +
    ' "é\\u00e9\\"\\\\\\/\\b\\f\\n\\r\\t": "😀\\ud83d\\ude00 ☃ \\u2603", "": {}, "e": [], "__proto__": {"x": 1}, "a": "again"}\n ';

  test('a document with every kind of value, escape and number, in one chunk', () => {
    assertSameValue(scan([DOCUMENT]), JSON.parse(DOCUMENT));
  });

  test('the same document split at every position, and in single bytes (multi-byte characters split too)', () => {
    const bytes = Buffer.from(DOCUMENT);
    const expected = JSON.parse(DOCUMENT);
    for (let at = 0; at <= bytes.length; at++) {
      assertSameValue(scan([bytes.subarray(0, at), bytes.subarray(at)]), expected, `split at byte ${at}`);
    }
    for (let first = 1; first < bytes.length; first += 7) {
      for (let second = first; second <= bytes.length; second += 5) {
        assertSameValue(scan([bytes.subarray(0, first), bytes.subarray(first, second), bytes.subarray(second)]), expected, `split at ${first}, ${second}`);
      }
    }
    assertSameValue(scan([...bytes].map((b) => Buffer.from([b]))), expected, 'byte by byte');
  });

  test('__proto__ is an own property and the prototype stays Object.prototype', () => {
    const value = scan(['{"__proto__": {"polluted": true}}']) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.ok(Object.hasOwn(value, '__proto__'));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  test('scalars at the top level, and white space around the body (as trim() drops it)', () => {
    for (const text of ['0', '-0', '"x"', 'true', 'null', '1e999', '\ufeff{}', '\u00a0{"a":1}\u2028', '[1]\u3000\u00a0\t']) {
      assertSameValue(scan([text]), JSON.parse(text.trim()), JSON.stringify(text));
    }
  });

  test('an empty body, or one of white space only, is null (no body)', () => {
    for (const chunks of [[], [''], ['  '], [' \n', '\t\r '], ['\ufeff'], ['\u00a0']]) assert.equal(scan(chunks), null, JSON.stringify(chunks));
  });

  test('invalid UTF-8 is read as U+FFFD, as Node decodes a body', () => {
    const bytes = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff, 0xc3]), Buffer.from('"}')]);
    assert.deepEqual(scan([bytes]), JSON.parse(bytes.toString('utf8')));
  });

  test('500 generated documents, each split at random places, against JSON.parse', () => {
    const rng = seededRandom(20240611);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
    const scalars = [0, -0, 1.5, -7, 1e21, 5e-324, 'plain', 'é😀"\\\n\u0001\u2028', '', true, false, null];
    const make = (depth: number): unknown => {
      const roll = rng();
      if (depth > 4 || roll < 0.4) return pick(scalars);
      if (roll < 0.7) return Array.from({ length: Math.floor(rng() * 5) }, () => make(depth + 1));
      const object: Record<string, unknown> = {};
      for (let i = Math.floor(rng() * 5); i > 0; i--) object[pick(['a', 'b', 'ключ', '__proto__', 'constructor', ''])] = make(depth + 1);
      return object;
    };
    for (let n = 0; n < 500; n++) {
      const text = JSON.stringify(make(0), null, rng() < 0.5 ? undefined : 2);
      const bytes = Buffer.from(text);
      const chunks: Buffer[] = [];
      for (let at = 0; at < bytes.length; ) {
        const size = 1 + Math.floor(rng() * 12);
        chunks.push(bytes.subarray(at, at + size));
        at += size;
      }
      assertSameValue(scan(chunks), JSON.parse(text), `document ${n}: ${text.slice(0, 120)}`);
    }
  });
});

describe('invalid JSON is refused', () => {
  const INVALID = [
    '{', '{"a":1', '[1,]', '{"a":1,}', '01', '1.', '.5', '+1', '0x10', 'NaN', 'Infinity', '-', '1e', "'a'", '{a:1}', '{"a" 1}',
    '"\t"', '"a\nb"', '"\\x41"', '"\\u12"', 'nul', 'truex', 'true false', '{}{}', '{"a":1}x', '[1 2]', '"unterminated', '\u00a0\u00a0x',
  ];
  for (const text of INVALID) {
    test(JSON.stringify(text), () => {
      assert.throws(() => JSON.parse(text.trim()));
      assert.deepEqual(refusal([text]), NOT_JSON);
      if (text.length > 1) assert.deepEqual(refusal([text.slice(0, 1), text.slice(1)]), NOT_JSON, 'split after the first character');
    });
  }
});

describe('bounds', () => {
  const keys = (n: number) => Array.from({ length: n }, (_, i) => `"k${i}":0`).join(',');

  test('keys of an object: 1000 pass, 1001 are refused, naming the object', () => {
    assert.equal(Object.keys((scan([`{"inputs":{${keys(1000)}}}`]) as { inputs: object }).inputs).length, 1000);
    assert.deepEqual(refusal([`{"inputs":{${keys(1001)}}}`]), [400, 'JSON body: an object has more than 1000 keys (at inputs)']);
    // A repeated key counts each time.
    assert.deepEqual(refusal([`{${'"a":0,'.repeat(1000)}"a":1}`]), [400, 'JSON body: an object has more than 1000 keys (at the top level)']);
  });

  test('items of an array', () => {
    assert.equal((scan([`[${'0,'.repeat(9999)}0]`]) as unknown[]).length, 10_000);
    assert.deepEqual(refusal([`{"a":[{"b":[${'0,'.repeat(10_000)}0]}]}`]), [400, 'JSON body: an array has more than 10000 items (at a[0].b)']);
  });

  test('depth: 32 levels pass, 33 are refused, naming where', () => {
    assert.ok(scan(['['.repeat(32) + ']'.repeat(32)]));
    assert.deepEqual(refusal(['['.repeat(33) + ']'.repeat(33)]), [400, `JSON body: nested deeper than 32 levels (at ${'[0]'.repeat(32)})`]);
    assert.deepEqual(refusal(['{"a":'.repeat(40)]), [400, `JSON body: nested deeper than 32 levels (at ${Array(32).fill('a').join('.')})`]);
  });

  test('length of a string, a key and a number (in characters, escapes decoded)', () => {
    const max = DEFAULT_JSON_BOUNDS.maxStringLength;
    assert.equal((scan([`{"s":"${'é'.repeat(max)}"}`]) as { s: string }).s.length, max);
    assert.equal((scan([`{"s":"${'\\n'.repeat(max)}"}`]) as { s: string }).s.length, max);
    assert.deepEqual(refusal([`{"a":{"s":"${'x'.repeat(max + 1)}"}}`]), [400, `JSON body: a string is longer than ${max} characters (at a.s)`]);
    assert.deepEqual(refusal([`{"a":{"${'k'.repeat(max + 1)}":1}}`]), [400, `JSON body: a key is longer than ${max} characters (at a)`]);
    assert.deepEqual(refusal([`[${'9'.repeat(max + 1)}]`]), [400, `JSON body: a number is longer than ${max} characters (at [0])`]);
  });

  test('values in all (1 + 9999 × 10 before the last array, whose 9th zero is the 100001st)', () => {
    assert.deepEqual(refusal([`[${'[0,0,0,0,0,0,0,0,0],'.repeat(10_000)}0]`]), [400, 'JSON body: more than 100000 values (at [9999][8])']);
    assert.deepEqual(refusal(['[[1,2],[3,4]]'], { maxValues: 5 }), [400, 'JSON body: more than 5 values (at [1][0])']);
  });

  test('text in all is 413', () => {
    const strings = Array.from({ length: 20 }, () => `"${'x'.repeat(60_000)}"`).join(',');
    assert.deepEqual(refusal([`{"a":[${strings}]}`]), [413, `JSON body: its strings, keys and numbers add up to more than ${1024 * 1024} characters (at a[17])`]);
  });

  test('a route’s own bounds', () => {
    assert.deepEqual(refusal(['{"a":1,"b":2,"c":3}'], { maxKeys: 2 }), [400, 'JSON body: an object has more than 2 keys (at the top level)']);
    assert.deepEqual(refusal(['{"a":"xyz"}'], { maxStringLength: 2 }), [400, 'JSON body: a string is longer than 2 characters (at a)']);
  });

  test('a body that breaks a bound is refused at the chunk that breaks it', () => {
    const scanner = new BoundedJsonScanner(DEFAULT_JSON_BOUNDS);
    scanner.write(Buffer.from(`{"inputs":{${keys(1000)}`));
    assert.throws(() => scanner.write(Buffer.from(',"one-too-many":0')), /more than 1000 keys \(at inputs\)/);
    const deep = new BoundedJsonScanner(DEFAULT_JSON_BOUNDS);
    assert.throws(() => deep.write(Buffer.from('['.repeat(100_000))), /nested deeper than 32 levels/);
  });

  test('a long key in a path is cut in the message', () => {
    const key = 'k'.repeat(5000);
    const [, detail] = refusal([`{"${key}":{${keys(1001)}}}`]);
    assert.match(detail, /^JSON body: an object has more than 1000 keys \(at k{200}… \(5000 characters\)\)$/);
  });
});

describe('streamed strings', () => {
  /** A sink that records what it was given; its value is `{streamed: <text>}`. */
  function recorder() {
    const opened: JsonPath[] = [];
    const pieces: string[] = [];
    const streamed: StreamedStrings = {
      at: [['inputs', 'dem'], ['inputs', 'dem', 'value']],
      open(path) {
        opened.push(path);
        const mine: string[] = [];
        return {
          write: (text) => {
            mine.push(text);
            pieces.push(text);
          },
          end: () => ({ streamed: mine.join('') }),
        };
      },
    };
    return { opened, pieces, streamed };
  }

  test('a string at a streamed place goes to its sink, past the string bounds, and its value takes the place', () => {
    const { opened, pieces, streamed } = recorder();
    const long = 'QUJD'.repeat(100_000);
    const text = `{"inputs":{"dem":{"mediaType":"image/tiff","value":"${long.slice(0, 7)}\\n\\/${long.slice(7)}"},"step":60}}`;
    const bytes = Buffer.from(text);
    const chunks = [];
    for (let at = 0; at < bytes.length; at += 1000) chunks.push(bytes.subarray(at, at + 1000));
    const value = scan(chunks, {}, streamed) as { inputs: { dem: { value: unknown; mediaType: string }; step: number } };
    assert.deepEqual(opened, [['inputs', 'dem', 'value']]);
    assert.deepEqual(value.inputs.dem.value, { streamed: `${long.slice(0, 7)}\n/${long.slice(7)}` });
    assert.equal(value.inputs.dem.mediaType, 'image/tiff');
    assert.equal(value.inputs.step, 60);
    assert.ok(pieces.length > 1, 'the string arrived in pieces');
    assert.ok(Math.max(...pieces.map((p) => p.length)) < 70_000, 'no piece is the whole string');
  });

  test('strings elsewhere, and other values at the streamed places, are held as usual', () => {
    const { opened, streamed } = recorder();
    assert.deepEqual(scan(['{"inputs":{"dem":{"href":"http://x/y.tif","value":42}},"dem":"top"}'], {}, streamed), {
      inputs: { dem: { href: 'http://x/y.tif', value: 42 } },
      dem: 'top',
    });
    assert.deepEqual(scan(['[{"inputs":{"dem":"in an array"}}]'], {}, streamed), [{ inputs: { dem: 'in an array' } }]);
    assert.deepEqual(opened, []);
  });

  test('a second streamed string in one body is refused', () => {
    const { streamed } = recorder();
    assert.throws(() => scan(['{"inputs":{"dem":"AAAA","dem":"BBBB"}}'], {}, streamed), (error: unknown) => {
      assert.ok(error instanceof HttpError);
      assert.equal(error.detail, 'JSON body: a second inline file (at inputs.dem)');
      return true;
    });
  });
});
