/**
 * The distributed queue under test: worker processes (`src/worker/main.ts` through tsx, optionally inside a
 * network namespace), a split-sized DEM cut from the fixture, a single-host reference run of the same job, and a
 * comparison of two output folders file by file.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { readRasterFromBuffer } from '../../../src/raster/index.js';
import { runSolWorkflow } from '../../../src/workflows/sol/index.js';
import type { WorkflowParams } from '../../../src/workflows/types.js';
import { jobProcesses, REPO_ROOT } from '../../server/serviceProcess.js';

/** Parameters of the test jobs: a coarse step keeps a whole year short. */
export const SPLIT_PARAMS = { step: '30', linke_value: '3', albedo_value: '0.2', num_threads: '1' };
const PARAMS: WorkflowParams = { step: 30, linke_value: 3, albedo_value: 0.2, num_threads: 1 };

/** A 120 × 110 window of the mcn_10m fixture (13 200 cells; a year takes a few seconds on one thread). */
export function makeSplitDem(dir: string): string {
  const path = join(dir, 'dem.tif');
  execFileSync('gdal_translate', ['-q', '-srcwin', '50', '50', '120', '110', join(REPO_ROOT, 'test/fixtures/mcn_10m.tif'), path]);
  return path;
}

/** The same job on one host, in this process: the reference the distributed run must equal (with `products` when given). */
export async function singleHostRun(demPath: string, outDir: string, products?: string): Promise<void> {
  await runSolWorkflow({ demPath, outDir, params: { ...PARAMS, ...(products !== undefined ? { products } : {}) } });
}

function filesUnder(dir: string): string[] {
  return (readdirSync(dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

/** Every GeoTIFF of `expectedDir` is in `actualDir` with the same values (byte-equal files pass at once). */
export async function assertSameProducts(actualDir: string, expectedDir: string): Promise<number> {
  const expected = filesUnder(expectedDir).filter((f) => f.endsWith('.tif'));
  assert.deepEqual(filesUnder(actualDir).filter((f) => f.endsWith('.tif')), expected, 'the same files');
  for (const file of expected) {
    const a = readFileSync(join(actualDir, file));
    const b = readFileSync(join(expectedDir, file));
    if (a.equals(b)) continue;
    const [ra, rb] = await Promise.all([readRasterFromBuffer(a), readRasterFromBuffer(b)]);
    assert.equal(ra.values.length, rb.values.length, file);
    for (let i = 0; i < rb.values.length; i++) {
      const x = ra.values[i]!;
      const y = rb.values[i]!;
      if (!(x === y || (Number.isNaN(x) && Number.isNaN(y)))) assert.fail(`${file}: cell ${i} is ${x}, single-host ${y}`);
    }
  }
  return expected.length;
}

export interface WorkerProcess {
  readonly pid: number;
  output(): string;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Ids of its job children (parts it is running). */
  jobChildren(): number[];
}

/** Starts `eemt worker` (from the sources) with `env`, inside `namespace` when given (`ip netns exec`, root). */
export function startWorker(env: Record<string, string>, namespace?: string): WorkerProcess {
  const node = [process.execPath, '--import', 'tsx', 'src/worker/main.ts'];
  const [file, ...args] = namespace ? ['ip', 'netns', 'exec', namespace, ...node] : node;
  const child = spawn(file!, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  return { pid: child.pid!, output: () => output, exit, jobChildren: () => jobProcesses(child.pid!) };
}

/** Kills every worker still running (SIGKILL) and waits for their exits. */
export async function killWorkers(workers: readonly WorkerProcess[]): Promise<void> {
  for (const worker of workers) {
    try {
      process.kill(worker.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
    await worker.exit;
  }
}

/** Environment of a worker on the data of `root` (as the service's), its Redis, a short lock for fast takeover. */
export function workerEnv(root: string, redisUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !/^(EEMT_|CONTAINER_)/.test(e[0])),
  );
  return {
    ...inherited,
    EEMT_REDIS_URL: redisUrl,
    EEMT_UPLOAD_DIR: join(root, 'uploads'),
    EEMT_RESULTS_DIR: join(root, 'results'),
    EEMT_TEMP_DIR: join(root, 'temp'),
    EEMT_CACHE_DIR: join(root, 'cache'),
    EEMT_RUNTIME: 'process',
    EEMT_WORKER_CONCURRENCY: '1',
    EEMT_WORKER_LOCK_MS: '3000',
    CONTAINER_CPU_LIMIT: '1',
    CONTAINER_MEMORY_LIMIT: '1G',
    ...extra,
  };
}
