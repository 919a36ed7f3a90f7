/**
 * Resource limits of child processes, when util-linux's `prlimit` is installed (Node cannot set resource limits on
 * a child by itself): memory with `--data` (RLIMIT_DATA, which since Linux 4.7 bounds the V8 heap, array buffers and
 * every other private writable mapping of the process), and processor time with `--cpu` (RLIMIT_CPU: the kernel
 * sends SIGXCPU when the soft limit is used up, SIGKILL at the hard limit). Processor time is work done, which a
 * busy machine does not stretch as it stretches the wall clock.
 */
import { execFile } from 'node:child_process';

let available: Promise<boolean> | null = null;

/** Whether `prlimit` can be run here (checked once). */
function prlimitAvailable(): Promise<boolean> {
  available ??= new Promise((resolve) => {
    execFile('prlimit', ['--version'], { timeout: 10_000 }, (error) => resolve(!error));
  });
  return available;
}

/** The command prefix that runs a command with at most `bytes` of data memory, or [] without `prlimit`. */
export async function dataLimitPrefix(bytes: number): Promise<string[]> {
  return resourceLimitPrefix({ dataBytes: bytes });
}

/** Seconds of processor time between the soft limit (SIGXCPU) and the hard one (SIGKILL). */
const CPU_HARD_MARGIN_SECONDS = 5;

/**
 * The command prefix that runs a command with at most `dataBytes` of data memory and `cpuSeconds` of processor time
 * (whole seconds, at least 1; the process gets SIGXCPU then), or [] without `prlimit`.
 */
export async function resourceLimitPrefix(limits: { dataBytes: number; cpuSeconds?: number }): Promise<string[]> {
  if (!(await prlimitAvailable())) return [];
  const args = ['prlimit', `--data=${Math.floor(limits.dataBytes)}`];
  if (limits.cpuSeconds !== undefined) {
    const soft = Math.max(1, Math.ceil(limits.cpuSeconds));
    args.push(`--cpu=${soft}:${soft + CPU_HARD_MARGIN_SECONDS}`);
  }
  return [...args, '--'];
}
