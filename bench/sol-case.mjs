// One benchmark case, run in its own process so that peak RSS belongs to it alone:
//   node bench/sol-case.mjs <dem.tif> <outDir> <threads> <days|all> [build root, default: this checkout]
// Reads the DEM and runs the `sol` pipeline of the build in <root>/dist (step 15 min, Linke 3, albedo 0.2),
// then prints one JSON line. `npm run bench` builds dist/ first; a baseline is any other built checkout.
import { rmSync } from 'node:fs';
import { resourceUsage } from 'node:process';
import { pathToFileURL } from 'node:url';

const [demPath, outDir, threadsArg, daysArg, root] = process.argv.slice(2);
const dist = (path) => (root ? pathToFileURL(`${root}/dist/${path}`).href : new URL(`../dist/${path}`, import.meta.url).href);
const { readDem } = await import(dist('raster/geotiff/readGeoTiff.js'));
const { computeSolarYear } = await import(dist('workflows/solarYear/index.js'));
const threads = Number(threadsArg);
const days = daysArg === 'all' ? undefined : daysArg.split(',').map(Number);

rmSync(outDir, { recursive: true, force: true });
const started = performance.now();
const dem = await readDem(demPath, { precision: 'float32', shared: true });
const read = performance.now();
const result = await computeSolarYear(dem, { outDir, params: { stepMinutes: 15, linkeTurbidity: 3, albedo: 0.2 }, threads, ...(days ? { days } : {}) });
const seconds = (performance.now() - started) / 1000;
const dayCount = days ? days.length : 365;
const cellDays = result.validCells * dayCount;
const phases = result.phases ?? null;
const round = (x, digits = 3) => (x === null || x === undefined ? null : Number(x.toFixed(digits)));
const usedThreads = result.threads ?? threads;
console.log(
  JSON.stringify({
    cells: dem.grid.width * dem.grid.height,
    valid_cells: result.validCells,
    days: dayCount,
    geotiffs_written: result.files.length,
    threads: usedThreads,
    tile_size: result.tileSize ?? null,
    read_seconds: round((read - started) / 1000),
    wall_seconds: round(seconds),
    cell_days_per_second: Math.round(cellDays / seconds),
    // thread-seconds of each phase (summed over the worker threads)
    horizon_seconds: round(phases?.horizonSeconds),
    horizon_seconds_per_mcell: phases ? round(phases.horizonSeconds / (result.validCells / 1e6)) : null,
    kernel_seconds: round(phases?.kernelSeconds),
    // cell-days per second of kernel time on all threads together
    kernel_cell_days_per_second: phases ? Math.round((cellDays / phases.kernelSeconds) * usedThreads) : null,
    encode_seconds: round(phases?.encodeSeconds),
    encode_mb_per_second: phases ? round(phases.encodedRawBytes / 1e6 / phases.encodeSeconds, 1) : null,
    write_seconds: round(phases?.writeSeconds),
    written_mb: phases ? round(phases.writtenBytes / 1e6, 1) : null,
    // CPU seconds of the whole process (all threads): less sensitive than wall time to other load on the machine
    cpu_seconds: round((resourceUsage().userCPUTime + resourceUsage().systemCPUTime) / 1e6),
    peak_rss_mb: Math.round(resourceUsage().maxRSS / 1024),
  }),
);
rmSync(outDir, { recursive: true, force: true });
