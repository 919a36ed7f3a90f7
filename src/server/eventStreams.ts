/**
 * The open Server-Sent Events streams of the service: how many there are (in all and per job, each bounded by a
 * setting), and ending them all when the service shuts down.
 */
export interface EventStreamLimits {
  /** Most open event streams of the service (EEMT_MAX_EVENT_STREAMS). */
  readonly maxStreams: number;
  /** Most open event streams of one job (EEMT_MAX_EVENT_STREAMS_PER_JOB). */
  readonly maxStreamsPerJob: number;
}

export class EventStreams {
  private readonly perJob = new Map<string, number>();
  private readonly closers = new Set<() => void>();

  constructor(readonly limits: EventStreamLimits) {}

  /** Open streams in all. */
  get open(): number {
    return this.closers.size;
  }

  /**
   * Registers a stream of job `id` (its `close` ends it). Returns the function that releases it, or a reason when
   * a limit is reached.
   */
  admit(id: string, close: () => void): { release: () => void } | { refused: string } {
    const ofJob = this.perJob.get(id) ?? 0;
    if (this.closers.size >= this.limits.maxStreams) {
      return { refused: `Too many open event streams (at most ${this.limits.maxStreams}, EEMT_MAX_EVENT_STREAMS); poll the job instead` };
    }
    if (ofJob >= this.limits.maxStreamsPerJob) {
      return {
        refused: `Too many open event streams of this job (at most ${this.limits.maxStreamsPerJob}, EEMT_MAX_EVENT_STREAMS_PER_JOB); poll the job instead`,
      };
    }
    this.perJob.set(id, ofJob + 1);
    this.closers.add(close);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.closers.delete(close);
        const left = (this.perJob.get(id) ?? 1) - 1;
        if (left > 0) this.perJob.set(id, left);
        else this.perJob.delete(id);
      },
    };
  }

  /** Ends every open stream (shutdown). */
  closeAll(): void {
    for (const close of [...this.closers]) close();
  }
}
