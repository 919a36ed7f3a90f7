// Following one job: its live events (Server-Sent Events, GET /api/jobs/{id}/events), and polling GET /api/jobs/{id}
// when the events cannot be had (no EventSource, a proxy that buffers, the service's stream limit, a lost stream).
import { ACTIVE, api, ApiError, messageOf, type Job } from './common.js';

export interface JobFeedHandlers {
  /** The job as it is now (after every change). */
  update(job: Job): void;
  /** The job no longer exists (deleted). */
  gone(): void;
  /** A transient problem (the next attempt follows by itself). */
  problem(message: string): void;
}

export interface JobFeed {
  /** `events` while the live stream carries the updates, `polling` after falling back. */
  readonly mode: 'events' | 'polling';
  stop(): void;
}

interface EventData {
  status: Job['status'];
  progress: number;
  message: string | null;
  error_message: string | null;
}

/**
 * Follows job `id` until it ends (or `stop`). The whole record is fetched at the start and at every status change;
 * progress events update it in between without a request. Falls back to polling every `pollMs` for good when the
 * stream fails.
 */
export function followJob(id: string, handlers: JobFeedHandlers, { pollMs = 2000 }: { pollMs?: number } = {}): JobFeed {
  const path = `/api/jobs/${encodeURIComponent(id)}`;
  let job: Job | null = null;
  let stopped = false;
  let source: EventSource | null = null;
  let timer = 0;
  let mode: JobFeed['mode'] = 'events';

  const load = async (): Promise<Job | null> => {
    try {
      const fresh = await api<Job>(path);
      if (stopped) return null;
      job = fresh;
      handlers.update(fresh);
      return fresh;
    } catch (error) {
      if (stopped) return null;
      if (error instanceof ApiError && error.status === 404) {
        stop();
        handlers.gone();
        return null;
      }
      handlers.problem(`Could not update the status: ${messageOf(error)}. Retrying…`);
      throw error;
    }
  };

  const poll = async () => {
    window.clearTimeout(timer);
    if (stopped) return;
    let next = pollMs;
    try {
      const fresh = await load();
      if (!fresh || !ACTIVE.has(fresh.status)) return;
    } catch {
      next = pollMs * 2;
    }
    if (!stopped) timer = window.setTimeout(poll, next);
  };

  const fallBack = () => {
    source?.close();
    source = null;
    if (stopped || mode === 'polling') return;
    mode = 'polling';
    void poll();
  };

  const onEvent = (event: MessageEvent<string>) => {
    if (stopped) return;
    let data: EventData;
    try {
      data = JSON.parse(event.data) as EventData;
    } catch {
      return;
    }
    if (!job || job.status !== data.status) {
      // A status change (or the final event): the whole record, with its timestamps.
      if (!ACTIVE.has(data.status)) source?.close();
      void load().catch(() => fallBack());
      return;
    }
    job = { ...job, progress: Math.max(job.progress, data.progress), progress_message: data.message, error_message: data.error_message };
    handlers.update(job);
  };

  const stop = () => {
    stopped = true;
    source?.close();
    source = null;
    window.clearTimeout(timer);
  };

  if (typeof EventSource === 'undefined') {
    mode = 'polling';
    void poll();
  } else {
    void load()
      .then((first) => {
        if (!first || stopped || !ACTIVE.has(first.status)) return;
        source = new EventSource(`${path}/events`);
        for (const type of ['status', 'progress', 'completed', 'failed']) source.addEventListener(type, onEvent as EventListener);
        source.addEventListener('deleted', () => {
          stop();
          handlers.gone();
        });
        source.onerror = () => {
          // The stream ends after the final event; anything else is a failure: poll instead.
          if (job && !ACTIVE.has(job.status)) source?.close();
          else fallBack();
        };
      })
      .catch(() => fallBack());
  }

  return {
    get mode() {
      return mode;
    },
    stop,
  };
}
