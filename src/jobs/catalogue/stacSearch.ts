/**
 * Parameters of STAC API searches (Item Search `GET|POST /search`, and `GET /collections/{id}/items` of
 * OGC API – Features): bbox or intersects, datetime, collections, ids, limit and the paging token, from a query string or a
 * JSON body, checked so that every bad value is refused with a message naming it (JobError 400). Semantics
 * follow STAC API v1.0.0 item-search/README.md and implementation.md ("datetime Parameter Handling").
 */
import { WORKFLOW_TYPES } from '../../workflows/index.js';
import { parseGeometry } from './stacGeometry.js';
import type { StacItemQuery } from '../store/store.js';
import { JobError } from '../types.js';

/** Items per page: when `limit` is not given, and at most (a larger limit is served as this one, as the API says). */
export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 100;

/** Search parameters of extensions the catalogue does not implement: refused rather than ignored (the result would be wrong). */
const UNSUPPORTED = ['filter', 'filter-lang', 'query', 'sortby'] as const;

/** A parsed search: the index query and, for paging links, the parameters as a client would send them again. */
export interface StacSearch {
  readonly query: StacItemQuery;
  /** The search's parameters without the token, in the form of a POST body. */
  readonly body: Record<string, unknown>;
}

/** RFC 3339 date-time (implementation.md's expression; the parts are checked by Date below). */
const RFC3339 = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

const bad = (detail: string): never => {
  throw new JobError(400, detail);
};

/** A search from a query string (`GET`): lists are comma-separated. */
export function searchFromQuery(query: Record<string, unknown>): StacSearch {
  const text = (name: string): string | undefined => {
    const value = query[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string') bad(`${name} must be given once`);
    return value as string;
  };
  const list = (name: string) => text(name)?.split(',');
  const limit = text('limit');
  return parse(
    {
      bbox: list('bbox')?.map((v) => (/^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(v) ? Number(v) : NaN)),
      datetime: text('datetime'),
      collections: list('collections'),
      ids: list('ids'),
      intersects: text('intersects'),
      limit: limit === undefined ? undefined : /^\d+$/.test(limit) ? Number(limit) : limit,
      token: text('token'),
    },
    Object.keys(query),
  );
}

/** A search from a JSON body (`POST /search`): lists are arrays. */
export function searchFromBody(body: unknown): StacSearch {
  if (body === null || body === undefined) return parse({}, []);
  if (typeof body !== 'object' || Array.isArray(body)) bad('The search body must be a JSON object');
  const fields = body as Record<string, unknown>;
  return parse(fields, Object.keys(fields));
}

function parse(raw: Record<string, unknown>, names: readonly string[]): StacSearch {
  for (const name of UNSUPPORTED) {
    if (names.includes(name)) bad(`${name} is not supported by this catalogue (search with bbox, intersects, datetime, collections, ids, limit)`);
  }
  if (raw.bbox !== undefined && raw.intersects !== undefined) bad('Only one of bbox and intersects may be given');
  const bbox = raw.bbox === undefined ? undefined : parseBbox(raw.bbox);
  const geometry = raw.intersects === undefined ? undefined : parseGeometry(raw.intersects);
  const intersects = geometry && { geometry: JSON.stringify(geometry.geometry), bbox: geometry.bbox };
  const datetime = raw.datetime === undefined ? undefined : parseDatetime(raw.datetime);
  const collections = raw.collections === undefined ? undefined : parseStrings('collections', raw.collections);
  for (const id of collections ?? []) {
    if (!(WORKFLOW_TYPES as readonly string[]).includes(id)) bad(`collections: unknown collection "${id}" (the collections are ${WORKFLOW_TYPES.join(', ')})`);
  }
  const ids = raw.ids === undefined ? undefined : parseStrings('ids', raw.ids);
  const limit = raw.limit === undefined ? DEFAULT_LIMIT : parseLimit(raw.limit);
  const after = raw.token === undefined ? undefined : parseToken(raw.token);
  const body = {
    ...(raw.bbox !== undefined ? { bbox: raw.bbox } : {}),
    ...(geometry ? { intersects: geometry.geometry } : {}),
    ...(raw.datetime !== undefined ? { datetime: raw.datetime } : {}),
    ...(collections ? { collections } : {}),
    ...(ids ? { ids } : {}),
    limit,
  };
  return {
    query: { ...(bbox ? { bbox } : {}), ...(intersects ? { intersects } : {}), ...(datetime ? { datetime } : {}), ...(collections ? { collections } : {}), ...(ids ? { ids } : {}), limit, ...(after ? { after } : {}) },
    body,
  };
}

/**
 * bbox: 4 numbers (west, south, east, north) or 6 (with the lowest and highest elevation, which the catalogue's
 * 2D footprints ignore). west > east crosses the antimeridian.
 */
function parseBbox(value: unknown): [number, number, number, number] {
  const expected = 'bbox must be 4 or 6 numbers: west,south,east,north (degrees, WGS 84), optionally with min and max elevation';
  if (!Array.isArray(value) || (value.length !== 4 && value.length !== 6)) return bad(expected);
  if (!value.every((v) => typeof v === 'number' && Number.isFinite(v))) return bad(expected);
  const [west, south, east, north] = value.length === 4 ? value : [value[0], value[1], value[3], value[4]];
  if ([west, east].some((lon) => lon < -180 || lon > 180)) bad('bbox: longitudes must be within [-180, 180]');
  if ([south, north].some((lat) => lat < -90 || lat > 90)) bad('bbox: latitudes must be within [-90, 90]');
  if (south > north) bad('bbox: south must not be greater than north');
  if (value.length === 6 && value[2] > value[5]) bad('bbox: the minimum elevation must not be greater than the maximum');
  return [west, south, east, north];
}

/** datetime: an RFC 3339 date-time, or an interval start/end where one end may be open ("" or ".."). */
function parseDatetime(value: unknown): { from: number | null; to: number | null } {
  if (typeof value !== 'string') return bad('datetime must be a string');
  const parts = value.toUpperCase().split('/');
  if (parts.length > 2) bad(`datetime: "${value}" is neither a date-time nor an interval start/end`);
  if (parts.length === 1) {
    const instant = parseInstant(parts[0]!, value);
    if (instant === null) bad('datetime: a single value must be a date-time, not open');
    return { from: Math.ceil(instant!), to: Math.floor(instant!) };
  }
  const [from, to] = parts.map((p) => parseInstant(p, value));
  if (from === null && to === null) bad('datetime: only one end of an interval may be open');
  if (from !== null && to !== null && from! > to!) bad(`datetime: the interval "${value}" ends before it starts`);
  // Stored times are whole milliseconds: t >= from ⟺ t >= ceil(from), t <= to ⟺ t <= floor(to).
  return { from: from === null ? null : Math.ceil(from!), to: to === null ? null : Math.floor(to!) };
}

/** Milliseconds since the epoch (fractional below a millisecond), or null for an open end. */
function parseInstant(text: string, whole: string): number | null {
  if (text === '' || text === '..') return null;
  const match = RFC3339.exec(text);
  if (!match) return bad(`datetime: "${whole}" is not an RFC 3339 date-time (e.g. 2024-05-01T00:00:00Z) or interval (start/end, ".." for an open end)`);
  const [, y, mo, d, h, mi, s, fraction = '', zone] = match;
  const wholeSeconds = `${y}-${mo}-${d}T${h}:${mi}:${s}${zone}`;
  const ms = Date.parse(wholeSeconds);
  const calendar = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  const validDate = calendar.getUTCMonth() === Number(mo) - 1 && calendar.getUTCDate() === Number(d);
  if (Number.isNaN(ms) || !validDate || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) bad(`datetime: "${whole}" is not a valid date and time`);
  return ms + (fraction ? Number(`0${fraction}`) * 1000 : 0);
}

function parseStrings(name: string, value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0 || !value.every((v) => typeof v === 'string' && v !== '')) {
    return bad(`${name} must be a non-empty list of names`);
  }
  return value as string[];
}

function parseLimit(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) return bad(`limit must be a positive integer (at most ${MAX_LIMIT} are served)`);
  return Math.min(value, MAX_LIMIT);
}

/** The paging token: the place of the previous page's last Item, "seq.rank". */
export function pageToken(after: { seq: number; rank: number }): string {
  return `${after.seq}.${after.rank}`;
}

function parseToken(value: unknown): { seq: number; rank: number } {
  const match = typeof value === 'string' ? /^(\d{1,15})\.(\d{1,3})$/.exec(value) : null;
  if (!match) return bad('token is not a paging token of this catalogue (follow the next link)');
  return { seq: Number(match[1]), rank: Number(match[2]) };
}
