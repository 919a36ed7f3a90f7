/** GET /api/system/status: the job runtime and the machine it runs jobs on. */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { JobRuntime } from '../../runtime/types.js';

export const SystemStatus = Type.Object({
  container_available: Type.Boolean({ description: 'Whether the job runtime can start jobs' }),
  container_stats: Type.Optional(
    Type.Object({
      total_containers: Type.Integer({ description: 'Job containers/sandboxes that exist' }),
      running_jobs: Type.Array(Type.String(), { description: 'Names of running job containers/sandboxes, eemt-job-<job id>' }),
      system_stats: Type.Object({
        cpus: Type.Integer({ description: 'CPUs of the machine (Docker host) running jobs' }),
        memory: Type.Integer({ description: 'Total memory of that machine [bytes]' }),
        containers_running: Type.Integer({ description: 'Running containers (all, for Docker) or job sandboxes' }),
      }),
    }),
  ),
  image_name: Type.String({ description: 'Workflow container image (CONTAINER_IMAGE)' }),
  runtime: Type.String({ description: 'Active runtime: docker, bubblewrap or process (no isolation)' }),
  isolated: Type.Boolean({ description: 'Whether jobs run isolated from the service (false for process)' }),
  error: Type.Optional(Type.String({ description: 'Why the runtime is not reachable (only when unavailable)' })),
});

export default async function systemRoutes(app: FastifyInstance, { runtime, image }: { runtime: JobRuntime; image: string }) {
  app.get(
    '/system/status',
    { schema: { summary: 'Runtime and system status', tags: ['system'], response: { 200: SystemStatus } } },
    async () => {
      const status = await runtime.status();
      const base = { image_name: image, runtime: runtime.name, isolated: runtime.isolated };
      if (!status.available) {
        return { container_available: false, error: `${runtime.name} runtime not reachable: ${status.error ?? 'unknown reason'}`, ...base };
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
