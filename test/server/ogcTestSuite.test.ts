/**
 * The assertions of the OGC API – Processes – Part 1: Core 1.0 executable test suite (the Java project
 * opengeospatial/ets-ogcapi-processes10; each test names the test class and method it translates) for the
 * conformance classes the service declares, as a black-box test over HTTP against a real service (SQLite file, job
 * children running the stub child). Responses are validated against the standard's schemas (vendored in
 * test/fixtures/ogcapi-processes-1.0/) where the suite validates them against the same files.
 *
 * The suite runs its job tests on the echo process. Echo here executes synchronously only, and has one string
 * input and one string output: the suite skips its asynchronous tests and those for bounding-box, array, object,
 * mixed-type and binary inputs. Where one of those assertions applies to sol (asynchronous, a binary input), it is
 * made on sol. The conformance classes json, oas30 and dismiss, and most of job-list, have no tests in the suite:
 * their abstract tests (Annex A of OGC 18-062r2, /conf/…) are translated instead.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { get as httpGet } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { Ajv } from 'ajv';
import { ProcessRuntime } from '../../src/runtime/process.js';
import { waitFor } from '../helpers/wait.js';
import { fixture, startTestService, STUB_CHILD, type TestService } from './helpers.js';
import { schemaErrors, type OgcSchema } from './ogcSchemas.js';

const EXCEPTION = 'http://www.opengis.net/def/exceptions/ogcapi-processes-1/1.0/';
const REL = 'http://www.opengis.net/def/rel/ogc/1.0/';
const CORE = 'http://www.opengis.net/spec/ogcapi-processes-1/1.0/conf/core';
/** The suite's echo test value (Jobs.TEST_STRING_INPUT). */
const TEST_STRING = 'teststring';
const DEM_BASE64 = fixture('mcn_10m.tif').toString('base64');
const DEM_MEDIA_TYPE = 'image/tiff; application=geotiff';
const stubRuntime = (c: TestService['config']) => new ProcessRuntime({ limits: { cpus: c.cpuLimit, memoryBytes: c.memoryBytes }, childEntry: STUB_CHILD });

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The body as JSON; undefined when it is not JSON. */
  readonly json: any;
}

/** Every request of this file with its answer's status, for the OpenAPI completeness check at the end. */
const answered: Array<{ method: string; path: string; status: number }> = [];

async function call(url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<Answer> {
  const method = init.method ?? 'GET';
  const res = await fetch(url, {
    method,
    headers: { Accept: 'application/json', ...(init.body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...init.headers },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  answered.push({ method, path: new URL(url).pathname, status: res.status });
  return { status: res.status, headers: res.headers, text, json };
}

/** CommonFixture.validateResponseAgainstSchema: the document validates against the standard's schema file. */
function assertSchema(schema: OgcSchema, document: unknown) {
  assert.deepEqual(schemaErrors(schema, document), [], `${schema}.yaml: ${JSON.stringify(document).slice(0, 300)}`);
}

/** An exception of the standard: JSON, exception.yaml, `type` as given, `status` the HTTP status. */
function assertException(answer: Answer, status: number, type: string) {
  assert.equal(answer.status, status, answer.text);
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
  assertSchema('exception', answer.json);
  assert.equal(answer.json.type, type);
  assert.equal(answer.json.status, status);
}

describe('OGC API – Processes 1.0 test suite (ets-ogcapi-processes10), translated', () => {
  let svc: TestService;
  /** The API's root, the suite's "iut". */
  let iut: string;
  let echo: any;
  /** Jobs.createExecuteJsonNode: every plain string input "teststring", every output by value. */
  let echoExecute: { inputs: Record<string, unknown>; outputs: Record<string, unknown> };
  const execution = (process: string) => `${iut}/processes/${process}/execution`;
  const solInputs = { dem: { value: DEM_BASE64, format: { mediaType: DEM_MEDIA_TYPE, encoding: 'base64' } } };
  /** A sol job's status, waited for until it is one of `statuses`. */
  const statusOf = (location: string, statuses: string[]) =>
    waitFor(`status ${statuses.join('/')} at ${location}`, async () => {
      const answer = await call(location);
      return statuses.includes(answer.json?.status) ? answer : null;
    }, 30_000);

  before(async () => {
    svc = await startTestService({ runtime: stubRuntime });
    iut = `${svc.base}/ogc`;
    echo = (await call(`${iut}/processes/echo`)).json;
    // Jobs.parseEchoProcess + createExecuteJsonNode / addInput / addOutput.
    const inputs: Record<string, unknown> = {};
    for (const [id, input] of Object.entries<any>(echo.inputs)) {
      if (input.schema.type === 'string' && input.schema.format === undefined && input.schema.contentMediaType === undefined) inputs[id] = TEST_STRING;
    }
    assert.ok(Object.keys(inputs).length > 0, 'No supported input found. Only plain string input is supported.');
    echoExecute = { inputs, outputs: Object.fromEntries(Object.keys(echo.outputs).map((id) => [id, { transmissionMode: 'value' }])) };
    assertSchema('execute', echoExecute);
  });
  after(() => svc.stop());

  test('GeneralHttp.testHttp: HTTP 1.1', async () => {
    const version = await new Promise<string>((resolve, reject) => {
      httpGet(`${iut}/`, (res) => {
        res.resume();
        resolve(res.httpVersion);
      }).on('error', reject);
    });
    assert.equal(version, '1.1');
  });

  test('LandingPage.testLandingPageRetrieval, testLandingPageValidation: links to the API definition, conformance and processes', async () => {
    const landing = await call(`${iut}/`);
    assert.equal(landing.status, 200);
    const rels = new Set<string>(landing.json.links.map((l: any) => l.rel));
    assert.ok(rels.has('service-desc') || rels.has('service-doc'), 'service-desc and/or service-doc');
    assert.ok(rels.has(`${REL}conformance`) || rels.has('conformance'));
    assert.ok(rels.has(`${REL}processes`) || rels.has('processes'));
    assertSchema('landingPage', landing.json);
  });

  test('Conformance.testValidateConformanceOperationAndResponse: conformsTo lists strings, core among them', async () => {
    const conformance = await call(`${iut}/conformance`);
    assert.equal(conformance.status, 200);
    assertSchema('confClasses', conformance.json);
    assert.ok(conformance.json.conformsTo.every((c: unknown) => typeof c === 'string'));
    assert.ok(conformance.json.conformsTo.includes(CORE));
  });

  test('ProcessList: testPlLimitDefinition, testPlLimitResponse, testPlLinks, testProcessList, testProcessListSuccess', async () => {
    // testPlLimitDefinition: the request ?limit=10 is valid for the API definition's getProcesses operation.
    const api = (await call(`${svc.base}/openapi.json`)).json;
    const limit = api.paths['/ogc/processes'].get.parameters.find((p: any) => p.name === 'limit' && p.in === 'query');
    assert.equal(limit.schema.type, 'integer');
    assert.ok(new Ajv().validate(limit.schema, 10), 'limit=10 is valid');
    assert.equal((await call(`${iut}/processes?limit=10`)).status, 200);
    // testPlLimitResponse, testPlLinks: ?limit=1 gives one process, and links.
    const one = await call(`${iut}/processes?limit=1`);
    assert.equal(one.json.processes.length, 1, `Wrong number of processes, expected 1, got ${one.json.processes.length}`);
    assert.ok(Array.isArray(one.json.links));
    assert.ok(one.json.links.some((l: any) => l.rel === 'self'), '/req/core/pl-links: self');
    // /conf/core/pl-limit-response: not more than the limit, nor than the maximum the API definition states.
    const largest = await call(`${iut}/processes?limit=${limit.schema.maximum}`);
    assert.ok(largest.json.processes.length <= limit.schema.maximum);
    // testProcessList, testProcessListSuccess.
    const list = await call(`${iut}/processes`);
    assert.ok(list.json.processes.length > 0, `No processes listed at ${iut}/processes`);
    assert.match(list.headers.get('content-type') ?? '', /^application\/json/);
    assertSchema('processList', list.json);
  });

  test('Process.testProcessExceptionNoSuchProcess, testProcess, testProcessSuccess', async () => {
    assertException(await call(`${iut}/processes/invalid-process-${randomUUID()}`), 404, `${EXCEPTION}no-such-process`);
    const description = await call(`${iut}/processes/echo`);
    assert.equal(description.status, 200);
    assertSchema('process', description.json);
  });

  test('OGCProcessDescription: testOGCProcessDescriptionJSON, InputsDef, InputDef, OutputsDef, OutputDef (every listed process)', async () => {
    const list = await call(`${iut}/processes`);
    for (const summary of list.json.processes) {
      const description = await call(`${iut}/processes/${summary.id}`);
      // testOGCProcessDescriptionJSON: process.yaml.
      assertSchema('process', description.json);
      // testOGCProcessDescriptionInputsDef / OutputsDef: the description has inputs and outputs.
      assert.ok('inputs' in description.json, `No 'inputs' field was found in the process description of '${summary.id}'`);
      assert.ok('outputs' in description.json, `No 'outputs' field was found in the process description of '${summary.id}'`);
      // testOGCProcessDescriptionInputDef / OutputDef: each has a schema (/conf/ogc-process-description/input-def:
      // it validates against schema.yaml; inputDescription.yaml and outputDescription.yaml for the whole).
      for (const [id, input] of Object.entries<any>(description.json.inputs)) {
        assert.ok('schema' in input, `input ${id} of ${summary.id} has a schema`);
        assertSchema('inputDescription', input);
        assertSchema('schema', input.schema);
      }
      for (const [id, output] of Object.entries<any>(description.json.outputs)) {
        assert.ok('schema' in output, `output ${id} of ${summary.id} has a schema`);
        assertSchema('outputDescription', output);
        assertSchema('schema', output.schema);
      }
      // The mixed-type tests (InputDefinitionOfMixedType, OutputDefinitionOfMixedType) are skipped by the suite
      // when no input or output has a oneOf schema, as here.
    }
  });

  test('Jobs: execution modes (testJobCreationAutoExecutionMode, testJobCreationDefaultExecutionMode, testJobCreationDefaultOutputs)', async () => {
    // echo's jobControlOptions: synchronous only (the suite's ONLY_SYNC).
    assert.deepEqual(echo.jobControlOptions, ['sync-execute']);
    // testJobCreationDefaultExecutionMode: no Prefer header → 200 for a sync-only process.
    assert.equal((await call(execution('echo'), { method: 'POST', body: echoExecute })).status, 200);
    // testJobCreationAutoExecutionMode is skipped for echo (no async-execute); for ONLY_SYNC a respond-async
    // preference still answers synchronously (/req/core/process-execute-auto-execution-mode).
    assert.equal((await call(execution('echo'), { method: 'POST', headers: { Prefer: 'respond-async' }, body: echoExecute })).status, 200);
    // testJobCreationDefaultOutputs: without outputs.
    assert.ok([200, 201].includes((await call(execution('echo'), { method: 'POST', body: { inputs: echoExecute.inputs } })).status));
    // The same assertions on sol, an async-only process (ONLY_ASYNC): 201 with and without the preference.
    const sol = (await call(`${iut}/processes/sol`)).json;
    assert.deepEqual(sol.jobControlOptions.filter((o: string) => o.endsWith('-execute')), ['async-execute']);
    const auto = await call(execution('sol'), { method: 'POST', headers: { Prefer: 'respond-async' }, body: { inputs: solInputs } });
    assert.equal(auto.status, 201, auto.text);
    const byDefault = await call(execution('sol'), { method: 'POST', body: { inputs: solInputs } });
    assert.ok([200, 201].includes(byDefault.status), byDefault.text);
    for (const created of [auto, byDefault]) await statusOf(created.headers.get('location')!, ['successful']);
  });

  test('Jobs: inputs (testJobCreationInputInline, testJobCreationInputs, testJobCreationInputRef, testJobCreationInputInlineBinary, testJobCreationInputValidation)', async () => {
    // testJobCreationInputInline, testJobCreationInputs: 200 or 201.
    assert.ok([200, 201].includes((await call(execution('echo'), { method: 'POST', body: echoExecute })).status));
    // testJobCreationInputRef: echo has no binary input to give by reference, so the request is the plain one; a
    // 200 answer is validated against the execute operation with any media type.
    assert.equal((await call(execution('echo'), { method: 'POST', body: echoExecute })).status, 200);
    // testJobCreationInputInlineBinary (Jobs.addBinaryInput): a binary input inline as base64 with format.mediaType
    // and format.encoding; echo has none, sol has one (dem).
    const binary = await call(execution('sol'), { method: 'POST', body: { inputs: solInputs, outputs: { results: { transmissionMode: 'reference' } } } });
    assert.ok([200, 201].includes(binary.status), binary.text);
    await statusOf(binary.headers.get('location')!, ['successful']);
    // testJobCreationInputValidation, first half: a valid request executes.
    assert.equal((await call(execution('echo'), { method: 'POST', body: echoExecute })).status, 200);
    // Second half (Jobs.createExecuteJsonNodeWithWrongInput, skipped for echo: no input with a contentMediaType):
    // sol's dem given as {"type": "wrong/type_<uuid>"} is refused with 400 or 500, JSON, exception.yaml.
    const wrong = await call(execution('sol'), { method: 'POST', body: { inputs: { dem: { type: `wrong/type_${randomUUID()}` } } } });
    assert.ok([400, 500].includes(wrong.status), `Was expecting a Status Code of 400 or 500 but found ${wrong.status}`);
    assert.ok(/^application\/json(;|$)/.test(wrong.headers.get('content-type') ?? ''));
    assertSchema('exception', wrong.json);
    assert.equal(wrong.json.type, `${EXCEPTION}invalid-parameter-value`);
  });

  test('Jobs: creation (testJobCreationOp, testJobCreationRequest, testJobCreationSuccessAsync, testJobSuccess, testJobOp)', async () => {
    // testJobCreationOp, testJobCreationRequest (sync branch, as for echo): the response body is JSON. The suite
    // then validates it against the getStatus response (statusInfo.yaml), which only a server that creates a job for
    // a synchronous execution can meet (18-062r2 §7.11.4 does not require one); here the body is the echoed value.
    const sync = await call(execution('echo'), { method: 'POST', body: echoExecute });
    assert.equal(sync.status, 200);
    assert.notEqual(sync.json, undefined, `not JSON: ${sync.text}`);
    assert.equal(sync.json, TEST_STRING);
    // The async branch and testJobCreationSuccessAsync, testJobSuccess (skipped for echo), on sol: 201, Location,
    // and the status there validates against statusInfo.yaml.
    const created = await call(execution('sol'), { method: 'POST', headers: { Prefer: 'respond-async ' }, body: { inputs: solInputs } });
    assert.ok([200, 201].includes(created.status), created.text);
    const location = created.headers.get('location');
    assert.ok(location, 'Location header');
    const status = await call(location);
    assert.equal(status.status, 200);
    assertSchema('statusInfo', status.json);
    assertSchema('statusInfo', created.json);
    // testJobOp: an execute request is accepted.
    assert.ok([200, 201].includes((await call(execution('echo'), { method: 'POST', body: echoExecute })).status));
    await statusOf(location, ['successful']);
  });

  test('Jobs: synchronous results (testJobCreationSyncDocument, SyncRawValueOne, SyncRawValueMulti, SyncRawRef, SyncRawMixedMulti, testJobResultsSync)', async () => {
    // testJobCreationSyncDocument: 200 or 201; the document is results.yaml (/req/core/process-execute-sync-document).
    const document = await call(execution('echo'), { method: 'POST', body: { ...echoExecute, response: 'document' } });
    assert.ok([200, 201].includes(document.status));
    assert.match(document.headers.get('content-type') ?? '', /^application\/json/);
    assertSchema('results', document.json);
    assert.deepEqual(document.json, { string_output: TEST_STRING });
    // testJobCreationSyncRawMixedMulti, SyncRawRef, SyncRawValueMulti: the raw request executes (200 or 201).
    for (let i = 0; i < 3; i++) {
      assert.ok([200, 201].includes((await call(execution('echo'), { method: 'POST', body: { ...echoExecute, response: 'raw' } })).status));
    }
    // testJobCreationSyncRawValueOne (Jobs.createExecuteJsonNodeOneOutput: outputs whose id is the first input's,
    // none for echo, so `outputs` is empty): 200, and the raw body contains the value.
    const one = await call(execution('echo'), { method: 'POST', body: { inputs: echoExecute.inputs, outputs: {}, response: 'raw' } });
    assert.ok([200, 201].includes(one.status), one.text);
    assert.ok(one.text.includes(TEST_STRING));
    // testJobResultsSync: a Link header, if any, must have rel=monitor to the job made for the synchronous
    // execution; echo makes no job, so there is none.
    assert.equal((await call(execution('echo'), { method: 'POST', body: echoExecute })).headers.get('link'), null);
  });

  test('Jobs: exceptions (testJobExceptionNoSuchJob, testJobResultsNoSuchJob, testJobResultsFailed)', async () => {
    assertException(await call(`${iut}/jobs/invalid-job-${randomUUID()}`), 404, `${EXCEPTION}no-such-job`);
    assertException(await call(`${iut}/jobs/invalid-job-${randomUUID()}/results`), 404, `${EXCEPTION}no-such-job`);
    // Jobs.createInvalidExecuteJsonNode: {"invalid-execute-request": "true)"}; a status above 200 with an exception.
    const failed = await call(execution('echo'), { method: 'POST', body: { 'invalid-execute-request': 'true)' } });
    assert.ok(failed.status > 200, `Got unexpected status code: ${failed.status}`);
    assertException(failed, 400, `${EXCEPTION}invalid-parameter-value`);
  });

  test('Jobs: asynchronous results on sol (testJobResults, testJobResultsAsyncRawValueOne, AsyncDocument, AsyncRawRef, AsyncRawValueMulti, AsyncRawMixedMulti)', async () => {
    // testJobResults (async branch): 201, and the status at Location is 200 and statusInfo.yaml.
    const created = await call(execution('sol'), { method: 'POST', headers: { Prefer: 'respond-async' }, body: { inputs: solInputs, response: 'document' } });
    assert.equal(created.status, 201, created.text);
    const location = created.headers.get('location')!;
    const first = await call(location);
    assert.equal(first.status, 200);
    assertSchema('statusInfo', first.json);
    // Jobs.loopOverStatus: poll until successful, then the results link (rel results) answers with the results.
    const done = await statusOf(location, ['successful', 'failed']);
    assert.equal(done.json.status, 'successful');
    assertSchema('statusInfo', done.json);
    const results = done.json.links.find((l: any) => l.rel === `${REL}results`);
    assert.ok(results, "No result (rel='http://www.opengis.net/def/rel/ogc/1.0/results') link");
    const answer = await call(results.href, { headers: { Accept: results.type } });
    assert.equal(answer.status, 200);
    assertSchema('results', answer.json);
    const archive = await fetch(answer.json.results.href);
    assert.equal(archive.status, 200);
    assert.equal(archive.headers.get('content-type'), 'application/zip');
    await archive.arrayBuffer();
  });

  test('Jobs.testJobResultsExceptionResultsNotReady (on sol) and the dismiss class (/conf/dismiss/job-dismiss-op, job-dismiss-success)', async () => {
    // Jobs.createExecuteJsonNodeWithPauseInput needs a "pause" input (skipped for echo); sol with step 60 keeps the
    // stub child running.
    const created = await call(execution('sol'), { method: 'POST', headers: { Prefer: 'respond-async' }, body: { inputs: { ...solInputs, step: 60 } } });
    assert.equal(created.status, 201, created.text);
    const location = created.headers.get('location')!;
    await statusOf(location, ['running']);
    const notReady = await call(`${location}/results`);
    assert.equal(notReady.status, 404, 'Failed Abstract test A.46 (Step 3)');
    assert.equal(notReady.json.type, `${EXCEPTION}result-not-ready`, 'Failed Abstract test A.46 (Step 4)');
    assertSchema('exception', notReady.json);
    // Dismiss: DELETE the running job → 200, statusInfo.yaml, status "dismissed"; the job is gone afterwards.
    const dismissed = await call(location, { method: 'DELETE' });
    assert.equal(dismissed.status, 200);
    assertSchema('statusInfo', dismissed.json);
    assert.equal(dismissed.json.status, 'dismissed');
    assertException(await call(location), 404, `${EXCEPTION}no-such-job`);
    assertException(await call(location, { method: 'DELETE' }), 404, `${EXCEPTION}no-such-job`);
  });

  test('JobList.testJobList, testJobListSuccess, and the job-list class (/conf/job-list/…)', async () => {
    const list = await call(`${iut}/jobs`);
    assert.equal(list.status, 200);
    assert.ok(list.json.jobs.length > 0, `No processes listed at ${iut}/jobs`);
    assertSchema('jobList', list.json);
    // links: self; processid-mandatory: every status info has processID.
    assert.ok(list.json.links.some((l: any) => l.rel === 'self'));
    assert.ok(list.json.jobs.every((j: any) => typeof j.processID === 'string'));
    // type-, processID-, status-, datetime-, duration- and limit-definition: the API definition has the parameters.
    const api = (await call(`${svc.base}/openapi.json`)).json;
    const parameters = new Map<string, any>(api.paths['/ogc/jobs'].get.parameters.filter((p: any) => p.in === 'query').map((p: any) => [p.name, p.schema]));
    for (const name of ['type', 'processID', 'status']) assert.equal(parameters.get(name)?.type, 'array', name);
    assert.equal(parameters.get('datetime')?.type, 'string');
    for (const name of ['minDuration', 'maxDuration', 'limit']) assert.equal(parameters.get(name)?.type, 'integer', name);
    // limit-response: not more than limit, nor than the API definition's maximum.
    assert.equal((await call(`${iut}/jobs?limit=1`)).json.jobs.length, 1);
    const maximum = parameters.get('limit').maximum;
    assert.ok((await call(`${iut}/jobs?limit=${maximum}`)).json.jobs.length <= maximum);
    // type-, processid-, status-, datetime- and duration-response.
    const all = (await call(`${iut}/jobs?limit=${maximum}`)).json.jobs;
    assert.equal((await call(`${iut}/jobs?limit=${maximum}&type=process`)).json.jobs.length, all.length);
    const sol = (await call(`${iut}/jobs?limit=${maximum}&processID=sol`)).json.jobs;
    assert.ok(sol.length > 0 && sol.every((j: any) => j.processID === 'sol'));
    const successful = (await call(`${iut}/jobs?limit=${maximum}&status=successful`)).json.jobs;
    assert.ok(successful.length > 0 && successful.every((j: any) => j.status === 'successful'));
    const firstCreated = all[all.length - 1].created;
    assert.deepEqual(
      (await call(`${iut}/jobs?limit=${maximum}&datetime=../${firstCreated}`)).json.jobs.map((j: any) => j.jobID),
      all.filter((j: any) => j.created <= firstCreated).map((j: any) => j.jobID),
    );
    const ran = (await call(`${iut}/jobs?limit=${maximum}&minDuration=0`)).json.jobs;
    assert.ok(ran.length > 0 && ran.every((j: any) => j.started));
    assertException(await call(`${iut}/jobs?status=nope`), 400, `${EXCEPTION}invalid-query-parameter-value`);
  });

  test('/conf/json/definition: every resource is JSON when asked for application/json', async () => {
    const job = (await call(`${iut}/jobs?status=successful&limit=1`)).json.jobs[0];
    for (const url of [`${iut}/`, `${iut}/conformance`, `${iut}/processes`, `${iut}/processes/sol`, `${iut}/jobs`, `${iut}/jobs/${job.jobID}`, `${iut}/jobs/${job.jobID}/results`]) {
      const answer = await call(url);
      assert.equal(answer.status, 200, url);
      assert.match(answer.headers.get('content-type') ?? '', /^application\/json/, url);
      assert.notEqual(answer.json, undefined, url);
    }
  });

  test('/conf/oas30/oas-definition-1, oas-definition-2, exceptions-codes, completeness', async () => {
    const landing = (await call(`${iut}/`)).json;
    const desc = landing.links.find((l: any) => l.rel === 'service-desc');
    const doc = landing.links.find((l: any) => l.rel === 'service-doc');
    assert.equal(desc.type, 'application/vnd.oai.openapi+json;version=3.0');
    assert.equal(doc.type, 'text/html');
    const html = await fetch(doc.href);
    assert.equal(html.status, 200);
    assert.match(html.headers.get('content-type') ?? '', /^text\/html/);
    await html.text();
    const api = (await call(desc.href)).json;
    // oas-definition-2: an OpenAPI 3.0 document (its required members).
    assert.match(api.openapi, /^3\.0\.\d+$/);
    assert.equal(typeof api.info.title, 'string');
    assert.equal(typeof api.info.version, 'string');
    assert.equal(typeof api.paths, 'object');
    // exceptions-codes, completeness: every status this file saw from an /ogc operation is in its responses.
    const operations = Object.entries<any>(api.paths).flatMap(([path, item]) =>
      Object.entries<any>(item).map(([method, operation]) => ({
        method: method.toUpperCase(),
        pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
        path,
        responses: Object.keys(operation.responses ?? {}),
      })),
    );
    const missing = new Set<string>();
    for (const { method, path, status } of answered.filter((a) => a.path.startsWith('/ogc'))) {
      const operation = operations.find((o) => o.method === method && o.pattern.test(path));
      assert.ok(operation, `${method} ${path} is in the API definition`);
      if (!operation.responses.includes(String(status)) && !operation.responses.includes('default')) missing.add(`${method} ${operation.path} ${status}`);
    }
    assert.deepEqual([...missing], []);
    assert.ok(answered.length > 50);
  });
});
