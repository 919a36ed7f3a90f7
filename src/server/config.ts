/**
 * Service configuration, read only from environment variables (see the README's table).
 * Invalid values stop the service at start-up with a message naming the variable.
 */
import { isIP } from 'node:net';
import { resolveDaymetBaseUrl, resolveDaymetMaxPoints } from '../climate/daymetSettings.js';
import { DEFAULT_SPLIT_MIN_CELLS, DEFAULT_SPLIT_PARTS } from '../jobs/queue/partPlan.js';
import { MAX_TILE_SLICES } from '../workflows/partWork.js';
import { parseCpuLimit, parseMemorySize } from '../runtime/limits.js';
import type { RuntimeChoice } from '../runtime/select.js';
import { parseDecimal } from '../util/decimal.js';
import { demCellLimits, MAX_DEM_CELLS_SETTING, type DemCellLimits } from '../workflows/demLimits.js';

export interface ServiceConfig {
  readonly host: string;
  readonly port: number;
  readonly uploadDir: string;
  readonly resultsDir: string;
  readonly tempDir: string;
  readonly cacheDir: string;
  readonly dbPath: string;
  readonly containerImage: string;
  readonly cpuLimit: number;
  readonly memoryBytes: number;
  readonly runtime: RuntimeChoice;
  readonly maxConcurrentJobs: number;
  /** Upload size limit [bytes] (the specification recommends about 1 GB). */
  readonly maxUploadBytes: number;
  /** Time for a request's headers, and for its body before the minimum rate applies [s]. */
  readonly requestTimeoutSeconds: number;
  /** Lowest average rate of a request body after `requestTimeoutSeconds` [bytes/s]. */
  readonly minUploadBytesPerSecond: number;
  readonly successRetentionDays: number;
  readonly failedRetentionHours: number;
  /** Interval of the automatic cleanup [hours], or null when it is off. */
  readonly cleanupIntervalHours: number | null;
  /** Service log level (pino). */
  readonly logLevel: LogLevel;
  /** Daymet server of eemt jobs (passed on to the job through the environment). */
  readonly daymetUrl: string;
  /** Largest number of Daymet cells an eemt job may need. */
  readonly daymetMaxPoints: number;
  /** Largest DEM accepted per workflow [cells]: `EEMT_MAX_DEM_CELLS` for all, by default sized from the job memory limit. */
  readonly maxDemCells: DemCellLimits;
  /** Most open event streams (GET /api/jobs/{id}/events) of the service, and of one job. */
  readonly maxEventStreams: number;
  readonly maxEventStreamsPerJob: number;
  /** Interval of the event streams' heartbeats [s]. */
  readonly eventHeartbeatSeconds: number;
  /** Largest DEM sent inline (base64) to /ogc [bytes]; at most the upload limit. */
  readonly ogcMaxInlineBytes: number;
  /** URL prefixes /ogc may fetch a DEM `href` from; empty: references are refused (the default). */
  readonly ogcHrefAllow: readonly string[];
  /** `EEMT_REDIS_URL`: the distributed queue's Redis; absent or null runs jobs on this host (the embedded queue). */
  readonly redisUrl?: string | null;
  /** DEMs from this many cells are split into parts on the distributed queue (`EEMT_SPLIT_MIN_CELLS`). */
  readonly splitMinCells?: number;
  /** Parts of a split job (`EEMT_SPLIT_PARTS`). */
  readonly splitParts?: number;
}

/** A Redis URL (redis:// or rediss://), or null when the variable is unset. */
export function redisUrl(env: Env, name: string): string | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    /* reported below */
  }
  if (!url || !['redis:', 'rediss:'].includes(url.protocol) || !url.hostname || !/^\/?\d*$/.test(url.pathname)) {
    throw new ConfigError(`${name} must be a Redis URL such as redis://host:6379/0, got "${raw}"`);
  }
  return raw;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

function text(env: Env, name: string, fallback: string): string {
  const value = env[name]?.trim();
  return value ? value : fallback;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = parseDecimal(raw);
  if (value === null || !Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return raw as T;
}

/** A bind address: an IP address or a host name. */
function host(env: Env, name: string, fallback: string): string {
  const value = text(env, name, fallback);
  if (!isIP(value) && !/^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(value)) {
    throw new ConfigError(`${name} must be an IP address or a host name, got "${value}"`);
  }
  return value;
}

/** The Docker Engine address the Docker runtime's client reads (unix:///path, tcp://host:port, …), when set. */
function dockerHost(env: Env, name: string): void {
  const raw = env[name]?.trim();
  if (!raw) return;
  let protocol: string;
  try {
    protocol = new URL(raw).protocol;
  } catch {
    protocol = '';
  }
  if (!['unix:', 'tcp:', 'http:', 'https:', 'ssh:', 'npipe:'].includes(protocol)) {
    throw new ConfigError(`${name} must be a Docker Engine address such as unix:///var/run/docker.sock or tcp://host:2375, got "${raw}"`);
  }
}

/** Comma-separated http(s) URL prefixes; at least one (href inputs are only enabled together with an allow-list). */
function hrefAllowList(env: Env, name: string): string[] {
  const prefixes = (env[name] ?? '').split(',').map((p) => p.trim()).filter(Boolean);
  if (prefixes.length === 0) throw new ConfigError(`${name} must list the URL prefixes DEM references may come from when EEMT_OGC_HREF_INPUTS is on`);
  for (const prefix of prefixes) {
    let url: URL | null = null;
    try {
      url = new URL(prefix);
    } catch {
      // refused below
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) {
      throw new ConfigError(`${name} must be http(s) URL prefixes separated by commas, got "${prefix}"`);
    }
  }
  return prefixes;
}

function wrap<T>(name: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new ConfigError(message.startsWith(name) ? message : `${name}: ${message}`);
  }
}

export function configFromEnv(env: Env = process.env): ServiceConfig {
  const runtime = text(env, 'EEMT_RUNTIME', 'auto');
  if (!['auto', 'docker', 'bubblewrap', 'process'].includes(runtime)) {
    throw new ConfigError(`EEMT_RUNTIME must be auto, docker, bubblewrap or process, got "${runtime}"`);
  }
  dockerHost(env, 'DOCKER_HOST');
  const memoryBytes = wrap('CONTAINER_MEMORY_LIMIT', () => parseMemorySize(text(env, 'CONTAINER_MEMORY_LIMIT', '8G')));
  return {
    host: host(env, 'EEMT_HOST', '127.0.0.1'),
    port: integer(env, 'EEMT_PORT', 5000, 0, 65535),
    uploadDir: text(env, 'EEMT_UPLOAD_DIR', './uploads'),
    resultsDir: text(env, 'EEMT_RESULTS_DIR', './results'),
    tempDir: text(env, 'EEMT_TEMP_DIR', './temp'),
    cacheDir: text(env, 'EEMT_CACHE_DIR', './cache'),
    dbPath: text(env, 'EEMT_DB_PATH', './jobs.db'),
    containerImage: text(env, 'CONTAINER_IMAGE', 'eemt:ubuntu24.04'),
    cpuLimit: wrap('CONTAINER_CPU_LIMIT', () => {
      const raw = text(env, 'CONTAINER_CPU_LIMIT', '4');
      if (parseDecimal(raw) === null) throw new Error(`invalid CPU limit "${raw}"`);
      return parseCpuLimit(raw);
    }),
    memoryBytes,
    runtime: runtime as RuntimeChoice,
    maxConcurrentJobs: integer(env, 'EEMT_MAX_CONCURRENT_JOBS', 1, 1, 64),
    maxUploadBytes: integer(env, 'EEMT_MAX_UPLOAD_MB', 2048, 1, 1_048_576) * 1024 * 1024,
    requestTimeoutSeconds: integer(env, 'EEMT_REQUEST_TIMEOUT_S', 30, 1, 3600),
    minUploadBytesPerSecond: integer(env, 'EEMT_MIN_UPLOAD_KIB_PER_S', 16, 1, 1_048_576) * 1024,
    successRetentionDays: integer(env, 'EEMT_SUCCESS_RETENTION_DAYS', 7, 0, 36500),
    failedRetentionHours: integer(env, 'EEMT_FAILED_RETENTION_HOURS', 12, 0, 876000),
    cleanupIntervalHours: boolean(env, 'EEMT_AUTO_CLEANUP', true) ? integer(env, 'EEMT_CLEANUP_INTERVAL_HOURS', 6, 1, 8760) : null,
    logLevel: oneOf(env, 'EEMT_LOG_LEVEL', 'info', LOG_LEVELS),
    // The job child reads these two from its environment again; checking them here means a bad value stops the
    // service at start-up instead of failing every eemt submission or job later.
    daymetUrl: wrap('EEMT_DAYMET_URL', () => resolveDaymetBaseUrl(undefined, env)),
    daymetMaxPoints: integer(env, 'EEMT_DAYMET_MAX_POINTS', resolveDaymetMaxPoints(undefined, {}), 1, 1_000_000),
    maxDemCells: demCellLimits(memoryBytes, env[MAX_DEM_CELLS_SETTING]?.trim() ? integer(env, MAX_DEM_CELLS_SETTING, 0, 9, Number.MAX_SAFE_INTEGER) : null),
    redisUrl: redisUrl(env, 'EEMT_REDIS_URL'),
    splitMinCells: integer(env, 'EEMT_SPLIT_MIN_CELLS', DEFAULT_SPLIT_MIN_CELLS, 1, Number.MAX_SAFE_INTEGER),
    splitParts: integer(env, 'EEMT_SPLIT_PARTS', DEFAULT_SPLIT_PARTS, 1, MAX_TILE_SLICES),
    maxEventStreams: integer(env, 'EEMT_MAX_EVENT_STREAMS', 200, 1, 100_000),
    maxEventStreamsPerJob: integer(env, 'EEMT_MAX_EVENT_STREAMS_PER_JOB', 20, 1, 100_000),
    eventHeartbeatSeconds: integer(env, 'EEMT_EVENT_HEARTBEAT_S', 15, 1, 3600),
    ogcMaxInlineBytes: integer(env, 'EEMT_OGC_MAX_INLINE_MB', 100, 1, 384) * 1024 * 1024,
    ogcHrefAllow: boolean(env, 'EEMT_OGC_HREF_INPUTS', false) ? hrefAllowList(env, 'EEMT_OGC_HREF_ALLOW') : [],
  };
}
