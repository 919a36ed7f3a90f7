// `npm run bench -- --scale-out` (or `node bench/scale-out.bench.mjs` after `npm run build`): the distributed
// queue with one worker against two workers, each worker one part at a time with one thread, on the same `sol`
// job (the 912 × 844 DEM bench/data/mcn_2m5.tif, made by sol.bench.mjs; split into --parts tile slices and the
// part that assembles them).
// Starts its own redis-server (temp folder, free loopback port) and the built service (dist/server/main.js)
// with EEMT_REDIS_URL; the workers are `node dist/worker/main.js` processes on this machine (one host: on a
// 2-core machine two workers with one thread each use both cores). Prints one JSON report.
//
//   --dem PATH     another DEM (default bench/data/mcn_2m5.tif)
//   --step N       time step in minutes (default 15)
//   --parts N      tile slices of the job (EEMT_SPLIT_PARTS, default 4)
//   --products L   the job's `products` (e.g. daily:172,hours:172: only day 172 is computed, as `eemt sol --days 172`;
//                  default: every product, the full year)
//   --workers L    the worker counts to run, one run each (default 1,2)
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const { values: args } = parseArgs({
  options: {
    dem: { type: 'string' },
    step: { type: 'string', default: '15' },
    parts: { type: 'string', default: '4' },
    products: { type: 'string' },
    workers: { type: 'string', default: '1,2' },
  },
});
const demPath = args.dem ?? here('./data/mcn_2m5.tif');
if (!existsSync(demPath)) throw new Error(`${demPath} not found (npm run bench makes bench/data/mcn_2m5.tif on first use)`);
const JOB_TIMEOUT_MS = 4 * 3600_000;

/** Start and end [s since the epoch] of every part run in a job log (`<time> [part NAME on WORKER] started …` / `job process exited`). */
function partTimes(log) {
  const runs = [];
  const open = new Map();
  for (const m of log.matchAll(/^(\S+) \[part (\S+) on ([^\]]+)\] (started|job process exited)/gm)) {
    const time = Date.parse(m[1]) / 1000;
    if (m[4] === 'started') open.set(m[2], { part: m[2], worker: m[3], start: time });
    else if (open.has(m[2])) runs.push({ ...open.get(m[2]), end: time }), open.delete(m[2]);
  }
  return runs;
}

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A child process with its output kept; `until(re)` waits for a line matching `re`. */
function start(file, argv, env) {
  const child = spawn(file, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise((resolve) => child.on('close', resolve));
  return {
    child,
    output: () => output,
    async until(re, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const m = re.exec(output);
        if (m) return m;
        if (child.exitCode !== null) throw new Error(`${file} exited:\n${output}`);
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${re} from ${file}:\n${output}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

const root = mkdtempSync(join(tmpdir(), 'eemt-bench-scale-'));
const processes = [];
try {
  const redisPort = await freePort();
  const redis = start('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--dir', root, '--save', '', '--appendonly', 'yes', '--maxmemory-policy', 'noeviction'], process.env);
  processes.push(redis);
  await redis.until(/Ready to accept connections/);
  const redisUrl = `redis://127.0.0.1:${redisPort}/0`;
  const dataEnv = {
    ...process.env,
    EEMT_REDIS_URL: redisUrl,
    EEMT_UPLOAD_DIR: join(root, 'uploads'),
    EEMT_RESULTS_DIR: join(root, 'results'),
    EEMT_TEMP_DIR: join(root, 'temp'),
    EEMT_CACHE_DIR: join(root, 'cache'),
    EEMT_RUNTIME: 'process',
    CONTAINER_CPU_LIMIT: '1',
    CONTAINER_MEMORY_LIMIT: '4G',
  };
  const service = start(process.execPath, [here('../dist/server/main.js')], {
    ...dataEnv,
    EEMT_PORT: '0',
    EEMT_DB_PATH: join(root, 'jobs.db'),
    EEMT_AUTO_CLEANUP: 'false',
    EEMT_SPLIT_MIN_CELLS: '1',
    EEMT_SPLIT_PARTS: args.parts,
  });
  processes.push(service);
  const base = (await service.until(/Server listening at (http:\/\/[^"\s]+)/))[1];
  const dem = readFileSync(demPath);

  async function runWith(workerCount) {
    const workers = [];
    for (let i = 0; i < workerCount; i++) {
      const worker = start(process.execPath, [here('../dist/worker/main.js')], { ...dataEnv, EEMT_WORKER_CONCURRENCY: '1' });
      workers.push(worker);
      processes.push(worker);
      await worker.until(/worker \S+: process runtime/);
    }
    const form = new FormData();
    const fields = { workflow_type: 'sol', step: args.step, linke_value: '3', albedo_value: '0.2', num_threads: '1', ...(args.products ? { products: args.products } : {}) };
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append('dem_file', new Blob([dem]), 'dem.tif');
    const started = performance.now();
    const submitted = await (await fetch(`${base}/api/submit-job`, { method: 'POST', body: form })).json();
    if (!submitted.job_id) throw new Error(`submission refused: ${JSON.stringify(submitted)}`);
    let job;
    for (const deadline = Date.now() + JOB_TIMEOUT_MS; Date.now() < deadline; await new Promise((r) => setTimeout(r, 500))) {
      job = await (await fetch(`${base}/api/jobs/${submitted.job_id}`)).json();
      if (job.status === 'completed' || job.status === 'failed') break;
    }
    const seconds = (performance.now() - started) / 1000;
    if (job.status !== 'completed') throw new Error(`job ${job.status}: ${job.error_message}`);
    const log = readFileSync(join(root, 'results', submitted.job_id, 'job.log'), 'utf8');
    const hosts = new Set([...log.matchAll(/\[part \S+ on ([^\]]+)\] started/g)].map((m) => m[1]));
    for (const worker of workers) await worker.stop();
    const parts = partTimes(log);
    const assembly = parts.filter((p) => p.part.startsWith('assemble'));
    const span = (list) => (list.length === 0 ? 0 : Math.max(...list.map((p) => p.end)) - Math.min(...list.map((p) => p.start)));
    return {
      workers: workerCount,
      threads_per_worker: 1,
      seconds: Number(seconds.toFixed(1)),
      workers_used: hosts.size,
      // wall time from the first slice's start to the last slice's end, and of the assembly shares
      slices_seconds: Number(span(parts.filter((p) => p.part.startsWith('tiles'))).toFixed(1)),
      assembly_seconds: Number(span(assembly).toFixed(1)),
      parts: parts.map((p) => ({ part: p.part, worker: p.worker, seconds: Number((p.end - p.start).toFixed(1)) })),
    };
  }

  const runs = [];
  for (const count of args.workers.split(',').map(Number)) runs.push(await runWith(count));
  const one = runs.find((run) => run.workers === 1);
  const two = runs.find((run) => run.workers === 2);
  const report = {
    scale_out: {
      dem: demPath,
      size: JSON.parse(execFileSync('gdalinfo', ['-json', demPath], { encoding: 'utf8' })).size,
      step: Number(args.step),
      parts: Number(args.parts),
      products: args.products ?? 'all',
      machine: `${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'}); the workers run on this one host; the machine may be shared`,
      runs,
      speedup: one && two ? Number((one.seconds / two.seconds).toFixed(2)) : null,
    },
  };
  process.stdout.write(JSON.stringify(report, null, 2) + '\n');
} finally {
  for (const p of processes.reverse()) await p.stop();
  rmSync(root, { recursive: true, force: true });
}
