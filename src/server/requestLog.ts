/**
 * The request log: one line per answered request (method, path, status, time), instead of Fastify's two. Requests
 * that monitoring and browsers repeat all the time — the health check and the pages' static assets — are logged at
 * `debug`, everything else at `info`, so a service polled every second keeps a readable log at the default level.
 * Fastify's other log lines (errors, routes not found) are unchanged.
 */
import { echoed } from '../util/echoed.js';
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/** Routes whose requests are logged at debug: the health check and static assets. */
const QUIET_ROUTES: ReadonlySet<string> = new Set(['/health', '/assets/:name', '/favicon.ico', '/docs/static/*']);

export class RequestLog extends LogController {
  /** Nothing when a request arrives: its one line is written when it is answered. */
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    // a path may be any length a client sends: the log gets its start, as error messages do
    const url = echoed(request.url);
    const line = {
      req: { method: request.method, url, remoteAddress: request.ip },
      res: { statusCode: reply.statusCode },
      responseTime: Math.round(reply.elapsedTime * 10) / 10,
      ...(error ? { err: error } : {}),
    };
    if (error) reply.log.error(line, 'request errored');
    else if (QUIET_ROUTES.has(request.routeOptions.url ?? '')) reply.log.debug(line, 'request completed');
    else reply.log.info(line, 'request completed');
  }
}
