/**
 * A real Redis (Debian's `redis-server`) for tests: its own temporary folder, a free port, the addresses the test
 * names (loopback by default), AOF on (fsync every write) so a restart keeps the queue. Stopped and restarted by
 * the test; `close` removes it and its folder.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from './wait.js';

export interface TestRedis {
  readonly port: number;
  /** redis://<first bind address>:<port>/0 */
  readonly url: string;
  urlFor(address: string): string;
  /** Stops the server (SIGTERM; with `kill`, SIGKILL) and waits for its exit. */
  stop(options?: { kill?: boolean }): Promise<void>;
  /** Starts it again on the same port and folder (the AOF brings the data back). */
  start(): Promise<void>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Whether a PING on `port` at `host` gets PONG. */
function pings(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

export async function startRedis(options: { bind?: readonly string[] } = {}): Promise<TestRedis> {
  const bind = options.bind ?? ['127.0.0.1'];
  const dir = mkdtempSync(join(tmpdir(), 'eemt-redis-'));
  const port = await freePort();
  let child: ChildProcess | null = null;
  let output = '';
  const args = [
    '--port', String(port), '--bind', ...bind, '--dir', dir, '--save', '', '--appendonly', 'yes', '--appendfsync', 'always',
    '--maxmemory-policy', 'noeviction', '--protected-mode', 'no', '--daemonize', 'no',
  ];
  const start = async () => {
    const process_ = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = process_;
    process_.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    process_.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    let exited = false;
    process_.once('exit', () => (exited = true));
    await waitFor('redis-server to answer', async () => {
      if (exited) throw new Error(`redis-server exited:\n${output.slice(-2000)}`);
      return pings(bind[0]!, port);
    }, 15_000);
  };
  const stop = async ({ kill = false } = {}) => {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    const exit = new Promise((resolve) => running.once('exit', resolve));
    running.kill(kill ? 'SIGKILL' : 'SIGTERM');
    await exit;
  };
  await start();
  return {
    port,
    url: `redis://${bind[0]}:${port}/0`,
    urlFor: (address) => `redis://${address}:${port}/0`,
    stop,
    start,
    async close() {
      await stop({ kill: true });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
