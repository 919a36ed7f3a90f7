/**
 * GET /api/system/status: the job runtime and the machine it runs jobs on (or the workers, on the distributed queue),
 * and the free space of the service's data folders.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { folderSpace } from '../../jobs/admission/diskSpace.js';
import type { JobQueue } from '../../jobs/queue/queue.js';
import type { JobRuntime } from '../../runtime/types.js';

const Worker = Type.Object({
  id: Type.String({ description: 'Worker id (host and process id)' }),
  host: Type.String({ description: 'Host name of the worker' }),
  cpus: Type.Integer({ description: 'CPUs of its host' }),
  running: Type.Integer({ description: 'Job parts it is running now' }),
  last_seen: Type.String({ description: 'Time of its last heartbeat (UTC)' }),
});

const StorageFolder = Type.Object({
  name: Type.String({ description: 'uploads, results, temp, cache or database (the folder of the job database)' }),
  path: Type.String({ description: 'The folder, as the service sees it' }),
  free_bytes: Type.Union([Type.Integer(), Type.Null()], { description: 'Free space of its file system that the service may write [bytes]; null when it cannot be read' }),
  total_bytes: Type.Union([Type.Integer(), Type.Null()], { description: 'Size of its file system [bytes]; null when it cannot be read' }),
  error: Type.Optional(Type.String({ description: 'Why its space cannot be read (only then)' })),
});

/** A data folder of the service, by name. */
export interface DataFolder {
  readonly name: string;
  readonly path: string;
}

/** The free and total space of each folder (an unreadable one with its error instead). */
async function storageOf(folders: readonly DataFolder[]) {
  return Promise.all(
    folders.map(async ({ name, path }) => {
      try {
        const space = await folderSpace(path);
        return { name, path, free_bytes: space.freeBytes, total_bytes: space.totalBytes };
      } catch (error) {
        return { name, path, free_bytes: null, total_bytes: null, error: error instanceof Error ? error.message : String(error) };
      }
    }),
  );
}

const SystemStatus = Type.Object({
  container_available: Type.Boolean({ description: 'Whether the job runtime (on the distributed queue: any live worker) can start jobs' }),
  container_stats: Type.Optional(
    Type.Object({
      total_containers: Type.Integer({ description: 'Job containers/sandboxes that exist' }),
      running_jobs: Type.Array(Type.String(), { description: 'Names of running job containers/sandboxes, eemt-job-<job id>' }),
      system_stats: Type.Object({
        cpus: Type.Integer({ description: 'CPUs of the machine (Docker host) running jobs; of all workers on the distributed queue' }),
        memory: Type.Integer({ description: 'Total memory of that machine [bytes]; of all workers on the distributed queue' }),
        containers_running: Type.Integer({ description: 'Running containers (all, for Docker) or job sandboxes' }),
      }),
    }),
  ),
  image_name: Type.String({ description: 'Workflow container image (CONTAINER_IMAGE)' }),
  runtime: Type.String({ description: 'Active runtime: docker, bubblewrap or process (no isolation)' }),
  isolated: Type.Boolean({ description: 'Whether jobs run isolated from the service (false for process)' }),
  workers: Type.Optional(Type.Array(Worker, { description: 'Live workers of the distributed queue (EEMT_REDIS_URL only)' })),
  error: Type.Optional(Type.String({ description: 'Why the runtime is not reachable (only when unavailable)' })),
  storage: Type.Array(StorageFolder, {
    description: 'Free space of the data folders (extension): uploads, results (job outputs: jobs are refused with 507 when theirs would not fit), temp, cache and database',
  }),
});

export default async function systemRoutes(
  app: FastifyInstance,
  { runtime, queue, image, folders }: { runtime: JobRuntime; queue: JobQueue; image: string; folders: readonly DataFolder[] },
) {
  app.get(
    '/system/status',
    { schema: { summary: 'Runtime and system status', tags: ['system'], response: { 200: SystemStatus } } },
    async () => {
      const [status, storage] = await Promise.all([queue.status(), storageOf(folders)]);
      const workers = status.workers?.map(({ id, host, cpus, running, last_seen }) => ({ id, host, cpus, running, last_seen }));
      const base = { image_name: image, runtime: runtime.name, isolated: runtime.isolated, ...(workers ? { workers } : {}), storage };
      if (!status.available) {
        const where = workers ? 'job queue' : `${runtime.name} runtime`;
        return { container_available: false, error: `${where} not reachable: ${status.error ?? 'unknown reason'}`, ...base };
      }
      return {
        container_available: true,
        container_stats: {
          total_containers: status.totalContainers,
          running_jobs: [...status.runningJobs],
          system_stats: { cpus: Math.round(status.cpus), memory: Math.round(status.memoryBytes), containers_running: status.containersRunning },
        },
        ...base,
      };
    },
  );
}
