// One benchmark case, run in its own process so that peak RSS belongs to it alone:
//   node bench/sol-case.mjs <dem.tif> <outDir> <threads> <days|all> [build root, default: this checkout]
// Starts the worker threads ahead, reads the DEM and runs the `sol` pipeline of the build in <root>/dist (step 15 min,
// Linke 3, albedo 0.2), as the `eemt` command does, then prints one JSON line. `npm run bench` builds dist/ first; a
// baseline is any other built checkout.
// <days> is `all` or a list of days and ranges (`1,172`, `1-31`).
// The run's end, writing the products after the last tile was computed (the COG assembly of every file), is
// timed from the last progress report of the computing (any build reports it), with the CPU time and the
// bytes read and written (/proc/self/io) from then on.
import { readFileSync, rmSync } from 'node:fs';
import { resourceUsage } from 'node:process';
import { pathToFileURL } from 'node:url';

const [demPath, outDir, threadsArg, daysArg, root] = process.argv.slice(2);
const dist = (path) => (root ? pathToFileURL(`${root}/dist/${path}`).href : new URL(`../dist/${path}`, import.meta.url).href);
const threads = Number(threadsArg);
// as the `eemt` command does: the worker threads start before the DEM is read and the run planned
const { prestartSolWorkers } = await import(dist('workflows/solarYear/workerPool.js'));
prestartSolWorkers(threads);
const { readDem } = await import(dist('raster/geotiff/readGeoTiff.js'));
const { computeSolarYear } = await import(dist('workflows/solarYear/index.js'));
const days = daysArg === 'all' ? undefined : daysArg.split(',').flatMap(dayRange);

/** `a-b` → the days a…b; `a` → [a]. */
function dayRange(spec) {
  const [first, last = first] = spec.split('-').map(Number);
  return Array.from({ length: last - first + 1 }, (_, k) => first + k);
}

/** Bytes this process read and wrote: through system calls (rchar, wchar) and from/to the disk (read_bytes, write_bytes). */
function processIo() {
  try {
    return Object.fromEntries(
      readFileSync('/proc/self/io', 'utf8')
        .trim()
        .split('\n')
        .map((line) => line.split(': '))
        .map(([key, value]) => [key, Number(value)]),
    );
  } catch {
    return null;
  }
}

const cpuSeconds = () => {
  const usage = resourceUsage();
  return (usage.userCPUTime + usage.systemCPUTime) / 1e6;
};
/**
 * When the computing ended: the time of its last progress report, with the CPU time and I/O read at most
 * SNAPSHOT_MS before it. (A run reports thousands of times, once per tile and day; reading the CPU time and
 * /proc/self/io at each report cost the main thread about 0.3 s of CPU in mcn_10m's year, taken from the workers
 * on a 2-core machine.)
 */
const SNAPSHOT_MS = 25;
let computeEnd = null;
let snapshot = null;
const onProgress = ({ message }) => {
  if (message.startsWith('writing')) return;
  const at = performance.now();
  if (!snapshot || at - snapshot.at >= SNAPSHOT_MS) snapshot = { at, cpu: cpuSeconds(), io: processIo() };
  computeEnd = { ...snapshot, at };
};

rmSync(outDir, { recursive: true, force: true });
const started = performance.now();
const dem = await readDem(demPath, { precision: 'float32', shared: true });
const read = performance.now();
const result = await computeSolarYear(dem, { outDir, params: { stepMinutes: 15, linkeTurbidity: 3, albedo: 0.2 }, threads, onProgress, ...(days ? { days } : {}) });
const ended = performance.now();
const endCpu = cpuSeconds();
const endIo = processIo();
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
    // after the last tile was computed in its worker: the files' completion that did not overlap the computing (wall)
    after_last_tile_seconds: round(phases?.afterComputeSeconds),
    after_last_tile_share: phases?.afterComputeSeconds !== undefined ? round(phases.afterComputeSeconds / seconds) : null,
    // after the main thread handled the last tile's last progress report: the products' COG assembly (wall, CPU and
    // I/O of the process; a main thread busy writing files as they complete handles that report late)
    writing_after_compute_seconds: computeEnd ? round((ended - computeEnd.at) / 1000) : null,
    writing_after_compute_share: computeEnd ? round((ended - computeEnd.at) / 1000 / seconds) : null,
    writing_after_compute_cpu_seconds: computeEnd ? round(endCpu - computeEnd.cpu) : null,
    ...(computeEnd?.io && endIo
      ? {
          writing_after_compute_mb: {
            read_syscalls: round((endIo.rchar - computeEnd.io.rchar) / 1e6, 1),
            written_syscalls: round((endIo.wchar - computeEnd.io.wchar) / 1e6, 1),
            read_disk: round((endIo.read_bytes - computeEnd.io.read_bytes) / 1e6, 1),
            written_disk: round((endIo.write_bytes - computeEnd.io.write_bytes) / 1e6, 1),
          },
          io_mb: { read_syscalls: round(endIo.rchar / 1e6, 1), written_syscalls: round(endIo.wchar / 1e6, 1), read_disk: round(endIo.read_bytes / 1e6, 1), written_disk: round(endIo.write_bytes / 1e6, 1) },
        }
      : {}),
    // CPU seconds of the whole process (all threads): less sensitive than wall time to other load on the machine
    cpu_seconds: round((resourceUsage().userCPUTime + resourceUsage().systemCPUTime) / 1e6),
    peak_rss_mb: Math.round(resourceUsage().maxRSS / 1024),
  }),
);
rmSync(outDir, { recursive: true, force: true });
