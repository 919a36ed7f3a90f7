/**
 * The job database: one SQLite file (WAL mode) holding job records and cleanup runs.
 * The schema is created and upgraded by the migrations below, tracked by `PRAGMA user_version`.
 */
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { jobPage, type JobListFilter, type JobPage, type JobPageRequest } from './jobPages.js';
import { geometriesIntersect } from '../catalogue/stacGeometry.js';
import type { JobParameters, JobRecord, JobStatus, NewJob } from '../types.js';

/** Schema migrations, applied in order; migration i brings the database to version i + 1. */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE jobs (
     seq              INTEGER PRIMARY KEY AUTOINCREMENT,
     id               TEXT NOT NULL UNIQUE,
     workflow_type    TEXT NOT NULL CHECK (workflow_type IN ('sol', 'eemt')),
     status           TEXT NOT NULL CHECK (status IN ('pending', 'running', 'completed', 'failed')),
     created_at       TEXT NOT NULL,
     started_at       TEXT,
     completed_at     TEXT,
     parameters       TEXT NOT NULL,
     dem_filename     TEXT NOT NULL,
     error_message    TEXT,
     progress         INTEGER NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
     progress_message TEXT
   );
   CREATE INDEX jobs_status ON jobs (status, seq);`,
  `ALTER TABLE jobs ADD COLUMN runtime TEXT;
   ALTER TABLE jobs ADD COLUMN data_deleted_at TEXT;
   CREATE TABLE cleanup_runs (
     id          INTEGER PRIMARY KEY AUTOINCREMENT,
     started_at  TEXT NOT NULL,
     finished_at TEXT NOT NULL,
     dry_run     INTEGER NOT NULL,
     summary     TEXT NOT NULL
   );`,
  // A job's revision counts the changes of its record (status, progress, message): the ids of its live events;
  // updated_at is the time of the last change.
  `ALTER TABLE jobs ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE jobs ADD COLUMN updated_at TEXT;`,
  // The estimate of a job's outputs at submission [bytes], checked against the free space again when it starts.
  `ALTER TABLE jobs ADD COLUMN output_estimate_bytes INTEGER;`,
  // The STAC catalogue's index: each Item of a completed job with its footprint (GeoJSON), bounding box (WGS 84
  // degrees) and times (ms since the epoch), so that pages and searches are SQL queries. rank orders a job's Items (0 = its own).
  // stac_indexed_at: when the job's Items were indexed (also when it has none).
  `CREATE TABLE stac_items (
     item_id     TEXT PRIMARY KEY,
     job_id      TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
     rank        INTEGER NOT NULL,
     west        REAL NOT NULL,
     south       REAL NOT NULL,
     east        REAL NOT NULL,
     north       REAL NOT NULL,
     geometry    TEXT NOT NULL,
     datetime_ms INTEGER NOT NULL,
     start_ms    INTEGER,
     end_ms      INTEGER
   );
   CREATE INDEX stac_items_job ON stac_items (job_id, rank);
   ALTER TABLE jobs ADD COLUMN stac_indexed_at TEXT;`,
];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `id` has the shape of a job id (a UUID). */
function isJobId(id: string): boolean {
  return UUID.test(id);
}

interface JobRow {
  id: string;
  workflow_type: JobRecord['workflow_type'];
  status: JobStatus;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  parameters: string;
  dem_filename: string;
  error_message: string | null;
  progress: number;
  progress_message: string | null;
  runtime: string | null;
  data_deleted_at: string | null;
  revision: number;
  updated_at: string | null;
  output_estimate_bytes: number | null;
}

function toRecord(row: JobRow): JobRecord {
  return {
    ...row,
    parameters: JSON.parse(row.parameters) as JobParameters,
    updated_at: row.updated_at ?? row.completed_at ?? row.started_at ?? row.created_at,
  };
}

const COLUMNS =
  'id, workflow_type, status, created_at, started_at, completed_at, parameters, dem_filename, error_message, progress, progress_message, runtime, data_deleted_at, revision, updated_at, output_estimate_bytes';

/** An Item of the STAC catalogue's index (see the migration of stac_items). */
export interface StacItemRow {
  readonly item_id: string;
  readonly rank: number;
  /** [west, south, east, north] in degrees. */
  readonly bbox: readonly [number, number, number, number];
  /** The footprint, GeoJSON text. */
  readonly geometry: string;
  readonly datetime_ms: number;
  readonly start_ms: number | null;
  readonly end_ms: number | null;
}

/** Which indexed Items a catalogue page holds; every given condition must hold. */
export interface StacItemQuery {
  /** Workflow types (the catalogue's collections). */
  readonly collections?: readonly string[];
  readonly ids?: readonly string[];
  /** [west, south, east, north]; west > east crosses the antimeridian. Items whose box intersects it. */
  readonly bbox?: readonly [number, number, number, number];
  /** Items whose footprint intersects this geometry (GeoJSON text) with bounding box `bbox`. */
  readonly intersects?: { readonly geometry: string; readonly bbox: readonly [number, number, number, number] };
  /** Items whose datetime, or start–end range, meets [from, to] (ms; null = open). */
  readonly datetime?: { readonly from: number | null; readonly to: number | null };
  readonly limit: number;
  /** Only Items after this place in the order (newest job first, then rank). */
  readonly after?: { readonly seq: number; readonly rank: number };
}

/** An Item found in the index: its job and its place in the order. */
export interface StacItemMatch {
  readonly job: JobRecord;
  readonly item_id: string;
  readonly rank: number;
  readonly seq: number;
}

/** Extent of a collection's indexed Items. */
export interface StacExtent {
  readonly collection: string;
  readonly count: number;
  readonly bbox: [number, number, number, number];
  /** Earliest and latest of the Items' datetimes and ranges (ms). */
  readonly from_ms: number;
  readonly to_ms: number;
}

const STAC_ITEM_WHERE = `j.status = 'completed' AND j.data_deleted_at IS NULL
  AND (@collections IS NULL OR j.workflow_type IN (SELECT value FROM json_each(@collections)))
  AND (@ids IS NULL OR s.item_id IN (SELECT value FROM json_each(@ids)))
  AND (@west IS NULL OR (s.north >= @south AND s.south <= @north
       AND (CASE WHEN @west <= @east THEN s.east >= @west AND s.west <= @east ELSE s.east >= @west OR s.west <= @east END)))
  AND (@geometry IS NULL OR (s.north >= @gSouth AND s.south <= @gNorth AND s.east >= @gWest AND s.west <= @gEast
       AND stac_intersects(s.geometry, @geometry)))
  AND ((s.datetime_ms >= COALESCE(@from, s.datetime_ms) AND s.datetime_ms <= COALESCE(@to, s.datetime_ms))
       OR (s.start_ms IS NOT NULL AND s.end_ms >= COALESCE(@from, s.end_ms) AND s.start_ms <= COALESCE(@to, s.start_ms)))`;

function stacItemParams(query: StacItemQuery): Record<string, unknown> {
  const [west, south, east, north] = query.bbox ?? [null, null, null, null];
  const [gWest, gSouth, gEast, gNorth] = query.intersects?.bbox ?? [null, null, null, null];
  return {
    geometry: query.intersects?.geometry ?? null,
    gWest,
    gSouth,
    gEast,
    gNorth,
    collections: query.collections ? JSON.stringify(query.collections) : null,
    ids: query.ids ? JSON.stringify(query.ids) : null,
    west,
    south,
    east,
    north,
    from: query.datetime?.from ?? null,
    to: query.datetime?.to ?? null,
  };
}

export interface CleanupRunRecord {
  readonly started_at: string;
  readonly finished_at: string;
  readonly dry_run: boolean;
  readonly summary: unknown;
}

/** Called with a job's id after its record changed (created, updated or deleted). */
export type JobChangeListener = (id: string) => void;

export class JobStore {
  readonly db: Database.Database;
  private readonly now: () => Date;
  private readonly listeners = new Set<JobChangeListener>();

  /** Opens (creating if needed) the database at `path` and brings its schema up to date. */
  constructor(path: string, options: { now?: () => Date } = {}) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.pragma('foreign_keys = ON');
    this.now = options.now ?? (() => new Date());
    // Item Search's intersects: whether a footprint and the query geometry (GeoJSON texts) share a point
    this.db.function('stac_intersects', { deterministic: true }, (a, b) => (geometriesIntersect(String(a), String(b)) ? 1 : 0));
    this.migrate();
  }

  /** Schema version of the open database (number of migrations applied). */
  get schemaVersion(): number {
    return this.db.pragma('user_version', { simple: true }) as number;
  }

  private migrate(): void {
    const current = this.schemaVersion;
    if (current > MIGRATIONS.length) {
      throw new Error(`job database schema version ${current} is newer than this service (${MIGRATIONS.length})`);
    }
    for (let v = current; v < MIGRATIONS.length; v++) {
      this.db.transaction(() => {
        this.db.exec(MIGRATIONS[v]!);
        this.db.pragma(`user_version = ${v + 1}`);
      })();
    }
  }

  private timestamp(): string {
    return this.now().toISOString();
  }

  close(): void {
    this.listeners.clear();
    this.db.close();
  }

  /**
   * Calls `listener` after every change of a job record made through this store (whoever made it: the embedded
   * scheduler, a distributed queue reconciling into it, a route). Returns the function that removes it.
   */
  onChange(listener: JobChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(id: string, changes = 1): boolean {
    if (changes === 0) return false;
    for (const listener of [...this.listeners]) {
      try {
        listener(id);
      } catch {
        // A listener's failure is its own; the change is stored.
      }
    }
    return true;
  }

  create(job: NewJob): JobRecord {
    this.db
      .prepare(
        `INSERT INTO jobs (id, workflow_type, status, created_at, parameters, dem_filename, progress, output_estimate_bytes)
         VALUES (?, ?, 'pending', ?, ?, ?, 0, ?)`,
      )
      .run(job.id, job.workflow_type, this.timestamp(), JSON.stringify(job.parameters), job.dem_filename, job.output_estimate_bytes ?? null);
    this.changed(job.id);
    return this.get(job.id)!;
  }

  /** The job `id`, or undefined when there is none (any id that is not a UUID has none). */
  get(id: string): JobRecord | undefined {
    if (!isJobId(id)) return undefined;
    const row = this.db.prepare(`SELECT ${COLUMNS} FROM jobs WHERE id = ?`).get(id.toLowerCase()) as JobRow | undefined;
    return row ? toRecord(row) : undefined;
  }

  /** Jobs newest first, optionally only those with `status`, at most `limit`. */
  list(options: { status?: JobStatus; limit?: number } = {}): JobRecord[] {
    const where = options.status ? 'WHERE status = @status' : '';
    const limit = options.limit ?? -1;
    const rows = this.db
      .prepare(`SELECT ${COLUMNS} FROM jobs ${where} ORDER BY seq DESC LIMIT @limit`)
      .all({ ...(options.status ? { status: options.status } : {}), limit }) as JobRow[];
    return rows.map(toRecord);
  }

  /** One page of the jobs that match `filter`, newest first (see jobPages.ts). */
  page(filter: JobListFilter, request: JobPageRequest): JobPage<JobRecord> {
    const page = jobPage<JobRow & { seq: number }>(this.db, `${COLUMNS}, seq`, filter, request, this.timestamp());
    return { ...page, jobs: page.jobs.map(({ seq: _seq, ...row }) => toRecord(row)) };
  }

  /** Pending jobs in submission order (the queue). */
  pending(): JobRecord[] {
    return (this.db.prepare(`SELECT ${COLUMNS} FROM jobs WHERE status = 'pending' ORDER BY seq`).all() as JobRow[]).map(toRecord);
  }

  countByStatus(): Record<JobStatus, number> {
    const counts: Record<JobStatus, number> = { pending: 0, running: 0, completed: 0, failed: 0 };
    for (const row of this.db.prepare('SELECT status, COUNT(*) AS n FROM jobs GROUP BY status').all() as { status: JobStatus; n: number }[]) {
      counts[row.status] = row.n;
    }
    return counts;
  }

  /** pending → running. False when the job is no longer pending (cancelled or deleted meanwhile). */
  markRunning(id: string, runtime: string, progress: number, message: string): boolean {
    const result = this.db
      .prepare(
        `UPDATE jobs SET status = 'running', started_at = ?, runtime = ?, progress = MAX(progress, ?), progress_message = ?,
         revision = revision + 1, updated_at = @now
         WHERE id = ? AND status = 'pending'`,
      )
      .run({ now: this.timestamp() }, this.timestamp(), runtime, progress, message, id);
    return this.changed(id, result.changes);
  }

  /**
   * Raises the progress of a running job (it never goes back, and stays below 100 until completion). The record
   * (and its revision) changes only when the progress rises or the message is new.
   */
  setProgress(id: string, progress: number, message: string | null): void {
    const result = this.db
      .prepare(
        `UPDATE jobs SET progress = MAX(progress, @progress), progress_message = COALESCE(@message, progress_message),
         revision = revision + 1, updated_at = @now
         WHERE id = @id AND status IN ('pending', 'running')
           AND (progress < @progress OR (@message IS NOT NULL AND progress_message IS NOT @message))`,
      )
      .run({ progress: Math.max(0, Math.min(99, Math.floor(progress))), message, id, now: this.timestamp() });
    this.changed(id, result.changes);
  }

  /** running → completed, progress 100. */
  complete(id: string): boolean {
    const result = this.db
      .prepare(
        `UPDATE jobs SET status = 'completed', completed_at = ?, progress = 100, progress_message = 'completed', error_message = NULL,
         revision = revision + 1, updated_at = @now
         WHERE id = ? AND status = 'running'`,
      )
      .run({ now: this.timestamp() }, this.timestamp(), id);
    return this.changed(id, result.changes);
  }

  /** pending/running → failed with `message`. False when the job had already ended. */
  fail(id: string, message: string): boolean {
    const result = this.db
      .prepare(
        `UPDATE jobs SET status = 'failed', completed_at = ?, error_message = ?, progress_message = 'failed',
         revision = revision + 1, updated_at = @now
         WHERE id = ? AND status IN ('pending', 'running')`,
      )
      .run({ now: this.timestamp() }, this.timestamp(), message, id);
    return this.changed(id, result.changes);
  }

  delete(id: string): boolean {
    return this.changed(id, this.db.prepare('DELETE FROM jobs WHERE id = ?').run(id).changes);
  }

  markDataDeleted(id: string): void {
    const result = this.db.prepare('UPDATE jobs SET data_deleted_at = ?, revision = revision + 1, updated_at = @now WHERE id = ?').run({ now: this.timestamp() }, this.timestamp(), id);
    this.changed(id, result.changes);
  }

  /**
   * After a restart: jobs that were running have lost their process; they fail with `message`.
   * Returns their ids. Pending jobs stay pending (the scheduler resumes them).
   */
  failInterrupted(message: string): string[] {
    const ids = this.db.transaction(() => {
      const ids = (this.db.prepare(`SELECT id FROM jobs WHERE status = 'running'`).all() as { id: string }[]).map((r) => r.id);
      for (const id of ids) {
        this.db
          .prepare(
            `UPDATE jobs SET status = 'failed', completed_at = ?, error_message = ?, progress_message = 'failed', revision = revision + 1, updated_at = @now WHERE id = ?`,
          )
          .run({ now: this.timestamp() }, this.timestamp(), message, id);
      }
      return ids;
    })();
    for (const id of ids) this.changed(id);
    return ids;
  }

  /** Ended jobs whose files still exist, oldest first (candidates for retention cleanup). */
  endedWithData(): JobRecord[] {
    return (
      this.db
        .prepare(`SELECT ${COLUMNS} FROM jobs WHERE status IN ('completed', 'failed') AND data_deleted_at IS NULL ORDER BY seq`)
        .all() as JobRow[]
    ).map(toRecord);
  }

  /** Completed jobs with files whose STAC Items are not indexed yet, oldest first. */
  unindexedStacJobs(): JobRecord[] {
    return (
      this.db
        .prepare(`SELECT ${COLUMNS} FROM jobs WHERE status = 'completed' AND data_deleted_at IS NULL AND stac_indexed_at IS NULL ORDER BY seq`)
        .all() as JobRow[]
    ).map(toRecord);
  }

  /** Stores the STAC Items of job `id` (none when it has no products). False when the job is gone. */
  indexStacItems(id: string, items: readonly StacItemRow[]): boolean {
    return this.db.transaction(() => {
      const marked = this.db.prepare('UPDATE jobs SET stac_indexed_at = ? WHERE id = ?').run(this.timestamp(), id).changes;
      if (marked === 0) return false;
      this.db.prepare('DELETE FROM stac_items WHERE job_id = ?').run(id);
      const insert = this.db.prepare(
        `INSERT INTO stac_items (item_id, job_id, rank, west, south, east, north, geometry, datetime_ms, start_ms, end_ms)
         VALUES (@item_id, @job_id, @rank, @west, @south, @east, @north, @geometry, @datetime_ms, @start_ms, @end_ms)`,
      );
      for (const { bbox, ...item } of items) {
        const [west, south, east, north] = bbox;
        insert.run({ ...item, job_id: id, west, south, east, north });
      }
      return true;
    })();
  }

  /** A page of indexed STAC Items (newest job first, then rank) and how many match in all. */
  stacItems(query: StacItemQuery): { matches: StacItemMatch[]; matched: number } {
    const params = stacItemParams(query);
    const after = query.after ? 'AND (j.seq, -s.rank) < (@afterSeq, -@afterRank)' : '';
    const rows = this.db
      .prepare(
        `SELECT ${COLUMNS.split(', ').map((c) => `j.${c}`).join(', ')}, j.seq AS seq, s.item_id AS item_id, s.rank AS rank
         FROM stac_items s JOIN jobs j ON j.id = s.job_id
         WHERE ${STAC_ITEM_WHERE} ${after}
         ORDER BY j.seq DESC, s.rank ASC LIMIT @limit`,
      )
      .all({ ...params, afterSeq: query.after?.seq, afterRank: query.after?.rank, limit: query.limit }) as (JobRow & { seq: number; item_id: string; rank: number })[];
    const { n } = this.db.prepare(`SELECT COUNT(*) AS n FROM stac_items s JOIN jobs j ON j.id = s.job_id WHERE ${STAC_ITEM_WHERE}`).get(params) as { n: number };
    return { matches: rows.map(({ seq, item_id, rank, ...row }) => ({ job: toRecord(row), item_id, rank, seq })), matched: n };
  }

  /** Extents of the indexed Items per collection (workflow type); collections without Items are left out. */
  stacExtents(): StacExtent[] {
    const rows = this.db
      .prepare(
        `SELECT j.workflow_type AS collection, COUNT(*) AS count, MIN(s.west) AS west, MIN(s.south) AS south,
           MAX(s.east) AS east, MAX(s.north) AS north, MIN(MIN(s.datetime_ms), COALESCE(MIN(s.start_ms), MIN(s.datetime_ms))) AS from_ms,
           MAX(MAX(s.datetime_ms), COALESCE(MAX(s.end_ms), MAX(s.datetime_ms))) AS to_ms
         FROM stac_items s JOIN jobs j ON j.id = s.job_id
         WHERE j.status = 'completed' AND j.data_deleted_at IS NULL
         GROUP BY j.workflow_type`,
      )
      .all() as { collection: string; count: number; west: number; south: number; east: number; north: number; from_ms: number; to_ms: number }[];
    return rows.map(({ west, south, east, north, ...row }) => ({ ...row, bbox: [west, south, east, north] }));
  }

  recordCleanupRun(run: CleanupRunRecord): void {
    this.db
      .prepare('INSERT INTO cleanup_runs (started_at, finished_at, dry_run, summary) VALUES (?, ?, ?, ?)')
      .run(run.started_at, run.finished_at, run.dry_run ? 1 : 0, JSON.stringify(run.summary));
  }

  /** The most recent cleanup run that was not a dry run. */
  lastCleanupRun(): CleanupRunRecord | undefined {
    const row = this.db
      .prepare('SELECT started_at, finished_at, dry_run, summary FROM cleanup_runs WHERE dry_run = 0 ORDER BY id DESC LIMIT 1')
      .get() as { started_at: string; finished_at: string; dry_run: number; summary: string } | undefined;
    return row ? { started_at: row.started_at, finished_at: row.finished_at, dry_run: row.dry_run === 1, summary: JSON.parse(row.summary) } : undefined;
  }
}
