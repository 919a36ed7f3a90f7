// `npm run bench:horizons [-- options]`: a run of few days on a small DEM, this build against GRASS r.sun on the
// same days in the same run (and, with --baseline, against another built checkout), rounds interleaved so that
// the machine's other load falls on all of them alike. Prints one JSON report.
//
//   --dem PATH       the DEM (default test/fixtures/oracle/fine/north62_20m.tif: 270 × 270 cells of 20 m, 700 m of
//                    relief at 62° N; test/fixtures/README.md says how it was made)
//   --days LIST      days of year (default 30,80,330)
//   --threads N      worker threads of our runs (default 1)
//   --nprocs N       r.sun's nprocs (default 1: one thread, as ours)
//   --rounds N       rounds (default 3); medians are reported
//   --baseline DIR   also run the build in DIR/dist (e.g. another checkout after `npm ci && npm run build`)
//
// Ours: bench/sol-case.mjs (the whole process: start, DEM read, horizons, kernel, GeoTIFFs written; step 15 min,
// Linke 3, albedo 0.2), and the `eemt sol` command on the same days as a user runs it (command_seconds). r.sun:
// bench/rsun.mjs (r.in.gdal, r.slope.aspect, then r.sun per day with the same settings; its GRASS session's start
// is not counted), seconds = setup + the days' r.sun runs, wall and CPU.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const { values: args } = parseArgs({
  options: {
    dem: { type: 'string', default: here('../test/fixtures/oracle/fine/north62_20m.tif') },
    days: { type: 'string', default: '30,80,330' },
    threads: { type: 'string', default: '1' },
    nprocs: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '3' },
    baseline: { type: 'string' },
  },
});
const rounds = Number(args.rounds);
if (!Number.isInteger(rounds) || rounds < 1 || rounds > 20) throw new Error(`--rounds must be 1–20, got ${args.rounds}`);
const dayCount = args.days.split(',').length;

/** One run of the `sol` case with the build at `root` (undefined: this checkout). */
function sol(root) {
  const out = here(`./out/horizons${root ? '-baseline' : ''}`);
  const started = performance.now();
  const child = spawnSync(process.execPath, [here('./sol-case.mjs'), args.dem, out, args.threads, args.days, ...(root ? [root] : [])], { encoding: 'utf8' });
  const processSeconds = (performance.now() - started) / 1000;
  if (child.status !== 0) throw new Error(`sol-case failed: ${child.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  const result = JSON.parse(child.stdout.trim().split('\n').at(-1));
  return { ...result, process_seconds: processSeconds };
}

/** Seconds of one `eemt sol` command of the build at `root` (undefined: this checkout) on the same days: what a user waits. */
function command(root) {
  const out = here(`./out/horizons-command${root ? '-baseline' : ''}`);
  const bin = root ? `${root}/bin/eemt.js` : here('../bin/eemt.js');
  rmSync(out, { recursive: true, force: true });
  const started = performance.now();
  // run as a program, as a user runs `eemt` (its launcher drops NODE_EXTRA_CA_CERTS for `sol`: bin/eemt.js)
  const child = spawnSync(bin, ['sol', args.dem, '--days', args.days, '--threads', args.threads, '-o', out], { encoding: 'utf8' });
  const seconds = (performance.now() - started) / 1000;
  if (child.status !== 0) throw new Error(`eemt sol failed: ${child.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  rmSync(out, { recursive: true, force: true });
  return seconds;
}

/** One r.sun run of the same days: its seconds (setup + every day). */
function rsun() {
  const child = spawnSync(process.execPath, [here('./rsun.mjs'), args.dem, '--days', args.days, '--nprocs', args.nprocs], { encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`r.sun failed: ${child.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  const result = JSON.parse(child.stdout.trim().split('\n').at(-1));
  return {
    setup_seconds: result.setup_seconds,
    seconds_per_day: result.seconds_per_day,
    seconds: result.setup_seconds + dayCount * result.seconds_per_day,
    cpu_seconds: result.setup_cpu_seconds + dayCount * result.cpu_seconds_per_day,
  };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const round3 = (x) => (x === null || x === undefined ? null : Number(x.toFixed(3)));
/** Medians of the numeric fields of a variant's runs. */
function summary(runs) {
  const keys = ['process_seconds', 'wall_seconds', 'read_seconds', 'horizon_seconds', 'kernel_seconds', 'cpu_seconds', 'peak_rss_mb'];
  return Object.fromEntries([...keys.map((k) => [k, round3(median(runs.map((r) => r[k])))]), ['rounds', runs.map((r) => round3(r.process_seconds))]]);
}

const ours = [];
const baseline = [];
const commands = [];
const baselineCommands = [];
const rsuns = [];
for (let r = 0; r < rounds; r++) {
  ours.push(sol());
  commands.push(command());
  if (args.baseline) {
    baseline.push(sol(args.baseline));
    baselineCommands.push(command(args.baseline));
  }
  rsuns.push(rsun());
  process.stderr.write(`bench:horizons round ${r + 1}/${rounds} done\n`);
}

const rsunSeconds = median(rsuns.map((r) => r.seconds));
const rsunCpuSeconds = median(rsuns.map((r) => r.cpu_seconds));
const report = {
  benchmark: 'few-day run against r.sun on the same days (step 15 min, Linke 3, albedo 0.2)',
  machine: { cpus: cpus().length, model: cpus()[0]?.model ?? null, node: process.version },
  dem: args.dem,
  cells: ours[0].cells,
  days: args.days.split(',').map(Number),
  threads: Number(args.threads),
  rounds,
  sol: summary(ours),
  // the `eemt sol` command (bin/eemt.js: its freshness check, the bundled command, the same pipeline), whole process
  command_seconds: round3(median(commands)),
  // set, Node 20 parses its certificate store at start-up (about 70 ms) unless the launcher drops it
  node_extra_ca_certs: process.env.NODE_EXTRA_CA_CERTS !== undefined,
  ...(args.baseline ? { baseline: { root: args.baseline, ...summary(baseline), command_seconds: round3(median(baselineCommands)) } } : {}),
  rsun: {
    nprocs: Number(args.nprocs),
    seconds: round3(rsunSeconds),
    setup_seconds: round3(median(rsuns.map((r) => r.setup_seconds))),
    seconds_per_day: round3(median(rsuns.map((r) => r.seconds_per_day))),
    cpu_seconds: round3(rsunCpuSeconds),
    rounds: rsuns.map((r) => round3(r.seconds)),
  },
  // r.sun's seconds over our whole process's (medians); CPU seconds likewise (less sensitive to other load)
  ratio_rsun_over_sol: Number((rsunSeconds / median(ours.map((r) => r.process_seconds))).toFixed(2)),
  ratio_rsun_over_sol_cpu: Number((rsunCpuSeconds / median(ours.map((r) => r.cpu_seconds))).toFixed(2)),
  ratio_rsun_over_command: Number((rsunSeconds / median(commands)).toFixed(2)),
  ...(args.baseline
    ? {
        ratio_rsun_over_baseline: Number((rsunSeconds / median(baseline.map((r) => r.process_seconds))).toFixed(2)),
        ratio_rsun_over_baseline_cpu: Number((rsunCpuSeconds / median(baseline.map((r) => r.cpu_seconds))).toFixed(2)),
        ratio_rsun_over_baseline_command: Number((rsunSeconds / median(baselineCommands)).toFixed(2)),
        speedup_vs_baseline: {
          command: Number((median(baselineCommands) / median(commands)).toFixed(2)),
          process: Number((median(baseline.map((r) => r.process_seconds)) / median(ours.map((r) => r.process_seconds))).toFixed(2)),
          horizons: Number((median(baseline.map((r) => r.horizon_seconds)) / median(ours.map((r) => r.horizon_seconds))).toFixed(2)),
          cpu: Number((median(baseline.map((r) => r.cpu_seconds)) / median(ours.map((r) => r.cpu_seconds))).toFixed(2)),
        },
      }
    : {}),
};
console.log(JSON.stringify(report, null, 2));
