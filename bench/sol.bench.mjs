// `npm run bench [-- options]`: the `sol` pipeline on a ladder of DEM sizes made from
// test/fixtures/mcn_10m.tif with `gdalwarp -r cubic` (into bench/data/, on first use), each case in its own
// process (bench/sol-case.mjs), step 15 min, Linke 3, albedo 0.2; plus the GeoTIFF encoding settings
// measured on real products (bench/encoding.mjs). Prints one JSON report.
//
//   --ladder quick   (default) mcn_10m full year (742 GeoTIFFs), 2.5 m (0.77 M cells) days 1 and 172, and
//                    1 m (4.8 M cells) January (63 GeoTIFFs of 15–20 MB: the products' COG assembly after the
//                    computing, `writing_after_compute_*`, is a fifth to a third of its wall time)
//   --ladder full    also 1 m (4.8 M cells) full year and 0.22 m (≈ 100 M cells) day 172 — long
//   --only a,b       only the named cases (mcn_10m, mcn_2m5, mcn_1m_jan, mcn_1m, mcn_0m22)
//   --rounds N       run each case N times (default 1), alternating with the baseline build when one is given
//                    (this build, baseline, this build, …: the two see the same load), reporting the median
//                    round and every round's wall, CPU and writing-after-compute seconds, and the seconds after
//                    the last tile's computing ended in its worker (`after_last_tile_seconds`: in a run kept in
//                    memory, such as mcn_10m's, the main thread writes the files as they complete and handles the
//                    last tile's report late, so `writing_after_compute_*` starts late and reads less)
//   --threads N      worker threads (default: the CPU count)
//   --baseline DIR   also run the quick cases with the build in DIR/dist (e.g. another checkout after
//                    `npm ci && npm run build`), side by side in the same run (not the big ones: today's main
//                    needs ~400–900 bytes per cell, ≈ 40 GB for the 0.22 m DEM)
//   --kernel         also the solar core's horizon and kernel benchmark (bench/kernel.bench.mjs, one thread, no
//                    writing; against the --baseline build when one is given)
//   --rsun           also time GRASS r.sun on mcn_10m (bench/rsun.mjs: sampled days, step 0.25 h,
//                    nprocs 2, extrapolated to the year) and report its time over ours
//   --scale-out      instead of the ladder: the distributed queue, one worker against two workers (one thread
//                    each) on the 2.5 m DEM (bench/scale-out.bench.mjs; --step and --parts are passed on)
//   --eemt-sensitivity  instead of the ladder: how each EEMT model choice moves EEMT-Trad and EEMT-Topo on
//                    mcn_10m with the upper-Jemez climatology (bench/eemt-sensitivity.mjs; --threads is passed on)
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const { values: args } = parseArgs({
  options: {
    ladder: { type: 'string', default: 'quick' },
    only: { type: 'string' },
    threads: { type: 'string' },
    baseline: { type: 'string' },
    rounds: { type: 'string', default: '1' },
    rsun: { type: 'boolean', default: false },
    kernel: { type: 'boolean', default: false },
    'scale-out': { type: 'boolean', default: false },
    'eemt-sensitivity': { type: 'boolean', default: false },
    step: { type: 'string' },
    parts: { type: 'string' },
  },
});
if (args.ladder !== 'quick' && args.ladder !== 'full') throw new Error(`--ladder must be quick or full, got ${args.ladder}`);
const threads = Number(args.threads ?? Math.min(availableParallelism(), 32));
const rounds = Number(args.rounds);
if (!Number.isInteger(rounds) || rounds < 1 || rounds > 20) throw new Error(`--rounds must be 1–20, got ${args.rounds}`);
const source = here('../test/fixtures/mcn_10m.tif');

/** The ladder: DEM, resolution, days ('all' = the full year with its 742 GeoTIFFs). */
const CASES = [
  { name: 'mcn_10m', resolution: 10, days: 'all', ladder: 'quick', baseline: true },
  { name: 'mcn_2m5', resolution: 2.5, days: '1,172', ladder: 'quick', baseline: true },
  { name: 'mcn_1m_jan', resolution: 1, dem: 'mcn_1m', days: '1-31', ladder: 'quick', baseline: true },
  { name: 'mcn_1m', resolution: 1, days: 'all', ladder: 'full', baseline: false },
  { name: 'mcn_0m22', resolution: 0.22, days: '172', ladder: 'full', baseline: false },
];
const only = args.only ? new Set(args.only.split(',')) : null;
const cases = CASES.filter((c) => (only ? only.has(c.name) : args.ladder === 'full' || c.ladder === 'quick'));

/** The DEM of a case: the fixture itself at 10 m, else made with gdalwarp on first use. */
function demFor(c) {
  if (c.resolution === 10) return source;
  const path = here(`./data/${c.dem ?? c.name}.tif`);
  if (!existsSync(path)) {
    mkdirSync(here('./data'), { recursive: true });
    const r = String(c.resolution);
    execFileSync('gdalwarp', ['-q', '-tr', r, r, '-r', 'cubic', '-co', 'TILED=YES', '-co', 'COMPRESS=DEFLATE', '-co', 'PREDICTOR=3', source, `${path}.part.tif`]);
    execFileSync('mv', [`${path}.part.tif`, path]);
  }
  return path;
}

if (args['eemt-sensitivity']) {
  // (run through tsx: it builds its climate with the test helpers, which are TypeScript)
  const passed = args.threads ? ['--threads', args.threads] : [];
  const run = spawnSync(process.execPath, ['--import', 'tsx', here('./eemt-sensitivity.mjs'), ...passed], { stdio: 'inherit' });
  process.exit(run.status ?? 1);
}

if (args['scale-out']) {
  const dem = demFor(CASES.find((c) => c.name === 'mcn_2m5'));
  const passed = [...(args.step ? ['--step', args.step] : []), ...(args.parts ? ['--parts', args.parts] : [])];
  const run = spawnSync(process.execPath, [here('./scale-out.bench.mjs'), '--dem', dem, ...passed], { stdio: 'inherit' });
  process.exit(run.status ?? 1);
}

/** Runs one case in its own process with the build at `root` (undefined = this checkout). */
function runCase(c, dem, root) {
  const out = here(`./out/${c.name}${root ? '-baseline' : ''}`);
  const started = performance.now();
  const child = spawnSync(process.execPath, [here('./sol-case.mjs'), dem, out, String(threads), c.days, ...(root ? [root] : [])], {
    encoding: 'utf8',
    maxBuffer: 64 * 2 ** 20,
  });
  const processSeconds = (performance.now() - started) / 1000;
  if (child.status !== 0) return { error: (child.stderr || `exit ${child.status}`).trim().split('\n').slice(-3).join(' | ') };
  return { ...JSON.parse(child.stdout.trim().split('\n').at(-1)), process_seconds: Number(processSeconds.toFixed(3)) };
}

const report = {
  benchmark: 'sol pipeline ladder (step 15 min, Linke 3, albedo 0.2)',
  machine: { cpus: cpus().length, model: cpus()[0]?.model ?? null, node: process.version },
  ladder: args.ladder,
  threads,
  rounds,
  cases: [],
};
/** The median of the rounds of a case (by wall time), with every round's main numbers. */
function medianRound(results) {
  const ok = results.filter((r) => !r.error);
  if (ok.length === 0) return results[0];
  const sorted = [...ok].sort((a, b) => a.wall_seconds - b.wall_seconds);
  const median = sorted[Math.floor((sorted.length - 1) / 2)];
  if (results.length === 1) return median;
  const pick = (key) => results.map((r) => r[key] ?? null);
  return { ...median, rounds: { wall_seconds: pick('wall_seconds'), cpu_seconds: pick('cpu_seconds'), writing_after_compute_seconds: pick('writing_after_compute_seconds'), writing_after_compute_cpu_seconds: pick('writing_after_compute_cpu_seconds'), after_last_tile_seconds: pick('after_last_tile_seconds') } };
}

for (const c of cases) {
  const dem = demFor(c);
  const withBaseline = Boolean(args.baseline && c.baseline);
  const ours = [];
  const theirs = [];
  for (let round = 0; round < rounds; round++) {
    ours.push(runCase(c, dem));
    if (withBaseline) theirs.push(runCase(c, dem, args.baseline));
  }
  const entry = { name: c.name, resolution_m: c.resolution, days_spec: c.days, ...medianRound(ours) };
  if (withBaseline) {
    const baseline = medianRound(theirs);
    entry.baseline = baseline;
    if (!baseline.error && !entry.error) {
      entry.speedup_vs_baseline = {
        wall: Number((baseline.wall_seconds / entry.wall_seconds).toFixed(2)),
        ...(baseline.cpu_seconds && entry.cpu_seconds ? { cpu: Number((baseline.cpu_seconds / entry.cpu_seconds).toFixed(3)) } : {}),
        ...(baseline.writing_after_compute_seconds && entry.writing_after_compute_seconds
          ? { writing_after_compute: Number((baseline.writing_after_compute_seconds / entry.writing_after_compute_seconds).toFixed(2)) }
          : {}),
        peak_rss: Number((baseline.peak_rss_mb / entry.peak_rss_mb).toFixed(2)),
      };
    }
  }
  report.cases.push(entry);
  process.stderr.write(`bench: ${c.name} done\n`);
}

const encoding = spawnSync(process.execPath, [here('./encoding.mjs')], { encoding: 'utf8' });
report.encoding = encoding.status === 0 ? JSON.parse(encoding.stdout.trim().split('\n').at(-1)) : { error: encoding.stderr.trim() };

if (args.kernel) {
  const kernel = spawnSync(process.execPath, [here('./kernel.bench.mjs'), ...(args.baseline ? ['--baseline', `${args.baseline}/dist`] : [])], {
    encoding: 'utf8',
    maxBuffer: 16 * 2 ** 20,
  });
  report.kernel = kernel.status === 0 ? JSON.parse(kernel.stdout) : { error: kernel.stderr.trim().split('\n').slice(-3).join(' | ') };
}

if (args.rsun) {
  const script = here('./rsun.mjs');
  if (!existsSync(script)) {
    report.rsun = { error: 'bench/rsun.mjs is missing' };
  } else {
    const rsun = spawnSync(process.execPath, [script, source], { encoding: 'utf8', maxBuffer: 16 * 2 ** 20 });
    if (rsun.status !== 0) {
      report.rsun = { error: rsun.stderr.trim().split('\n').slice(-3).join(' | ') };
    } else {
      report.rsun = JSON.parse(rsun.stdout.trim().split('\n').at(-1));
      const ours = report.cases.find((c) => c.name === 'mcn_10m' && !c.error);
      if (ours) {
        // our time: the whole case process (start, DEM read, 742 GeoTIFFs written), as the CLI would take
        report.rsun.ratio_rsun_over_sol = Number((report.rsun.estimated_year_seconds / ours.process_seconds).toFixed(1));
      }
    }
  }
}
console.log(JSON.stringify(report, null, 2));
