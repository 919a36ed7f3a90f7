// `node bench/far-sweep.bench.mjs <dem.tif> [--days 172] [--tiles 4] [--directions N --near-steps n] [--from 512,256] [--tile-size 256] [--sweep wasm,typescript]`:
// the far-field sweep alone (sweptHorizon.ts) on a few compute tiles from the middle of a DEM, as a `sol` run
// would sweep them (the run's tiles, its sun sectors for --days), timed per tile. Prints JSON: seconds per
// million cells and nanoseconds per cell and swept direction, for each distance from which the lines are
// simplified (--from; the engine's is SIMPLIFIED_FROM_CELLS), with the sweep compiled to WebAssembly (the
// engine's, `wasm`) and the TypeScript sweep (`typescript`; --sweep picks one or both, default both). With
// --directions/--near-steps every DEM is swept with one layout, so the cost per cell of DEMs of different sizes
// compares like with like.
// Run `npm run build` first.
import { parseArgs } from 'node:util';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    days: { type: 'string', default: '172' },
    tiles: { type: 'string', default: '4' },
    directions: { type: 'string' },
    'near-steps': { type: 'string' },
    from: { type: 'string' },
    'tile-size': { type: 'string' },
    sweep: { type: 'string', default: 'wasm,typescript' },
  },
});
if (positionals.length !== 1) throw new Error('usage: far-sweep.bench.mjs <dem.tif> [options]');
const dist = (path) => new URL(`../dist/${path}`, import.meta.url).href;
const { readDem } = await import(dist('raster/geotiff/readGeoTiff.js'));
const { planSolarYear } = await import(dist('workflows/solarYear/plan.js'));
const { sunSectors } = await import(dist('science/solar/dailyKernel.js'));
const { sectorMasks, allocateTileHorizons } = await import(dist('science/solar/tileHorizons.js'));
const { sweptFarHorizons, sweepScratch, SIMPLIFIED_FROM_CELLS } = await import(dist('science/solar/sweptHorizon.js'));
const { WasmFarSweep } = await import(dist('science/solar/sweptHorizonWasm.js'));

const days = args.days.split(',').map(Number);
const dem = await readDem(positionals[0], { precision: 'float32', shared: true });
const plan = planSolarYear(dem, { outDir: '/nonexistent', params: { stepMinutes: 15, linkeTurbidity: 3, albedo: 0.2 }, threads: 1, days, ...(args['tile-size'] ? { tileSize: Number(args['tile-size']) } : {}) });
const { terrain, sunTiles, tiles } = plan.setup;
const layout = args.directions
  ? { directions: Number(args.directions), nearSteps: Number(args['near-steps'] ?? 16), nearSectors: Number(args.directions) }
  : plan.setup.layout;
const froms = (args.from ?? String(SIMPLIFIED_FROM_CELLS)).split(',').map((x) => (x === 'Infinity' ? Infinity : Number(x)));
const count = Math.min(tiles.length, Number(args.tiles));
const middle = Math.floor(tiles.length / 2) - Math.floor(count / 2);
const chosen = tiles.slice(middle, middle + count);
const capacity = Math.max(...chosen.map((t) => (t.rowEnd - t.rowStart) * (t.colEnd - t.colStart)));
const out = allocateTileHorizons(layout, capacity);
const scratch = sweepScratch();
const sweeps = args.sweep.split(',').map((name) => ({ name, compiled: name === 'wasm' ? new WasmFarSweep() : null }));
// one untimed tile first, so every timed variant runs compiled code
for (const { compiled } of sweeps) {
  const tile = chosen[0];
  const masks = sectorMasks(layout, sunSectors(days, tile.parts.map((part) => sunTiles[part.sun]), 15, layout.directions));
  sweptFarHorizons(terrain, tile, layout.directions, layout.nearSteps, out.far, scratch, { needed: masks.directions, simplifiedFromCells: froms[0], compiled });
}
const results = [];
for (const { name, compiled } of sweeps) for (const from of froms) {
  let cells = 0;
  let cellDirections = 0;
  let seconds = 0;
  for (const tile of chosen) {
    const geometries = tile.parts.map((part) => sunTiles[part.sun]);
    const masks = sectorMasks(layout, sunSectors(days, geometries, 15, layout.directions));
    const started = performance.now();
    sweptFarHorizons(terrain, tile, layout.directions, layout.nearSteps, out.far, scratch, { needed: masks.directions, simplifiedFromCells: from, compiled });
    seconds += (performance.now() - started) / 1000;
    const tileCells = (tile.rowEnd - tile.rowStart) * (tile.colEnd - tile.colStart);
    cells += tileCells;
    cellDirections += tileCells * masks.directions.reduce((a, b) => a + b, 0);
  }
  results.push({
    sweep: name,
    simplified_from_cells: from,
    seconds: Number(seconds.toFixed(3)),
    seconds_per_mcell: Number(((seconds / cells) * 1e6).toFixed(2)),
    ns_per_cell_direction: Number(((seconds / cellDirections) * 1e9).toFixed(1)),
  });
}
console.log(
  JSON.stringify(
    {
      benchmark: 'far-field sweep of a run on tiles from the middle of the DEM',
      dem: positionals[0],
      width: dem.grid.width,
      height: dem.grid.height,
      days,
      layout,
      tiles: chosen.length,
      tile_size: plan.tileSize,
      results,
    },
    null,
    2,
  ),
);
