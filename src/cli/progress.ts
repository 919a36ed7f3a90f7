/**
 * Progress display of the CLI: a bar on a terminal; otherwise (logs, CI, batch jobs) a line every 10 %, and in
 * between a line at most every `intervalMs` when the message has changed, so that a run of hours (a 100 M-cell
 * DEM moves 0.1 % in minutes) still shows what it is doing.
 */
import { createRequire } from 'node:module';
import type * as CliProgress from 'cli-progress';
import type { ProgressListener } from '../workflows/types.js';

export interface ProgressDisplay {
  readonly listener: ProgressListener;
  stop(): void;
}

/** Longest quiet time between progress lines when not on a terminal [ms]. */
const PROGRESS_LINE_INTERVAL_MS = 30_000;

export interface ProgressDisplayOptions {
  readonly intervalMs?: number;
  /** Clock [ms] (tests). */
  readonly now?: () => number;
}

export function progressDisplay(stream: NodeJS.WriteStream = process.stderr, options: ProgressDisplayOptions = {}): ProgressDisplay {
  if (stream.isTTY) {
    // loaded for a terminal only: the ≈ 20 ms it takes are on the way to a run's first tile
    const cliProgress = createRequire(import.meta.url)('cli-progress') as typeof CliProgress;
    const bar = new cliProgress.SingleBar(
      { stream, format: ' {bar} {percentage}% | {message}', hideCursor: true, clearOnComplete: false },
      cliProgress.Presets.shades_classic,
    );
    bar.start(100, 0, { message: 'starting' });
    return {
      listener: ({ fraction, message }) => bar.update(Math.floor(fraction * 1000) / 10, { message }),
      stop: () => bar.stop(),
    };
  }
  const intervalMs = options.intervalMs ?? PROGRESS_LINE_INTERVAL_MS;
  const now = options.now ?? Date.now;
  let lastDecile = -1;
  let lastMessage = '';
  let lastLineAt = now();
  return {
    listener: ({ fraction, message }) => {
      const decile = Math.floor(fraction * 10);
      const at = now();
      if (decile > lastDecile) {
        stream.write(`${Math.round(fraction * 100)}% ${message}\n`);
      } else if (message !== lastMessage && at - lastLineAt >= intervalMs) {
        stream.write(`${(Math.floor(fraction * 1000) / 10).toFixed(1)}% ${message}\n`);
      } else {
        return;
      }
      lastDecile = Math.max(lastDecile, decile);
      lastMessage = message;
      lastLineAt = at;
    },
    stop: () => {},
  };
}
