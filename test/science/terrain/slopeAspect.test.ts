import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readDem, readRaster } from '../../../src/raster/index.js';
import { aspectCompassRad, aspectGrassDeg, hornGradient, hornGradientOfBlock, slopeAspectGrids } from '../../../src/science/terrain/slopeAspect.js';

const fixtures = new URL('../../fixtures/', import.meta.url).pathname;

test('slope and aspect equal GRASS r.slope.aspect on mcn_10m wherever GRASS has a value', async () => {
  const dem = await readDem(`${fixtures}mcn_10m.tif`);
  const { width, height } = dem.grid;
  const { slopeDeg, aspectDeg } = slopeAspectGrids(hornGradient(dem.elevation, width, height, 10, 10));
  const grassSlope = (await readRaster(`${fixtures}oracle/mcn_10m/slope.tif`)).values;
  const grassAspect = (await readRaster(`${fixtures}oracle/mcn_10m/aspect.tif`)).values;
  let compared = 0;
  let maxSlope = 0;
  let maxAspect = 0;
  for (let i = 0; i < width * height; i++) {
    if (!Number.isFinite(grassSlope[i]!)) continue;
    compared++;
    maxSlope = Math.max(maxSlope, Math.abs(slopeDeg[i]! - grassSlope[i]!));
    let d = Math.abs(aspectDeg[i]! - grassAspect[i]!);
    if (d > 180) d = 360 - d;
    if (grassSlope[i]! > 0.01) maxAspect = Math.max(maxAspect, d); // aspect is ill-defined on flats
  }
  assert.equal(compared, 47_112);
  assert.ok(maxSlope < 1e-4, `slope ${maxSlope}°`); // GRASS stores float32
  assert.ok(maxAspect < 1e-3, `aspect ${maxAspect}°`);
});

test('every valid cell gets a slope, including the DEM border and the neighbours of nodata cells', async () => {
  const dem = await readDem(`${fixtures}mcn_10m.tif`);
  const { width, height } = dem.grid;
  const { slopeDeg, aspectDeg } = slopeAspectGrids(hornGradient(dem.elevation, width, height, 10, 10));
  for (let i = 0; i < width * height; i++) {
    const valid = Number.isFinite(dem.elevation[i]!);
    assert.equal(Number.isFinite(slopeDeg[i]!), valid, `cell ${i}`);
    assert.equal(Number.isFinite(aspectDeg[i]!), valid, `cell ${i}`);
  }
});

test('on a tilted plane the border cells get the interior gradient exactly, also next to nodata', () => {
  const width = 7;
  const height = 5;
  const z = new Float64Array(width * height);
  // rises 0.3 m per m toward the west and 0.1 m per m toward the south (faces east and north); dx 10, dy 8
  for (let r = 0; r < height; r++) for (let c = 0; c < width; c++) z[r * width + c] = 100 - 0.3 * c * 10 + 0.1 * r * 8;
  z[2 * width + 3] = NaN;
  const { fallEast, fallNorth } = hornGradient(z, width, height, 10, 8);
  for (let i = 0; i < z.length; i++) {
    if (Number.isNaN(z[i]!)) {
      assert.ok(Number.isNaN(fallEast[i]!));
      continue;
    }
    assert.ok(Math.abs(fallEast[i]! - 0.3) < 1e-12, `east ${i}: ${fallEast[i]}`);
    assert.ok(Math.abs(fallNorth[i]! - 0.1) < 1e-12, `north ${i}: ${fallNorth[i]}`);
  }
  // faces east-north-east: compass aspect atan2(0.3, 0.1), GRASS CCW from east
  assert.ok(Math.abs(aspectCompassRad(0.3, 0.1) - Math.atan2(0.3, 0.1)) < 1e-15);
  assert.ok(Math.abs(aspectGrassDeg(0.3, 0.1) - (Math.atan2(0.1, 0.3) * 180) / Math.PI) < 1e-12);
});

test('GRASS aspect conventions: east is 360, north 90, west 180, south 270, flat 0', () => {
  assert.equal(aspectGrassDeg(1, 0), 360);
  assert.equal(aspectGrassDeg(0, 1), 90);
  assert.equal(aspectGrassDeg(-1, 0), 180);
  assert.equal(aspectGrassDeg(0, -1), 270);
  assert.equal(aspectGrassDeg(0, 0), 0);
  assert.ok(Number.isNaN(aspectCompassRad(0, 0)));
  assert.equal(aspectCompassRad(0, -1), Math.PI); // faces south
});

test('the gradient of a block equals the whole-grid gradient there, at the DEM edge and next to nodata too', async () => {
  const dem = await readDem(new URL('../../fixtures/mcn_10m.tif', import.meta.url).pathname);
  const { width, height } = dem.grid;
  const whole = hornGradient(dem.elevation, width, height, 10, 10);
  const elevation32 = Float32Array.from(dem.elevation);
  const whole32 = hornGradient(elevation32, width, height, 10, 10);
  for (const block of [
    { rowStart: 0, rowEnd: 17, colStart: 0, colEnd: 33 },
    { rowStart: 100, rowEnd: 211, colStart: 200, colEnd: 228 },
    { rowStart: 50, rowEnd: 51, colStart: 3, colEnd: 4 },
  ]) {
    const blockWidth = block.colEnd - block.colStart;
    const n = (block.rowEnd - block.rowStart) * blockWidth;
    for (const [elevation, expected] of [[dem.elevation, whole], [elevation32, whole32]] as const) {
      const out = { fallEast: new Float64Array(n), fallNorth: new Float64Array(n) };
      hornGradientOfBlock(elevation, width, height, block, 10, 10, out);
      for (let r = block.rowStart; r < block.rowEnd; r++) {
        for (let c = block.colStart; c < block.colEnd; c++) {
          const i = (r - block.rowStart) * blockWidth + (c - block.colStart);
          assert.ok(Object.is(out.fallEast[i], expected.fallEast[r * width + c]) && Object.is(out.fallNorth[i], expected.fallNorth[r * width + c]), `${r},${c}`);
        }
      }
    }
  }
  // the Float32 grid is the Float64 one rounded: gradients agree to the rounding of the elevations
  let worst = 0;
  for (let i = 0; i < whole.fallEast.length; i++) if (!Number.isNaN(whole.fallEast[i]!)) worst = Math.max(worst, Math.abs(whole.fallEast[i]! - whole32.fallEast[i]!));
  assert.ok(worst < 1e-4, `${worst}`);
});
