/**
 * Live job events: what a client following a job (Server-Sent Events, `GET /api/jobs/{id}/events`) is told, and
 * where it comes from.
 *
 * `JobEventSource` is the job layer's interface for "the state of a job, and a call when it may have changed".
 * The embedded implementation (`StoreJobEvents`) listens to the job store, which every queue keeps up to date —
 * the embedded scheduler and the distributed queue (it reconciles its workers' reports into the same store) — so
 * both are followed the same way. A queue that keeps job state elsewhere implements the interface itself.
 *
 * `followJob` turns a source into events. Each event's id is the job record's revision, which rises with every
 * change and is kept in the database, so ids never go back, also across a service restart, and a client that
 * reconnects with `Last-Event-ID` is sent only what is newer than what it has.
 */
import type { JobStore } from '../store/store.js';
import type { JobRecord, JobStatus } from '../types.js';

/** A job's state as a follower sees it. */
export interface JobSnapshot {
  readonly id: string;
  readonly status: JobStatus;
  /** 0–100, never decreasing. */
  readonly progress: number;
  readonly message: string | null;
  readonly error_message: string | null;
  /** Rises with every change of the record; the id of the event that reports it. */
  readonly revision: number;
}

export interface JobEventSource {
  /** The job's current state, or undefined when there is no such job (or it was deleted). */
  snapshot(id: string): JobSnapshot | undefined;
  /** Calls `onChange` whenever the job may have changed. Returns the function that stops the calls. */
  watch(id: string, onChange: () => void): () => void;
}

function snapshotOf(job: JobRecord): JobSnapshot {
  return {
    id: job.id,
    status: job.status,
    progress: job.progress,
    message: job.progress_message,
    error_message: job.error_message,
    revision: job.revision,
  };
}

/** The embedded source: the job store's records and its change notifications. */
export class StoreJobEvents implements JobEventSource {
  private readonly watchers = new Map<string, Set<() => void>>();
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly store: JobStore) {}

  snapshot(id: string): JobSnapshot | undefined {
    const job = this.store.get(id);
    return job ? snapshotOf(job) : undefined;
  }

  watch(id: string, onChange: () => void): () => void {
    // One store listener for all watchers, added while anyone watches.
    this.unsubscribe ??= this.store.onChange((changed) => {
      for (const call of [...(this.watchers.get(changed) ?? [])]) call();
    });
    const set = this.watchers.get(id) ?? new Set();
    set.add(onChange);
    this.watchers.set(id, set);
    return () => {
      set.delete(onChange);
      if (set.size === 0 && this.watchers.get(id) === set) this.watchers.delete(id);
      if (this.watchers.size === 0 && this.unsubscribe) {
        this.unsubscribe();
        this.unsubscribe = null;
      }
    };
  }

  /** Jobs being watched now (tests: every closed stream must release its watch). */
  get watchedJobs(): number {
    return this.watchers.size;
  }
}

export type JobEventType = 'status' | 'progress' | 'completed' | 'failed' | 'deleted';

export interface JobEvent {
  /** The revision it reports (absent for `deleted`, which has no record). */
  readonly id: number | null;
  readonly type: JobEventType;
  readonly data: {
    readonly job_id: string;
    readonly status: JobStatus | null;
    readonly progress: number | null;
    readonly message: string | null;
    readonly error_message: string | null;
  };
}

const ENDED: readonly JobStatus[] = ['completed', 'failed'];

export function isFinal(status: JobStatus): boolean {
  return ENDED.includes(status);
}

function eventFor(snapshot: JobSnapshot, previous: JobSnapshot | null): JobEvent {
  const type: JobEventType = isFinal(snapshot.status)
    ? (snapshot.status as 'completed' | 'failed')
    : previous === null || previous.status !== snapshot.status
      ? 'status'
      : 'progress';
  return {
    id: snapshot.revision,
    type,
    data: {
      job_id: snapshot.id,
      status: snapshot.status,
      progress: snapshot.progress,
      message: snapshot.message,
      error_message: snapshot.error_message,
    },
  };
}

export interface JobFollower {
  /** Reads the job again and sends what is new (also called periodically, for changes the source missed). */
  poll(): void;
  /** Stops following (idempotent); the source's watch is released. */
  stop(): void;
}

/**
 * Shortest interval between two `progress` events of one follower [ms]. A job reports its progress hundreds of
 * times a second (every tile and day); a follower sends at most four of them a second, each with the state of the
 * moment it is sent, so the last progress before a pause is never lost.
 */
export const PROGRESS_EVENT_INTERVAL_MS = 250;

/**
 * Follows job `id` from revision `after` (null: from the start, sending the current state first). `send` gets every
 * event with a revision above the last one sent, so nothing is repeated and nothing goes back; the final event
 * (`completed`/`failed`, or `deleted` when the job disappears) is followed by `end`, and nothing after it.
 * Status changes and the end are sent at once; progress at most every `progressIntervalMs`, coalesced.
 * The caller must have checked that the job exists.
 */
export function followJob(
  source: JobEventSource,
  id: string,
  after: number | null,
  send: (event: JobEvent) => void,
  end: () => void,
  progressIntervalMs = PROGRESS_EVENT_INTERVAL_MS,
): JobFollower {
  let lastSent = after ?? -1;
  let previous: JobSnapshot | null = null;
  let stopped = false;
  let unwatch: (() => void) | null = null;
  let lastProgressAt = -Infinity;
  let deferred: NodeJS.Timeout | null = null;

  const stop = () => {
    if (stopped) return;
    stopped = true;
    if (deferred) clearTimeout(deferred);
    deferred = null;
    unwatch?.();
    unwatch = null;
  };
  const poll = () => {
    if (stopped) return;
    const snapshot = source.snapshot(id);
    // Progress within the interval after the last one waits (the state is read again when it is sent).
    let progress = false;
    if (snapshot && previous && snapshot.revision > lastSent && snapshot.status === previous.status && !isFinal(snapshot.status)) {
      const wait = lastProgressAt + progressIntervalMs - Date.now();
      if (wait > 0) {
        deferred ??= setTimeout(() => {
          deferred = null;
          poll();
        }, wait);
        return;
      }
      progress = true;
    }
    if (deferred) {
      clearTimeout(deferred);
      deferred = null;
    }
    if (!snapshot) {
      stop();
      send({ id: null, type: 'deleted', data: { job_id: id, status: null, progress: null, message: null, error_message: null } });
      end();
      return;
    }
    if (snapshot.revision > lastSent) {
      send(eventFor(snapshot, previous));
      lastSent = snapshot.revision;
      // the interval counts from the delivery, so a slow delivery never brings the next event closer
      if (progress) lastProgressAt = Date.now();
    }
    previous = snapshot;
    if (isFinal(snapshot.status)) {
      stop();
      end();
    }
  };
  unwatch = source.watch(id, poll);
  poll();
  return { poll, stop };
}
