/**
 * Errors of the HTTP layer and the one error handler that turns every error into the specification's
 * `{detail}` body. Routes throw; they never format errors. No stack trace ever reaches a client.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { QueueUnavailableError } from '../jobs/queue/queue.js';
import { JobError } from '../jobs/types.js';
import { echoed } from '../util/echoed.js';

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'HttpError';
  }
}

export function badRequest(detail: string): never {
  throw new HttpError(400, detail);
}
export function notFound(detail: string): never {
  throw new HttpError(404, detail);
}
export function unprocessable(detail: string): never {
  throw new HttpError(422, detail);
}

/** Messages for Fastify's and its plugins' own client errors, by error code. */
const CLIENT_ERRORS: Record<string, [number, string]> = {
  FST_INVALID_MULTIPART_CONTENT_TYPE: [400, 'Request must be multipart/form-data'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [400, 'Unsupported Content-Type'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'Request body is empty'],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'Request body is not valid JSON'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'Request body is too large (JSON bodies: at most 1 MB)'],
  FST_MP_PREMATURE_CLOSE: [400, 'The request was closed before its body was complete'],
  FST_PARTS_LIMIT: [400, 'Too many parts in the multipart request'],
  FST_FILES_LIMIT: [400, 'Only one file (dem_file) may be uploaded'],
  FST_FIELDS_LIMIT: [400, 'Too many form fields'],
  FST_PROTO_VIOLATION: [400, 'Malformed multipart request'],
};

/** `{detail}` text for a schema validation error: the first problem, named by its field. */
function validationDetail(error: FastifyError): string {
  const first = error.validation?.[0];
  if (!first) return error.message;
  const params = first.params as Record<string, unknown>;
  const field =
    (typeof params.missingProperty === 'string' && params.missingProperty) ||
    (typeof params.additionalProperty === 'string' && params.additionalProperty) ||
    first.instancePath.replace(/^\//, '').replace(/\//g, '.') ||
    error.validationContext ||
    'request';
  const allowed = Array.isArray(params.allowedValues) ? `: ${params.allowedValues.join(', ')}` : '';
  return `${echoed(field)} ${first.message ?? 'is invalid'}${allowed}`;
}

/**
 * Fastify's `frameworkErrors`: a URL that cannot be decoded (`/api/jobs/%E0%A4%A`) or a path segment over the
 * router's length limit, answered with `{detail}` like every other error.
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const [status, detail] =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? [414, 'A part of the URL path is too long'] : [400, 'Malformed URL: it cannot be decoded'];
  void reply.code(status).type('application/json').send({ detail });
}

/**
 * Node's `clientError`: a request that is not valid HTTP, or whose headers are too large or too slow, is
 * answered with `{detail}` on the socket (no route ever sees it) and the connection is closed.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, detail] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'Request headers arrived too slowly (EEMT_REQUEST_TIMEOUT_S)']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'Request headers are too large']
        : [400, 'Bad Request', 'Malformed HTTP request'];
  const body = JSON.stringify({ detail });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Connection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** The status and `{detail}` text of any error a route or Fastify raised (500 ones are logged here). */
function describeError(error: FastifyError, request: FastifyRequest, validationStatus: number): { status: number; detail: string } {
  if (error instanceof QueueUnavailableError) {
    request.log.error(error.message);
    return { status: 503, detail: error.message };
  }
  if (error instanceof HttpError || error instanceof JobError) {
    const status = error instanceof HttpError ? error.statusCode : error.status;
    // a full disk is the operator's to know about, not a fault of the program (no stack)
    if (status === 507) request.log.warn(error.detail);
    else if (status >= 500) request.log.error({ err: error }, error.detail);
    return { status, detail: error.detail };
  }
  if (error.validation) return { status: validationStatus, detail: validationDetail(error) };
  const known = error.code ? CLIENT_ERRORS[error.code] : undefined;
  if (known) return { status: known[0], detail: known[1] };
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return { status: status === 415 || status === 406 ? 400 : status, detail: error.message };
  request.log.error({ err: error }, 'internal error');
  return { status: 500, detail: 'Internal server error' };
}

/** `Not found: GET /the/path` (the path cut to a readable length). */
function notFoundDetail(request: FastifyRequest): string {
  return `Not found: ${request.method} ${echoed(request.url.split('?')[0]!)}`;
}

export function installErrorHandlers(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const { status, detail } = describeError(error, request, 422);
    return reply.code(status).type('application/json').send({ detail });
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).type('application/json').send({ detail: notFoundDetail(request) });
  });
}

/**
 * The `type` URIs of the exception documents of the /ogc/ routes (exception.yaml of OGC API – Processes: RFC 7807
 * problem details; the standard requires `type` to be a string, and the URIs below are what it and its test suite
 * check for).
 * - no-such-process, no-such-job, result-not-ready: the exceptions OGC 18-062r2 defines (/req/core/…-exception-…).
 * - invalid-query-parameter-value: the type the revision of Part 1 in progress (the same namespace,
 *   /req/core/job-results-exception-invalid-query-parameter-value) gives a query parameter with a wrong value; used
 *   for the query parameters of the process and job lists.
 * - invalid-parameter-value and no-applicable-code: the OWS exception codes InvalidParameterValue and
 *   NoApplicableCode that 18-062r2 names for an invalid input and a failed job (/req/core/job-results-failed), as
 *   URIs in the same namespace; they are this service's names, not registered by OGC.
 * - about:blank: RFC 7807 §4.2, an error with no meaning beyond its HTTP status (a path or method the API does not
 *   have, a media type it cannot produce, an internal error, no room for a job's outputs).
 */
const OGC_EXCEPTIONS = 'http://www.opengis.net/def/exceptions/ogcapi-processes-1/1.0/';
export const OGC_EXCEPTION_TYPES = {
  noSuchProcess: `${OGC_EXCEPTIONS}no-such-process`,
  noSuchJob: `${OGC_EXCEPTIONS}no-such-job`,
  resultNotReady: `${OGC_EXCEPTIONS}result-not-ready`,
  invalidQueryParameterValue: `${OGC_EXCEPTIONS}invalid-query-parameter-value`,
  invalidParameterValue: `${OGC_EXCEPTIONS}invalid-parameter-value`,
  noApplicableCode: `${OGC_EXCEPTIONS}no-applicable-code`,
  httpStatus: 'about:blank',
} as const;

/** An error of the /ogc/ routes with its exception type. */
export class OgcError extends Error {
  constructor(
    readonly statusCode: number,
    readonly type: string,
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'OgcError';
  }
}

/**
 * The error scope of the OGC API – Processes routes: every error is an exception document
 * `{type, title, status, detail}` (exception.yaml of the standard), `title` the HTTP status phrase. Schema
 * validation errors are 400 there: invalid-query-parameter-value for the query string, invalid-parameter-value for
 * the request body; other client errors are invalid-parameter-value, except an unknown path or method and a media
 * type that cannot be produced (about:blank), as are server errors.
 */
export function installOgcErrorHandlers(scope: FastifyInstance): void {
  const send = (reply: FastifyReply, status: number, type: string, detail: string) =>
    reply
      .code(status)
      .type('application/json')
      .send({ type, title: STATUS_CODES[status] ?? 'Error', status, detail });
  scope.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof OgcError) return send(reply, error.statusCode, error.type, error.detail);
    const described = describeError(error, request, 400);
    const { status } = described;
    const detail =
      error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? 'Request body is too large (an inline DEM: at most EEMT_OGC_MAX_INLINE_MB)' : described.detail;
    const type =
      error.validationContext === 'querystring'
        ? OGC_EXCEPTION_TYPES.invalidQueryParameterValue
        : status >= 500 || status === 404 || status === 405 || status === 406
          ? OGC_EXCEPTION_TYPES.httpStatus
          : OGC_EXCEPTION_TYPES.invalidParameterValue;
    return send(reply, status, type, detail);
  });
  scope.setNotFoundHandler((request, reply) =>
    send(reply, 404, OGC_EXCEPTION_TYPES.httpStatus, notFoundDetail(request)),
  );
}

/**
 * The error scope of the STAC API catalogue: every error is the STAC API's exception document
 * `{code, description}` (core/commons.yaml of STAC API v1.0.0), e.g. `{"code": "BadRequest", "description": "bbox: …"}`,
 * with the service's `detail` (the same text) as every error body has. Schema validation errors are 400 there.
 */
export function installStacErrorHandlers(scope: FastifyInstance): void {
  const send = (reply: FastifyReply, status: number, description: string) =>
    reply
      .code(status)
      .type('application/json')
      .send({ code: (STATUS_CODES[status] ?? 'Error').replace(/[^A-Za-z]/g, ''), description, detail: description });
  scope.setErrorHandler((error: FastifyError, request, reply) => {
    const { status, detail } = describeError(error, request, 400);
    return send(reply, status, detail);
  });
  scope.setNotFoundHandler((request, reply) => send(reply, 404, `Not found: ${request.method} ${request.url.split('?')[0]}`));
}
