/**
 * A DEM given by reference (an `href` input of /ogc): fetched only from allowed URL prefixes, without following
 * redirects (a redirect could leave the allow-list), bounded in size and time, straight to the job's upload path.
 * Off unless the service enables it (EEMT_OGC_HREF_INPUTS): fetching URLs a client names is server-side request
 * forgery waiting to happen.
 */
import { createWriteStream } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { JobError } from '../types.js';
import { echoed } from '../../util/echoed.js';

export interface DemDownloadLimits {
  /** URL prefixes a reference must start with (scheme, host and path, e.g. `https://data.example.org/dems/`). */
  readonly allow: readonly string[];
  /** Largest DEM [bytes] (the upload limit). */
  readonly maxBytes: number;
  /** Time for the whole download [ms]. */
  readonly timeoutMs: number;
}

/** Whether `href` is an http(s) URL under one of the allowed prefixes (compared in its normalised form). */
export function hrefAllowed(href: string, allow: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (url.username || url.password) return false;
  return allow.some((prefix) => url.href.startsWith(new URL(prefix).href));
}

/** Downloads `href` to `path`; JobError 400 (with the reason) when it is not allowed, fails, or is too large. */
export async function downloadDem(href: string, path: string, limits: DemDownloadLimits): Promise<void> {
  if (!hrefAllowed(href, limits.allow)) {
    throw new JobError(400, `DEM reference ${JSON.stringify(echoed(href))} is not under an allowed URL prefix (EEMT_OGC_HREF_ALLOW)`);
  }
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let response: Response;
  try {
    response = await fetch(href, { redirect: 'manual', signal });
  } catch (error) {
    throw new JobError(400, `DEM reference could not be fetched: ${signal.aborted ? 'timed out' : (error as Error).message}`);
  }
  if (response.status !== 200 || !response.body) {
    await response.body?.cancel();
    throw new JobError(400, `DEM reference could not be fetched: HTTP ${response.status}${response.status >= 300 && response.status < 400 ? ' (redirects are not followed)' : ''}`);
  }
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (declared > limits.maxBytes) {
    await response.body.cancel();
    throw new JobError(400, `DEM reference is larger than the upload limit of ${limits.maxBytes} bytes`);
  }
  let received = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      if (received > limits.maxBytes) done(new JobError(400, `DEM reference is larger than the upload limit of ${limits.maxBytes} bytes`));
      else done(null, chunk);
    },
  });
  try {
    await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), cap, createWriteStream(path), { signal });
  } catch (error) {
    if (error instanceof JobError) throw error;
    throw new JobError(400, `DEM reference could not be fetched: ${signal.aborted ? 'timed out' : (error as Error).message}`);
  }
}
