/**
 * GET /jobs/{id}/events: a job's progress as Server-Sent Events (text/event-stream), until it ends.
 * The events come from the job layer (`followJob` over a `JobEventSource`); this route only frames them, sends
 * heartbeats, and bounds and releases the streams.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { followJob, isFinal, type JobEvent, type JobEventSource } from '../../jobs/queue/events.js';
import { HttpError, notFound } from '../errors.js';
import type { EventStreams } from '../eventStreams.js';
import { ErrorDetail, JobIdParams } from '../schemas.js';

/** How long a browser waits before reconnecting after a dropped stream [ms] (the SSE `retry:` field). */
const RECONNECT_MS = 3000;

export interface EventRoutesDeps {
  readonly events: JobEventSource;
  readonly streams: EventStreams;
  /** Interval of the heartbeat comments, which also re-read the job [ms]. */
  readonly heartbeatMs: number;
}

const EventsQuery = Type.Object({
  last_event_id: Type.Optional(
    Type.String({ description: 'Resume after this event id, for clients that cannot send the Last-Event-ID header' }),
  ),
});

/** A revision from Last-Event-ID (header or query); null when absent or not a decimal integer. */
function resumePoint(header: string | string[] | undefined, query: string | undefined): number | null {
  const raw = (Array.isArray(header) ? header[0] : header) ?? query;
  if (raw === undefined || !/^\d{1,15}$/.test(raw.trim())) return null;
  return Number(raw.trim());
}

/** One event in the text/event-stream format. */
function formatEvent(event: JobEvent): string {
  return `${event.id === null ? '' : `id: ${event.id}\n`}event: ${event.type}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

export default async function eventRoutes(app: FastifyInstance, { events, streams, heartbeatMs }: EventRoutesDeps) {
  app.get(
    '/jobs/:job_id/events',
    {
      schema: {
        summary: 'Follow a job live (Server-Sent Events)',
        description:
          'A text/event-stream of the job: first its current state (event `status`), then `progress` events (progress ' +
          'rises, or the message changes; at most four a second, each with the state of its moment) and `status` events (pending → running), and at the end one `completed` or ' +
          '`failed` event, after which the stream ends (`deleted` if the job is deleted meanwhile). Every event has ' +
          '`id:` (the job record\'s revision, which only rises) and JSON data `{job_id, status, progress, message, ' +
          'error_message}`. A comment line (`: heartbeat`) is sent every EEMT_EVENT_HEARTBEAT_S seconds. A client ' +
          'that reconnects with `Last-Event-ID` (or `?last_event_id=`) gets only newer events: the current state when ' +
          'it has changed since; for a job that has ended since the answer is its final event, and 204 when the ' +
          'client already has it. Open streams are limited (EEMT_MAX_EVENT_STREAMS, EEMT_MAX_EVENT_STREAMS_PER_JOB): ' +
          'over the limit the answer is 503 and the client should poll GET /api/jobs/{id}.',
        tags: ['jobs'],
        params: JobIdParams,
        querystring: EventsQuery,
        produces: ['text/event-stream'],
        response: {
          200: Type.String({ description: 'text/event-stream' }),
          204: Type.Null({ description: 'The job has ended and the client has its final event' }),
          404: ErrorDetail,
          503: ErrorDetail,
        },
      },
    },
    async (request, reply) => {
      const { job_id } = request.params as { job_id: string };
      const current = events.snapshot(job_id) ?? notFound('Job not found');
      const after = resumePoint(request.headers['last-event-id'], (request.query as { last_event_id?: string }).last_event_id);
      // A client that has the final event must not reconnect: 204 tells EventSource to stop.
      if (after !== null && isFinal(current.status) && after >= current.revision) return reply.code(204).send();

      const raw = reply.raw;
      let heartbeat: NodeJS.Timeout | null = null;
      let follower: { stop(): void; poll(): void } | null = null;
      let finished = false;
      const finish = () => {
        if (finished) return;
        finished = true;
        if (heartbeat) clearInterval(heartbeat);
        follower?.stop();
        admission.release?.();
        if (!raw.writableEnded) raw.end();
      };
      const admission: { release?: () => void; refused?: string } = streams.admit(current.id, finish);
      if (admission.refused) {
        reply.header('Retry-After', String(Math.ceil(RECONNECT_MS / 1000)));
        throw new HttpError(503, admission.refused);
      }

      reply.hijack();
      raw.writeHead(200, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-cache, no-transform',
        Connection: 'keep-alive',
        'X-Accel-Buffering': 'no',
        'X-Content-Type-Options': 'nosniff',
      });
      raw.write(`retry: ${RECONNECT_MS}\n\n`);
      // The response closes when the client goes away (or the stream ends): everything of the stream is released.
      raw.on('close', finish);
      follower = followJob(events, current.id, after, (event) => {
        if (!finished) raw.write(formatEvent(event));
      }, finish);
      if (!finished) {
        heartbeat = setInterval(() => {
          raw.write(': heartbeat\n\n');
          // Changes made where this process is not told of them (another process on the same database) are seen here.
          follower?.poll();
        }, heartbeatMs);
      }
    },
  );
}
