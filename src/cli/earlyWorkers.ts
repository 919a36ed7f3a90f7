/**
 * The `sol` command's worker threads, started before the rest of the command loads: a worker takes about 0.3 s
 * to start and load its modules, and the command's own modules (its options, the GeoTIFF reader) take about
 * 0.1 s before the command runs, so starting them first takes that much off a short run. The count is read from
 * the command line as the command reads it (`--threads`, default every CPU within the parameter's range); the
 * command checks the line itself, and workers it does not take end with it.
 */
import { availableParallelism } from 'node:os';
import { NUMERIC_PARAMETERS } from '../workflows/parameters/contract.js';
import { prestartSolWorkers } from '../workflows/solarYear/workerPool.js';

/** The command's default number of threads: every core the machine has, within the parameter's range. */
export function defaultCliThreads(): number {
  return Math.min(availableParallelism(), NUMERIC_PARAMETERS.num_threads.maximum);
}

/** Worker threads a `sol` command line will use (0 for other commands, help, or a thread count it will refuse). */
export function solWorkersOf(argv: readonly string[]): number {
  const args = argv.slice(2);
  if (args[0] !== 'sol' || args.some((arg) => arg === '-h' || arg === '--help')) return 0;
  const { minimum, maximum } = NUMERIC_PARAMETERS.num_threads;
  let threads = defaultCliThreads();
  for (let i = 1; i < args.length; i++) {
    const arg = args[i]!;
    const value = arg === '--threads' ? args[i + 1] : arg.startsWith('--threads=') ? arg.slice('--threads='.length) : undefined;
    if (value === undefined) continue;
    const requested = Number(value);
    if (!Number.isInteger(requested) || requested < minimum || requested > maximum) return 0;
    threads = requested;
  }
  return Math.min(threads, availableParallelism());
}

/** Starts the worker threads of a `sol` command line (see the module comment). */
export function startSolWorkersEarly(argv: readonly string[]): void {
  const workers = solWorkersOf(argv);
  if (workers > 0) prestartSolWorkers(workers);
}
