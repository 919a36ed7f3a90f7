/** Client input quoted in error messages (src/util/echoed.ts): whole up to 200 characters, else cut and measured. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { echoed, ECHOED_INPUT_MAX_CHARS } from '../../src/util/echoed.js';

test('up to 200 characters are kept whole', () => {
  assert.equal(ECHOED_INPUT_MAX_CHARS, 200);
  for (const text of ['', 'job-id', 'é'.repeat(200)]) assert.equal(echoed(text), text);
});

test('longer input is cut at 200 characters, with its length', () => {
  const path = 'a/'.repeat(5000);
  assert.equal(echoed(path), `${path.slice(0, 200)}… (10000 characters)`);
  assert.equal(echoed('x'.repeat(201)), `${'x'.repeat(200)}… (201 characters)`);
  assert.equal(echoed('abcdef', 3), 'abc… (6 characters)');
});

test('a cut never splits a surrogate pair', () => {
  const text = `${'x'.repeat(199)}😀${'y'.repeat(10)}`;
  assert.equal(echoed(text), `${'x'.repeat(199)}… (${text.length} characters)`);
  assert.ok(echoed('😀'.repeat(300)).startsWith('😀'.repeat(100) + '…'));
});
