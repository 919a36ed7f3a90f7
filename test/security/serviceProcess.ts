/**
 * The real service as a child process (`src/server/main.ts` under tsx) with its own data folders, for tests
 * that attack it, measure it from outside (/proc RSS, /health latency) or kill it with SIGKILL.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { testServiceEnv } from '../server/helpers.js';

const MAIN = fileURLToPath(new URL('../../src/server/main.ts', import.meta.url));

export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly base: string;
  readonly root: string;
  /** Everything the service printed. */
  readonly output: string[];
  /** Resident memory of the service process now [bytes] (VmRSS). */
  rssBytes(): number;
  /** SIGTERM, then wait for the exit. */
  stop(): Promise<void>;
  /** SIGKILL, then wait for the exit. */
  kill9(): Promise<void>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The environment of a service whose folders and database are inside `root` (process runtime by default). */
export function serviceEnv(root: string, env: Record<string, string> = {}): Record<string, string> {
  return testServiceEnv(root, {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: root,
    EEMT_HOST: '127.0.0.1',
    EEMT_RUNTIME: 'process',
    EEMT_LOG_LEVEL: 'info',
    ...env,
  });
}

/** Command lines of the live processes that mention `text` (e.g. a job id or a file path). */
export function processesMentioning(text: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmdline.includes(text)) found.push(`${pid}: ${cmdline.slice(0, 200)}`);
    } catch {
      /* gone */
    }
  }
  return found;
}

/** VmRSS of process `pid` [bytes]. */
export function rssOf(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for ${pid}`);
  return Number(match[1]) * 1024;
}

/** Starts the service on a free loopback port and waits until it answers (start-up recovery done; at most `timeoutMs`). */
export async function startServiceProcess(root: string, env: Record<string, string> = {}, timeoutMs = 30_000): Promise<ServiceProcess> {
  mkdirSync(root, { recursive: true });
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), MAIN], { cwd: root, env: serviceEnv(root, env), stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error) => {
      output.push(`spawn failed: ${error.message}\n`);
      resolve({ code: null, signal: null });
    });
  });
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the service did not start in ${timeoutMs} ms:\n${output.join('')}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString());
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output.join(''));
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`the service exited (code ${code}, signal ${signal}) before listening:\n${output.join('')}`));
    });
  });
  // The port is bound before start-up recovery ends; the first answer comes after it.
  const health = await fetch(`${base}/health`, { signal: AbortSignal.timeout(timeoutMs) });
  await health.arrayBuffer();
  const pid = child.pid!;
  return {
    child,
    pid,
    base,
    root,
    output,
    exited,
    rssBytes: () => rssOf(pid),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
    async kill9() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Samples the service's RSS and /health latency every `intervalMs` until stopped. */
export function startMonitor(service: ServiceProcess, intervalMs = 100) {
  let running = true;
  const samples: { rss: number; healthMs: number; status: number }[] = [];
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      let status = 0;
      try {
        const res = await fetch(`${service.base}/health`, { signal: AbortSignal.timeout(10_000) });
        status = res.status;
        await res.arrayBuffer();
      } catch {
        status = -1;
      }
      samples.push({ rss: service.rssBytes(), healthMs: performance.now() - t0, status });
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return {
    samples,
    /** Stops sampling; returns the peak RSS, the slowest /health answer and whether every answer was 200. */
    async stop() {
      running = false;
      await loop;
      return {
        peakRss: Math.max(...samples.map((s) => s.rss)),
        slowestHealthMs: Math.max(...samples.map((s) => s.healthMs)),
        allOk: samples.every((s) => s.status === 200),
        count: samples.length,
      };
    },
  };
}
