/**
 * Request bodies and their connections.
 *
 * Slow request bodies are closed, so a client that drips an upload (a few bytes every few seconds) cannot hold a
 * connection, a parser and an upload file for ever. The rule is that of Apache's mod_reqtimeout: a body gets
 * `graceSeconds`, plus the time its bytes so far take at `minBytesPerSecond`; a body still incomplete after that
 * is answered with 408 and its connection closed. A fast upload of any size is never cut; a body that stops or
 * crawls is closed soon after the grace period. Headers get the same time (`headersTimeout`, see `httpServerOptions`).
 *
 * A request answered before its body was read to the end (an error found early, e.g. a multipart body with an
 * empty boundary) has the rest of its body drained, so its keep-alive connection can carry the next request
 * instead of stalling until the slow-body rule closes it. After a 413, or a body its parser refused (a JSON body
 * over a bound), the connection is closed instead, so a client cannot make the service read an oversized or
 * hostile body to its end: nothing more is read, the answer is sent and the connection half-closed at once, and
 * the socket is destroyed a moment later (`REFUSED_BODY_LINGER_MS`). Destroying it at once, with the client's
 * bytes unread, would send a reset that can reach the client before it has read the answer (clients that are
 * still sending then see EPIPE instead of the 400 or 413).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** How long the connection of a refused body stays open after its answer, unread, before it is destroyed [ms]. */
const REFUSED_BODY_LINGER_MS = 2000;

export interface SlowRequestLimits {
  /** Time every request body gets before the rate applies, and the limit for receiving the headers [s]. */
  readonly graceSeconds: number;
  /** Lowest average rate of a request body after the grace period [bytes/s]. */
  readonly minBytesPerSecond: number;
}

const closedForSlowness = new WeakSet<IncomingMessage>();

/** Whether the service closed this request because its body arrived too slowly. */
export function closedAsTooSlow(request: FastifyRequest): boolean {
  return closedForSlowness.has(request.raw);
}

function hasBody(raw: IncomingMessage): boolean {
  const length = raw.headers['content-length'];
  return raw.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function timeoutResponse(detail: string): string {
  const body = JSON.stringify({ detail });
  return (
    'HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

/** Node's HTTP server options for the headers: complete within the grace period, checked at least every 15 s. */
export function httpServerOptions(limits: SlowRequestLimits): { headersTimeout: number; connectionsCheckingInterval: number } {
  const graceMs = limits.graceSeconds * 1000;
  return { headersTimeout: graceMs, connectionsCheckingInterval: Math.min(15_000, Math.max(250, graceMs / 4)) };
}

export function closeSlowBodies(app: FastifyInstance, limits: SlowRequestLimits): void {
  const graceMs = limits.graceSeconds * 1000;

  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    if (raw.complete || !hasBody(raw)) return done();
    const socket = raw.socket;
    const started = Date.now();
    const bytesBefore = socket.bytesRead;
    let timer: NodeJS.Timeout;

    const check = () => {
      if (raw.complete || socket.destroyed) return;
      const received = socket.bytesRead - bytesBefore;
      const deadline = started + graceMs + (received / limits.minBytesPerSecond) * 1000;
      const now = Date.now();
      if (now < deadline) {
        timer = setTimeout(check, Math.max(deadline - now, 250)).unref();
        return;
      }
      const seconds = Math.round((now - started) / 1000);
      const detail =
        `Request body arrived too slowly (${received} bytes in ${seconds} s; after the first ${limits.graceSeconds} s ` +
        `at least ${Math.round(limits.minBytesPerSecond / 1024)} KiB/s are needed)`;
      request.log.info({ received, seconds }, 'closing a request whose body arrives too slowly');
      closedForSlowness.add(raw);
      // The handler may still be waiting for the body: answer on the socket itself and close it, so the
      // upload fails as a client abort does and its file is removed at once.
      if (!reply.raw.headersSent) socket.write(timeoutResponse(detail));
      socket.destroySoon();
    };

    timer = setTimeout(check, graceMs).unref();
    // A body still arriving after an early answer (a 413) keeps its deadline; a finished one needs no timer.
    reply.raw.once('close', () => {
      if (raw.complete) clearTimeout(timer);
    });
    done();
  });
}

/**
 * Node closes a `Connection: close` response's socket with `destroySoon` once the answer is written: here the
 * socket is half-closed then, and destroyed only after the linger time (or when it closes first).
 */
function lingerBeforeClosing(socket: Socket): void {
  socket.destroySoon = function lingeringClose(this: Socket) {
    if (this.writable) this.end();
    const timer = setTimeout(() => this.destroy(), REFUSED_BODY_LINGER_MS).unref();
    this.once('close', () => clearTimeout(timer));
  };
}

export function drainUnreadBodies(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply) => {
    const raw = request.raw;
    if (raw.complete) return;
    // Fastify sets `Connection: close` when a body parser failed (a refused JSON body).
    if (reply.statusCode === 413 || String(reply.getHeader('connection')).toLowerCase() === 'close') {
      reply.header('connection', 'close');
      refusedBodies.add(raw);
      raw.unpipe();
      raw.pause();
      lingerBeforeClosing(raw.socket);
    }
  });
  app.addHook('onResponse', async (request) => {
    const raw = request.raw;
    // Unread and paused (a parser stopped reading it): discard the rest, unless the connection is being closed.
    // Node itself drains only bodies nobody read.
    if (!raw.complete && !raw.destroyed && raw.readableFlowing !== true && !refusedBodies.has(raw)) raw.resume();
  });
}

/** Requests whose unread body the service refused: their connection closes without reading it. */
const refusedBodies = new WeakSet<IncomingMessage>();
