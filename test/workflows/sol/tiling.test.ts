/**
 * Tile borders must not show: a run cut into 16-cell tiles writes exactly what a run in one tile writes, on
 * terrain whose long low-sun shadows cross many tile borders (and so does the TypeScript kernel); and a run split into tile slices (computed apart,
 * as workers of the distributed queue do, then assembled) writes the same files, byte for byte.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRaster } from '../../../src/raster/index.js';
import type { Dem } from '../../../src/raster/types.js';
import { computeSolarYear } from '../../../src/workflows/solarYear/index.js';
import { assembleSolarYear, dealLargestFirst, removeSolarSlices, sliceTiles, SLICES_FOLDER } from '../../../src/workflows/solarYear/slices.js';
import type { ComputeTile } from '../../../src/workflows/solarYear/tilePlan.js';
import { utm13Grid } from '../../helpers/grids.js';

const params = { stepMinutes: 20, linkeTurbidity: 3, albedo: 0.2 };
/** January (for a monthly sum), the equinox, the solstices. */
const DAYS = [...Array.from({ length: 31 }, (_, i) => i + 1), 80, 172, 355];
const WIDTH = 90;
const HEIGHT = 75;
let work = '';

before(() => {
  work = mkdtempSync(join(tmpdir(), 'sol-tiling-'));
});
after(() => rmSync(work, { recursive: true, force: true }));

/**
 * A gently tilted plain at 2000 m with an east-west wall 250 m high along rows 60–61 (its shadow falls
 * north, across the plain, at low winter sun), a diagonal ridge in the north-east, a peak, a few
 * nodata holes and a nodata corner.
 */
function wallDem(): Dem {
  const elevation = new Float64Array(WIDTH * HEIGHT);
  let valid = 0;
  for (let row = 0; row < HEIGHT; row++) {
    for (let col = 0; col < WIDTH; col++) {
      let z = 2000 + 0.8 * col - 0.3 * row + 3 * Math.sin(col / 5) * Math.cos(row / 7);
      if (row === 60 || row === 61) z += 250;
      const ridge = Math.abs(col - 40 - (HEIGHT - row));
      if (ridge < 3 && row < 35) z += 120 - 30 * ridge;
      z += 180 * Math.exp(-((col - 20) ** 2 + (row - 20) ** 2) / 30);
      if ((row === 30 && col > 70 && col < 74) || (row > 5 && row < 8 && col === 3)) z = NaN;
      if (row < 16 && col >= 72) z = NaN; // a whole 16-cell tile of nodata
      elevation[row * WIDTH + col] = z;
      if (!Number.isNaN(z)) valid++;
    }
  }
    const geoKeys = [
    { id: 1024, value: 1 }, // projected
    { id: 1025, value: 1 }, // PixelIsArea
    { id: 3072, value: 26913 }, // NAD83 / UTM 13N
  ];
  return { grid: { ...utm13Grid(WIDTH, HEIGHT), geoKeys }, elevation, validCount: valid, sourceNodata: null };
}

async function values(dir: string, path: string): Promise<Float64Array> {
  return (await readRaster(join(dir, path))).values;
}

test('a run in 16-cell tiles equals a run in one tile, value for value, while shadows cross the tile borders', async () => {
  const dem = wallDem();
  const tiled = join(work, 'tiled');
  const whole = join(work, 'whole');
  const open = join(work, 'open');
  const typescript = join(work, 'typescript');
  const [a, b] = await Promise.all([
    computeSolarYear(dem, { outDir: tiled, params, threads: 2, days: DAYS, tileSize: 16 }),
    computeSolarYear(dem, { outDir: whole, params, threads: 1, days: DAYS, tileSize: 512 }),
    // the TypeScript daily kernel instead of the WebAssembly one (the default)
    computeSolarYear(dem, { outDir: typescript, params, threads: 1, days: DAYS, tileSize: 32, kernel: 'typescript' }),
    // the same terrain without terrain shadows, to see where the shadows fall
    computeSolarYear(dem, { outDir: open, params, threads: 1, days: [355], directions: 0 }),
  ]);
  assert.equal(a.tileSize, 16);
  assert.deepEqual(a.files, b.files);
  assert.ok(a.files.includes('global/monthly/total_sun_jan_sum.tif'));
  for (const file of a.files) {
    const [x, y, t] = await Promise.all([values(tiled, file), values(whole, file), values(typescript, file)]);
    let differ = 0;
    for (let i = 0; i < x.length; i++) if (!Object.is(x[i], y[i]) || !Object.is(x[i], t[i])) differ++;
    assert.equal(differ, 0, `${file}: ${differ} cells differ`);
  }
  // on day 355 the wall shades cells many tiles to its north: count shaded cells by distance from the wall
  const hours = await values(tiled, 'insol/daily/hours_sun_day_355.tif');
  const openHours = await values(open, 'insol/daily/hours_sun_day_355.tif');
  let shadedFarNorth = 0;
  for (let row = 36; row < 44; row++) {
    for (let col = 0; col < WIDTH; col++) if (hours[row * WIDTH + col]! < openHours[row * WIDTH + col]! - 0.1) shadedFarNorth++;
  }
  assert.ok(shadedFarNorth > 100, `${shadedFarNorth} cells 16–24 rows north of the wall lose sun to it`);
});

test('tile slices: every tile in exactly one slice, the slices\' valid cells within one tile of each other', () => {
  const tile = (index: number, validCells: number) => ({ index, validCells }) as unknown as ComputeTile;
  const tiles = [900, 256, 256, 0, 256, 100, 256, 256, 30, 256, 256].map((cells, k) => tile(k, cells));
  for (const count of [1, 2, 3, 4, 11, 15]) {
    const slices = Array.from({ length: count }, (_, index) => sliceTiles(tiles, { index, count }));
    const owners = tiles.map((t) => slices.filter((s) => s.includes(t)).length);
    assert.deepEqual(owners, tiles.map(() => 1), `${count} slices`);
    for (const s of slices) assert.deepEqual(s.map((t) => t.index), [...s.map((t) => t.index)].sort((a, b) => a - b), 'in plan order');
    const loads = slices.map((s) => s.reduce((n, t) => n + Math.max(1, t.validCells), 0));
    // longest-processing-time first: no slice has more than the lightest one plus the largest tile
    assert.ok(Math.max(...loads) - Math.min(...loads) <= 900, `${count} slices: ${loads.join(', ')}`);
  }
  assert.deepEqual(sliceTiles(tiles, { index: 0, count: 2 }).map((t) => t.index), [0, 7, 10]);
  assert.deepEqual(dealLargestFirst([5, 1, 4, 4, 2], 2), [0, 0, 1, 1, 0]);
  assert.throws(() => sliceTiles(tiles, { index: 2, count: 2 }), /0 ≤ index < count/);
  assert.throws(() => sliceTiles(tiles, { index: 0, count: 0 }), /0 ≤ index < count/);
});

test('a run in 3 tile slices, assembled, writes the files of a single run byte for byte; a missing slice is named', async () => {
  const dem = wallDem();
  const days = [...Array.from({ length: 31 }, (_, i) => i + 1), 355];
  const single = join(work, 'single');
  const split = join(work, 'split');
  const reference = await computeSolarYear(dem, { outDir: single, params, threads: 2, days, tileSize: 16, flatMonthly: true });
  const count = 3;
  const slices = [];
  for (let index = 0; index < count; index++) {
    slices.push(await computeSolarYear(dem, { outDir: split, params, threads: 1, days, tileSize: 16, flatMonthly: true, slice: { index, count } }));
  }
  assert.ok(slices.every((s) => s.files.length === 0), 'a slice writes no product');
  assert.equal(slices.reduce((n, s) => n + s.validCells, 0), dem.validCount);
  // a slice lost with its worker runs again from nothing
  await computeSolarYear(dem, { outDir: split, params, threads: 2, days, tileSize: 16, flatMonthly: true, slice: { index: 1, count } });

  await assert.rejects(assembleSolarYear(split, dem.grid, 4), /Tile slice \d of 4 did not finish/);
  const assembled = await assembleSolarYear(split, dem.grid, count);
  assert.deepEqual(assembled.files, reference.files);
  assert.ok(assembled.files.includes('global/monthly/flat_total_sun_jan_sum.tif'));
  assert.equal(assembled.validCells, dem.validCount);
  for (const file of reference.files) assert.ok(readFileSync(join(split, file)).equals(readFileSync(join(single, file))), `${file} differs`);
  // an assembly stopped half way runs again, here in two shares side by side; the slices stay until the job removes them
  rmSync(join(split, reference.files[0]!));
  const shares = await Promise.all([0, 1].map((index) => assembleSolarYear(split, dem.grid, count, { share: { index, count: 2 } })));
  assert.deepEqual([...shares[0]!.files, ...shares[1]!.files].sort(), reference.files);
  // dealt by size: the shares' bytes differ by at most the largest file
  const size = (files: string[]) => files.reduce((n, f) => n + statSync(join(split, f)).size, 0);
  const largest = Math.max(...reference.files.map((f) => statSync(join(split, f)).size));
  assert.ok(Math.abs(size(shares[0]!.files) - size(shares[1]!.files)) <= largest, 'shares balanced by size');
  assert.ok(shares.every((share) => share.files.length > 0));
  for (const file of reference.files) assert.ok(readFileSync(join(split, file)).equals(readFileSync(join(single, file))), `${file} differs after the shares`);
  await removeSolarSlices(split);
  assert.ok(!existsSync(join(split, SLICES_FOLDER)));
  await assert.rejects(assembleSolarYear(split, dem.grid, count), /Tile slice 1 of 3 did not finish/);
});
