/**
 * Retention cleanup of job data.
 *
 * - Completed jobs older than `success_retention_days` (by `completed_at`): their upload, job folder and
 *   scratch space are deleted; the job record (its configuration: parameters, file name, times) is preserved
 *   and marked as having no data, so the results endpoint answers "Results not found".
 * - Failed jobs older than `failed_retention_hours`: their data and their record are deleted.
 * - Pending and running jobs are never touched.
 * - Data that belongs to no job (`orphans.ts`: folders without a job record, scratch space of jobs that are
 *   not running) is removed by every run and at start-up, and listed by a dry run (`orphaned_data`).
 *
 * Timestamps in cleanup responses are ISO 8601 UTC without a zone designator, as in the specification.
 * A timer runs the cleanup automatically every `intervalMs` (when set) with the default retention.
 */
import { rm } from 'node:fs/promises';
import { diskUsageBytes } from '../store/files.js';
import { sweepOrphans, type BusyCheck, type OrphanedData } from '../queue/orphans.js';
import type { JobPaths } from '../store/paths.js';
import type { JobStore } from '../store/store.js';

export interface RetentionSettings {
  readonly success_retention_days: number;
  readonly failed_retention_hours: number;
}

export interface CleanupRequest extends Partial<RetentionSettings> {
  readonly dry_run?: boolean;
}

export interface CleanupJobDetail {
  job_id: string;
  status: string;
  completed_at: string;
  data_deleted: boolean;
  config_preserved: boolean;
  size_freed_mb: number;
}

export interface CleanupSummary {
  start_time: string;
  end_time: string;
  dry_run: boolean;
  successful_jobs_processed: number;
  failed_jobs_processed: number;
  total_size_freed_mb: number;
  configs_preserved: number;
  configs_deleted: number;
  errors: string[];
  job_details: CleanupJobDetail[];
  /** Folders that belonged to no job (extension): removed, or listed by a dry run. */
  orphaned_data: CleanupOrphanDetail[];
}

export interface CleanupOrphanDetail {
  path: string;
  job_id: string;
  reason: string;
  size_freed_mb: number;
  removed: boolean;
}

export interface CleanupResult {
  success: true;
  summary: CleanupSummary;
  timestamp: string;
}

export interface CleanupStatus {
  last_run: string | null;
  next_scheduled: string | null;
  auto_cleanup_enabled: boolean;
  retention_settings: RetentionSettings;
  disk_usage: { uploads_mb: number; results_mb: number; total_mb: number };
}

export interface CleanupServiceOptions {
  readonly store: JobStore;
  readonly paths: JobPaths;
  readonly defaults: RetentionSettings;
  /** Interval of the automatic cleanup [ms], or null to disable it. */
  readonly intervalMs: number | null;
  readonly now?: () => Date;
  readonly logger?: { info(message: string): void; error(message: string): void };
  /** Jobs whose folders are in use (running, or their upload arriving): never orphans. */
  readonly isBusy?: BusyCheck;
}

/** A cleanup timestamp: ISO 8601 UTC without the zone designator. */
function cleanupTimestamp(date: Date): string {
  return date.toISOString().replace(/Z$/, '');
}

function megabytes(bytes: number): number {
  return Math.round((bytes / (1024 * 1024)) * 1000) / 1000;
}

export class CleanupService {
  private readonly store: JobStore;
  private readonly paths: JobPaths;
  readonly defaults: RetentionSettings;
  private readonly intervalMs: number | null;
  private readonly now: () => Date;
  private readonly logger: { info(message: string): void; error(message: string): void };
  private readonly isBusy: BusyCheck;
  private timer: NodeJS.Timeout | null = null;
  private nextRun: Date | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: CleanupServiceOptions) {
    this.store = options.store;
    this.paths = options.paths;
    this.defaults = options.defaults;
    this.intervalMs = options.intervalMs;
    this.now = options.now ?? (() => new Date());
    this.logger = options.logger ?? { info: () => undefined, error: () => undefined };
    this.isBusy = options.isBusy ?? (() => false);
  }

  /** Removes data that belongs to no job (at start-up, before any job runs); not recorded as a cleanup run. */
  removeOrphans(): Promise<OrphanedData[]> {
    const result = this.queue.then(async () => {
      const errors: string[] = [];
      const orphans = await sweepOrphans({ store: this.store, paths: this.paths, isBusy: this.isBusy, dryRun: false }, errors);
      for (const error of errors) this.logger.error(`removing orphaned data: ${error}`);
      return orphans;
    });
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** Starts the automatic schedule (no-op when disabled). */
  startSchedule(): void {
    if (this.intervalMs === null || this.timer) return;
    const schedule = () => {
      this.nextRun = new Date(this.now().getTime() + this.intervalMs!);
      this.timer = setTimeout(() => {
        this.run({})
          .then((r) => this.logger.info(`automatic cleanup: ${r.summary.job_details.length} jobs, ${r.summary.total_size_freed_mb} MB freed`))
          .catch((e: unknown) => this.logger.error(`automatic cleanup failed: ${e instanceof Error ? e.message : String(e)}`))
          .finally(() => {
            if (this.timer) schedule();
          });
      }, this.intervalMs!);
      this.timer.unref();
    };
    schedule();
  }

  stopSchedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.nextRun = null;
  }

  /** Runs a cleanup (one at a time: a request during a run waits for it and then runs). */
  run(request: CleanupRequest): Promise<CleanupResult> {
    const result = this.queue.then(() => this.runOnce(request));
    this.queue = result.catch(() => undefined);
    return result;
  }

  private async runOnce(request: CleanupRequest): Promise<CleanupResult> {
    const started = this.now();
    const dryRun = request.dry_run ?? false;
    const successDays = request.success_retention_days ?? this.defaults.success_retention_days;
    const failedHours = request.failed_retention_hours ?? this.defaults.failed_retention_hours;
    const successCutoff = started.getTime() - successDays * 86_400_000;
    const failedCutoff = started.getTime() - failedHours * 3_600_000;

    const summary: CleanupSummary = {
      start_time: cleanupTimestamp(started),
      end_time: '',
      dry_run: dryRun,
      successful_jobs_processed: 0,
      failed_jobs_processed: 0,
      total_size_freed_mb: 0,
      configs_preserved: 0,
      configs_deleted: 0,
      errors: [],
      job_details: [],
      orphaned_data: [],
    };
    let freedBytes = 0;

    for (const job of this.store.endedWithData()) {
      const ended = Date.parse(job.completed_at ?? job.created_at);
      const expired = job.status === 'completed' ? ended < successCutoff : ended < failedCutoff;
      if (!expired) continue;
      const dirs = this.paths.allDirs(job.id);
      let size = 0;
      for (const dir of dirs) size += await diskUsageBytes(dir);
      const preserve = job.status === 'completed';
      let deleted = false;
      if (dryRun) {
        deleted = false;
      } else {
        try {
          for (const dir of dirs) await rm(dir, { recursive: true, force: true });
          if (preserve) this.store.markDataDeleted(job.id);
          else this.store.delete(job.id);
          deleted = true;
        } catch (error) {
          summary.errors.push(`job ${job.id}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      if (job.status === 'completed') summary.successful_jobs_processed++;
      else summary.failed_jobs_processed++;
      if (preserve) summary.configs_preserved++;
      else if (deleted || dryRun) summary.configs_deleted++;
      if (deleted || dryRun) freedBytes += size;
      summary.job_details.push({
        job_id: job.id,
        status: job.status,
        completed_at: cleanupTimestamp(new Date(ended)),
        data_deleted: deleted,
        config_preserved: preserve || !deleted,
        size_freed_mb: deleted || dryRun ? megabytes(size) : 0,
      });
    }

    for (const orphan of await sweepOrphans({ store: this.store, paths: this.paths, isBusy: this.isBusy, dryRun }, summary.errors)) {
      if (orphan.removed || dryRun) freedBytes += orphan.size_bytes;
      summary.orphaned_data.push({
        path: orphan.path,
        job_id: orphan.job_id,
        reason: orphan.reason,
        size_freed_mb: orphan.removed || dryRun ? megabytes(orphan.size_bytes) : 0,
        removed: orphan.removed,
      });
    }

    summary.total_size_freed_mb = megabytes(freedBytes);
    const finished = this.now();
    summary.end_time = cleanupTimestamp(finished);
    this.store.recordCleanupRun({ started_at: summary.start_time, finished_at: summary.end_time, dry_run: dryRun, summary });
    return { success: true, summary, timestamp: cleanupTimestamp(finished) };
  }

  async status(): Promise<CleanupStatus> {
    const [uploads, results] = await Promise.all([
      diskUsageBytes(this.paths.dirs.uploadDir),
      diskUsageBytes(this.paths.dirs.resultsDir),
    ]);
    return {
      last_run: this.store.lastCleanupRun()?.finished_at ?? null,
      next_scheduled: this.nextRun ? cleanupTimestamp(this.nextRun) : null,
      auto_cleanup_enabled: this.timer !== null,
      retention_settings: { ...this.defaults },
      disk_usage: { uploads_mb: megabytes(uploads), results_mb: megabytes(results), total_mb: megabytes(uploads + results) },
    };
  }
}
