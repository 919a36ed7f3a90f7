/**
 * OGC API – Processes – Part 1 (OGC 18-062r2) under /ogc, black-box over HTTP against a real service (SQLite file,
 * job children in real processes running the stub child), following the standard's abstract tests: landing page,
 * conformance, process list and description, execution (async 201 + Location, echo sync), status, results,
 * job list, dismiss, exceptions; inline DEMs checked like uploads; href inputs off by default, allow-listed when on.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { ProcessRuntime } from '../../src/runtime/process.js';
import { fixture, getJson, startTestService, STUB_CHILD, submit, type TestService } from './helpers.js';
import { waitFor } from '../helpers/wait.js';
import { jobEntries } from '../helpers/dataFolders.js';

const DEM_BYTES = fixture('mcn_10m.tif');
const DEM_INLINE = { value: DEM_BYTES.toString('base64'), mediaType: 'image/tiff; application=geotiff' };
const EXCEPTION = 'http://www.opengis.net/def/exceptions/ogcapi-processes-1/1.0/';
const stubRuntime = (c: TestService['config']) => new ProcessRuntime({ limits: { cpus: c.cpuLimit, memoryBytes: c.memoryBytes }, childEntry: STUB_CHILD });

async function execute(base: string, process: string, body: unknown, headers: Record<string, string> = { Prefer: 'respond-async' }) {
  const res = await fetch(`${base}/ogc/processes/${process}/execution`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: any = text;
  try {
    json = JSON.parse(text);
  } catch {
    /* raw */
  }
  return { status: res.status, headers: res.headers, body: json };
}

/** An exception document of the standard: type, title, status (equal to the HTTP status) and detail. */
function assertException(res: { status: number; body: any; headers: Headers }, status: number, type: string, detail?: RegExp) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(res.body.type, type);
  assert.equal(res.body.status, status);
  assert.equal(typeof res.body.title, 'string');
  assert.equal(typeof res.body.detail, 'string');
  if (detail) assert.match(res.body.detail, detail);
}

async function waitForOgcStatus(url: string, statuses: string[]) {
  return waitFor(`job status ${statuses.join('/')}`, async () => {
    const info = (await getJson(url)).body;
    return statuses.includes(info.status) ? info : null;
  }, 30_000);
}

describe('OGC API – Processes (href inputs off: the default)', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ runtime: stubRuntime, env: { EEMT_OGC_MAX_INLINE_MB: '1' } });
  });
  after(() => svc.stop());

  test('landing page links, conformance classes and the OpenAPI document with the standard operation ids', async () => {
    for (const path of ['/ogc', '/ogc/']) {
      const landing = await getJson(`${svc.base}${path}`);
      assert.equal(landing.status, 200);
      const rels = new Map(landing.body.links.map((l: any) => [l.rel, l.href]));
      for (const rel of ['self', 'service-desc', 'http://www.opengis.net/def/rel/ogc/1.0/conformance', 'http://www.opengis.net/def/rel/ogc/1.0/processes', 'http://www.opengis.net/def/rel/ogc/1.0/job-list']) {
        assert.ok(rels.has(rel), `landing page links ${rel}`);
      }
      assert.equal(rels.get('http://www.opengis.net/def/rel/ogc/1.0/processes'), `${svc.base}/ogc/processes`);
      const openapi = await getJson(rels.get('service-desc') as string);
      assert.equal(openapi.status, 200);
      assert.match(openapi.body.openapi, /^3\.0/);
      const ops: Record<string, string> = {};
      for (const [p, item] of Object.entries<any>(openapi.body.paths)) for (const [m, op] of Object.entries<any>(item)) if (op.operationId) ops[op.operationId] = `${m.toUpperCase()} ${p}`;
      assert.deepEqual(
        ['getLandingPage', 'getConformanceClasses', 'getProcesses', 'getProcessDescription', 'execute', 'getJobs', 'getStatus', 'getResult', 'dismiss'].map((id) => ops[id]),
        ['GET /ogc/', 'GET /ogc/conformance', 'GET /ogc/processes', 'GET /ogc/processes/{processID}', 'POST /ogc/processes/{processID}/execution', 'GET /ogc/jobs', 'GET /ogc/jobs/{jobID}', 'GET /ogc/jobs/{jobID}/results', 'DELETE /ogc/jobs/{jobID}'],
      );
    }
    const conformance = await getJson(`${svc.base}/ogc/conformance`);
    assert.deepEqual(new Set(conformance.body.conformsTo), new Set([
      'http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/core',
      'http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/ogc-process-description',
      'http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/json',
      'http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/oas30',
      'http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/job-list',
      'http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/dismiss',
    ]));
  });

  test('process list and descriptions; an unknown process is no-such-process', async () => {
    const list = (await getJson(`${svc.base}/ogc/processes`)).body;
    assert.deepEqual(list.processes.map((p: any) => p.id), ['sol', 'eemt', 'echo']);
    for (const p of list.processes) {
      assert.equal(typeof p.version, 'string');
      assert.ok(p.jobControlOptions.length > 0);
      const self = p.links.find((l: any) => l.rel === 'self');
      const description = (await getJson(self.href)).body;
      assert.equal(description.id, p.id);
      for (const input of Object.values<any>(description.inputs)) {
        assert.equal(typeof input.schema, 'object');
        assert.ok(input.minOccurs >= 0 && input.maxOccurs >= 1);
      }
      assert.ok(Object.keys(description.outputs).length > 0);
    }
    const sol = (await getJson(`${svc.base}/ogc/processes/sol`)).body;
    assert.deepEqual(sol.jobControlOptions, ['async-execute', 'dismiss']);
    assert.equal(sol.inputs.dem.minOccurs, 1);
    assert.equal(sol.inputs.dem.schema.contentMediaType, 'image/tiff; application=geotiff');
    assert.match(sol.inputs.dem.description, /not enabled/);
    assert.deepEqual(sol.inputs.step.schema, { type: 'number', minimum: 3, maximum: 60, default: 15 });
    assert.deepEqual(sol.inputs.num_threads.schema, { type: 'integer', minimum: 1, maximum: 32, default: 4 });
    assert.equal(sol.inputs.start_year, undefined);
    assert.deepEqual(sol.outputs.results.schema.contentMediaType, 'application/zip');
    const eemt = (await getJson(`${svc.base}/ogc/processes/eemt`)).body;
    assert.deepEqual(eemt.inputs.start_year.schema, { type: 'integer', minimum: 1980, maximum: 2024, default: 2020 });
    // the EEMT model choices are enum inputs of eemt only, with their defaults
    assert.deepEqual(eemt.inputs.pet_method.schema, { type: 'string', enum: ['thornthwaite', 'hamon', 'hamon-linear'], default: 'thornthwaite' });
    assert.deepEqual(eemt.inputs.topo_npp.schema, { type: 'string', enum: ['regression', 'lieth'], default: 'regression' });
    assert.deepEqual(eemt.inputs.topo_radiation.schema, { type: 'string', enum: ['unshaded', 'shaded', 'realsky'], default: 'unshaded' });
    assert.deepEqual(eemt.inputs.lieth_npp_gate.schema, { type: 'string', enum: ['temperature', 'none'], default: 'temperature' });
    assert.match(eemt.inputs.pet_method.description, /Thornthwaite 1948/);
    assert.equal(sol.inputs.pet_method, undefined);
    assertException(await getJson(`${svc.base}/ogc/processes/nope`), 404, `${EXCEPTION}no-such-process`);
    assertException(await execute(svc.base, 'nope', { inputs: {} }), 404, `${EXCEPTION}no-such-process`);
  });

  test('echo executes synchronously: the raw value in the negotiated media type, or a results document', async () => {
    /** The status, media type and text of an echo execution of "teststring". */
    const echo = async (request: Record<string, unknown>, headers: Record<string, string> = {}) => {
      const res = await fetch(`${svc.base}/ogc/processes/echo/execution`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify({ inputs: { string_input: { value: 'teststring' } }, ...request }),
      });
      return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
    };
    const text = { status: 200, type: 'text/plain; charset=utf-8', text: 'teststring' };
    const json = { status: 200, type: 'application/json; charset=utf-8', text: '"teststring"' };
    // raw (the default), one output by value: the output itself, as the client prefers (/req/core/process-execute-sync-raw-value-one).
    assert.deepEqual(await echo({}), text);
    assert.deepEqual(await echo({}, { Accept: '*/*' }), text);
    assert.deepEqual(await echo({ response: 'raw' }, { Accept: 'application/json' }), json);
    assert.deepEqual(await echo({}, { Accept: 'text/plain;q=0.5, application/json' }), json);
    assert.deepEqual(await echo({}, { Accept: 'text/*' }), text);
    assert.deepEqual(await echo({ outputs: { string_output: { format: { mediaType: 'application/json' } } } }), json);
    assert.deepEqual(await echo({ outputs: { string_output: { transmissionMode: 'value' } } }, { Accept: 'application/json' }), json);
    assert.deepEqual(await echo({ outputs: {} }, { Accept: 'application/json' }), json, 'no outputs named: all of them');
    // document: a results document (/req/core/process-execute-sync-document), also with Prefer: respond-async (echo is sync only).
    const document = { status: 200, type: 'application/json; charset=utf-8', text: '{"string_output":"teststring"}' };
    assert.deepEqual(await echo({ response: 'document' }), document);
    assert.deepEqual(await echo({ response: 'document' }, { Accept: 'application/json', Prefer: 'respond-async' }), document);
    // What echo cannot give.
    const problem = async (request: Record<string, unknown>, headers: Record<string, string>, status: number, type: string, detail: RegExp) => {
      const res = await echo(request, headers);
      assert.equal(res.status, status, res.text);
      assert.match(res.type ?? '', /^application\/json/);
      const body = JSON.parse(res.text);
      assert.equal(body.type, type);
      assert.equal(body.status, status);
      assert.match(body.detail, detail);
    };
    await problem({}, { Accept: 'image/png' }, 406, 'about:blank', /text\/plain or application\/json/);
    await problem({ response: 'document' }, { Accept: 'text/plain' }, 406, 'about:blank', /application\/json/);
    await problem({ outputs: { string_output: { format: { mediaType: 'application/json' } } } }, { Accept: 'text/plain' }, 406, 'about:blank', /application\/json/);
    const invalid = `${EXCEPTION}invalid-parameter-value`;
    await problem({ outputs: { string_output: { transmissionMode: 'reference' } } }, {}, 400, invalid, /transmissionMode "reference" is not offered; echo gives its outputs by value/);
    await problem({ outputs: { string_output: { transmissionMode: 'reference' } }, response: 'document' }, {}, 400, invalid, /not offered/);
    await problem({ outputs: { other: {} } }, {}, 400, invalid, /No output "other"; the outputs of echo are string_output/);
    await problem({ outputs: { string_output: { format: { mediaType: 'image/png' } } } }, {}, 400, invalid, /format.mediaType must be text\/plain or application\/json/);
    await problem({ outputs: { string_output: { transmissionMode: 'copy' } } }, {}, 400, invalid, /transmissionMode/);
    await problem({ inputs: { string_input: 3 } }, {}, 400, invalid, /string_input must be a string/);
    // sol gives its output by reference only.
    for (const outputs of [{ results: { transmissionMode: 'value' } }, { string_output: {} }]) {
      assertException(await execute(svc.base, 'sol', { inputs: { dem: DEM_INLINE }, outputs }), 400, invalid, /transmissionMode "value" is not offered|No output "string_output"/);
    }
  });

  test('sol runs asynchronously: 201 + Location, status to successful, results; the job is the same under /api', async () => {
    const created = await execute(svc.base, 'sol', { inputs: { dem: DEM_INLINE, step: 10, linke_value: { value: 3.5 } } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.headers.get('preference-applied'), 'respond-async');
    const location = created.headers.get('location')!;
    assert.equal(location, `${svc.base}/ogc/jobs/${created.body.jobID}`);
    assert.equal(created.body.processID, 'sol');
    assert.equal(created.body.type, 'process');
    assert.ok(['accepted', 'running'].includes(created.body.status));
    assert.match(created.body.created, /Z$/);

    const done = await waitForOgcStatus(location, ['successful', 'failed']);
    assert.equal(done.status, 'successful', done.message);
    assert.equal(done.progress, 100);
    for (const key of ['created', 'started', 'finished', 'updated']) assert.match(done[key], /^\d{4}-\d\d-\d\dT.*Z$/, key);
    assert.ok(done.updated >= done.started);
    const resultsLink = done.links.find((l: any) => l.rel === 'http://www.opengis.net/def/rel/ogc/1.0/results');
    const results = (await getJson(resultsLink.href)).body;
    assert.equal(results.results.type, 'application/zip');
    const zip = await fetch(results.results.href);
    assert.equal(zip.status, 200);
    assert.equal(zip.headers.get('content-type'), 'application/zip');
    assert.ok((await zip.arrayBuffer()).byteLength > 1000);

    const viaApi = (await getJson(`${svc.base}/api/jobs/${created.body.jobID}`)).body;
    assert.equal(viaApi.status, 'completed');
    assert.deepEqual(viaApi.parameters, { step: 10, linke_value: 3.5, albedo_value: 0.2, num_threads: 4, products: 'monthly,daily,hours' });
    assert.equal(viaApi.dem_filename, 'dem.tif');
  });

  test('a job submitted through /api is in /ogc/jobs; the list filters by status, process and limit', async () => {
    const viaApi = (await submit(svc.base, { workflow_type: 'sol', linke_value: '7.5' }, { name: 'failing.tif', bytes: DEM_BYTES })).body.job_id;
    const failed = await waitForOgcStatus(`${svc.base}/ogc/jobs/${viaApi}`, ['failed']);
    assert.equal(failed.message, 'DEM has no valid cells');
    assertException(await getJson(`${svc.base}/ogc/jobs/${viaApi}/results`), 400, `${EXCEPTION}no-applicable-code`, /failed: DEM has no valid cells/);

    const all = (await getJson(`${svc.base}/ogc/jobs`)).body;
    assert.ok(all.jobs.some((j: any) => j.jobID === viaApi && j.status === 'failed'));
    assert.ok(all.links.some((l: any) => l.rel === 'self'));
    const successful = (await getJson(`${svc.base}/ogc/jobs?status=successful`)).body.jobs;
    assert.ok(successful.length >= 1 && successful.every((j: any) => j.status === 'successful'));
    assert.equal((await getJson(`${svc.base}/ogc/jobs?limit=1`)).body.jobs.length, 1);
    assert.deepEqual((await getJson(`${svc.base}/ogc/jobs?processID=eemt`)).body.jobs, []);
    assertException(await getJson(`${svc.base}/ogc/jobs?status=finished`), 400, `${EXCEPTION}invalid-query-parameter-value`, /^status.* allowed values: accepted, running, successful, failed, dismissed$/);
    assertException(await getJson(`${svc.base}/ogc/jobs?limit=0`), 400, `${EXCEPTION}invalid-query-parameter-value`, /^limit must be >= 1$/);
  });

  test('results of a running job are not ready; dismiss cancels it and removes it with its data', async () => {
    // The DEM as the bare base64 value its schema describes; step 60: the stub keeps the job running.
    const created = await execute(svc.base, 'sol', { inputs: { dem: DEM_INLINE.value, step: 60 } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.jobID;
    await waitForOgcStatus(`${svc.base}/ogc/jobs/${id}`, ['running']);
    assertException(await getJson(`${svc.base}/ogc/jobs/${id}/results`), 404, `${EXCEPTION}result-not-ready`);
    assert.ok(existsSync(svc.paths.demPath(id)));

    const dismissed = await getJson(`${svc.base}/ogc/jobs/${id}`, { method: 'DELETE' });
    assert.equal(dismissed.status, 200);
    assert.equal(dismissed.body.status, 'dismissed');
    assert.equal(dismissed.body.jobID, id);
    for (const dir of svc.paths.allDirs(id)) assert.ok(!existsSync(dir), `${dir} removed`);
    assertException(await getJson(`${svc.base}/ogc/jobs/${id}`), 404, `${EXCEPTION}no-such-job`);
    assertException(await getJson(`${svc.base}/ogc/jobs/${id}/results`), 404, `${EXCEPTION}no-such-job`);
    assertException(await getJson(`${svc.base}/ogc/jobs/${id}`, { method: 'DELETE' }), 404, `${EXCEPTION}no-such-job`);
    assert.equal((await getJson(`${svc.base}/api/jobs/${id}`)).status, 404);
    assert.ok(!svc.scheduler.isActive(id));
  });

  test('bad inputs are exceptions and leave no job and no file', async () => {
    const before = (await getJson(`${svc.base}/ogc/jobs?limit=10000`)).body.jobs.length;
    const uploadsBefore = jobEntries(svc.paths.dirs.uploadDir).sort();
    const cases: Array<[unknown, number, RegExp]> = [
      [{ inputs: {} }, 400, /dem is required/],
      [{ inputs: { dem: 42 } }, 400, /qualified value/],
      [{ inputs: { dem: 'abc' } }, 400, /^DEM file must be a GeoTIFF \(\.tif\): /],
      [{ inputs: { dem: { value: DEM_INLINE.value, format: { mediaType: 'application/json' } } } }, 400, /mediaType/],
      [{ inputs: { dem: { value: 'not base64!' } } }, 400, /not valid base64/],
      [{ inputs: { dem: { ...DEM_INLINE, mediaType: 'image/png' } } }, 400, /mediaType/],
      [{ inputs: { dem: { value: Buffer.from('plain text, not a TIFF').toString('base64') } } }, 400, /^DEM file must be a GeoTIFF \(\.tif\): /],
      [{ inputs: { dem: { value: fixture('nogeo_20x20.tif').toString('base64') } } }, 400, /^DEM file must be a GeoTIFF \(\.tif\): .*georeferenc/i],
      [{ inputs: { dem: DEM_INLINE, step: 100 } }, 400, /^step must be a number from 3 to 60, got 100$/],
      [{ inputs: { dem: DEM_INLINE, num_threads: 2.5 } }, 400, /^num_threads must be an integer from 1 to 32, got 2.5$/],
      [{ inputs: { dem: DEM_INLINE, step: '10' } }, 400, /step must be a number/],
      [{ inputs: { dem: DEM_INLINE, start_year: 2000 } }, 400, /Unknown input start_year/],
      [{ inputs: { dem: { href: 'http://127.0.0.1:1/dem.tif' } } }, 400, /references \(href\) are not enabled/],
      [{ inputs: { dem: { value: Buffer.alloc(1_200_000).toString('base64') } } }, 413, /inline limit/],
      [{ inputs: { dem: { value: 'A'.repeat(3_000_000) } } }, 413, /too large/],
      ['{"inputs": ', 400, /not valid JSON/],
      // Refused while the DEM streams in (its staged file is removed): a bad character deep inside, a second DEM,
      // and a bound broken after the DEM.
      [{ inputs: { dem: `${DEM_INLINE.value.slice(0, 300_001)}*${DEM_INLINE.value.slice(300_002)}` } }, 400, /^Input dem: value is not valid base64$/],
      [`{"inputs": {"dem": "${DEM_INLINE.value}", "dem": "${DEM_INLINE.value}"}}`, 400, /^JSON body: a second inline file \(at inputs\.dem\)$/],
      [{ inputs: { dem: DEM_INLINE, ...Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, i])) } }, 400, /^JSON body: an object has more than 1000 keys \(at inputs\)$/],
      [{ inputs: { dem: DEM_INLINE, step: 'x'.repeat(70_000) } }, 400, /^JSON body: a string is longer than 65536 characters \(at inputs\.step\)$/],
      [{ inputs: { dem: { value: Buffer.alloc(1_100_000).toString('base64').replace(/.{76}/g, '$&\r\n') } } }, 413, /inline limit/],
      [{ inputs: { dem: DEM_INLINE }, response: 'stream' }, 400, /response/],
    ];
    for (const [body, status, detail] of cases) {
      assertException(await execute(svc.base, 'sol', body), status, `${EXCEPTION}invalid-parameter-value`, detail);
    }
    assertException(await execute(svc.base, 'eemt', { inputs: { dem: DEM_INLINE, start_year: 2010, end_year: 2005 } }), 400, `${EXCEPTION}invalid-parameter-value`, /end_year/);
    assertException(await execute(svc.base, 'sol', { inputs: { dem: DEM_INLINE, pet_method: 'hamon' } }), 400, `${EXCEPTION}invalid-parameter-value`, /Unknown input pet_method/);
    assertException(
      await execute(svc.base, 'eemt', { inputs: { dem: DEM_INLINE, pet_method: 'penman' } }),
      400,
      `${EXCEPTION}invalid-parameter-value`,
      /^pet_method \(PET method of EEMT-Trad\) must be one of thornthwaite, hamon, hamon-linear; got "penman"$/,
    );
    assertException(await execute(svc.base, 'eemt', { inputs: { dem: DEM_INLINE, topo_npp: 3 } }), 400, `${EXCEPTION}invalid-parameter-value`, /Input topo_npp must be a string/);
    assert.equal((await getJson(`${svc.base}/ogc/jobs?limit=10000`)).body.jobs.length, before);
    assert.deepEqual(jobEntries(svc.paths.dirs.uploadDir).sort(), uploadsBefore);
  });
});

describe('OGC API – Processes: inline DEMs streamed to disk', () => {
  let svc: TestService;
  before(async () => {
    svc = await startTestService({ runtime: stubRuntime, env: { EEMT_OGC_MAX_INLINE_MB: '1' } });
  });
  after(() => svc.stop());

  test('MIME-style base64 (CRLF every 76 characters, "\\/" escapes) is stored byte for byte; another process leaves no file', async () => {
    const mime = DEM_INLINE.value.replace(/.{76}/g, '$&\r\n');
    const text = `{"inputs": {"dem": {"mediaType": "image/tiff", "value": ${JSON.stringify(mime).replaceAll('/', '\\/')}}, "step": 60}}`;
    assert.match(text, /\\r\\n/);
    assert.match(text, /\\\//);
    const created = await execute(svc.base, 'sol', text);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual(readFileSync(svc.paths.demPath(created.body.jobID)), DEM_BYTES);
    assert.equal((await getJson(`${svc.base}/ogc/jobs/${created.body.jobID}`, { method: 'DELETE' })).status, 200);
    // echo's inputs.dem is streamed like any execution's, and removed: echo does not take it.
    const echoed = await execute(svc.base, 'echo', { inputs: { string_input: 'hello', dem: DEM_INLINE.value } });
    assert.equal(echoed.status, 200);
    assert.equal(echoed.body, 'hello');
    assertException(await execute(svc.base, 'nope', { inputs: { dem: DEM_INLINE.value } }), 404, `${EXCEPTION}no-such-process`);
    assert.deepEqual(jobEntries(svc.paths.dirs.uploadDir), []);
  });
});

describe('OGC API – Processes with DEM references enabled (allow-listed)', () => {
  let svc: TestService;
  let files: Server;
  let origin: string;
  before(async () => {
    files = createServer((req, res) => {
      if (req.url === '/dems/mcn.tif') res.writeHead(200, { 'Content-Type': 'image/tiff' }).end(DEM_BYTES);
      else if (req.url === '/dems/moved.tif') res.writeHead(302, { Location: '/secret/mcn.tif' }).end();
      else if (req.url === '/secret/mcn.tif') res.writeHead(200).end(DEM_BYTES);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    svc = await startTestService({ runtime: stubRuntime, env: { EEMT_OGC_HREF_INPUTS: 'true', EEMT_OGC_HREF_ALLOW: `${origin}/dems/` } });
  });
  after(async () => {
    await svc.stop();
    await new Promise((resolve) => files.close(resolve));
  });

  test('a reference under an allowed prefix is fetched; others, redirects and missing files are refused', async () => {
    const sol = (await getJson(`${svc.base}/ogc/processes/sol`)).body;
    assert.match(sol.inputs.dem.description, /by reference/);
    const created = await execute(svc.base, 'sol', { inputs: { dem: { href: `${origin}/dems/mcn.tif` } } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const done = await waitForOgcStatus(`${svc.base}/ogc/jobs/${created.body.jobID}`, ['successful', 'failed']);
    assert.equal(done.status, 'successful');
    assert.equal((await getJson(`${svc.base}/api/jobs/${created.body.jobID}`)).body.dem_filename, 'mcn.tif');

    for (const [href, detail] of [
      [`${origin}/secret/mcn.tif`, /not under an allowed URL prefix/],
      [`${origin}/dems/../secret/mcn.tif`, /not under an allowed URL prefix/],
      ['file:///etc/passwd', /not under an allowed URL prefix/],
      [`${origin}/dems/moved.tif`, /HTTP 302 \(redirects are not followed\)/],
      [`${origin}/dems/missing.tif`, /HTTP 404/],
    ] as const) {
      assertException(await execute(svc.base, 'sol', { inputs: { dem: { href } } }), 400, `${EXCEPTION}invalid-parameter-value`, detail);
    }
    assert.deepEqual(jobEntries(svc.paths.dirs.uploadDir).length, 1);
  });
});
