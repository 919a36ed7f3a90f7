/**
 * The made-up tile a worker started ahead computes while it waits for its run (src/workflows/solarYear/warmUp.ts)
 * goes through the run's code — the compiled kernel with terrain shadows and the near field traced, the tile
 * encoder — and gives what the TypeScript kernel gives for it, within the physics of a December day at 45° N.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inflateSync } from 'node:zlib';
import { decodeFloatPredictorRows } from '../../../src/raster/tiff/floatPredictor.js';
import type { ProductTiles, WorkerReply } from '../../../src/workflows/solarYear/messages.js';
import { TileRun } from '../../../src/workflows/solarYear/tileRun.js';
import { WARM_UP_CELLS, warmUp, warmUpSetup } from '../../../src/workflows/solarYear/warmUp.js';

/** The replies of the made-up tile computed with `kernel`. */
function repliesOf(kernel: 'wasm' | 'typescript'): WorkerReply[] {
  const replies: WorkerReply[] = [];
  new TileRun({ ...warmUpSetup(), kernel }, (reply) => replies.push(reply)).computeTile(0);
  return replies;
}

/** The values of a compressed tile of the made-up DEM. */
function decoded(bytes: Uint8Array): Float32Array {
  const bits = new Uint32Array(WARM_UP_CELLS * WARM_UP_CELLS);
  decodeFloatPredictorRows(inflateSync(bytes), WARM_UP_CELLS, WARM_UP_CELLS, bits);
  return new Float32Array(bits.buffer);
}

test('the warm-up runs, and its tile is the TypeScript kernel’s, within a December day at 45° N', () => {
  assert.doesNotThrow(() => warmUp());
  const [wasm, typescript] = (['wasm', 'typescript'] as const).map((kernel) => {
    const replies = repliesOf(kernel);
    assert.equal(replies.at(-1)?.type, 'tileDone');
    assert.ok(replies.some((r) => r.type === 'horizons' && r.fraction === 1));
    const products = replies.flatMap((r) => (r.type === 'products' ? r.products : []));
    assert.equal(products.length, 1);
    const day = products[0] as Extract<ProductTiles, { type: 'day' }>;
    assert.equal(day.day, 350);
    return { global: decoded(day.global!.bytes), hours: decoded(day.hours!.bytes), statistics: day.global!.statistics };
  });
  assert.deepEqual(wasm!.global, typescript!.global);
  assert.deepEqual(wasm!.hours, typescript!.hours);
  // a raster this small has no overviews: its tiles carry their statistics
  assert.equal(wasm!.statistics?.cells, WARM_UP_CELLS * WARM_UP_CELLS);
  // the day is 8.7 h long at 45° N on 16 December; no surface gets more than the sun's constant (1 412 W m⁻² near
  // perihelion) over the whole day, and every cell gets diffuse light
  const hours = Array.from(wasm!.hours);
  const global = Array.from(wasm!.global);
  assert.ok(hours.every((h) => h >= 0 && h <= 8.75), `hours ${Math.min(...hours)}–${Math.max(...hours)}`);
  assert.ok(global.every((g) => g > 0 && g < 1412 * 8.75), `global ${Math.min(...global)}–${Math.max(...global)}`);
  // the terrain shades part of the day on some cells and none on others
  assert.ok(Math.max(...hours) - Math.min(...hours) > 1, `hours ${Math.min(...hours)}–${Math.max(...hours)}`);
});
