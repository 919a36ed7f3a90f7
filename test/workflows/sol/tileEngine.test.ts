/**
 * The tile engine gives the same products with the WebAssembly kernel as with the TypeScript one, tile after
 * tile through one engine: also where a sun tile without a valid cell leaves part of a compute tile to no part
 * (those cells stay nodata, whatever the tile before left in the kernel's memory).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTerrainModel } from '../../../src/science/solar/terrainModel.js';
import type { ComputeTile, SunTile } from '../../../src/workflows/solarYear/tilePlan.js';
import { TileEngine, type DayOutputs } from '../../../src/workflows/solarYear/tileEngine.js';

const WIDTH = 48;
const HEIGHT = 32;
const DAYS = [1, 80, 172, 355];

test('the WebAssembly and TypeScript kernels give the same tiles, and cells of no sun tile stay nodata', () => {
  const z = new Float32Array(WIDTH * HEIGHT);
  for (let r = 0; r < HEIGHT; r++) for (let c = 0; c < WIDTH; c++) z[r * WIDTH + c] = 900 + 40 * Math.sin(c / 6) * Math.cos(r / 4) + 3 * c;
  // the north-east 16 × 16 block has no valid cell: its sun tile is left out of the plan
  for (let r = 0; r < 16; r++) for (let c = 32; c < 48; c++) z[r * WIDTH + c] = NaN;
  const model = buildTerrainModel(z, WIDTH, HEIGHT, new Float64Array(HEIGHT).fill(10), new Float64Array(HEIGHT).fill(10));
  const geometry = { latitudeRad: 0.7, convergenceRad: 0.01, cellSizeXM: 10, cellSizeYM: 10, pressureRatioCentre: Math.exp(-950 / 8434.5), pressureRatioHalfRange: 0.01 };
  const sunTiles: (SunTile | null)[] = [];
  for (let sr = 0; sr < 2; sr++) {
    for (let sc = 0; sc < 3; sc++) {
      const block = { rowStart: sr * 16, rowEnd: sr * 16 + 16, colStart: sc * 16, colEnd: sc * 16 + 16 };
      sunTiles.push(sr === 0 && sc === 2 ? null : { ...block, ...geometry });
    }
  }
  const partsOf = (block: { rowStart: number; rowEnd: number; colStart: number; colEnd: number }) =>
    sunTiles.flatMap((sun, i) => (sun && sun.rowStart < block.rowEnd && sun.rowEnd > block.rowStart && sun.colStart < block.colEnd && sun.colEnd > block.colStart ? [{ ...sun, sun: i }] : []));
  // the whole southern half first (every cell valid), then the northern half with its nodata sun tile
  const tiles: ComputeTile[] = [
    { index: 1, rowStart: 16, rowEnd: 32, colStart: 0, colEnd: 48, validCells: 16 * 48, parts: partsOf({ rowStart: 16, rowEnd: 32, colStart: 0, colEnd: 48 }) },
    { index: 0, rowStart: 0, rowEnd: 16, colStart: 0, colEnd: 48, validCells: 16 * 32, parts: partsOf({ rowStart: 0, rowEnd: 16, colStart: 0, colEnd: 48 }) },
  ];
  const layout = { directions: 32, nearSectors: 128, nearSteps: 6 };
  const params = { stepMinutes: 20, linkeTurbidity: 3, albedo: 0.2 };
  const engines = (['wasm', 'typescript'] as const).map((kernel) => new TileEngine(model, layout, params, sunTiles, DAYS, kernel));
  for (const tile of tiles) {
    const cells = (tile.rowEnd - tile.rowStart) * (tile.colEnd - tile.colStart);
    const [wasm, typescript] = engines.map((engine) => {
      const outs: DayOutputs[] = DAYS.map(() => ({ global: new Float32Array(cells).fill(-1), hours: new Float32Array(cells).fill(-1), flat: new Float32Array(cells) }));
      engine.prepare(tile);
      engine.integrateDays(DAYS, outs);
      return outs;
    });
    assert.deepEqual(wasm, typescript, `tile ${tile.index}`);
    let nodata = 0;
    for (const out of wasm!) for (let i = 0; i < cells; i++) if (Number.isNaN(out.global[i]!) && Number.isNaN(out.hours[i]!)) nodata++;
    assert.equal(nodata, DAYS.length * (cells - tile.validCells), `tile ${tile.index}: nodata cells`);
  }
});
