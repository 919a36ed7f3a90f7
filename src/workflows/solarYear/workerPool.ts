/**
 * A fixed set of `sol` worker threads fed from a task list, one task at a time per worker; or, for a small run, the
 * pool's own thread in their place (inThreadWorker.ts).
 */
import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { siblingModuleUrl, startModuleWorker } from '../../util/modules.js';
import type { CogAssemblyJob } from '../../raster/geotiff/geoTiffStreams.js';
import type { WorkerReply, WorkerSetup, WorkerStart, WorkerTask } from './messages.js';
import { InThreadWorker, type SolThread } from './inThreadWorker.js';

/** COG assemblies a worker runs at once, so that one's file reads and writes overlap another's computing. */
const ASSEMBLIES_PER_WORKER = 2;

const workerUrl = siblingModuleUrl(import.meta.url, 'solWorker');

/**
 * A `sol` worker thread on `workerUrl`. Its JavaScript is optimised on its own thread rather than on V8's
 * background threads (`--no-concurrent-recompilation`, a process-wide flag read when a thread's isolate starts):
 * with every core computing, the background compiles waited for a core while the workers ran their first tiles
 * in unoptimised code. Two workers on two cores, three days on a 270 × 270 DEM: about 0.8 × the CPU time and
 * wall time; a year on mcn_10m: the same (docs/performance.md).
 */
function startSolWorker(workerData: WorkerSetup | null): Worker {
  setFlagsFromString('--no-concurrent-recompilation');
  return startModuleWorker(workerUrl, { workerData });
}

/** Workers started ahead of a run (`prestartSolWorkers`), not yet taken by a pool; with whether they failed. */
const spare: { worker: Worker; failed: boolean }[] = [];

/**
 * Starts up to `count` worker threads ahead of a run, so that they load their modules while the caller reads
 * the DEM and plans (about 0.1 s of a run's start): the next pool takes them and sends them its setup. They do
 * not keep the process alive until taken; `releaseSpareWorkers` ends those left over.
 */
export function prestartSolWorkers(count: number): void {
  while (spare.length < count) {
    const entry = { worker: startSolWorker(null), failed: false };
    entry.worker.unref();
    entry.worker.on('error', () => (entry.failed = true));
    entry.worker.on('exit', () => (entry.failed = true));
    spare.push(entry);
  }
}

/** Workers started ahead and not taken yet. */
export function spareSolWorkers(): number {
  return spare.length;
}

/** Ends the workers started ahead that no pool took. */
export async function releaseSpareWorkers(): Promise<void> {
  await Promise.all(spare.splice(0).map(({ worker }) => worker.terminate()));
}

/** A worker started ahead, with `setup` sent to it, or null when there is none (or it failed: it is ended). */
function takeSpareWorker(setup: WorkerSetup): Worker | null {
  for (let entry = spare.shift(); entry; entry = spare.shift()) {
    entry.worker.removeAllListeners('error');
    entry.worker.removeAllListeners('exit');
    if (entry.failed) {
      void entry.worker.terminate();
      continue;
    }
    entry.worker.ref();
    entry.worker.postMessage({ type: 'setup', setup } satisfies WorkerStart);
    return entry.worker;
  }
  return null;
}

export class WorkerPool {
  private readonly workers: SolThread[];
  private failure: Error | null = null;
  private readonly failed: Promise<never>;
  private rejectFailed!: (error: Error) => void;
  /** Free assembly slots (a worker once per assembly it can take), and the assemblies waiting for one. */
  private slots: SolThread[] | null = null;
  private readonly waiting: ((worker: SolThread) => void)[] = [];
  /** Assemblies in progress by id: what their reply resolves. */
  private readonly assemblies = new Map<number, (reply: WorkerReply) => void>();
  private nextAssembly = 0;

  /** `inThread`: the tasks are done on this thread (`InThreadWorker`; `count` must then be 1). */
  constructor(count: number, setup: WorkerSetup, signal?: AbortSignal, inThread = false) {
    if (inThread && count !== 1) throw new RangeError(`a pool on its own thread has one worker, not ${count}`);
    this.failed = new Promise<never>((_, reject) => (this.rejectFailed = reject));
    this.failed.catch(() => {});
    this.workers = Array.from({ length: count }, () => {
      const worker: SolThread = inThread ? new InThreadWorker(setup) : (takeSpareWorker(setup) ?? startSolWorker(setup));
      worker.on('error', (error) => this.fail(error));
      worker.on('exit', (code) => {
        if (code !== 0) this.fail(new Error(`solar worker thread exited with code ${code}`));
      });
      return worker;
    });
    const onAbort = () => this.fail(signal!.reason instanceof Error ? signal!.reason : abortError());
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  }

  /** Rejects the run in progress with `error` (the first failure wins). */
  fail(error: Error): void {
    if (this.failure) return;
    this.failure = error;
    this.rejectFailed(error);
  }

  /**
   * Runs every task; `onReply` sees each reply, `beforeTask` is awaited before a worker gets its next task
   * (back pressure). A task ends with its worker's `tileDone` reply. Rejects on the first error or abort.
   */
  async run(tasks: readonly WorkerTask[], onReply: (reply: WorkerReply) => void, beforeTask: () => Promise<void> = async () => {}): Promise<void> {
    if (this.failure) throw this.failure;
    this.slots = null; // `assemble` listens again afterwards
    let next = 0;
    let pending = 0;
    const done = new Promise<void>((resolve) => {
      const feed = async (worker: SolThread) => {
        if (next >= tasks.length) {
          if (pending === 0) resolve();
          return;
        }
        const task = tasks[next++]!;
        pending++;
        try {
          await beforeTask();
        } catch (error) {
          this.fail(asError(error));
          return;
        }
        if (!this.failure) worker.postMessage(task);
      };
      for (const worker of this.workers) {
        worker.removeAllListeners('message');
        worker.on('message', (reply: WorkerReply) => {
          if (this.failure) return;
          if (reply.type === 'error') {
            this.fail(new Error(reply.message));
            return;
          }
          try {
            onReply(reply);
          } catch (error) {
            this.fail(asError(error));
            return;
          }
          if (reply.type === 'tileDone') {
            pending--;
            void feed(worker);
          }
        });
      }
      for (const worker of this.workers) void feed(worker);
    });
    await Promise.race([done, this.failed]);
  }

  /**
   * Assembles one COG on the next free worker (after `run`: the workers are idle by then); resolves with
   * the bytes written. Rejects on the worker's error, or on any failure or abort of the pool.
   */
  async assemble(job: CogAssemblyJob): Promise<number> {
    if (this.failure) throw this.failure;
    if (!this.slots) this.listenForAssemblies();
    const worker = this.slots!.pop() ?? (await new Promise<SolThread>((resolve) => this.waiting.push(resolve)));
    const id = this.nextAssembly++;
    try {
      const reply = new Promise<WorkerReply>((resolve) => this.assemblies.set(id, resolve));
      worker.postMessage({ type: 'assemble', id, job } satisfies WorkerTask);
      const answer = await Promise.race([reply, this.failed]);
      if (answer.type === 'error') throw new Error(answer.message);
      if (answer.type !== 'assembled') throw new Error(`unexpected reply ${answer.type} to an assembly`);
      return answer.bytes;
    } finally {
      this.assemblies.delete(id);
      const next = this.waiting.shift();
      if (next) next(worker);
      else this.slots?.push(worker);
    }
  }

  /** Routes the workers' replies to the assemblies they answer; any other reply fails the pool. */
  private listenForAssemblies(): void {
    this.slots = this.workers.flatMap((worker) => Array.from({ length: ASSEMBLIES_PER_WORKER }, () => worker));
    for (const worker of this.workers) {
      worker.removeAllListeners('message');
      worker.on('message', (reply: WorkerReply) => {
        const id = reply.type === 'assembled' ? reply.id : reply.type === 'error' ? reply.assembly : undefined;
        const answer = id === undefined ? undefined : this.assemblies.get(id);
        if (answer) answer(reply);
        else this.fail(new Error(reply.type === 'error' ? reply.message : `unexpected reply ${reply.type} while assembling`));
      });
    }
  }

  async close(): Promise<void> {
    for (const worker of this.workers) worker.removeAllListeners('exit');
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

export function abortError(): Error {
  const error = new Error('The operation was aborted');
  error.name = 'AbortError';
  return error;
}
