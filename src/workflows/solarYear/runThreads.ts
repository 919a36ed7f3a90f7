/**
 * How many threads a `sol` run takes (its own module, free of the engine's, so that the command can decide which
 * worker threads to start before it loads them: cli/earlyWorkers.ts).
 */
/**
 * A run smaller than this, in cell-days counting a cell's horizons as HORIZON_CELL_DAYS of its days, runs on one
 * thread whatever the thread count asked for: a second thread costs about 0.2 CPU-seconds of its own (loading
 * and optimising its code, and the run cut into MIN_SHARED_COMPUTE_TILES tiles), more than it takes off such a
 * run. Measured with the `eemt sol` command on 2 cores, days 30, 80 and 330: 100 × 100 cells 0.68 s on one thread
 * against 0.82 s on two, 140 × 140 even (0.94 s), 200 × 200 1.27 s against 1.05 s; 100 × 100 with 20 days
 * 1.0 s against 0.9 s.
 */
export const SINGLE_THREAD_CELL_DAYS = 150_000;
/** A few-day run's horizons per cell cost about as much as this many of its days (the same runs' profiles). */
const HORIZON_CELL_DAYS = 5;

/**
 * Whether a run on `validCells` cells and `days` days is small (SINGLE_THREAD_CELL_DAYS): it then computes on one
 * thread, the one that runs it, without a worker thread (solarYear/inThreadWorker.ts).
 */
export function computesInThread(validCells: number, days: number): boolean {
  return validCells * (days + HORIZON_CELL_DAYS) < SINGLE_THREAD_CELL_DAYS;
}

/** Threads of a run on `validCells` cells and `days` days, of at most `threads` (see SINGLE_THREAD_CELL_DAYS). */
export function runThreads(threads: number, validCells: number, days: number): number {
  return computesInThread(validCells, days) ? 1 : threads;
}

/** Worker threads to start for a run on at most `cells` cells: `runThreads`, none for a run that computes in its thread. */
export function runWorkerThreads(threads: number, cells: number, days: number): number {
  return computesInThread(cells, days) ? 0 : runThreads(threads, cells, days);
}
