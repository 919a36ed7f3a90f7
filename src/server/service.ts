/**
 * Wiring: job store, runtime, scheduler, cleanup and the HTTP app, from a configuration.
 *
 * Start-up order (a second service on the same data must change nothing): lock the database and data folders
 * (`ServiceLock.forService`, ServiceLockedError when another service holds them; main.ts takes the lock before it
 * loads this module, `createService` when it is not given one) → open the database and build the app →
 * bind the port (`listen`, which fails with EADDRINUSE before any job is touched) → recover interrupted jobs and
 * start the queue and the cleanup timer → serve (requests that arrive during recovery wait for its end).
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyServerOptions } from 'fastify';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { CleanupService } from '../jobs/cleanup/cleanup.js';
import type { DemChecker } from '../jobs/admission/demCheck.js';
import { UploadsInProgress } from '../jobs/queue/orphans.js';
import { JobPaths } from '../jobs/store/paths.js';
import type { JobQueue } from '../jobs/queue/queue.js';
import { DEFAULT_SPLIT_MIN_CELLS, DEFAULT_SPLIT_PARTS } from '../jobs/queue/partPlan.js';
import { JobScheduler } from '../jobs/queue/scheduler.js';
import { ServiceLock } from '../jobs/store/serviceLock.js';
import { JobStore } from '../jobs/store/store.js';
import { selectRuntime } from '../runtime/select.js';
import type { JobRuntime } from '../runtime/types.js';
import { buildApp } from './app.js';
import type { ServiceConfig } from './config.js';

/** How long a shutdown waits for requests in flight before it closes their connections [ms]. */
const SHUTDOWN_GRACE_MS = 3000;

export interface Service {
  readonly app: FastifyInstance;
  readonly store: JobStore;
  readonly runtime: JobRuntime;
  readonly scheduler: JobQueue;
  readonly cleanup: CleanupService;
  readonly paths: JobPaths;
  /** Notes on the runtime choice (why faster runtimes were skipped). */
  readonly runtimeNotes: readonly string[];
  /** Binds the port, then recovers interrupted jobs and starts the queue and the cleanup timer. Returns the address. */
  listen(options: { host: string; port: number }): Promise<string>;
  /**
   * Stops the HTTP server (requests in flight get a few seconds), the cleanup timer and running jobs, then closes
   * the database and releases the locks.
   */
  close(): Promise<void>;
}

export interface ServiceOptions {
  /** A runtime to use instead of selecting one from the configuration (tests). */
  readonly runtime?: JobRuntime;
  readonly plugins?: readonly FastifyPluginAsync[];
  readonly logger?: FastifyServerOptions['logger'];
  /** A DEM check to use instead of one with the configuration's limits (tests). */
  readonly demChecker?: DemChecker;
  /**
   * The lock of the configuration's database and folders (`ServiceLock.forService(config)`), taken before this
   * module was loaded (main.ts, so that a refused service answers at once); the service owns it from here on.
   */
  readonly lock?: ServiceLock;
}

export async function createService(config: ServiceConfig, options: ServiceOptions = {}): Promise<Service> {
  const paths = new JobPaths(config);
  const lock = options.lock ?? ServiceLock.forService(config);
  let store: JobStore | null = null;
  try {
    for (const dir of Object.values(paths.dirs)) mkdirSync(dir, { recursive: true });
    store = new JobStore(config.dbPath);
    return await assemble(config, options, paths, store, lock);
  } catch (error) {
    store?.close();
    lock.release();
    throw error;
  }
}

async function assemble(config: ServiceConfig, options: ServiceOptions, paths: JobPaths, store: JobStore, lock: ServiceLock): Promise<Service> {
  const dbPath = resolve(config.dbPath);
  let runtime = options.runtime;
  let runtimeNotes: string[] = [];
  if (!runtime) {
    const selected = await selectRuntime({
      choice: config.runtime,
      limits: { cpus: config.cpuLimit, memoryBytes: config.memoryBytes, maxDemCells: config.maxDemCells },
      image: config.containerImage,
      // What a sandboxed job must not see: every job's data and the job database.
      hiddenPaths: [paths.dirs.uploadDir, paths.dirs.resultsDir, paths.dirs.tempDir, dbPath, `${dbPath}-wal`, `${dbPath}-shm`],
      jobFolders: Object.values(paths.dirs),
    });
    runtime = selected.runtime;
    runtimeNotes = selected.notes;
  }

  const logger = {
    info: (message: string) => app.log.info(message),
    error: (message: string) => app.log.error(message),
  };
  // The distributed queue's modules (BullMQ, ioredis: ≈ 0.2 s) are loaded only when it is configured.
  const scheduler: JobQueue = config.redisUrl
    ? new (await import('../jobs/queue/redisQueue.js')).RedisJobQueue({
        store,
        paths,
        redisUrl: config.redisUrl,
        split: { minCells: config.splitMinCells ?? DEFAULT_SPLIT_MIN_CELLS, parts: config.splitParts ?? DEFAULT_SPLIT_PARTS },
        logger,
      })
    : new JobScheduler({ store, runtime, paths, maxConcurrent: config.maxConcurrentJobs, logger });
  const uploads = new UploadsInProgress();
  const cleanup = new CleanupService({
    store,
    paths,
    isBusy: (id) => scheduler.isActive(id) || uploads.has(id),
    defaults: { success_retention_days: config.successRetentionDays, failed_retention_hours: config.failedRetentionHours },
    intervalMs: config.cleanupIntervalHours === null ? null : config.cleanupIntervalHours * 3_600_000,
    logger,
  });
  const app = await buildApp({
    config,
    store,
    runtime,
    scheduler,
    cleanup,
    paths,
    ...(options.plugins ? { plugins: options.plugins } : {}),
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
    ...(options.demChecker ? { demChecker: options.demChecker } : {}),
    uploads,
  });

  // Requests that arrive between binding the port and the end of start-up recovery wait for it, so nobody sees a
  // job as running that the recovery is about to mark failed, or a folder it is about to remove.
  let startupDone: () => void = () => undefined;
  const startup = new Promise<void>((resolve) => (startupDone = resolve));
  app.addHook('onRequest', async () => {
    await startup;
  });

  let closed = false;
  return {
    app,
    store,
    runtime,
    scheduler,
    cleanup,
    paths,
    runtimeNotes,
    async listen({ host, port }) {
      const address = await app.listen({ host, port });
      lock.setAddress(address);
      // Before any job starts: folders left by a crash (partial uploads, scratch space of interrupted jobs).
      const orphans = await cleanup.removeOrphans();
      if (orphans.length > 0) logger.info(`start-up: removed ${orphans.length} folders that belonged to no job: ${orphans.map((o) => o.path).join(', ')}`);
      await scheduler.start();
      cleanup.startSchedule();
      startupDone();
      return address;
    },
    async close() {
      if (closed) return;
      closed = true;
      startupDone();
      cleanup.stopSchedule();
      const force = setTimeout(() => app.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
      try {
        await app.close();
      } finally {
        clearTimeout(force);
      }
      await scheduler.close();
      store.close();
      lock.release();
    },
  };
}
