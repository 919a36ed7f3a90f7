/**
 * Tile borders must not show: a run cut into 16-cell tiles writes exactly what a run in one tile writes, on
 * terrain whose long low-sun shadows cross many tile borders.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readRaster } from '../../../src/raster/index.js';
import type { Dem } from '../../../src/raster/types.js';
import { computeSolarYear } from '../../../src/workflows/sol/index.js';
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
  const [a, b] = await Promise.all([
    computeSolarYear(dem, { outDir: tiled, params, threads: 2, days: DAYS, tileSize: 16 }),
    computeSolarYear(dem, { outDir: whole, params, threads: 1, days: DAYS, tileSize: 512 }),
    // the same terrain without terrain shadows, to see where the shadows fall
    computeSolarYear(dem, { outDir: open, params, threads: 1, days: [355], directions: 0 }),
  ]);
  assert.equal(a.tileSize, 16);
  assert.deepEqual(a.files, b.files);
  assert.ok(a.files.includes('global/monthly/total_sun_jan_sum.tif'));
  for (const file of a.files) {
    const [x, y] = await Promise.all([values(tiled, file), values(whole, file)]);
    let differ = 0;
    for (let i = 0; i < x.length; i++) if (!Object.is(x[i], y[i])) differ++;
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
