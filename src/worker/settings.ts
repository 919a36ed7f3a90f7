/**
 * Settings of `eemt worker`, from the environment: the Redis of the distributed queue, the data folders (the
 * service's, at the same paths on shared storage), parts at once, the job runtime and its limits, and the part
 * lock. Names and defaults are the service's where they mean the same thing.
 */
import { DEFAULT_LOCK_MS } from '../jobs/queue/distributed.js';
import type { DataDirs } from '../jobs/store/paths.js';
import { parseCpuLimit, parseMemorySize } from '../runtime/limits.js';
import type { RuntimeChoice } from '../runtime/select.js';
import { parseDecimal } from '../util/decimal.js';
import { demCellLimits, MAX_DEM_CELLS_SETTING, type DemCellLimits } from '../workflows/demLimits.js';

export interface WorkerSettings {
  readonly redisUrl: string;
  readonly dirs: DataDirs;
  /** `EEMT_WORKER_CONCURRENCY`: parts run at once (default 1). */
  readonly concurrency: number;
  readonly runtime: RuntimeChoice;
  readonly containerImage: string;
  readonly cpuLimit: number;
  readonly memoryBytes: number;
  /** `EEMT_MAX_DEM_CELLS` or the defaults of the memory limit: the largest DEM its jobs read, per workflow (as on the service). */
  readonly maxDemCells: DemCellLimits;
  /** `EEMT_WORKER_LOCK_MS`: a part's lock; a dead worker's parts go to others once it expires. */
  readonly lockMs: number;
}

export class WorkerSettingsError extends Error {
  override name = 'WorkerSettingsError';
}

type Env = Record<string, string | undefined>;

const text = (env: Env, name: string, fallback: string) => env[name]?.trim() || fallback;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = parseDecimal(raw);
  if (value === null || !Number.isInteger(value) || value < min || value > max) {
    throw new WorkerSettingsError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function parsed<T>(name: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new WorkerSettingsError(`${name}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

export function workerSettingsFromEnv(env: Env = process.env): WorkerSettings {
  const redisUrl = env.EEMT_REDIS_URL?.trim();
  if (!redisUrl) throw new WorkerSettingsError('EEMT_REDIS_URL must name the Redis of the job queue, such as redis://host:6379/0');
  if (!/^rediss?:\/\/[^/]+(\/\d*)?$/.test(redisUrl)) throw new WorkerSettingsError(`EEMT_REDIS_URL must be a Redis URL such as redis://host:6379/0, got "${redisUrl}"`);
  const runtime = text(env, 'EEMT_RUNTIME', 'auto');
  if (!['auto', 'docker', 'bubblewrap', 'process'].includes(runtime)) {
    throw new WorkerSettingsError(`EEMT_RUNTIME must be auto, docker, bubblewrap or process, got "${runtime}"`);
  }
  const memoryBytes = parsed('CONTAINER_MEMORY_LIMIT', () => parseMemorySize(text(env, 'CONTAINER_MEMORY_LIMIT', '8G')));
  const explicitCells = env[MAX_DEM_CELLS_SETTING]?.trim() ? integer(env, MAX_DEM_CELLS_SETTING, 0, 9, Number.MAX_SAFE_INTEGER) : null;
  return {
    redisUrl,
    dirs: {
      uploadDir: text(env, 'EEMT_UPLOAD_DIR', './uploads'),
      resultsDir: text(env, 'EEMT_RESULTS_DIR', './results'),
      tempDir: text(env, 'EEMT_TEMP_DIR', './temp'),
      cacheDir: text(env, 'EEMT_CACHE_DIR', './cache'),
    },
    concurrency: integer(env, 'EEMT_WORKER_CONCURRENCY', 1, 1, 64),
    runtime: runtime as RuntimeChoice,
    containerImage: text(env, 'CONTAINER_IMAGE', 'eemt:ubuntu24.04'),
    cpuLimit: parsed('CONTAINER_CPU_LIMIT', () => parseCpuLimit(text(env, 'CONTAINER_CPU_LIMIT', '4'))),
    memoryBytes,
    maxDemCells: demCellLimits(memoryBytes, explicitCells),
    lockMs: integer(env, 'EEMT_WORKER_LOCK_MS', DEFAULT_LOCK_MS, 1000, 3_600_000),
  };
}
