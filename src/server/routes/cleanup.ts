/** Retention cleanup: POST /api/cleanup and GET /api/cleanup/status. */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { CleanupRequest, CleanupService } from '../../jobs/cleanup/cleanup.js';
import { CleanupTimestamp, ErrorDetail } from '../schemas.js';

const CleanupBody = Type.Union(
  [
    Type.Object(
      {
        dry_run: Type.Optional(Type.Boolean({ description: 'Preview without deleting (default false)' })),
        success_retention_days: Type.Optional(Type.Integer({ minimum: 0, maximum: 36500, description: 'Days to keep data of completed jobs (default 7)' })),
        failed_retention_hours: Type.Optional(Type.Integer({ minimum: 0, maximum: 876000, description: 'Hours to keep data of failed jobs (default 12)' })),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  { description: 'Optional; with no body all defaults apply' },
);

const CleanupJobDetail = Type.Object({
  job_id: Type.String(),
  status: Type.String(),
  completed_at: CleanupTimestamp,
  data_deleted: Type.Boolean(),
  config_preserved: Type.Boolean({ description: 'Whether the job record is kept (completed jobs) or deleted (failed jobs)' }),
  size_freed_mb: Type.Number(),
});

const CleanupOrphanDetail = Type.Object({
  path: Type.String({ description: 'uploads/<id>, results/<id> or temp/<id>' }),
  job_id: Type.String(),
  reason: Type.String({ description: 'Why it belongs to no job: no job record, data deleted, job not running' }),
  size_freed_mb: Type.Number(),
  removed: Type.Boolean(),
});

const CleanupResult = Type.Object({
  success: Type.Boolean(),
  summary: Type.Object({
    start_time: CleanupTimestamp,
    end_time: CleanupTimestamp,
    dry_run: Type.Boolean(),
    successful_jobs_processed: Type.Integer(),
    failed_jobs_processed: Type.Integer(),
    total_size_freed_mb: Type.Number(),
    configs_preserved: Type.Integer(),
    configs_deleted: Type.Integer(),
    errors: Type.Array(Type.String()),
    job_details: Type.Array(CleanupJobDetail),
    orphaned_data: Type.Array(CleanupOrphanDetail, { description: 'Folders that belonged to no job (extension): removed, or listed by a dry run' }),
  }),
  timestamp: CleanupTimestamp,
});

const CleanupFailure = Type.Object({ success: Type.Literal(false), error: Type.String(), details: Type.String() });

const CleanupStatus = Type.Object({
  last_run: Type.Union([CleanupTimestamp, Type.Null()], { description: 'End of the last cleanup that was not a dry run; null if none' }),
  next_scheduled: Type.Union([CleanupTimestamp, Type.Null()], { description: 'Next automatic run; null when automatic cleanup is off' }),
  auto_cleanup_enabled: Type.Boolean(),
  retention_settings: Type.Object({ success_retention_days: Type.Integer(), failed_retention_hours: Type.Integer() }),
  disk_usage: Type.Object({ uploads_mb: Type.Number(), results_mb: Type.Number(), total_mb: Type.Number() }),
});

export default async function cleanupRoutes(app: FastifyInstance, { cleanup }: { cleanup: CleanupService }) {
  app.post(
    '/cleanup',
    {
      schema: {
        summary: 'Delete old job data by retention rules',
        description:
          'Completed jobs older than success_retention_days lose their files; their records are preserved. ' +
          'Failed jobs older than failed_retention_hours lose their files and records. Running and pending jobs are never touched.',
        tags: ['cleanup'],
        body: CleanupBody,
        response: { 200: CleanupResult, 422: ErrorDetail, 500: CleanupFailure },
      },
    },
    async (request, reply) => {
      try {
        return await cleanup.run((request.body ?? {}) as CleanupRequest);
      } catch (error) {
        request.log.error({ err: error }, 'cleanup failed');
        return reply.code(500).send({ success: false, error: 'Cleanup process failed', details: error instanceof Error ? error.message : String(error) });
      }
    },
  );

  app.get(
    '/cleanup/status',
    { schema: { summary: 'Cleanup schedule, retention and disk usage', tags: ['cleanup'], response: { 200: CleanupStatus } } },
    async () => cleanup.status(),
  );
}
