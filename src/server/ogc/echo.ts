/**
 * The synchronous execution of `echo` (OGC 18-062r2 §7.11.4, Table 9): its one output, `string_output`, by value.
 * - `response: raw` (the default): the value itself, as text/plain or, when the client prefers it (`Accept`, or
 *   the output's `format.mediaType`), as JSON (a JSON string) — /req/core/process-execute-sync-raw-value-one.
 * - `response: document`: a results document {"string_output": "<value>"} (application/json) —
 *   /req/core/process-execute-sync-document.
 * A media type the client accepts but echo cannot produce is 406.
 */
import Negotiator from 'negotiator';
import type { IncomingHttpHeaders } from 'node:http';
import { OGC_EXCEPTION_TYPES, OgcError } from '../errors.js';
import { requestedOutputs } from './executeOutputs.js';
import type { ProcessDescription } from './processes.js';

/** The media types of echo's raw output, the preferred one first. */
export const ECHO_RAW_MEDIA_TYPES = ['text/plain', 'application/json'] as const;

export interface EchoRequest {
  readonly inputs?: Record<string, unknown>;
  readonly outputs?: Record<string, unknown>;
  readonly response?: 'raw' | 'document';
}

export interface EchoResponse {
  readonly contentType: string;
  readonly body: string;
}

/** The best of `available` for the request's Accept header (the first when it has none), or 406. */
function negotiate(headers: IncomingHttpHeaders, available: readonly string[]): string {
  const chosen = new Negotiator({ headers }).mediaType([...available]);
  if (!chosen) {
    throw new OgcError(406, OGC_EXCEPTION_TYPES.httpStatus, `The result is available as ${available.join(' or ')}, which the Accept header does not allow`);
  }
  return chosen;
}

export function executeEcho(process: ProcessDescription, request: EchoRequest, headers: IncomingHttpHeaders): EchoResponse {
  const raw = request.inputs?.string_input;
  const value = typeof raw === 'object' && raw !== null && 'value' in raw ? (raw as { value: unknown }).value : raw;
  if (typeof value !== 'string') throw new OgcError(400, OGC_EXCEPTION_TYPES.invalidParameterValue, 'Input string_input must be a string');
  const [output] = requestedOutputs(process, request.outputs);
  const json = 'application/json; charset=utf-8';
  if (request.response === 'document') {
    negotiate(headers, ['application/json']);
    return { contentType: json, body: JSON.stringify({ [output!.id]: value }) };
  }
  const wanted = output!.mediaType;
  if (wanted !== undefined && !(ECHO_RAW_MEDIA_TYPES as readonly string[]).includes(wanted)) {
    throw new OgcError(400, OGC_EXCEPTION_TYPES.invalidParameterValue, `Output string_output: format.mediaType must be ${ECHO_RAW_MEDIA_TYPES.join(' or ')}`);
  }
  const mediaType = negotiate(headers, wanted ? [wanted] : ECHO_RAW_MEDIA_TYPES);
  return mediaType === 'application/json' ? { contentType: json, body: JSON.stringify(value) } : { contentType: 'text/plain; charset=utf-8', body: value };
}
