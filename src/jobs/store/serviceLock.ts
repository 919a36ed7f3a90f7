/**
 * One service per job database and data folders. Two services on the same data corrupt each other (the second
 * marks the first one's running jobs interrupted and takes its pending jobs), so a service locks its database and
 * each data folder before it touches any of them, and holds the locks for its whole life.
 *
 * A lock is an SQLite write transaction held open on an empty lock file: `<database>.lock` beside the database
 * file (as its `-wal` and `-shm` files), and `.eemt-service.lock` inside each data folder (never in the folder
 * above it, which may be anybody's, such as /tmp; the job sweeps take only job-id names). SQLite locks files with POSIX advisory locks, which the kernel
 * releases when the process dies in any way, `kill -9` included, so a lock is never left behind and no stale-lock
 * guessing is needed. The lock file stays empty (the transaction writes nothing; its journal lives in memory).
 * Next to it, `<lock file>.json` describes the holder (pid, host, start time, address) for the message a second
 * service prints; that description is only informative, the lock decides.
 */
import Database from 'better-sqlite3';
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { JobPaths, type DataDirs } from './paths.js';

/** Who holds a lock. */
export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  readonly started_at: string;
  /** Address the holder listens on, once it does. */
  readonly address: string | null;
}

/** A lock is held by another process (another service on the same data). */
export class ServiceLockedError extends Error {
  constructor(
    /** The database file or data folder that is locked. */
    readonly path: string,
    /** The holder's own description, when it could be read. */
    readonly holder: LockHolder | null,
  ) {
    const who = holder
      ? `pid ${holder.pid} on ${holder.host}${holder.address ? `, listening on ${holder.address}` : ''}, started ${holder.started_at}`
      : 'a process that did not describe itself';
    super(`${path} is in use by another eemt-service (${who})`);
    this.name = 'ServiceLockedError';
  }
}

/** Name of the lock file inside each data folder. */
export const FOLDER_LOCK_NAME = '.eemt-service.lock';

/** The lock file of a database file (`<path>.lock` beside it) or of a data folder (inside it). */
function lockFileFor(path: string, kind: 'file' | 'folder'): string {
  const absolute = resolve(path);
  return kind === 'folder' ? join(absolute, FOLDER_LOCK_NAME) : join(dirname(absolute), `${basename(absolute)}.lock`);
}

/** The holder's description, unless it is missing or left by a process of this host that has ended. */
function readHolder(lockFile: string): LockHolder | null {
  let holder: LockHolder;
  try {
    holder = JSON.parse(readFileSync(`${lockFile}.json`, 'utf8')) as LockHolder;
  } catch {
    return null;
  }
  if (typeof holder.pid !== 'number') return null;
  if (holder.host === hostname()) {
    try {
      process.kill(holder.pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') return null;
    }
  }
  return holder;
}

/** Real path of a folder or file (creating a missing folder), so two spellings of one place share one lock. */
function canonical(path: string, kind: 'file' | 'folder'): string {
  const absolute = resolve(path);
  if (kind === 'folder') mkdirSync(absolute, { recursive: true });
  else mkdirSync(dirname(absolute), { recursive: true });
  try {
    return realpathSync(absolute);
  } catch {
    return join(realpathSync(dirname(absolute)), basename(absolute));
  }
}

export class ServiceLock {
  private holder: LockHolder;

  private constructor(
    private readonly locks: ReadonlyArray<{ readonly file: string; readonly db: Database.Database }>,
  ) {
    this.holder = { pid: process.pid, host: hostname(), started_at: new Date().toISOString(), address: null };
    this.describe();
  }

  /** `acquire` of what a service with these settings owns: its database and its upload, results and temp folders. */
  static forService(settings: DataDirs & { readonly dbPath: string }): ServiceLock {
    const { dirs } = new JobPaths(settings);
    return ServiceLock.acquire({ dbPath: settings.dbPath, folders: [dirs.uploadDir, dirs.resultsDir, dirs.tempDir] });
  }

  /**
   * Locks the database file and the data folders (creating missing folders, nothing else), or throws
   * ServiceLockedError naming the first one another process holds, having released any it took.
   */
  static acquire(targets: { readonly dbPath: string; readonly folders: readonly string[] }): ServiceLock {
    const targetsByPath = new Map<string, 'file' | 'folder'>([
      [canonical(targets.dbPath, 'file'), 'file'],
      ...targets.folders.map((f) => [canonical(f, 'folder'), 'folder'] as const),
    ]);
    const taken: { file: string; db: Database.Database }[] = [];
    try {
      for (const [path, kind] of targetsByPath) {
        const file = lockFileFor(path, kind);
        const db = new Database(file, { timeout: 0 });
        try {
          db.pragma('journal_mode = MEMORY');
          db.exec('BEGIN IMMEDIATE');
        } catch (error) {
          db.close();
          if ((error as { code?: string }).code === 'SQLITE_BUSY') throw new ServiceLockedError(path, readHolder(file));
          throw error;
        }
        taken.push({ file, db });
      }
    } catch (error) {
      for (const lock of taken) lock.db.close();
      throw error;
    }
    return new ServiceLock(taken);
  }

  /** Records the address the service listens on, for the message of a second service. */
  setAddress(address: string): void {
    this.holder = { ...this.holder, address };
    this.describe();
  }

  private describe(): void {
    for (const { file } of this.locks) writeFileSync(`${file}.json`, `${JSON.stringify(this.holder)}\n`);
  }

  /** Releases every lock (also released by the kernel when the process ends). */
  release(): void {
    for (const { db } of this.locks) if (db.open) db.close();
  }
}
