// `node bench/year-slice.bench.mjs <dem.tif> [--slices 16] [--slice 0] [--products monthly] [--threads 2]` (after
// `npm run build`): one tile slice of a `sol` run of every day of the year on a DEM too large to run whole in a
// benchmark (the 0.22 m DEM, 99.4 M cells, takes hours): the slice's tiles, with the whole run's plan (its horizon
// layout and tiles), computed as a job split into slices computes them (`computeSolarYear` with `slice`; the
// slice's tiles stay in its folder, which is removed). Prints JSON: the DEM read, the slice's wall, CPU and phase
// seconds, peak RSS, and the whole run projected as the DEM read plus --slices times the slice (each slice of
// `dealLargestFirst` holds about as many valid cells; the assembly of the products after the slices is not in it).
// The 0.22 m DEM is made by `npm run bench -- --ladder full` (bench/data/mcn_0m22.tif).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    slices: { type: 'string', default: '16' },
    slice: { type: 'string', default: '0' },
    products: { type: 'string', default: 'monthly' },
    threads: { type: 'string', default: '2' },
  },
});
if (positionals.length !== 1) throw new Error('usage: year-slice.bench.mjs <dem.tif> [--slices N] [--slice i] [--products L] [--threads N]');
const count = Number(args.slices);
const index = Number(args.slice);
if (!Number.isInteger(count) || count < 1 || !Number.isInteger(index) || index < 0 || index >= count) throw new Error('--slice must be 0 … --slices − 1');
const dist = (path) => new URL(`../dist/${path}`, import.meta.url).href;
const { readDem } = await import(dist('raster/geotiff/readGeoTiff.js'));
const { computeSolarYear } = await import(dist('workflows/solarYear/index.js'));
const { parseProductSelection } = await import(dist('workflows/solarYear/productSelection.js'));

const started = performance.now();
const dem = await readDem(positionals[0], { precision: 'float32', shared: true });
const readSeconds = (performance.now() - started) / 1000;
const out = mkdtempSync(join(tmpdir(), 'year-slice-'));
try {
  const sliceStarted = performance.now();
  const cpu = process.cpuUsage();
  const result = await computeSolarYear(dem, {
    outDir: out,
    params: { stepMinutes: 15, linkeTurbidity: 3, albedo: 0.2 },
    threads: Number(args.threads),
    // (no `days`: every day of the year)
    products: parseProductSelection(args.products),
    slice: { index, count },
  });
  const used = process.cpuUsage(cpu);
  const sliceSeconds = (performance.now() - sliceStarted) / 1000;
  const { phases } = result;
  console.log(
    JSON.stringify(
      {
        benchmark: 'one tile slice of a full-year sol run',
        dem: positionals[0],
        cells: dem.grid.width * dem.grid.height,
        slice: `${index + 1} of ${count}`,
        products: args.products,
        threads: result.threads,
        horizon_directions: result.directions,
        tile_size: result.tileSize,
        read_seconds: Number(readSeconds.toFixed(1)),
        slice_valid_cells: result.validCells,
        slice_wall_seconds: Number(sliceSeconds.toFixed(1)),
        slice_cpu_seconds: Number(((used.user + used.system) / 1e6).toFixed(1)),
        horizon_seconds: Number(phases.horizonSeconds.toFixed(1)),
        horizon_seconds_per_mcell: Number(((phases.horizonSeconds / result.validCells) * 1e6).toFixed(1)),
        kernel_seconds: Number(phases.kernelSeconds.toFixed(1)),
        kernel_cell_days_per_thread_second: Math.round((result.validCells * result.days) / phases.kernelSeconds),
        peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
        projected_run_minutes: Number(((readSeconds + count * sliceSeconds) / 60).toFixed(1)),
      },
      null,
      2,
    ),
  );
} finally {
  rmSync(out, { recursive: true, force: true });
}
