// `npm run bench:json`: what one large JSON request does to the service, as JSON: the event loop's longest block
// (perf_hooks monitorEventLoopDelay inside the service, through bench/loopDelayProbe.mjs), the slowest /health
// answer (polled every 100 ms) and the growth of the service's RSS while the body is sent, and the answer.
//
//   node bench/jsonBodies.bench.mjs [--service <path to dist/server/main.js>] [--timeout-seconds 60] [--phases a,b,c]
//
// Phases, each against a fresh service process (process runtime, data in a temp folder), all POST
// /ogc/processes/sol/execution with EEMT_OGC_MAX_INLINE_MB=100 (the default):
//  - keys-34MB: {"inputs":{"k000000000":0, … 2.2 M keys …, "dem":"AAAA"}} (33 MB);
//  - keys-135MB: the same with 9 M keys (135 MB, under the route's body limit);
//  - dem-100MB: an honest inline DEM: test/fixtures/mcn_10m.tif padded with zeros to 100 MiB − 1 KiB, as one
//    134 MB base64 string in inputs.dem.value (the job it creates is dismissed at once).
// Each phase starts with a warm-up (a small refused many-key body and a small refused inline DEM), then takes the
// RSS baseline. Bodies are generated while they are sent, so the bench itself stays light. A service that has not answered
// after --timeout-seconds is killed (its loop figures are then lower bounds: the loop was still blocked).
// `--service` runs another build (e.g. an older one for a side-by-side comparison).
import { fork } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { freePort, serviceEnvironment, sleep, waitForHealth } from './benchService.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const servicePath = option('--service', fileURLToPath(new URL('../dist/server/main.js', import.meta.url)));
const timeoutSeconds = Number(option('--timeout-seconds', '60'));
const phaseNames = option('--phases', 'keys-34MB,keys-135MB,dem-100MB').split(',');
const PROBE = new URL('./loopDelayProbe.mjs', import.meta.url).href;
const MiB = 1024 * 1024;


async function startService() {
  const port = await freePort();
  const { root, env } = serviceEnvironment('eemt-bench-json-', port);
  const child = fork(servicePath, [], { env, cwd: root, execArgv: ['--import', PROBE], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  let errors = '';
  child.stderr.on('data', (d) => (errors += d));
  const exited = new Promise((r) => child.once('exit', r));
  const base = `http://127.0.0.1:${port}`;
  await waitForHealth(base, () => errors);
  /** Sends {probe: what} and waits for the answer (null after `ms`: the loop is still blocked). */
  const probe = (what, ms = 5000) =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        child.off('message', onMessage);
        resolve(null);
      }, ms);
      const onMessage = (message) => {
        if (message?.probe !== what) return;
        clearTimeout(timer);
        child.off('message', onMessage);
        resolve(message);
      };
      child.on('message', onMessage);
      child.send({ probe: what });
    });
  return {
    base,
    port,
    probe,
    rssMb: () => {
      try {
        return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) / 1024;
      } catch {
        return 0;
      }
    },
    async stop() {
      child.kill('SIGTERM');
      const stopped = await Promise.race([exited.then(() => true), sleep(10_000).then(() => false)]);
      if (!stopped) {
        child.kill('SIGKILL');
        await exited;
      }
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** `{"inputs":{"k000000000":0,…,"dem":"AAAA"}}` with `keys` keys of 15 bytes each, in chunks of about 60 KB. */
function* manyKeys(keys) {
  yield Buffer.from('{"inputs":{');
  const perChunk = 4000;
  for (let first = 0; first < keys; first += perChunk) {
    let text = '';
    for (let k = first; k < Math.min(keys, first + perChunk); k++) text += `"k${String(k).padStart(9, '0')}":0,`;
    yield Buffer.from(text);
  }
  yield Buffer.from('"dem":"AAAA"}}');
}

/** An inline DEM of `bytes` bytes: the fixture GeoTIFF, then zeros; base64 in chunks of 64 KiB. */
function* inlineDem(bytes) {
  const tiff = readFileSync(fileURLToPath(new URL('../test/fixtures/mcn_10m.tif', import.meta.url)));
  const padded = Buffer.alloc(bytes);
  tiff.copy(padded);
  yield Buffer.from('{"inputs":{"dem":{"mediaType":"image/tiff; application=geotiff","value":"');
  const slice = 3 * 16384;
  for (let at = 0; at < bytes; at += slice) yield Buffer.from(padded.subarray(at, Math.min(bytes, at + slice)).toString('base64'));
  yield Buffer.from('"},"step":60}}');
}

/** POSTs the generated body; resolves with the answer (status, detail, when) or {status: null} after the timeout. */
function send(service, path, chunks) {
  return new Promise((resolve) => {
    let sent = 0;
    const body = Readable.from(
      (function* () {
        for (const chunk of chunks) {
          sent += chunk.length;
          yield chunk;
        }
      })(),
    );
    const started = performance.now();
    const req = request(`${service.base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } });
    const timer = setTimeout(() => {
      req.destroy();
      body.destroy();
      resolve({ status: null, seconds: timeoutSeconds, client_sent_mb: Number((sent / MiB).toFixed(1)) });
    }, timeoutSeconds * 1000);
    req.on('error', () => undefined);
    req.on('response', (res) => {
      const answeredAfter = (performance.now() - started) / 1000;
      const sentBefore = sent;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        clearTimeout(timer);
        body.destroy();
        req.destroy();
        let parsed = {};
        try {
          parsed = JSON.parse(text);
        } catch {
          /* not JSON */
        }
        resolve({
          status: res.statusCode,
          detail: String(parsed.detail ?? '').slice(0, 200),
          job: parsed.jobID,
          seconds: Number(answeredAfter.toFixed(2)),
          client_sent_mb: Number((sentBefore / MiB).toFixed(1)),
        });
      });
    });
    body.pipe(req);
  });
}

/** Polls /health every 100 ms and samples the RSS until `done()`. */
async function watch(service, done) {
  let slowest = 0;
  let failures = 0;
  let count = 0;
  let peakRss = 0;
  const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, service.rssMb())), 50);
  while (!done()) {
    const started = performance.now();
    try {
      const res = await fetch(`${service.base}/health`, { signal: AbortSignal.timeout(10_000) });
      await res.arrayBuffer();
      if (!res.ok) failures++;
    } catch {
      failures++;
    }
    count++;
    slowest = Math.max(slowest, performance.now() - started);
    await sleep(100);
  }
  clearInterval(rssTimer);
  return { health_requests: count, health_failures: failures, health_ms_max: Number(slowest.toFixed(0)), peak_rss_mb: Number(peakRss.toFixed(1)) };
}

const PHASES = {
  'keys-34MB': () => manyKeys(2_200_000),
  'keys-135MB': () => manyKeys(9_000_000),
  'dem-100MB': () => inlineDem(100 * MiB - 1024),
};

const results = [];
for (const name of phaseNames) {
  const service = await startService();
  try {
    // Warm-up, so the figures are the body's and not the first use of the code paths: a refused many-key body and
    // a refused inline DEM (64 KiB of zeros, not a GeoTIFF).
    await send(service, '/ogc/processes/sol/execution', manyKeys(2000));
    await send(service, '/ogc/processes/sol/execution', [Buffer.from(`{"inputs":{"dem":"${Buffer.alloc(65536).toString('base64')}"}}`)]);
    await sleep(1000);
    const baselineRss = service.rssMb();
    await service.probe('reset');
    let answer = null;
    const sending = send(service, '/ogc/processes/sol/execution', PHASES[name]()).then((a) => (answer = a));
    const seen = await watch(service, () => answer !== null);
    await sending;
    const loop = await service.probe('read');
    if (answer.job) await fetch(`${service.base}/ogc/jobs/${answer.job}`, { method: 'DELETE' }).then((r) => r.arrayBuffer());
    results.push({
      phase: name,
      answer,
      loop_block_ms_max: loop?.max_ms ?? `still blocked ${timeoutSeconds} s after the body started`,
      loop_delay_ms_p99: loop?.p99_ms ?? null,
      ...seen,
      baseline_rss_mb: Number(baselineRss.toFixed(1)),
      rss_growth_mb: Number((seen.peak_rss_mb - baselineRss).toFixed(1)),
    });
  } finally {
    await service.stop();
  }
  console.error(JSON.stringify(results.at(-1)));
}
console.log(JSON.stringify({ benchmark: 'one large JSON request', service: servicePath, node: process.version, results }, null, 2));
