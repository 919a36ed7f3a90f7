#!/usr/bin/env node
// Times GRASS GIS r.sun (Debian grass-core) on a DEM for sampled days and extrapolates to the 365-day year, so
// that `npm run bench -- --rsun` can put the speed ratio of our `sol` beside it, measured in the same run.
//
//   node bench/rsun.mjs <dem.tif> [--days 1,80,172,264,355] [--nprocs 2] [--step 0.25]
//
// In a temporary GRASS location made from the DEM's own CRS: r.in.gdal, g.region, r.slope.aspect once (timed
// with the rest, as every r.sun workflow needs slope and aspect), then r.sun per sampled day with the settings
// of our defaults (step 0.25 h, Linke 3, albedo 0.2) writing the global irradiation and the sunshine hours,
// like our daily maps. The last stdout line is JSON:
//   {dem, days_timed, nprocs, step_hours, setup_seconds, seconds_per_day, estimated_year_seconds,
//    setup_cpu_seconds, cpu_seconds_per_day}
// where estimated_year_seconds = setup_seconds + 365 × seconds_per_day (the mean over the sampled days); the CPU
// seconds (user + system, from /usr/bin/time around each GRASS command) are less sensitive to other load.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    days: { type: 'string', default: '1,49,97,145,193,241,289,337' },
    nprocs: { type: 'string', default: '2' },
    step: { type: 'string', default: '0.25' },
  },
});
if (positionals.length !== 1) {
  console.error('usage: node bench/rsun.mjs <dem.tif> [--days 1,80,172] [--nprocs 2] [--step 0.25]');
  process.exit(2);
}
const dem = resolve(positionals[0]);
const days = args.days.split(',').map((d) => Number(d));
if (days.some((d) => !Number.isInteger(d) || d < 1 || d > 365)) throw new Error(`--days must list days 1–365, got ${args.days}`);

const work = mkdtempSync(join(tmpdir(), 'rsun-bench-'));
try {
  // One GRASS session runs a shell script that prints the elapsed seconds of each step.
  const script = join(work, 'run.sh');
  const lines = [
    'set -e',
    'now() { date +%s.%N; }',
    '# elapsed seconds between two `now` readings',
    't0=$(now)',
    `cpu() { /usr/bin/time -a -o ${JSON.stringify(join(work, 'cpu.txt'))} -f "$1 %U %S" "\${@:2}"; }`,
    `cpu setup r.in.gdal --quiet input=${JSON.stringify(dem)} output=dem`,
    'cpu setup g.region --quiet raster=dem',
    'cpu setup r.slope.aspect --quiet elevation=dem slope=slope aspect=aspect',
    `echo "setup $(awk -v a="$(now)" -v b="$t0" 'BEGIN{print a-b}')"`,
  ];
  for (const day of days) {
    lines.push(
      't=$(now)',
      `cpu day r.sun --quiet elevation=dem slope=slope aspect=aspect day=${day} step=${args.step} linke_value=3 albedo_value=0.2 ` +
        `nprocs=${args.nprocs} glob_rad=glob_${day} insol_time=hours_${day} --overwrite`,
      `echo "day ${day} $(awk -v a="$(now)" -v b="$t" 'BEGIN{print a-b}')"`,
    );
  }
  writeFileSync(script, `${lines.join('\n')}\n`, { mode: 0o755 });
  const result = spawnSync('grass', ['--tmp-location', dem, '--exec', 'bash', script], {
    encoding: 'utf8',
    env: { ...process.env, HOME: work, GRASS_MESSAGE_FORMAT: 'plain' },
    timeout: 3 * 3600 * 1000,
  });
  if (result.status !== 0) throw new Error(`grass failed (${result.status}): ${result.stderr.slice(-2000)}`);
  const setup = Number(/^setup ([\d.]+)$/m.exec(result.stdout)?.[1]);
  const perDay = [...result.stdout.matchAll(/^day (\d+) ([\d.]+)$/gm)].map((m) => Number(m[2]));
  if (!(setup >= 0) || perDay.length !== days.length) throw new Error(`unexpected grass output:\n${result.stdout}`);
  const secondsPerDay = perDay.reduce((a, b) => a + b, 0) / perDay.length;
  const cpu = { setup: 0, day: 0 };
  for (const [, what, user, system] of readFileSync(join(work, 'cpu.txt'), 'utf8').matchAll(/^(setup|day) ([\d.]+) ([\d.]+)$/gm)) cpu[what] += Number(user) + Number(system);
  console.log(
    JSON.stringify({
      dem,
      days_timed: days,
      nprocs: Number(args.nprocs),
      step_hours: Number(args.step),
      setup_seconds: Number(setup.toFixed(2)),
      seconds_per_day: Number(secondsPerDay.toFixed(3)),
      estimated_year_seconds: Number((setup + 365 * secondsPerDay).toFixed(1)),
      setup_cpu_seconds: Number(cpu.setup.toFixed(2)),
      cpu_seconds_per_day: Number((cpu.day / days.length).toFixed(3)),
    }),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
