// DEM reading benchmark: seconds to read a DEM as the sol pipeline reads it (`readDem`, float32 on a shared buffer),
// this build against another, rounds alternating, each read in a fresh process (no warm code or file cache of one
// build's run helping the other's; the file is read once first, untimed, into the page cache). Prints JSON.
//
//   node bench/dem-read.bench.mjs --dem file.tif [--dem other.tif] [--rounds 3] [--baseline <dist dir>] [--precision float64]
//
// Run `npm run build` first (this build is read from dist/). The baseline is another checkout's dist/ (built).
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    dem: { type: 'string', multiple: true },
    rounds: { type: 'string', default: '3' },
    baseline: { type: 'string' },
    precision: { type: 'string', default: 'float32' },
    // (one timed read, run in a child process by the parent)
    child: { type: 'string' },
  },
});

if (args.child) {
  const [dist, dem] = JSON.parse(args.child);
  const { readDem } = await import(pathToFileURL(join(dist, 'raster/geotiff/readGeoTiff.js')).href);
  const t0 = performance.now();
  const read = await readDem(dem, { precision: args.precision, shared: true });
  const seconds = (performance.now() - t0) / 1000;
  console.log(JSON.stringify({ seconds, cells: read.grid.width * read.grid.height, validCells: read.validCount }));
  process.exit(0);
}

if (!args.dem?.length) throw new Error('usage: dem-read.bench.mjs --dem file.tif [--rounds 3] [--baseline <dist dir>]');
const builds = [{ name: 'this build', dist: join(repo, 'dist') }, ...(args.baseline ? [{ name: 'baseline', dist: resolve(args.baseline) }] : [])];
const rounds = Number(args.rounds);

function timedRead(dist, dem) {
  const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', JSON.stringify([dist, dem]), '--precision', args.precision], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').at(-1));
}

/** Reads the whole file once (into the page cache), a MiB at a time. */
function warmPageCache(path) {
  const fd = openSync(path, 'r');
  const buffer = Buffer.alloc(2 ** 20);
  while (readSync(fd, buffer, 0, buffer.length, null) > 0);
  closeSync(fd);
}

const results = [];
for (const demPath of args.dem.map((path) => resolve(path))) {
  warmPageCache(demPath);
  const seconds = Object.fromEntries(builds.map((b) => [b.name, []]));
  let cells = 0;
  for (let round = 0; round < rounds; round++) {
    for (const build of round % 2 === 0 ? builds : [...builds].reverse()) {
      const read = timedRead(build.dist, demPath);
      seconds[build.name].push(Number(read.seconds.toFixed(3)));
      cells = read.cells;
    }
  }
  const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
  results.push({
    dem: demPath,
    cells,
    precision: args.precision,
    seconds_per_round: seconds,
    median_seconds: Object.fromEntries(builds.map((b) => [b.name, median(seconds[b.name])])),
    ...(builds.length > 1 ? { speedup_over_baseline: Number((median(seconds.baseline) / median(seconds['this build'])).toFixed(2)) } : {}),
  });
}
console.log(JSON.stringify({ benchmark: 'dem-read', rounds, results }, null, 2));
