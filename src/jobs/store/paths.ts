/** Where a job's files live. Every folder is named by the job id, never by anything the client sent. */
import { join, resolve } from 'node:path';

export interface DataDirs {
  readonly uploadDir: string;
  readonly resultsDir: string;
  readonly tempDir: string;
  readonly cacheDir: string;
}

export class JobPaths {
  readonly dirs: DataDirs;

  constructor(dirs: DataDirs) {
    this.dirs = {
      uploadDir: resolve(dirs.uploadDir),
      resultsDir: resolve(dirs.resultsDir),
      tempDir: resolve(dirs.tempDir),
      cacheDir: resolve(dirs.cacheDir),
    };
  }

  /** Folder holding the uploaded DEM of a job. */
  uploadDir(jobId: string): string {
    return join(this.dirs.uploadDir, jobId);
  }

  /** The uploaded DEM, stored under a fixed name (the client's file name is kept only in the record). */
  demPath(jobId: string): string {
    return join(this.uploadDir(jobId), 'dem.tif');
  }

  /** The uploaded climate grids of an eemt job (`climate_file`), stored beside the DEM under a fixed name. */
  climatePath(jobId: string): string {
    return join(this.uploadDir(jobId), 'climate.zip');
  }

  /** The job folder: `job.json`, `job.log` and the outputs under `output/`. */
  jobDir(jobId: string): string {
    return join(this.dirs.resultsDir, jobId);
  }

  outputDir(jobId: string): string {
    return join(this.jobDir(jobId), 'output');
  }

  logPath(jobId: string): string {
    return join(this.jobDir(jobId), 'job.log');
  }

  /** Scratch folder of a running job, removed when it ends. */
  tempDir(jobId: string): string {
    return join(this.dirs.tempDir, jobId);
  }

  /** Every folder holding data of the job. */
  allDirs(jobId: string): string[] {
    return [this.uploadDir(jobId), this.jobDir(jobId), this.tempDir(jobId)];
  }
}
