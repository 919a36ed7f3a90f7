/**
 * Real service processes for tests: `node src/server/main.ts` (through tsx) or any start command, with every
 * setting from the test and every data folder in a temp root; their output, address, exit and child processes.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dataInRootEnv } from './helpers.js';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ServiceProcess {
  readonly pid: number;
  /** Everything the process wrote (stdout and stderr). */
  output(): string;
  /** Resolves with the process's exit. */
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Whether the process has exited. */
  exited(): boolean;
  /** The address the service listens on (from its log), once it does; rejects if it exits first. */
  address(timeoutMs?: number): Promise<string>;
}

/** The service's settings for data in `root` (environment variables of the test process named EEMT_* are dropped). */
export function serviceEnv(root: string, env: Record<string, string> = {}): Record<string, string> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !/^(EEMT_|CONTAINER_)/.test(e[0])),
  );
  return {
    ...inherited,
    ...dataInRootEnv(root),
    EEMT_HOST: '127.0.0.1',
    EEMT_RUNTIME: 'process',
    CONTAINER_CPU_LIMIT: '1',
    CONTAINER_MEMORY_LIMIT: '1G',
    ...env,
  };
}

/** Starts `command args` (default: the service from its TypeScript sources) in its own process group. */
export function startServiceProcess(
  env: Record<string, string>,
  command: { file: string; args: string[]; cwd: string } = { file: process.execPath, args: ['--import', 'tsx', 'src/server/main.ts'], cwd: REPO_ROOT },
): ServiceProcess {
  const child = spawn(command.file, command.args, { cwd: command.cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  let done = false;
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => {
      done = true;
      resolve({ code, signal });
    });
  });
  return {
    pid: child.pid!,
    output: () => output,
    exit,
    exited: () => done,
    async address(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = /Server listening at (http:\/\/[^"\s]+)/.exec(output);
        if (match) return match[1]!;
        if (done) throw new Error(`service exited before listening:\n${output}`);
        if (Date.now() > deadline) throw new Error(`service not listening after ${timeoutMs} ms:\n${output}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

/** Ids of the live job processes (the job child) whose parent is `pid`. */
export function jobProcesses(pid: number): number[] {
  return childPids(pid).filter((child) => {
    try {
      return readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('jobChild');
    } catch {
      return false;
    }
  });
}

/** Ids of the live processes whose parent is `pid` (from /proc). */
export function childPids(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[1]) === pid && fields[0] !== 'Z') children.push(Number(entry));
    } catch {
      /* gone meanwhile */
    }
  }
  return children;
}

/** Whether a process (or, for a negative id, a process group) exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
