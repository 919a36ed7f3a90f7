/**
 * The `sol` command's first worker thread, started before the rest of the command loads: a worker takes about 0.3 s to
 * start and load its modules, and the command's own modules (its options, the GeoTIFF reader) take about 0.1 s before
 * the command runs, so starting it first takes that much off a short run. Every run has a first worker; the others
 * start once the DEM is read and the run needs them (`runSolWorkflow`): a small run takes one thread, and a second
 * worker loading its modules beside it on two cores only slowed the command's start (100 × 100 cells, three days:
 * 0.63 s against 0.73 s when every worker started first, medians of 15). The count is read from the command line as
 * the command reads it (`--threads`, default every CPU within the parameter's range); the command checks the line
 * itself, and a worker it does not take ends with it.
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

/** Starts the first worker thread of a `sol` command line (see the module comment). */
export function startSolWorkersEarly(argv: readonly string[]): void {
  if (solWorkersOf(argv) > 0) prestartSolWorkers(1);
}
