// One benchmark case, run in its own process so peak RSS belongs to it alone:
//   node bench/sol-case.mjs <dem.tif> <outDir> <threads>
// Prints one JSON line. Uses the compiled pipeline in dist/ (run `npm run build` first; `npm run bench` does).
import { rmSync } from 'node:fs';
import { resourceUsage } from 'node:process';

const [demPath, outDir, threads] = process.argv.slice(2);
const { runSolWorkflow } = await import('../dist/workflows/sol/index.js');
rmSync(outDir, { recursive: true, force: true });
const started = performance.now();
const result = await runSolWorkflow({
  demPath,
  outDir,
  params: { step: 15, linke_value: 3, albedo_value: 0.2, num_threads: Number(threads) },
});
const seconds = (performance.now() - started) / 1000;
const cellDays = result.validCells * result.days;
console.log(
  JSON.stringify({
    dem: demPath,
    cells: result.cells,
    valid_cells: result.validCells,
    geotiffs_written: result.files.length,
    threads: Number(threads),
    wall_seconds: Number(seconds.toFixed(3)),
    cell_days_per_second: Math.round(cellDays / seconds),
    peak_rss_mb: Math.round(resourceUsage().maxRSS / 1024),
  }),
);
