/**
 * The typed arrays the JavaScript side lays out in a kernel's memory start at RESERVED_BYTES: every compiled
 * kernel's static data (its data segments) must end below it, or the arrays would overwrite the kernel's tables.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { RESERVED_BYTES } from '../../src/util/wasmModules.js';

/** An unsigned LEB128 number at `at`: its value and where it ends. */
function leb(bytes: Uint8Array, at: number): { value: number; end: number } {
  let value = 0;
  let shift = 0;
  let i = at;
  for (;;) {
    const byte = bytes[i++]!;
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if ((byte & 0x80) === 0) return { value, end: i };
  }
}

/** [offset, length] of each active data segment placed by an `i32.const` offset (the segments AssemblyScript makes). */
function dataSegments(bytes: Uint8Array): [number, number][] {
  const segments: [number, number][] = [];
  let at = 8; // magic and version
  while (at < bytes.length) {
    const id = bytes[at]!;
    const size = leb(bytes, at + 1);
    if (id === 11) {
      const count = leb(bytes, size.end);
      let p = count.end;
      for (let s = 0; s < count.value; s++) {
        const flags = bytes[p++]!;
        assert.equal(flags, 0, 'an active data segment of memory 0');
        assert.equal(bytes[p++], 0x41, 'placed by i32.const');
        const offset = leb(bytes, p); // (non-negative here: a signed LEB128 whose sign bit is clear)
        assert.equal(bytes[offset.end], 0x0b, 'end of the offset expression');
        const length = leb(bytes, offset.end + 1);
        segments.push([offset.value, length.value]);
        p = length.end + length.value;
      }
    }
    at = size.end + size.value;
  }
  return segments;
}

test('every kernel\'s static data ends below the bytes the JavaScript side leaves to it', () => {
  let segmentsSeen = 0;
  const folder = new URL('../../build/wasm/', import.meta.url);
  const kernels = readdirSync(folder).filter((name) => name.endsWith('.wasm'));
  assert.ok(kernels.includes('deflateTile.wasm') && kernels.includes('dailyKernel.wasm'), 'the kernels are built');
  for (const output of kernels) {
    const bytes = readFileSync(new URL(output, folder));
    for (const [offset, length] of dataSegments(bytes)) {
      segmentsSeen++;
      assert.ok(offset + length <= RESERVED_BYTES, `${output}: static data at ${offset}–${offset + length} passes ${RESERVED_BYTES}`);
    }
  }
  // the tile encoder has code tables: the parser found them
  assert.ok(segmentsSeen > 0);
});
