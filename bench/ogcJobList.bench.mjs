// One page of the OGC job list on a large job table: the job store's SQL page (JobStore.page: filters and paging in
// SQL, at most limit + 1 rows read) against reading every job and filtering in JavaScript (what GET /ogc/jobs did
// before). A temporary SQLite file gets `--jobs` job records (default 200 000; sol and eemt; completed, failed,
// cancelled, a few running and pending; one created a second), then each query runs `--runs` times. Prints one JSON
// line: per query, the median milliseconds of both ways and the jobs of the page (both must agree).
//   node bench/ogcJobList.bench.mjs [--jobs N] [--runs N]      (uses dist/: run `npm run build` first)
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({ options: { jobs: { type: 'string', default: '200000' }, runs: { type: 'string', default: '15' } } });
const count = Number(args.jobs);
const runs = Number(args.runs);
const dist = (path) => new URL(`../dist/${path}`, import.meta.url).href;
const { JobStore } = await import(dist('jobs/store/store.js'));
const { jobListFilter } = await import(dist('server/ogc/jobListQuery.js'));
const { ogcStatus } = await import(dist('server/ogc/statusInfo.js'));
const { CANCELLED_MESSAGE } = await import(dist('jobs/types.js'));

const dir = mkdtempSync(join(tmpdir(), 'bench-joblist-'));
const T0 = Date.parse('2024-01-01T00:00:00.000Z');
const NOW = T0 + count * 1000 + 60_000;
const store = new JobStore(join(dir, 'jobs.db'), { now: () => new Date(NOW) });
const insert = store.db.prepare(
  `INSERT INTO jobs (id, workflow_type, status, created_at, started_at, completed_at, parameters, dem_filename, error_message, progress, updated_at)
   VALUES (?, ?, ?, ?, ?, ?, ?, 'dem.tif', ?, ?, ?)`,
);
const params = JSON.stringify({ step: 15, linke_value: 3, albedo_value: 0.2, num_threads: 4 });
store.db.transaction(() => {
  for (let i = 0; i < count; i++) {
    const created = T0 + i * 1000;
    const iso = (ms) => new Date(ms).toISOString();
    const type = i % 5 === 0 ? 'eemt' : 'sol';
    const kind = i >= count - 3 ? 'pending' : i >= count - 5 ? 'running' : i % 50 === 0 ? 'cancelled' : i % 10 === 0 ? 'failed' : 'completed';
    const status = kind === 'cancelled' ? 'failed' : kind;
    const started = kind === 'pending' ? null : created + 2000;
    const finished = kind === 'completed' || kind === 'failed' || kind === 'cancelled' ? started + 1000 * (30 + (i % 600)) : null;
    const message = kind === 'cancelled' ? CANCELLED_MESSAGE : kind === 'failed' ? 'DEM has no valid cells' : null;
    insert.run(randomUUID(), type, status, iso(created), started && iso(started), finished && iso(finished), params, message, kind === 'completed' ? 100 : 10, iso(finished ?? started ?? created));
  }
})();

const middle = new Date(T0 + Math.floor(count / 2) * 1000).toISOString();
const queries = {
  'first page (limit 10)': {},
  'status=running': { status: ['running'] },
  'status=dismissed': { status: ['dismissed'] },
  'processID=eemt': { processID: ['eemt'] },
  'datetime=../middle': { datetime: `../${middle}` },
  'minDuration=600': { minDuration: 600 },
  'page 1000 (before cursor)': { cursor: true },
};
const seqOfMiddle = store.db.prepare('SELECT seq FROM jobs WHERE created_at = ?').get(middle).seq;

/** What the route did before: every job read, then filtered and cut in JavaScript. */
function readAll(query) {
  const durationOf = (job) => (job.started_at ? (Date.parse(job.completed_at ?? new Date(NOW).toISOString()) - Date.parse(job.started_at)) / 1000 : null);
  let jobs = store.list();
  if (query.cursor) jobs = jobs.slice(count - seqOfMiddle + 1);
  return jobs
    .filter((job) => !query.status || query.status.includes(ogcStatus(job)))
    .filter((job) => !query.processID || query.processID.includes(job.workflow_type))
    .filter((job) => !query.datetime || job.created_at <= middle)
    .filter((job) => query.minDuration === undefined || (durationOf(job) !== null && durationOf(job) >= query.minDuration))
    .slice(0, 10);
}
const paged = (query) => store.page(jobListFilter(query), { limit: 10, ...(query.cursor ? { before: seqOfMiddle } : {}) }).jobs;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
function time(fn) {
  const ms = [];
  let result;
  for (let r = 0; r < runs; r++) {
    const start = process.hrtime.bigint();
    result = fn();
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return { ms: Math.round(median(ms) * 1000) / 1000, result };
}

const results = {};
for (const [name, query] of Object.entries(queries)) {
  const sql = time(() => paged(query));
  const all = time(() => readAll(query));
  const same = JSON.stringify(sql.result.map((j) => j.id)) === JSON.stringify(all.result.map((j) => j.id));
  results[name] = { sqlPageMs: sql.ms, readAllMs: all.ms, jobs: sql.result.length, sameJobs: same };
}
store.close();
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({ bench: 'ogc-job-list-page', jobs: count, runs, node: process.version, results }));
