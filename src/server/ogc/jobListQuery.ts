/**
 * The query parameters of the OGC job list (Requirements Class "Job list" of OGC 18-062r2, clause 12) as a filter
 * of the job store: `type`, `processID`, `status`, `datetime`, `minDuration`, `maxDuration`.
 */
import type { JobListFilter, JobListState } from '../../jobs/store/jobPages.js';
import { OGC_EXCEPTION_TYPES, OgcError } from '../errors.js';
import { echoed } from '../../util/echoed.js';
import type { OgcStatus } from './statusInfo.js';

export interface JobListQuery {
  readonly type?: readonly string[];
  readonly processID?: readonly string[];
  readonly status?: readonly OgcStatus[];
  readonly datetime?: string;
  readonly minDuration?: number;
  readonly maxDuration?: number;
}

const JOB_STATE: Record<OgcStatus, JobListState> = {
  accepted: 'pending',
  running: 'running',
  successful: 'completed',
  failed: 'failed',
  dismissed: 'cancelled',
};

const invalid = (detail: string): never => {
  throw new OgcError(400, OGC_EXCEPTION_TYPES.invalidQueryParameterValue, detail);
};

/**
 * RFC 3339 §5.6 date-time (`T` or a space between date and time, as its note allows; any case). A space before the
 * offset is a `+` that was not percent-encoded in the query string (`+01:00` arrives as ` 01:00`).
 */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+ -])(\d{2}):(\d{2}))$/;

const isLeapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * An RFC 3339 date-time as whole milliseconds since the epoch, rounded down (`floor`) or up (`ceil`) when it has
 * digits beyond the millisecond (the job store keeps milliseconds). A leap second (:60) counts as the first
 * instant of the next minute. Null when `text` is not a valid date-time.
 */
export function rfc3339Millis(text: string, round: 'floor' | 'ceil'): number | null {
  const m = DATE_TIME.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const [offsetHours, offsetMinutes] = [Number(m[10] ?? 0), Number(m[11] ?? 0)];
  const daysInMonth = month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1];
  if (daysInMonth === undefined || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 60) return null;
  if (offsetHours > 23 || offsetMinutes > 59) return null;
  const fraction = m[7] ?? '';
  const millis = Number(fraction.slice(0, 3).padEnd(3, '0'));
  const beyondMillis = round === 'ceil' && /[1-9]/.test(fraction.slice(3)) ? 1 : 0;
  // Date.UTC reads years 0–99 as 1900–1999, so the year is set apart (2000 is a leap year: 29 February stays).
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute));
  date.setUTCFullYear(year);
  const sign = m[9] === '-' ? -1 : 1;
  return date.getTime() + second * 1000 + millis - sign * (offsetHours * 60 + offsetMinutes) * 60_000 + beyondMillis;
}

/**
 * The creation-time bounds of a `datetime` parameter: an instant, or an interval `start/end` with `..` or nothing
 * for an open end (RFC 3339 date-times; /req/job-list/datetime-definition). Both ends are inclusive.
 */
export function createdBounds(datetime: string): { createdFrom?: string; createdTo?: string } {
  const text = datetime.trim();
  const parts = text.split('/');
  const iso = (millis: number) => new Date(millis).toISOString();
  const bound = (part: string, round: 'floor' | 'ceil'): number | null => {
    const millis = rfc3339Millis(part, round);
    if (millis === null) invalid(`datetime: "${echoed(part)}" is not an RFC 3339 date-time (e.g. 2024-03-01T12:00:00Z)`);
    return millis;
  };
  if (parts.length === 1) {
    // An instant: the jobs created at that millisecond (none when it has digits beyond the millisecond).
    return { createdFrom: iso(bound(text, 'ceil')!), createdTo: iso(bound(text, 'floor')!) };
  }
  if (parts.length !== 2) invalid('datetime must be a date-time or an interval start/end');
  const [start, end] = parts.map((p) => (p === '..' ? '' : p)) as [string, string];
  if (start === '' && end === '') invalid('datetime: an interval needs at least one end (../.. is not allowed)');
  const from = start === '' ? undefined : bound(start, 'ceil')!;
  const to = end === '' ? undefined : bound(end, 'floor')!;
  if (from !== undefined && to !== undefined && rfc3339Millis(start, 'floor')! > rfc3339Millis(end, 'floor')!) {
    invalid('datetime: the interval ends before it starts');
  }
  return { ...(from !== undefined ? { createdFrom: iso(from) } : {}), ...(to !== undefined ? { createdTo: iso(to) } : {}) };
}

/** The job store filter of the job list's query parameters (their types are checked by the route's schema). */
export function jobListFilter(query: JobListQuery): JobListFilter {
  if (query.minDuration !== undefined && query.maxDuration !== undefined && query.minDuration > query.maxDuration) {
    invalid('minDuration must not be greater than maxDuration');
  }
  // Every job of this service is a process job (/req/job-list/type-response); the schema allows only "process".
  return {
    ...(query.processID ? { workflowTypes: query.processID } : {}),
    ...(query.status ? { states: query.status.map((s) => JOB_STATE[s]) } : {}),
    ...(query.datetime !== undefined ? createdBounds(query.datetime) : {}),
    ...(query.minDuration !== undefined ? { minDurationSeconds: query.minDuration } : {}),
    ...(query.maxDuration !== undefined ? { maxDurationSeconds: query.maxDuration } : {}),
  };
}
