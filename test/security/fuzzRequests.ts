/**
 * Generators of hostile HTTP requests for the fuzz test, driven by a seeded PRNG so that a failure can be replayed
 * with the seed it prints (EEMT_FUZZ_SEED). Every request is plain data: method, path, headers, body; or raw bytes
 * for a TCP socket when the request is not valid HTTP.
 */

/** The seeded PRNG (mulberry32) the synthetic Daymet data uses too. */
export { seededRandom as prng } from '../helpers/syntheticDaymet.js';

export type Rng = () => number;
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;
const chance = (rng: Rng, p: number) => rng() < p;
const int = (rng: Rng, min: number, max: number) => min + Math.floor(rng() * (max - min + 1));

export interface FuzzRequest {
  readonly kind: 'fetch';
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: Buffer | string;
}
export interface RawRequest {
  readonly kind: 'raw';
  readonly bytes: string;
}

/** What the generators need from the running service: real job ids and the DEM bytes. */
export interface FuzzContext {
  readonly jobIds: readonly string[];
  readonly dem: Buffer;
  readonly otherTiffs: readonly Buffer[];
}

const NUMBERS = [
  'Infinity', '-Infinity', 'NaN', '1e999', '-1e999', '-0', '0', '1', '-1', '0x10', '0o7', '0b1', '1e3', '1.5', '9'.repeat(309),
  '', ' ', '１', '1_0', '٣', '10000', '10001', '100001', '2147483648', '-9007199254740993', '0.0000001', '.5', '5.', '+5', '1,5',
  '3', '15', '60', '61', '2020', '1979', '2025', '0.2', '8', '32', '33',
];
const WORDS = [
  'sol', 'eemt', 'SOL', ' sol', 'solar', 'pending', 'running', 'completed', 'failed', 'bogus', 'null', 'true', '[]', '{}',
  '../../etc/passwd', '%2e%2e%2f', '<script>alert(1)</script>', "' OR 1=1 --", 'é', '😀', '\u0000', 'a'.repeat(5000),
];
const VALUES = [...NUMBERS, ...WORDS];
const FIELDS = ['workflow_type', 'step', 'linke_value', 'albedo_value', 'num_threads', 'start_year', 'end_year', 'dem_file'];

function randomId(rng: Rng, context: FuzzContext): string {
  if (chance(rng, 0.5) && context.jobIds.length > 0) {
    const id = pick(rng, context.jobIds);
    return chance(rng, 0.2) ? id.toUpperCase() : id;
  }
  return pick(rng, [
    '00000000-0000-4000-8000-000000000000', 'not-a-uuid', '..', '%2e%2e', '..%2F..%2Fetc%2Fpasswd', 'a'.repeat(int(rng, 37, 900)),
    '%C3%A9', '%F0%9F%98%80', '%00', 'null', '-1', '1e999', encodeURIComponent("' OR '1'='1"), '%25', '~', '%E0%A4%A',
  ]);
}

function randomQuery(rng: Rng): string {
  if (chance(rng, 0.4)) return '';
  if (chance(rng, 0.1)) return `?${pick(rng, ['%%%', '&&&=', 'a[b]=1', '=', '?', 'limit', 'limit=1&limit=2', '__proto__[x]=1', `x=${'y'.repeat(3000)}`])}`;
  const keys = ['limit', 'tail', 'status', 'x', '__proto__', 'constructor', 'bbox', 'datetime', 'collections', 'ids', 'token'];
  const parts: string[] = [];
  for (let i = int(rng, 1, 3); i > 0; i--) parts.push(`${pick(rng, keys)}=${encodeURIComponent(pick(rng, VALUES))}`);
  return `?${parts.join('&')}`;
}

const PATHS = [
  '/health', '/api/jobs', '/api/jobs/{id}', '/api/jobs/{id}/results', '/api/jobs/{id}/logs', '/api/jobs/{id}/cancel',
  '/api/system/status', '/api/cleanup', '/api/cleanup/status', '/api/submit-job', '/openapi.json', '/docs', '/redoc', '/',
  '/monitor', '/assets/{id}', '/nope', '/api/jobs/{id}/{id}', '/api', '//api//jobs', '/api/jobs/',
  '/ogc/', '/ogc/conformance', '/ogc/processes/{id}', '/ogc/processes/sol/execution', '/ogc/processes/{id}/execution',
  '/ogc/jobs', '/ogc/jobs/{id}', '/ogc/jobs/{id}/results',
  '/api/stac', '/api/stac/conformance', '/api/stac/collections', '/api/stac/collections/{id}', '/api/stac/collections/sol/items',
  '/api/stac/collections/{id}/items/{id}', '/api/stac/search', '/api/jobs/{id}/stac',
];

function randomPath(rng: Rng, context: FuzzContext): string {
  let path = pick(rng, PATHS).replace(/\{id\}/g, () => randomId(rng, context));
  if (path.startsWith('/api') && chance(rng, 0.3)) path = path.replace('/api', '/api/v1');
  return path + randomQuery(rng);
}

/** Any JSON value, with a bias to objects holding the cleanup fields. */
function randomJson(rng: Rng, depth = 0): unknown {
  const scalars = [null, true, false, 0, -0, 1, -1, 1.5, 7, 12, 1e308, -1e308, 36500, 36501, 876000, 876001, '', '0', 'true', 'x'.repeat(100)];
  if (depth > 2 || chance(rng, 0.3)) return pick(rng, scalars);
  if (chance(rng, 0.2)) return Array.from({ length: int(rng, 0, 3) }, () => randomJson(rng, depth + 1));
  const object: Record<string, unknown> = {};
  const keys = ['dry_run', 'success_retention_days', 'failed_retention_hours', 'extra', '__proto__', 'constructor'];
  for (let i = int(rng, 0, 3); i > 0; i--) object[pick(rng, keys)] = randomJson(rng, depth + 1);
  return object;
}

/**
 * A body that breaks (or just keeps) a bound of JSON bodies: many keys, a long array, deep nesting, a long string
 * or key, a long number, many values, or more than the body limit; at the top level or inside `inputs`.
 */
function boundsBody(rng: Rng): string {
  const around = (n: number) => int(rng, n - 2, n + 2 + int(rng, 0, 3) * int(rng, 0, n));
  let inner: string;
  switch (int(rng, 0, 7)) {
    case 0:
      inner = `{${Array.from({ length: around(1000) }, (_, i) => `"k${i}":${i}`).join(',')}}`;
      break;
    case 1:
      inner = `[${Array.from({ length: around(10_000) }, () => '0').join(',')}]`;
      break;
    case 2: {
      const depth = around(32);
      inner = chance(rng, 0.5) ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
      break;
    }
    case 3:
      inner = `"${pick(rng, ['x', 'é', '\\n', '😀']).repeat(around(65_536))}"`;
      break;
    case 4:
      inner = `{"${'k'.repeat(around(65_536))}":1}`;
      break;
    case 5:
      inner = '9'.repeat(around(65_536));
      break;
    case 6:
      inner = `[${Array.from({ length: 9000 }, () => '[0,0,0,0,0,0,0,0,0,0,0]').join(',')}]`;
      break;
    default:
      inner = `"${'y'.repeat(int(rng, 1_000_000, 2_600_000))}"`;
  }
  return chance(rng, 0.5) ? inner : `{"inputs":{"step":60,"x":${inner}}}`;
}

function jsonBody(rng: Rng): string {
  const text = JSON.stringify(randomJson(rng)) ?? 'null';
  switch (int(rng, 0, 11)) {
    case 0:
      return text.slice(0, int(rng, 0, text.length));
    case 1:
      return '';
    case 2:
      return `{"dry_run": ${'['.repeat(int(rng, 1, 5000))}`;
    case 3:
      return ' \n\t ';
    case 4:
    case 5:
      return boundsBody(rng);
    default:
      return text;
  }
}

const CONTENT_TYPES = [
  'application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'text/plain', 'application/x-www-form-urlencoded',
  'application/json; charset=latin1', 'multipart/form-data', 'application/octet-stream', 'image/tiff', '*/*', ';;;',
];

function randomHeaders(rng: Rng): Record<string, string> {
  const headers: Record<string, string> = {};
  const names = ['accept', 'accept-encoding', 'if-none-match', 'range', 'origin', 'cookie', 'x-forwarded-for', 'x-request-id', 'referer', 'user-agent'];
  const values = ['*/*', 'gzip', '"x"', 'bytes=0-10', 'bytes=-1', 'http://evil.example', 'a=b', '1.2.3.4, ::1', 'x'.repeat(2000), '', '%C3%A9'];
  for (let i = int(rng, 0, 3); i > 0; i--) headers[pick(rng, names)] = pick(rng, values);
  return headers;
}

function fileContent(rng: Rng, context: FuzzContext): Buffer {
  switch (int(rng, 0, 7)) {
    case 0:
      return Buffer.alloc(0);
    case 1:
      return Buffer.from(Array.from({ length: int(rng, 1, 4096) }, () => int(rng, 0, 255)));
    case 2:
      return Buffer.concat([Buffer.from('II*\0'), Buffer.alloc(int(rng, 0, 64), 0xff)]);
    case 3:
      return Buffer.from('MM\0*\0\0\0\x08garbage');
    case 4:
      return pick(rng, context.otherTiffs);
    case 5:
      return context.dem.subarray(0, int(rng, 8, context.dem.length - 1));
    default:
      // The real DEM; with valid fields this creates a job (the fuzz service runs the stub child).
      return context.dem;
  }
}

function multipartBody(rng: Rng, context: FuzzContext): { contentType: string; body: Buffer } {
  const boundary = pick(rng, ['XX', '----fuzz', 'a'.repeat(70), 'b o u n d', '"quoted"']);
  const eol = chance(rng, 0.05) ? '\n' : '\r\n';
  const chunks: Buffer[] = [];
  if (chance(rng, 0.1)) chunks.push(Buffer.from(`preamble text${eol}`));
  const part = (headers: string, content: Buffer | string) =>
    chunks.push(Buffer.from(`--${boundary.replace(/"/g, '')}${eol}${headers}${eol}${eol}`), Buffer.from(content), Buffer.from(eol));
  if (chance(rng, 0.7)) part('Content-Disposition: form-data; name="workflow_type"', pick(rng, ['sol', 'eemt', ...WORDS]));
  for (let i = int(rng, 0, 5); i > 0; i--) {
    const name = chance(rng, 0.8) ? pick(rng, FIELDS) : pick(rng, ['x'.repeat(int(rng, 1, 3000)), '__proto__', 'constructor', 'é', '']);
    part(`Content-Disposition: form-data; name="${name}"${chance(rng, 0.1) ? `${eol}Content-Type: application/json` : ''}`, pick(rng, VALUES));
  }
  for (let i = chance(rng, 0.8) ? int(rng, 1, 2) : 0; i > 0; i--) {
    const name = chance(rng, 0.85) ? 'dem_file' : pick(rng, ['file', 'step', '']);
    const filename = pick(rng, ['a.tif', 'a.TIFF', 'a.png', '', '../../x.tif', `${'x'.repeat(300)}.tif`, 'é.tif', null]);
    const disposition = `Content-Disposition: form-data; name="${name}"${filename === null ? '' : `; filename="${filename}"`}`;
    part(`${disposition}${eol}Content-Type: ${pick(rng, ['image/tiff', 'application/octet-stream', 'text/plain'])}`, fileContent(rng, context));
  }
  if (!chance(rng, 0.15)) chunks.push(Buffer.from(`--${boundary.replace(/"/g, '')}--${eol}`));
  let body = Buffer.concat(chunks);
  if (chance(rng, 0.15)) body = body.subarray(0, int(rng, 0, body.length));
  if (chance(rng, 0.05)) {
    body = Buffer.from(body);
    for (let i = int(rng, 1, 10); i > 0 && body.length > 0; i--) body[int(rng, 0, body.length - 1)] = int(rng, 0, 255);
  }
  const contentType = pick(rng, [
    `multipart/form-data; boundary=${boundary}`,
    `multipart/form-data; boundary=${boundary}`,
    `MULTIPART/FORM-DATA; BOUNDARY=${boundary}`,
    'multipart/form-data',
    'MULTIPART/FORM-DATA',
    'multipart/form-data; boundary=',
    `multipart/form-data; boundary=${boundary}x`,
    `multipart/mixed; boundary=${boundary}`,
    `multipart/form-data; charset=utf-8; boundary=${boundary}`,
  ]);
  return { contentType, body };
}

function rawRequest(rng: Rng, context: FuzzContext): RawRequest {
  const target = randomPath(rng, context).replace(/ /g, '%20');
  return {
    kind: 'raw',
    bytes: pick(rng, [
      `GARBAGE\r\n\r\n`,
      `GET ${target} HTTP/9.9\r\nHost: x\r\n\r\n`,
      `GET ${target} HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n`,
      `GET ${target} HTTP/1.1\r\nHost: x\r\nX-Big: ${'x'.repeat(20_000)}\r\n\r\n`,
      `POST /api/cleanup HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n`,
      `POST /api/cleanup HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}`,
      `POST /api/cleanup HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n`,
      `GET ${target} HTTP/1.1\r\nHost: x\r\n\r\n`,
      `DELETE ${target} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n`,
      `OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n`,
      `GET http://evil.example${target} HTTP/1.1\r\nHost: evil.example\r\n\r\n`,
      `GET ${target}\u0000 HTTP/1.1\r\nHost: x\r\n\r\n`,
    ]),
  };
}

/** One random request against the service. */
export function randomRequest(rng: Rng, context: FuzzContext): FuzzRequest | RawRequest {
  const roll = rng();
  if (roll < 0.06) return rawRequest(rng, context);
  if (roll < 0.4) {
    const { contentType, body } = multipartBody(rng, context);
    const path = chance(rng, 0.9) ? '/api/submit-job' : randomPath(rng, context);
    return { kind: 'fetch', method: 'POST', path, headers: { ...randomHeaders(rng), 'content-type': contentType }, body };
  }
  if (roll < 0.6) {
    const headers = randomHeaders(rng);
    const type = chance(rng, 0.85) ? 'application/json' : pick(rng, CONTENT_TYPES);
    if (!chance(rng, 0.05)) headers['content-type'] = type;
    const path = `${chance(rng, 0.2) ? '/api/v1' : '/api'}/cleanup${chance(rng, 0.1) ? randomQuery(rng) : ''}`;
    return { kind: 'fetch', method: chance(rng, 0.9) ? 'POST' : pick(rng, ['PUT', 'PATCH', 'DELETE']), path, headers, body: jsonBody(rng) };
  }
  if (roll < 0.68) {
    // The other JSON route: OGC executions (sol, eemt, echo, or no such process).
    const headers = { ...randomHeaders(rng), 'content-type': 'application/json' };
    const process = pick(rng, ['sol', 'eemt', 'echo', randomId(rng, context)]);
    const body = chance(rng, 0.5) ? jsonBody(rng) : `{"inputs":${chance(rng, 0.5) ? JSON.stringify(randomJson(rng)) : boundsBody(rng)}}`;
    return { kind: 'fetch', method: 'POST', path: `/ogc/processes/${process}/execution`, headers, body };
  }
  const method = pick(rng, ['GET', 'GET', 'GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS']);
  const headers = randomHeaders(rng);
  const withBody = method !== 'GET' && method !== 'HEAD' && chance(rng, 0.3);
  if (withBody) headers['content-type'] = pick(rng, CONTENT_TYPES);
  return { kind: 'fetch', method, path: randomPath(rng, context), headers, ...(withBody ? { body: jsonBody(rng) } : {}) };
}
