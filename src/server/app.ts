/**
 * The HTTP application: Fastify with the route plugins of the API (served under /api and /api/v1), the
 * documentation, the health check, and any extra plugins (browser pages). All dependencies are passed in.
 */
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyPluginAsync, type FastifyServerOptions } from 'fastify';
import { dirname, resolve } from 'node:path';
import type { CleanupService } from '../jobs/cleanup/cleanup.js';
import { DemChecker } from '../jobs/admission/demCheck.js';
import { StoreJobEvents, type JobEventSource } from '../jobs/queue/events.js';
import { UploadsInProgress } from '../jobs/queue/orphans.js';
import type { JobPaths } from '../jobs/store/paths.js';
import { JobPreviews } from '../jobs/catalogue/previews.js';
import { StacCatalogue } from '../jobs/catalogue/stacCatalogue.js';
import type { JobQueue } from '../jobs/queue/queue.js';
import type { JobStore } from '../jobs/store/store.js';
import type { JobRuntime } from '../runtime/types.js';
import { PACKAGE_VERSION } from '../util/version.js';
import type { ServiceConfig } from './config.js';
import { clientErrorHandler, frameworkErrors, installErrorHandlers } from './errors.js';
import { installJsonBodies } from './jsonBody/bodyParser.js';
import { strictQueryNumbers } from './queryNumbers.js';
import { EventStreams } from './eventStreams.js';
import { RequestLog } from './requestLog.js';
import { closeSlowBodies, drainUnreadBodies, httpServerOptions } from './requestBodies.js';
import cleanupRoutes from './routes/cleanup.js';
import docsRoutes from './routes/docs.js';
import eventRoutes from './routes/events.js';
import healthRoutes from './routes/health.js';
import ogcRoutes from './routes/ogc.js';
import jobRoutes from './routes/jobs.js';
import previewRoutes from './routes/previews.js';
import stacRoutes from './routes/stac.js';
import stacCatalogueRoutes from './routes/stacCatalogue.js';
import submitRoutes from './routes/submit.js';
import systemRoutes from './routes/system.js';
import { ErrorDetail } from './schemas.js';

/** API path prefixes: the unversioned paths of the specification and their /api/v1 aliases. */
const API_PREFIXES = ['/api', '/api/v1'] as const;

export interface AppDeps {
  readonly config: ServiceConfig;
  readonly store: JobStore;
  readonly runtime: JobRuntime;
  readonly scheduler: JobQueue;
  readonly cleanup: CleanupService;
  readonly paths: JobPaths;
  /** Extra plugins registered at the root (e.g. the browser pages). */
  readonly plugins?: readonly FastifyPluginAsync[];
  /** Fastify logger option (default: off). */
  readonly logger?: FastifyServerOptions['logger'];
  /** The submission's DEM check (default: limits from the configuration). */
  readonly demChecker?: DemChecker;
  /** Uploads being received, which the orphan sweep must leave alone. */
  readonly uploads?: UploadsInProgress;
  /** Where live job events come from (default: the job store's changes, which every queue keeps up to date). */
  readonly events?: JobEventSource;
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, store, runtime, scheduler, cleanup, paths } = deps;
  const requestLimits = { graceSeconds: config.requestTimeoutSeconds, minBytesPerSecond: config.minUploadBytesPerSecond };
  const app = Fastify({
    logger: deps.logger ?? false,
    // One line per request, at debug for health checks and static assets.
    logController: new RequestLog(),
    bodyLimit: 1024 * 1024,
    http: httpServerOptions(requestLimits),
    clientErrorHandler,
    frameworkErrors,
    // Job ids longer than a UUID reach the route (and are "Job not found"); longer segments are 414.
    routerOptions: { maxParamLength: 1000 },
    // No type coercion: a JSON body must carry the declared types (a cleanup with `"dry_run": null` is refused,
    // not run as a deletion); query-string numbers are converted strictly by strictQueryNumbers.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: true } },
  });
  installErrorHandlers(app);
  strictQueryNumbers(app);
  closeSlowBodies(app, requestLimits);
  drainUnreadBodies(app);
  const demChecker = deps.demChecker ?? new DemChecker({ maxCells: config.maxDemCells, log: (line) => app.log.warn(line) });
  const uploads = deps.uploads ?? new UploadsInProgress();
  const events = deps.events ?? new StoreJobEvents(store);
  const streams = new EventStreams({ maxStreams: config.maxEventStreams, maxStreamsPerJob: config.maxEventStreamsPerJob });
  // Open event streams would hold the shutdown until its grace period ends: they end first.
  app.addHook('preClose', async () => streams.closeAll());
  const previews = new JobPreviews(paths);
  const catalogue = new StacCatalogue(store, paths);
  const dataFolders = [
    { name: 'uploads', path: paths.dirs.uploadDir },
    { name: 'results', path: paths.dirs.resultsDir },
    { name: 'temp', path: paths.dirs.tempDir },
    { name: 'cache', path: paths.dirs.cacheDir },
    { name: 'database', path: dirname(resolve(config.dbPath)) },
  ];

  // JSON bodies, read with bounds while they arrive (an empty body counts as no body: POST /api/cleanup has an
  // optional one).
  installJsonBodies(app);

  await app.register(multipart, {
    limits: { fileSize: config.maxUploadBytes, files: 4, fields: 32, fieldSize: 64 * 1024, parts: 40 },
  });

  app.addSchema(ErrorDetail);
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'EEMT service',
        version: PACKAGE_VERSION,
        description:
          'Terrain solar radiation (sol) and EEMT (eemt) maps from a DEM GeoTIFF, as jobs. Every /api/... path is also ' +
          'served under /api/v1/.... Errors of job and submit endpoints have the body {detail}. Memory in the system ' +
          'status is in bytes.',
      },
      tags: [
        { name: 'jobs', description: 'Submitting and following jobs' },
        { name: 'previews', description: 'Map previews of completed jobs (PNG and legend)' },
        { name: 'system', description: 'Runtime status and health' },
        { name: 'cleanup', description: 'Retention cleanup of job data' },
        { name: 'stac', description: 'STAC API v1.0.0 catalogue of the completed jobs at /api/stac (Core, Collections, Features, Item Search)' },
        { name: 'ogc', description: 'OGC API – Processes – Part 1: Core (the same jobs, as processes sol, eemt and echo)' },
      ],
    },
  });
  await app.register(docsRoutes);

  const api: FastifyPluginAsync<{ hide: boolean }> = async (scope, { hide }) => {
    if (hide) {
      // The /api/v1 aliases are the same routes: documented once.
      scope.addHook('onRoute', (route) => {
        route.schema = { ...(route.schema ?? {}), hide: true };
      });
    }
    await scope.register(submitRoutes, { store, scheduler, runtime, paths, maxUploadBytes: config.maxUploadBytes, demChecker, uploads });
    await scope.register(jobRoutes, { store, scheduler, paths });
    await scope.register(eventRoutes, { events, streams, heartbeatMs: config.eventHeartbeatSeconds * 1000 });
    await scope.register(previewRoutes, { store, previews });
    await scope.register(stacRoutes, { store, paths, catalogue });
    await scope.register(stacCatalogueRoutes, { prefix: '/stac', catalogue, apiPrefix: scope.prefix });
    await scope.register(systemRoutes, { runtime, queue: scheduler, image: config.containerImage, folders: dataFolders });
    await scope.register(cleanupRoutes, { cleanup });
  };
  for (const prefix of API_PREFIXES) await app.register(api, { prefix, hide: prefix !== '/api' });

  await app.register(ogcRoutes, {
    prefix: '/ogc',
    store,
    scheduler,
    runtime,
    paths,
    demChecker,
    uploads,
    version: PACKAGE_VERSION,
    maxInlineBytes: config.ogcMaxInlineBytes,
    maxUploadBytes: config.maxUploadBytes,
    hrefAllow: config.ogcHrefAllow,
  });
  await app.register(healthRoutes, { store, runtime, version: PACKAGE_VERSION });
  // The catalogue where STAC clients look first: /stac and /stac/ lead to /api/stac.
  for (const path of ['/stac', '/stac/']) {
    app.route({ method: ['GET', 'HEAD'], url: path, schema: { hide: true }, handler: async (_request, reply) => reply.redirect('/api/stac', 308) });
  }
  for (const plugin of deps.plugins ?? []) await app.register(plugin);
  return app;
}
