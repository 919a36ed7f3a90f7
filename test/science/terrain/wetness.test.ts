// TWI guards, MCWI normalisation and northness.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { massConservingWetnessIndex, meanWetnessIndex, topographicWetnessIndex } from '../../../src/science/terrain/wetness.js';
import { northnessFromSlopeAspect } from '../../../src/science/terrain/northness.js';
import { wetnessChain } from '../../../src/science/terrain/hydrology.js';

const deg = Math.PI / 180;

test('TWI λ = ln(a / tan β) with the guards of eemt-model.md §2.2 P6', () => {
  const a = Float64Array.of(100, 100, 1, 5, 1e6, NaN, 50);
  const slope = Float64Array.of(45 * deg, 0, 80 * deg, 10 * deg, 0.0001 * deg, 0.1, NaN);
  const twi = topographicWetnessIndex(a, slope, { minimumSpecificAreaM: 10 });
  assert.ok(Math.abs(twi[0]! - Math.log(100)) < 1e-12, 'tan 45° = 1');
  assert.ok(Math.abs(twi[1]! - Math.log(100 / 1e-3)) < 1e-12, 'flat: tan β floored at 1e-3');
  assert.ok(Math.abs(twi[2]! - Math.log(10 / Math.tan(80 * deg))) < 1e-12, 'a floored at the cell size');
  assert.ok(Math.abs(twi[3]! - Math.log(10 / Math.tan(10 * deg))) < 1e-12);
  assert.ok(Math.abs(twi[4]! - Math.log(1e6 / 1e-3)) < 1e-12);
  assert.ok(Number.isNaN(twi[5]!) && Number.isNaN(twi[6]!), 'NaN in, NaN out');
  // λ < 0 (steep ridge at fine resolution) is set to 0
  const ridge = topographicWetnessIndex(Float64Array.of(1), Float64Array.of(5), { minimumSpecificAreaM: 1, slopeUnit: 'tangent' });
  assert.equal(ridge[0], 0);
  const tangent = topographicWetnessIndex(Float64Array.of(100), Float64Array.of(0.5), { minimumSpecificAreaM: 10, slopeUnit: 'tangent' });
  assert.ok(Math.abs(tangent[0]! - Math.log(200)) < 1e-12);
});

test('MCWI α = λ / mean λ: mean exactly 1 on random inputs, NaN ignored, all-zero λ gives α = 1', () => {
  let seed = 12345;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  for (let trial = 0; trial < 20; trial++) {
    const n = 5000;
    const a = Float64Array.from({ length: n }, () => (rand() < 0.05 ? NaN : 10 * Math.exp(10 * rand())));
    const s = Float64Array.from({ length: n }, () => (rand() < 0.1 ? 0 : rand() * 1.4));
    const twi = topographicWetnessIndex(a, s, { minimumSpecificAreaM: 10 });
    const alpha = massConservingWetnessIndex(twi);
    let sum = 0;
    let count = 0;
    for (let i = 0; i < n; i++) {
      if (Number.isNaN(a[i]!)) {
        assert.ok(Number.isNaN(alpha[i]!));
        continue;
      }
      assert.ok(Number.isFinite(alpha[i]!) && alpha[i]! >= 0);
      sum += alpha[i]!;
      count++;
    }
    assert.ok(Math.abs(sum / count - 1) < 1e-9, `mean α = ${sum / count}`);
    assert.ok(Math.abs(meanWetnessIndex(twi) * (sum / count) - meanWetnessIndex(twi)) < 1e-9);
  }
  const zeros = massConservingWetnessIndex(Float64Array.of(0, 0, NaN));
  assert.deepEqual(Array.from(zeros), [1, 1, NaN]);
});

test('northness: sign, conventions, flats', () => {
  const slope = Float64Array.of(20, 20, 20, 0, 90, 30);
  const aspectCwN = Float64Array.of(0, 180, 90, NaN, 0, 45);
  const n = northnessFromSlopeAspect(slope, aspectCwN, { angleUnit: 'degrees' });
  assert.ok(Math.abs(n[0]! - 0.3420201) < 1e-7, 'north-facing 20° (§6.3 P8)');
  assert.ok(Math.abs(n[1]! + 0.3420201) < 1e-7, 'south-facing');
  assert.ok(Math.abs(n[2]!) < 1e-15, 'east-facing');
  assert.equal(n[3], 0, 'flat with undefined aspect gives 0, not NaN');
  assert.ok(Math.abs(n[4]! - 1) < 1e-15, 'vertical north wall');
  assert.ok(Math.abs(n[5]! - Math.cos(45 * deg) * Math.sin(30 * deg)) < 1e-15);
  // GRASS r.slope.aspect convention: counter-clockwise from east (90 = north, 270 = south)
  const grass = northnessFromSlopeAspect(Float64Array.of(20 * deg, 20 * deg), Float64Array.of(90 * deg, 270 * deg), {
    aspectConvention: 'counterClockwiseFromEast',
  });
  assert.ok(Math.abs(grass[0]! - 0.3420201) < 1e-7 && Math.abs(grass[1]! + 0.3420201) < 1e-7);
  assert.ok(Number.isNaN(northnessFromSlopeAspect(Float64Array.of(NaN), Float64Array.of(0))[0]!));
});

test('wetness chain: flat areas and nodata never give NaN or Infinity in valid cells', () => {
  const width = 40;
  const height = 30;
  const z = new Float64Array(width * height);
  const slope = new Float64Array(width * height);
  for (let r = 0; r < height; r++) {
    for (let c = 0; c < width; c++) {
      const i = r * width + c;
      z[i] = c < 15 ? 100 : 100 + 0.2 * (c - 15); // a flat valley floor next to a slope
      slope[i] = c < 15 ? 0 : Math.atan(0.02);
    }
  }
  for (let r = 10; r < 14; r++) for (let c = 5; c < 9; c++) z[r * width + c] = slope[r * width + c] = NaN;
  const chain = wetnessChain(z, slope, { width, height, dx: 10, dy: 10 });
  let sum = 0;
  let count = 0;
  for (let i = 0; i < z.length; i++) {
    if (Number.isNaN(z[i]!)) {
      assert.ok(Number.isNaN(chain.wetnessIndex[i]!) && Number.isNaN(chain.wetnessRatio[i]!));
      continue;
    }
    assert.ok(Number.isFinite(chain.wetnessIndex[i]!) && Number.isFinite(chain.wetnessRatio[i]!), `cell ${i}`);
    sum += chain.wetnessRatio[i]!;
    count++;
  }
  assert.ok(Math.abs(sum / count - 1) < 1e-9);
  // a completely flat DEM: every cell gets the same slope guard, λ finite, α finite
  const flat = wetnessChain(new Float64Array(100).fill(7), new Float64Array(100), { width: 10, height: 10, dx: 5, dy: 5 });
  assert.ok(flat.wetnessRatio.every(Number.isFinite));
});

test('1000×1000 full wetness chain (fill, D-inf, catchment, TWI, MCWI) timing', () => {
  const n = 1000;
  const z = new Float64Array(n * n);
  const slope = new Float64Array(n * n);
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      z[r * n + c] = 2500 - 0.5 * r - 0.2 * c + 25 * Math.sin(c / 41) * Math.cos(r / 29) + 4 * Math.sin((3 * r + c) / 13);
      slope[r * n + c] = 0.1 + 0.05 * Math.sin(r + c);
    }
  }
  const t0 = performance.now();
  const chain = wetnessChain(z, slope, { width: n, height: n, dx: 10, dy: 10 });
  const ms = performance.now() - t0;
  console.log(`  1000×1000 wetness chain: ${ms.toFixed(0)} ms`);
  assert.ok(chain.wetnessRatio.every(Number.isFinite));
  // no stack overflow on long flow paths, and every drop leaves the grid exactly once
  let outflow = 0;
  for (let i = 0; i < z.length; i++) if (chain.flow.receiverA[i]! < 0) outflow += chain.area[i]!;
  assert.ok(Math.abs(outflow - n * n * 100) < 1e-6 * n * n * 100);
  assert.ok(ms < 8000, `${ms} ms`); // about 1 s on one core; generous for shared CI machines
});
