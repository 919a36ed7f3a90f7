/**
 * Large JSON bodies against the real service (a child process with its own folders), generated while they are sent
 * so the test stays light: bodies of millions of keys (34 MB, and 135 MB — under the execution route's body limit;
 * it once kept the service at 100 % CPU for minutes, RSS 2 GB, no answer) are refused within 30 s with a 400 that
 * names the bound, without the rest being read; an honest inline DEM of 100 MB is admitted and stored byte for byte.
 * Throughout, /health (polled every 100 ms) answers within 1 s and the service's RSS grows by less than 100 MB.
 * A service killed while an inline DEM arrives leaves no file after its restart.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test, type TestContext } from 'node:test';
import { fixture, getJson } from '../server/helpers.js';
import { waitFor } from '../helpers/wait.js';
import { startMonitor, startServiceProcess, type ServiceProcess } from './serviceProcess.js';
import { jobEntries } from '../helpers/dataFolders.js';
import { OGC_EXCEPTION_TYPES } from '../../src/server/errors.js';

const MB = 1024 ** 2;
const EXECUTE = '/ogc/processes/sol/execution';
const KEYS_BOUND = 'JSON body: an object has more than 1000 keys (at inputs)';

/** `{"inputs":{"k000000000":0, … ,"dem":"AAAA"}}`: `keys` keys of 15 bytes, in chunks of 60 KB. */
function manyKeys(keys: number): { length: number; chunks: () => Generator<Buffer> } {
  const head = Buffer.from('{"inputs":{');
  const tail = Buffer.from('"dem":"AAAA"}}');
  return {
    length: head.length + 15 * keys + tail.length,
    *chunks() {
      yield head;
      for (let first = 0; first < keys; first += 4000) {
        let text = '';
        for (let k = first; k < Math.min(keys, first + 4000); k++) text += `"k${String(k).padStart(9, '0')}":0,`;
        yield Buffer.from(text);
      }
      yield tail;
    },
  };
}

/**
 * An inline DEM of `bytes` bytes: the fixture GeoTIFF, then zeros (a GeoTIFF may hold bytes nothing points at), as
 * base64 in inputs.dem.value, with its SHA-256 once every chunk was generated.
 */
function paddedDem(bytes: number): { length: number; sha256: () => string; chunks: () => Generator<Buffer> } {
  const tiff = fixture('mcn_10m.tif');
  assert.equal(tiff.length % 3, 0, 'the fixture ends on a base64 group');
  const zeros = Buffer.alloc(3 * 16384);
  const zerosBase64 = Buffer.from(zeros.toString('base64'));
  const head = Buffer.from('{"inputs":{"dem":{"mediaType":"image/tiff; application=geotiff","value":"');
  const tail = Buffer.from('"},"step":60,"num_threads":1}}');
  const hash = createHash('sha256');
  let digest = '';
  return {
    length: head.length + Math.ceil(bytes / 3) * 4 + tail.length,
    sha256: () => digest,
    *chunks() {
      yield head;
      hash.update(tiff);
      yield Buffer.from(tiff.toString('base64'));
      for (let at = tiff.length; at < bytes; at += zeros.length) {
        const size = Math.min(zeros.length, bytes - at);
        hash.update(zeros.subarray(0, size));
        yield size === zeros.length ? zerosBase64 : Buffer.from(zeros.subarray(0, size).toString('base64'));
      }
      digest = hash.digest('hex');
      yield tail;
    },
  };
}

interface Sent {
  status: number;
  body: any;
  /** Seconds until the answer. */
  seconds: number;
  /** Bytes of the body the client had handed to its socket when the answer came, and when the connection closed. */
  sentAtAnswer: number;
  sentAtClose: number;
}

/** POSTs a generated body with its Content-Length (backpressure respected), until the answer and the connection's close. */
function post(base: string, path: string, body: { length: number; chunks: () => Generator<Buffer> }, timeoutMs = 30_000): Promise<Sent> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    const source = Readable.from(
      (function* () {
        for (const chunk of body.chunks()) {
          sent += chunk.length;
          yield chunk;
        }
      })(),
    );
    const started = performance.now();
    const req = request(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(body.length) } });
    const timer = setTimeout(() => {
      req.destroy();
      source.destroy();
      reject(new Error(`no answer in ${timeoutMs} ms (${sent} bytes sent)`));
    }, timeoutMs);
    let answer: Omit<Sent, 'sentAtClose'> | null = null;
    req.on('error', () => undefined); // the service closes the connection of a refused body
    req.on('response', (res) => {
      const sentAtAnswer = sent;
      const seconds = (performance.now() - started) / 1000;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          /* not JSON */
        }
        answer = { status: res.statusCode!, body: parsed, seconds, sentAtAnswer };
      });
    });
    req.on('close', () => {
      clearTimeout(timer);
      source.destroy();
      if (answer) resolve({ ...answer, sentAtClose: sent });
      else reject(new Error(`the connection closed without an answer (${sent} bytes sent)`));
    });
    source.pipe(req);
  });
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

describe('large JSON bodies against the running service', () => {
  const root = mkdtempSync(join(tmpdir(), 'eemt-json-'));
  let service: ServiceProcess;
  let baselineRss = 0;
  after(async () => {
    // A service whose event loop is held (as before these bounds) never gets to its SIGTERM handler.
    const stopped = service ? await Promise.race([service.stop().then(() => true), new Promise((r) => setTimeout(r, 15_000, false))]) : true;
    if (!stopped) await service.kill9();
    rmSync(root, { recursive: true, force: true });
  });

  before(async () => {
    service = await startServiceProcess(join(root, 'service'));
    // Warm up the paths a refusal and an inline DEM take, then take the baseline.
    for (let i = 0; i < 3; i++) {
      assert.equal((await post(service.base, EXECUTE, manyKeys(2000))).status, 400);
      const small = await post(service.base, EXECUTE, paddedDem(1024 * 1024));
      assert.equal(small.status, 201, JSON.stringify(small.body));
      await getJson(`${service.base}/ogc/jobs/${small.body.jobID}`, { method: 'DELETE' });
    }
    baselineRss = service.rssBytes();
  });

  /** Sends `body` while /health is polled every 100 ms (for at least 1 s); returns the answer and what the watch saw. */
  async function attack(body: Parameters<typeof post>[2]) {
    const monitor = startMonitor(service, 100);
    const started = Date.now();
    const sent = await post(service.base, EXECUTE, body);
    await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (Date.now() - started))));
    const seen = await monitor.stop();
    return { sent, seen };
  }

  function assertUnharmed(seen: Awaited<ReturnType<ReturnType<typeof startMonitor>['stop']>>, t: TestContext): void {
    t.diagnostic(`service RSS ${((seen.peakRss - baselineRss) / MB).toFixed(1)} MB over its baseline at most; slowest /health ${seen.slowestHealthMs.toFixed(0)} ms of ${seen.count}`);
    assert.ok(seen.count >= 5, `${seen.count} samples`);
    assert.ok(seen.allOk, '/health answered 200 every time');
    assert.ok(seen.slowestHealthMs < 1000, `/health took ${seen.slowestHealthMs.toFixed(0)} ms`);
    const growth = seen.peakRss - baselineRss;
    assert.ok(growth < 100 * MB, `service RSS grew by ${(growth / MB).toFixed(1)} MB`);
  }

  for (const [name, keys] of [['2.2 M keys (34 MB)', 2_200_000], ['9 M keys (135 MB, under the body limit)', 9_000_000]] as const) {
    test(`${name}: 400 naming the bound within 30 s, the rest of the body not read`, async (t) => {
      const body = manyKeys(keys);
      const { sent, seen } = await attack(body);
      t.diagnostic(`answered after ${sent.seconds.toFixed(2)} s; the client had sent ${(sent.sentAtAnswer / MB).toFixed(1)} MB then, ${(sent.sentAtClose / MB).toFixed(1)} MB when the connection closed, of ${(body.length / MB).toFixed(1)} MB`);
      assert.equal(sent.status, 400);
      assert.deepEqual(sent.body, { type: OGC_EXCEPTION_TYPES.invalidParameterValue, title: 'Bad Request', status: 400, detail: KEYS_BOUND });
      assert.ok(sent.seconds < 30);
      // Reading (and discarding) the rest would let the whole body through while the connection lingers.
      assert.ok(sent.sentAtClose < 32 * MB, `the client could send ${(sent.sentAtClose / MB).toFixed(1)} MB`);
      assertUnharmed(seen, t);
    });
  }

  test('an honest inline DEM of 100 MB: admitted, stored byte for byte, never held in memory', async (t) => {
    const dem = paddedDem(100 * MB - 1024);
    const { sent, seen } = await attack(dem);
    t.diagnostic(`answered after ${sent.seconds.toFixed(2)} s (${(dem.length / MB).toFixed(1)} MB of JSON)`);
    assert.equal(sent.status, 201, JSON.stringify(sent.body));
    const id = sent.body.jobID as string;
    const stored = join(service.root, 'uploads', id, 'dem.tif');
    assert.equal(statSync(stored).size, 100 * MB - 1024);
    assert.equal(await sha256Of(stored), dem.sha256());
    assert.equal((await getJson(`${service.base}/ogc/jobs/${id}`, { method: 'DELETE' })).status, 200);
    assertUnharmed(seen, t);
    assert.deepEqual(jobEntries(join(service.root, 'uploads')), [], 'no upload is left behind');
  });

  test('a service killed while an inline DEM arrives: its staged file is removed when it starts again', async () => {
    const req = request(`${service.base}${EXECUTE}`, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } });
    req.on('error', () => undefined); // the service dies under it
    req.write('{"inputs":{"dem":"');
    const chunk = Buffer.from(Buffer.alloc(3 * MB).toString('base64'));
    let staged: string | null = null;
    for (let i = 0; i < 30 && !staged; i++) {
      await new Promise<void>((resolve) => req.write(chunk, () => resolve()));
      const uploads = join(service.root, 'uploads');
      staged = jobEntries(uploads).map((id) => join(uploads, id, 'dem.tif')).find((p) => existsSync(p) && statSync(p).size > 4 * MB) ?? null;
    }
    assert.ok(staged, 'the inline DEM is being written to disk');
    await service.kill9();
    req.destroy();
    assert.ok(existsSync(staged), 'the staged file survived the crash');
    service = await startServiceProcess(join(root, 'service'));
    await waitFor('the staged folder removed', () => !existsSync(join(staged!, '..')), 10_000);
    assert.deepEqual((await getJson(`${service.base}/ogc/jobs`)).body.jobs, [], 'no job was made');
  });
});
