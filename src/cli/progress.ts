/** Progress display of the CLI: a bar on a terminal, a line every 10 % otherwise (logs, CI). */
import cliProgress from 'cli-progress';
import type { ProgressListener } from '../workflows/types.js';

export interface ProgressDisplay {
  readonly listener: ProgressListener;
  stop(): void;
}

export function progressDisplay(stream: NodeJS.WriteStream = process.stderr): ProgressDisplay {
  if (stream.isTTY) {
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
  let lastDecile = -1;
  return {
    listener: ({ fraction, message }) => {
      const decile = Math.floor(fraction * 10);
      if (decile > lastDecile) {
        lastDecile = decile;
        stream.write(`${Math.round(fraction * 100)}% ${message}\n`);
      }
    },
    stop: () => {},
  };
}
