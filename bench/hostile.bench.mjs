// `npm run bench:hostile`: the service's memory (RSS) and /health latency while it is attacked, as JSON.
//
//   node bench/hostile.bench.mjs [--service <path to dist/server/main.js>] [--slow-seconds 45] [--flood-seconds 20]
//
// Phases, each against a fresh service process (process runtime, data in a temp folder, port chosen here):
//  - idle: /health polled every 100 ms;
//  - slow uploads: 100 connections each send a multipart upload 10 bytes every 5 s (the attack), while
//    /health is polled; reports how many uploads are still open and how many upload files exist at the end;
//  - malformed flood: 8 clients send broken multipart bodies, non-decimal query numbers and wrongly typed cleanup
//    bodies back to back, while /health is polled; reports the answers by status.
// `--service` runs another build (e.g. an older one for a side-by-side comparison).
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { freePort, serviceEnvironment, sleep, waitForHealth } from './benchService.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const servicePath = option('--service', fileURLToPath(new URL('../dist/server/main.js', import.meta.url)));
const slowSeconds = Number(option('--slow-seconds', '45'));
const floodSeconds = Number(option('--flood-seconds', '20'));


async function startService() {
  const port = await freePort();
  const { root, env } = serviceEnvironment('eemt-bench-', port);
  const child = spawn(process.execPath, [servicePath], { env, stdio: ['ignore', 'ignore', 'pipe'], cwd: root });
  let errors = '';
  child.stderr.on('data', (d) => (errors += d));
  const base = `http://127.0.0.1:${port}`;
  await waitForHealth(base, () => errors, 200);
  return {
    base,
    port,
    uploads: () => readdirSync(env.EEMT_UPLOAD_DIR).length,
    rssMb: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) / 1024,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Polls /health every 100 ms until `done()`; latencies in ms, peak RSS in MB. */
async function monitor(service, done) {
  const latencies = [];
  let failures = 0;
  let peakRss = 0;
  while (!done()) {
    const started = performance.now();
    try {
      const res = await fetch(`${service.base}/health`, { signal: AbortSignal.timeout(10_000) });
      await res.arrayBuffer();
      if (res.ok) latencies.push(performance.now() - started);
      else failures++;
    } catch {
      failures++;
    }
    peakRss = Math.max(peakRss, service.rssMb());
    await sleep(100);
  }
  latencies.sort((a, b) => a - b);
  const at = (q) => (latencies.length ? Number(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))].toFixed(1)) : null);
  return { health_requests: latencies.length + failures, health_failures: failures, health_ms_p50: at(0.5), health_ms_p95: at(0.95), health_ms_max: at(1), peak_rss_mb: Number(peakRss.toFixed(1)) };
}

async function idle(service) {
  const until = Date.now() + 5000;
  return { phase: 'idle', seconds: 5, ...(await monitor(service, () => Date.now() > until)) };
}

async function slowUploads(service) {
  const head =
    'POST /api/submit-job HTTP/1.1\r\nHost: bench\r\nContent-Type: multipart/form-data; boundary=XX\r\nContent-Length: 10000000\r\n\r\n' +
    '--XX\r\nContent-Disposition: form-data; name="dem_file"; filename="a.tif"\r\n\r\n';
  const sockets = Array.from({ length: 100 }, () => {
    const socket = connect(service.port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write(head);
    return socket;
  });
  const drip = setInterval(() => sockets.forEach((s) => !s.destroyed && s.write('0123456789')), 5000);
  const until = Date.now() + slowSeconds * 1000;
  const health = await monitor(service, () => Date.now() > until);
  clearInterval(drip);
  const open = sockets.filter((s) => !s.destroyed).length;
  const files = service.uploads();
  sockets.forEach((s) => s.destroy());
  return { phase: 'slow uploads', connections: 100, seconds: slowSeconds, still_open_at_end: open, upload_files_at_end: files, ...health };
}

const FLOOD = [
  ['POST', '/api/submit-job', 'multipart/form-data; boundary=XX', '--XX\r\n'],
  ['POST', '/api/submit-job', 'multipart/form-data', '--XX\r\nContent-Disposition: form-data; name="workflow_type"\r\n\r\nsol\r\n--XX--\r\n'],
  ['POST', '/api/submit-job', 'MULTIPART/FORM-DATA', '--XX\r\n'],
  ['POST', '/api/submit-job', 'multipart/form-data; boundary=XX', '--XX\r\nContent-Disposition: form-data; name="workflow_type"\r\n\r\nsol\r\n'],
  ['POST', '/api/submit-job', 'multipart/form-data; boundary=', 'x'.repeat(100_000)],
  ['GET', '/api/jobs?limit=Infinity'],
  ['GET', '/api/jobs?limit=1e999'],
  ['GET', `/api/jobs?limit=${'9'.repeat(309)}`],
  ['GET', '/api/jobs?limit=0x10'],
  ['POST', '/api/cleanup', 'application/json', '{"dry_run": null, "failed_retention_hours": false}'],
  ['POST', '/api/cleanup', 'application/json', '{"success_retention_days": null}'],
];

async function flood(service) {
  const statuses = {};
  const until = Date.now() + floodSeconds * 1000;
  let i = 0;
  const worker = async () => {
    while (Date.now() < until) {
      const [method, path, type, body] = FLOOD[i++ % FLOOD.length];
      try {
        const res = await fetch(`${service.base}${path}`, { method, ...(type ? { headers: { 'content-type': type }, body } : {}) });
        await res.arrayBuffer();
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      } catch {
        statuses.closed = (statuses.closed ?? 0) + 1;
      }
    }
  };
  const [health] = await Promise.all([monitor(service, () => Date.now() > until), ...Array.from({ length: 8 }, worker)]);
  return { phase: 'malformed flood', clients: 8, seconds: floodSeconds, answers: statuses, ...health };
}

const results = [];
for (const phase of [idle, slowUploads, flood]) {
  const service = await startService();
  try {
    results.push(await phase(service));
  } finally {
    await service.stop();
  }
}
console.log(JSON.stringify({ benchmark: 'service under attack', service: servicePath, node: process.version, results }, null, 2));
