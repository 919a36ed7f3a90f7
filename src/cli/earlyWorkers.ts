/**
 * The `sol` command's worker threads, started before the rest of the command loads: a worker takes about 40 ms of
 * Node's own to start, then loads its modules, while the command's own modules (its options, the GeoTIFF reader) take
 * about 0.1 s before the command runs, so starting them first takes that much off a short run. They start once the
 * DEM's size (from its TIFF header, read before the command's modules load) and the days show what the run needs
 * (`runWorkerThreads`): none for a small run, which computes in the command's own thread (a worker starting beside
 * it on two cores only slowed it: 100 × 100 cells, three days, 0.255 s against 0.292 s with one worker, medians
 * of 21 rounds interleaved), one for a run on one thread, otherwise every worker. The count is read from the command
 * line as the command reads it (`--threads`, default every CPU within the parameter's range); the command checks the
 * line itself, and a worker it does not take ends with it.
 */
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { inspectTiff, type ByteSource } from '../raster/tiff/tiffStructure.js';
import { NUMERIC_PARAMETERS } from '../workflows/parameters/contract.js';
import { prestartSolWorkers } from '../workflows/solarYear/workerPool.js';
import { DAYS_PER_YEAR } from '../workflows/solarYear/products.js';
import { parseDaySpec } from '../workflows/solarYear/days.js';
import { runWorkerThreads } from '../workflows/solarYear/runThreads.js';

/** The command's default number of threads: every core the machine has, within the parameter's range. */
export function defaultCliThreads(): number {
  return Math.min(availableParallelism(), NUMERIC_PARAMETERS.num_threads.maximum);
}

/** The value `args[i]` gives the option `name` (`--name value` or `--name=value`), or undefined. */
function optionValue(args: readonly string[], i: number, name: string): string | undefined {
  const arg = args[i]!;
  if (arg === name) return args[i + 1];
  return arg.startsWith(`${name}=`) ? arg.slice(name.length + 1) : undefined;
}

/** Worker threads a `sol` command line will use (0 for other commands, help, or a thread count it will refuse). */
export function solWorkersOf(argv: readonly string[]): number {
  const args = argv.slice(2);
  if (args[0] !== 'sol' || args.some((arg) => arg === '-h' || arg === '--help')) return 0;
  const { minimum, maximum } = NUMERIC_PARAMETERS.num_threads;
  let threads = defaultCliThreads();
  for (let i = 1; i < args.length; i++) {
    const value = optionValue(args, i, '--threads');
    if (value === undefined) continue;
    const requested = Number(value);
    if (!Number.isInteger(requested) || requested < minimum || requested > maximum) return 0;
    threads = requested;
  }
  return Math.min(threads, availableParallelism());
}

/**
 * The width × height of the TIFF at `path`, or null (not a regular file, or not a TIFF). Its header and directory
 * are read synchronously (the inspection then runs in microtasks alone), so that the answer comes before the
 * command's modules load, not between their steps.
 */
async function tiffCellsOf(path: string): Promise<number | null> {
  let fd: number;
  try {
    // (only a regular file: opening a FIFO would wait for a writer)
    if (!statSync(path).isFile()) return null;
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const source: ByteSource = {
      size: fstatSync(fd).size,
      read: async (position, length) => {
        const buffer = Buffer.alloc(length);
        return buffer.subarray(0, readSync(fd, buffer, 0, length, position));
      },
    };
    const header = await inspectTiff(source);
    return header.width * header.height;
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * The cells and days of a `sol` command line's run, at most (as the command will read them), or null when its DEM
 * cannot be told (`tiffCellsOf`): the DEM is the first argument after `sol` that is a TIFF file (options' values are
 * numbers, day lists and folders); the days from `--days` (365 without).
 */
export async function solWorkOf(argv: readonly string[]): Promise<{ cells: number; days: number } | null> {
  const args = argv.slice(2);
  let cells: number | null = null;
  let days = DAYS_PER_YEAR;
  for (let i = 1; i < args.length; i++) {
    const arg = args[i]!;
    const spec = optionValue(args, i, '--days');
    if (spec !== undefined) days = parseDaySpec(spec).length;
    if (cells === null && !arg.startsWith('-') && args[i - 1] !== '--days') cells = await tiffCellsOf(arg);
  }
  return cells === null ? null : { cells, days };
}

/**
 * How many worker threads to start early for a `sol` command line (see the module comment): none for a small run
 * (it computes in the command's thread), 1 for a run on one thread, or all of them (also when the DEM cannot be
 * told: the command then reports it).
 */
export async function earlySolWorkersOf(argv: readonly string[]): Promise<number> {
  const workers = solWorkersOf(argv);
  if (workers === 0) return 0;
  const work = await solWorkOf(argv).catch(() => null);
  return work ? runWorkerThreads(workers, work.cells, work.days) : workers;
}

/**
 * Starts the worker threads of a `sol` command line (see the module comment), none for other lines; resolves once
 * they are started. The DEM's header is read synchronously, so this takes the time of that read, before the
 * command's modules load.
 */
export async function startSolWorkersEarly(argv: readonly string[]): Promise<void> {
  prestartSolWorkers(await earlySolWorkersOf(argv).catch(() => 0));
}
