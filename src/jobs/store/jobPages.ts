/**
 * Pages of the job list, filtered and cut in SQL: a page reads at most `limit + 1` matching rows (and one more
 * row to learn whether a page exists on the other side), however large the job table is.
 *
 * Paging is by key, not by position: a page ends at a job's `seq` (its row number, which only grows), and the
 * next page is "the jobs older than that one", the previous page "the jobs newer than that one". Jobs submitted or
 * deleted while a client pages neither repeat nor skip a job on the following pages (a job submitted meanwhile
 * appears on the first page, not in the middle).
 */
import type Database from 'better-sqlite3';
import { CANCELLED_MESSAGE, type JobStatus } from '../types.js';

/** A job's state in list filters: its status, with the jobs their user cancelled apart from the ones that failed. */
export type JobListState = JobStatus | 'cancelled';

export interface JobListFilter {
  /** Only jobs of these workflow types (any value that is no workflow type matches no job). */
  readonly workflowTypes?: readonly string[];
  /** Only jobs in one of these states. */
  readonly states?: readonly JobListState[];
  /** Only jobs created at or after this instant (ISO 8601 UTC with milliseconds, as the store writes them). */
  readonly createdFrom?: string;
  /** Only jobs created at or before this instant (same form). */
  readonly createdTo?: string;
  /**
   * Only jobs that ran at least / at most this long [s]: completed_at − started_at, or now − started_at while
   * running. A job that never started has no duration and is left out when either bound is given.
   */
  readonly minDurationSeconds?: number;
  readonly maxDurationSeconds?: number;
}

/** Which page: at most `limit` jobs, newest first, older than `before` or newer than `after` (cursors of a page). */
export interface JobPageRequest {
  readonly limit: number;
  readonly before?: number;
  readonly after?: number;
}

export interface JobPage<T> {
  /** The jobs of the page, newest first. */
  readonly jobs: T[];
  /** The `after` cursor of the page of newer jobs, when there are newer jobs that match. */
  readonly newerAfter?: number;
  /** The `before` cursor of the page of older jobs, when there are older jobs that match. */
  readonly olderBefore?: number;
}

/** SQL condition of a job state. */
const STATE_SQL: Record<JobListState, string> = {
  pending: `status = 'pending'`,
  running: `status = 'running'`,
  completed: `status = 'completed'`,
  failed: `(status = 'failed' AND error_message IS NOT @cancelled)`,
  cancelled: `(status = 'failed' AND error_message IS @cancelled)`,
};

/** How long a job ran [ms], in SQL; NULL when it never started. `@now` is the time of the query. */
const DURATION_MS_SQL = `CAST(ROUND((julianday(COALESCE(completed_at, @now)) - julianday(started_at)) * 86400000.0) AS INTEGER)`;

/** The WHERE clause (without the word) and its named parameters for `filter`. */
function filterSql(filter: JobListFilter, now: string): { where: string[]; params: Record<string, unknown> } {
  const where: string[] = [];
  const params: Record<string, unknown> = {};
  if (filter.workflowTypes) {
    const names = filter.workflowTypes.map((type, i) => {
      params[`type${i}`] = type;
      return `@type${i}`;
    });
    where.push(names.length > 0 ? `workflow_type IN (${names.join(', ')})` : '0');
  }
  if (filter.states) {
    where.push(filter.states.length > 0 ? `(${[...new Set(filter.states)].map((s) => STATE_SQL[s]).join(' OR ')})` : '0');
    params.cancelled = CANCELLED_MESSAGE;
  }
  if (filter.createdFrom !== undefined) {
    where.push('created_at >= @createdFrom');
    params.createdFrom = filter.createdFrom;
  }
  if (filter.createdTo !== undefined) {
    where.push('created_at <= @createdTo');
    params.createdTo = filter.createdTo;
  }
  if (filter.minDurationSeconds !== undefined || filter.maxDurationSeconds !== undefined) {
    where.push('started_at IS NOT NULL');
    params.now = now;
    if (filter.minDurationSeconds !== undefined) {
      where.push(`${DURATION_MS_SQL} >= @minDurationMs`);
      params.minDurationMs = Math.round(filter.minDurationSeconds * 1000);
    }
    if (filter.maxDurationSeconds !== undefined) {
      where.push(`${DURATION_MS_SQL} <= @maxDurationMs`);
      params.maxDurationMs = Math.round(filter.maxDurationSeconds * 1000);
    }
  }
  return { where, params };
}

/**
 * One page of the jobs that match `filter`, newest first. `columns` are the columns of each row; `now` is the
 * current time (ISO 8601) for the duration of running jobs.
 */
export function jobPage<Row extends { seq: number }>(
  db: Database.Database,
  columns: string,
  filter: JobListFilter,
  request: JobPageRequest,
  now: string,
): JobPage<Row> {
  const { where, params } = filterSql(filter, now);
  const select = (extra: string, order: 'ASC' | 'DESC', limit: number, bound: Record<string, number>) =>
    db
      .prepare(`SELECT ${columns} FROM jobs WHERE ${[...where, extra].join(' AND ')} ORDER BY seq ${order} LIMIT ${limit}`)
      .all({ ...params, ...bound }) as Row[];
  const exists = (extra: string, bound: Record<string, number>) =>
    db.prepare(`SELECT 1 FROM jobs WHERE ${[...where, extra].join(' AND ')} LIMIT 1`).get({ ...params, ...bound }) !== undefined;

  if (request.after !== undefined) {
    // The page just newer than `after`: read oldest first, then turn it round.
    const rows = select('seq > @after', 'ASC', request.limit + 1, { after: request.after });
    const jobs = rows.slice(0, request.limit).reverse();
    const oldest = jobs.length > 0 ? jobs[jobs.length - 1]!.seq : request.after + 1;
    return {
      jobs,
      ...(rows.length > request.limit ? { newerAfter: jobs[0]!.seq } : {}),
      ...(exists('seq < @oldest', { oldest }) ? { olderBefore: oldest } : {}),
    };
  }
  const rows = select(request.before !== undefined ? 'seq < @before' : '1', 'DESC', request.limit + 1, request.before !== undefined ? { before: request.before } : {});
  const jobs = rows.slice(0, request.limit);
  // The first page has nothing newer; a page further on has, unless the newer jobs were deleted meanwhile.
  const newest = jobs.length > 0 ? jobs[0]!.seq : (request.before ?? 1) - 1;
  return {
    jobs,
    ...(request.before !== undefined && exists('seq > @newest', { newest }) ? { newerAfter: newest } : {}),
    ...(rows.length > request.limit ? { olderBefore: jobs[jobs.length - 1]!.seq } : {}),
  };
}
