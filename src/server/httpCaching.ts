/**
 * HTTP validators, conditional requests and byte ranges of the files the service serves (RFC 9110 §8.8, §13, §14),
 * so that GDAL (/vsicurl/), browsers and proxies can cache results and Cloud Optimized GeoTIFF ranges:
 *
 * - every file carries `ETag` (strong: its size and modification time, as nginx makes them) and `Last-Modified`;
 * - `If-None-Match` (or, without it, `If-Modified-Since`) that still matches is answered 304, evaluated as an origin
 *   server must (§13.2.2) also when the request says `Cache-Control: no-cache` (which Node's fetch adds to every
 *   conditional request; that directive is addressed to caches, so jshttp's `fresh`, which gives up on it, does
 *   not fit);
 * - a single byte range is answered 206; a `Range` that is invalid (`bytes=5-2`), of another unit, or of several
 *   ranges is ignored (the whole file, 200); one outside the file is 416 with `Content-Range: bytes *\/size`
 *   (jshttp's range-parser cannot tell an invalid range from one outside the file before its version 2, which
 *   needs Node.js 22);
 * - `If-Range` with a validator that no longer matches (an entity tag compared strongly, or a date that is not the
 *   exact `Last-Modified`) turns a range request into a whole-file answer.
 */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { echoed } from '../util/echoed.js';
import { HttpError } from './errors.js';

export interface Validators {
  readonly etag: string;
  /** HTTP date of the last change (whole seconds). */
  readonly lastModified: string;
}

/** Strong validators of a file's contents from its size and modification time. */
export function fileValidators(stats: { readonly size: number; readonly mtimeMs: number }): Validators {
  return {
    etag: `"${stats.size.toString(16)}-${Math.floor(stats.mtimeMs).toString(16)}"`,
    lastModified: new Date(stats.mtimeMs).toUTCString(),
  };
}

/**
 * Strong validators of a representation made from several parts (an archive of files): an entity tag hashed from
 * what decides its bytes, and the latest of their modification times.
 */
export function compositeValidators(parts: readonly (string | Buffer)[], lastModifiedMs: number): Validators {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\0');
  return { etag: `"${hash.digest('base64url').slice(0, 27)}"`, lastModified: new Date(lastModifiedMs).toUTCString() };
}

/** The response schema of 304 Not Modified (for the OpenAPI document). */
export const NOT_MODIFIED_RESPONSE = { type: 'null', description: 'Not Modified: the validators of If-None-Match / If-Modified-Since still match' } as const;

/** The value of a request header sent once (the first of repeated ones). */
function headerValue(request: FastifyRequest, name: string): string | undefined {
  const raw = request.headers[name];
  return (Array.isArray(raw) ? raw[0] : raw)?.trim();
}

/** An entity tag without its weakness indicator, for the weak comparison of §8.8.3.2. */
const opaqueTag = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);

/** Whether the representation is unchanged for the request's `If-None-Match` or `If-Modified-Since` (§13.2.2). */
function unchanged(request: FastifyRequest, validators: Validators): boolean {
  const ifNoneMatch = headerValue(request, 'if-none-match');
  if (ifNoneMatch !== undefined) {
    if (ifNoneMatch === '*') return true;
    const current = opaqueTag(validators.etag);
    return (ifNoneMatch.match(/(?:W\/)?"[^"]*"/g) ?? []).some((tag) => opaqueTag(tag) === current);
  }
  const ifModifiedSince = headerValue(request, 'if-modified-since');
  const since = ifModifiedSince === undefined ? NaN : Date.parse(ifModifiedSince);
  return Number.isFinite(since) && Date.parse(validators.lastModified) <= since;
}

/** Sets `ETag` and `Last-Modified`; true when the request's validators still match (answer 304, no body). */
export function answerNotModified(request: FastifyRequest, reply: FastifyReply, validators: Validators): boolean {
  reply.header('ETag', validators.etag).header('Last-Modified', validators.lastModified);
  return (request.method === 'GET' || request.method === 'HEAD') && unchanged(request, validators);
}

/** Whether `If-Range` (if any) still names this representation, so that a `Range` may be honoured. */
function rangeStillApplies(request: FastifyRequest, validators: Validators): boolean {
  const ifRange = headerValue(request, 'if-range');
  if (ifRange === undefined) return true;
  // an entity tag: a strong comparison (a weak tag never matches); otherwise an HTTP date equal to Last-Modified
  if (ifRange.startsWith('"') || ifRange.startsWith('W/')) return ifRange === validators.etag;
  const date = Date.parse(ifRange);
  return Number.isFinite(date) && date === Date.parse(validators.lastModified);
}

/**
 * The single byte range to send of a file of `size` bytes (inclusive ends), or null for the whole file; throws
 * 416 (with `Content-Range: bytes *\/size` set on `reply`) when the range lies outside the file.
 */
export function byteRange(request: FastifyRequest, reply: FastifyReply, size: number, validators: Validators): { start: number; end: number } | null {
  const header = headerValue(request, 'range');
  if (header === undefined || !rangeStillApplies(request, validators)) return null;
  // one range-spec (§14.1.1): first-last, first-, or -suffix; anything else (several ranges, another unit, a last
  // position before the first) is ignored
  const m = /^bytes[ \t]*=[ \t]*(?:(\d+)-(\d*)|-(\d+))$/i.exec(header);
  if (!m) return null;
  let start: number;
  let end: number;
  if (m[3] !== undefined) {
    start = Math.max(0, size - Number(m[3]));
    end = Number(m[3]) === 0 ? -1 : size - 1;
  } else {
    start = Number(m[1]);
    if (m[2] !== '' && Number(m[2]) < start) return null;
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || end < start) {
    reply.header('Content-Range', `bytes */${size}`);
    throw new HttpError(416, `Range ${echoed(header)} is outside the file (${size} bytes)`);
  }
  return { start, end };
}
