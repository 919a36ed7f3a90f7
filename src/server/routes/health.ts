/** GET /health: liveness of the service and its job database. */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { JobStore } from '../../jobs/store/store.js';
import type { JobRuntime } from '../../runtime/types.js';

const Health = Type.Object({
  status: Type.Literal('ok'),
  version: Type.String(),
  runtime: Type.String(),
  uptime_seconds: Type.Number(),
  jobs: Type.Object({ pending: Type.Integer(), running: Type.Integer(), completed: Type.Integer(), failed: Type.Integer() }),
});

export default async function healthRoutes(
  app: FastifyInstance,
  { store, runtime, version }: { store: JobStore; runtime: JobRuntime; version: string },
) {
  app.get('/health', { schema: { summary: 'Service health', tags: ['system'], response: { 200: Health } } }, async () => ({
    status: 'ok' as const,
    version,
    runtime: runtime.name,
    uptime_seconds: Math.round(process.uptime()),
    jobs: store.countByStatus(),
  }));
}
