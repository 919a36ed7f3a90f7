/** Appending to a job's `job.log` from outside the embedded scheduler (the distributed queue and its workers). */
import { constants } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';

/** Open flags of job.log: appended, never through a link (a job must not point our writes elsewhere). */
export const JOB_LOG_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;

/** Appends `lines` to the log at `path`, each with a timestamp. Failures are returned, never thrown. */
export async function appendJobLog(path: string, lines: readonly string[]): Promise<Error | null> {
  if (lines.length === 0) return null;
  try {
    await mkdir(dirname(path), { recursive: true });
    const file = await open(path, JOB_LOG_FLAGS, 0o644);
    try {
      const now = new Date().toISOString();
      await file.write(lines.map((line) => `${now} ${line}\n`).join(''));
    } finally {
      await file.close();
    }
    return null;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}
