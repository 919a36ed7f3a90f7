/**
 * Memory limits of child processes: `prlimit --data` (RLIMIT_DATA, which since Linux 4.7 bounds the V8 heap,
 * array buffers and every other private writable mapping of the process), when util-linux's `prlimit` is
 * installed. Node cannot set resource limits on a child by itself.
 */
import { execFile } from 'node:child_process';

let available: Promise<boolean> | null = null;

/** Whether `prlimit` can be run here (checked once). */
export function prlimitAvailable(): Promise<boolean> {
  available ??= new Promise((resolve) => {
    execFile('prlimit', ['--version'], { timeout: 10_000 }, (error) => resolve(!error));
  });
  return available;
}

/** The command prefix that runs a command with at most `bytes` of data memory, or [] without `prlimit`. */
export async function dataLimitPrefix(bytes: number): Promise<string[]> {
  return (await prlimitAvailable()) ? ['prlimit', `--data=${Math.floor(bytes)}`, '--'] : [];
}
