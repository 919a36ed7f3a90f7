/**
 * Data that belongs to no job: what a crash or an interrupted delete leaves behind.
 *
 * - `uploads/<id>` and `results/<id>` with no job record (a partial upload of a service killed mid-request),
 *   or of a job whose data was deleted (a delete cut short);
 * - `temp/<id>` of a job that is not running (the scratch space of an interrupted job).
 *
 * Only folders named like job ids (UUIDs) are considered: nothing else in the data folders is touched. A job
 * that is busy — running here, or whose upload is still arriving — is never an orphan.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { diskUsageBytes } from '../store/files.js';
import type { JobPaths } from '../store/paths.js';
import type { JobStore } from '../store/store.js';

const JOB_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface OrphanedData {
  /** The folder, relative to its data folder's parent: `uploads/<id>`, `results/<id>` or `temp/<id>`. */
  readonly path: string;
  readonly job_id: string;
  readonly reason: string;
  readonly size_bytes: number;
  readonly removed: boolean;
}

/** Ids of jobs whose folders must not be touched now (running here, or uploading). */
export type BusyCheck = (jobId: string) => boolean;

/** Job-id folders under `root` ([] when it does not exist). */
async function jobFolders(root: string): Promise<string[]> {
  try {
    return (await readdir(root, { withFileTypes: true })).filter((e) => e.isDirectory() && JOB_ID.test(e.name)).map((e) => e.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** Why the folder `kind/<id>` belongs to no job, or null when it belongs to one. */
function orphanReason(kind: 'uploads' | 'results' | 'temp', id: string, store: JobStore): string | null {
  const job = store.get(id);
  if (!job) return 'no job record';
  if (kind === 'temp') return `the job is not running (${job.status})`;
  if (job.data_deleted_at) return "the job's data was deleted";
  return null;
}

/**
 * Finds orphaned folders and, unless `dryRun`, removes them. Errors of single removals are reported in
 * `errors` and do not stop the sweep.
 */
export async function sweepOrphans(
  options: { store: JobStore; paths: JobPaths; isBusy: BusyCheck; dryRun: boolean },
  errors: string[] = [],
): Promise<OrphanedData[]> {
  const { store, paths, isBusy, dryRun } = options;
  const roots = { uploads: paths.dirs.uploadDir, results: paths.dirs.resultsDir, temp: paths.dirs.tempDir } as const;
  const found: OrphanedData[] = [];
  for (const kind of ['uploads', 'results', 'temp'] as const) {
    for (const id of await jobFolders(roots[kind])) {
      if (isBusy(id)) continue;
      const reason = orphanReason(kind, id, store);
      if (!reason) continue;
      const folder = join(roots[kind], id);
      const size = await diskUsageBytes(folder);
      let removed = false;
      // Checked again just before removing: a job may have started or an upload begun meanwhile.
      if (!dryRun && !isBusy(id) && orphanReason(kind, id, store)) {
        try {
          await rm(folder, { recursive: true, force: true });
          removed = true;
        } catch (error) {
          errors.push(`${kind}/${id}: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      found.push({ path: `${kind}/${id}`, job_id: id, reason, size_bytes: size, removed });
    }
  }
  return found;
}

/** Job ids whose upload is being received (no job record exists yet), so the sweep leaves them alone. */
export class UploadsInProgress {
  private readonly ids = new Set<string>();

  begin(jobId: string): void {
    this.ids.add(jobId);
  }

  end(jobId: string): void {
    this.ids.delete(jobId);
  }

  has(jobId: string): boolean {
    return this.ids.has(jobId);
  }
}
