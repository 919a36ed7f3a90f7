// `node bench/tile-size.bench.mjs <dem.tif> [--days 172,355] [--sizes 192,256,384] [--window 768] [--row 0] [--col 0]`:
// the engine's cost per cell by compute tile side, on one window of a DEM (each size's tiles that lie inside it):
// surface terms and horizons (`prepare`) and the daily kernel (`integrateDays`) per tile, one thread, no
// writing. Prints one JSON line per size: its layout, tiles, seconds per million cells of each, resident MB. The
// window's corner should be a multiple of every size, so each size covers the same cells.
// Run `npm run build` first.
import { parseArgs } from 'node:util';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    days: { type: 'string', default: '172' },
    sizes: { type: 'string', default: '192,256,384' },
    window: { type: 'string', default: '768' },
    row: { type: 'string', default: '0' },
    col: { type: 'string', default: '0' },
  },
});
if (positionals.length !== 1) throw new Error('usage: tile-size.bench.mjs <dem.tif> [options]');
const dist = (path) => new URL(`../dist/${path}`, import.meta.url).href;
const { readDem } = await import(dist('raster/geotiff/readGeoTiff.js'));
const { planSolarYear } = await import(dist('workflows/solarYear/plan.js'));
const { TileEngine } = await import(dist('workflows/solarYear/tileEngine.js'));
const { KERNEL_DAY_BATCH } = await import(dist('science/solar/dailyKernel.js'));

const days = args.days.split(',').map(Number);
if (days.some((day) => !Number.isInteger(day))) throw new Error(`--days is a comma-separated list of days of the year, got ${args.days}`);
const [window, row0, col0] = [args.window, args.row, args.col].map(Number);
const dem = await readDem(positionals[0], { precision: 'float32', shared: true });
for (const tileSize of args.sizes.split(',').map(Number)) {
  const { setup } = planSolarYear(dem, { outDir: '/nonexistent', params: { stepMinutes: 15, linkeTurbidity: 3, albedo: 0.2 }, threads: 1, days, tileSize });
  const inside = setup.tiles.filter((t) => t.rowStart >= row0 && t.rowEnd <= row0 + window && t.colStart >= col0 && t.colEnd <= col0 + window);
  const engine = new TileEngine(setup.terrain, setup.layout, setup.params, setup.sunTiles, setup.days, 'wasm', false, setup.nearField);
  let prepareMs = 0;
  let kernelMs = 0;
  let cells = 0;
  for (const tile of inside) {
    const tileCells = (tile.colEnd - tile.colStart) * (tile.rowEnd - tile.rowStart);
    cells += tileCells;
    let started = performance.now();
    engine.prepare(tile);
    prepareMs += performance.now() - started;
    const outs = setup.days.map(() => ({ global: new Float32Array(tileCells), hours: new Float32Array(tileCells), flat: null }));
    started = performance.now();
    for (let i = 0; i < setup.days.length; i += KERNEL_DAY_BATCH) engine.integrateDays(setup.days.slice(i, i + KERNEL_DAY_BATCH), outs.slice(i, i + KERNEL_DAY_BATCH));
    kernelMs += performance.now() - started;
  }
  if (cells === 0) throw new Error(`no tile of ${tileSize} lies inside the window`);
  console.log(
    JSON.stringify({
      tile_size: tileSize,
      layout: setup.layout,
      near_field: setup.nearField,
      tiles: inside.length,
      mcells: cells / 1e6,
      horizon_seconds_per_mcell: +((prepareMs / cells) * 1e3).toFixed(2),
      kernel_seconds_per_mcell: +((kernelMs / cells) * 1e3).toFixed(2),
      rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20),
    }),
  );
}
