/**
 * The pool's thread for a small run: the tasks of solTasks.ts served on the thread that runs the pool, through a
 * message channel, so that tasks and replies are copied and transferred as they are between threads. A worker
 * thread costs about 40 ms of its own to start (Node's bootstrap of a thread), and its start and module loading
 * compete with the command's own start for the cores: a small run (`computesInThread`, runThreads.ts: well under a
 * second of computing) is done sooner without one. Its tiles block the thread while they compute; the replies,
 * progress included, are handled between tiles.
 */
import { EventEmitter } from 'node:events';
import { MessageChannel } from 'node:worker_threads';
import type { WorkerReply, WorkerSetup, WorkerTask } from './messages.js';
import { solTaskHandler } from './solTasks.js';

/** What the pool uses of a thread: a worker thread or an `InThreadWorker`. */
export interface SolThread {
  postMessage(task: WorkerTask): void;
  on(event: 'message', listener: (reply: WorkerReply) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'exit', listener: (code: number) => void): unknown;
  removeAllListeners(event?: 'message' | 'error' | 'exit'): unknown;
  terminate(): Promise<unknown>;
}

/** `solTaskHandler` of `setup` on this thread, as a `SolThread`. */
export class InThreadWorker extends EventEmitter implements SolThread {
  private readonly channel = new MessageChannel();

  constructor(setup: WorkerSetup) {
    super();
    const { port1: pool, port2: tasks } = this.channel;
    const handle = solTaskHandler(tasks, setup);
    // (what escapes a task is the thread's error, as a worker thread's uncaught exception is its 'error' event)
    tasks.on('message', (task: WorkerTask) => {
      try {
        handle(task);
      } catch (error) {
        this.emit('error', error instanceof Error ? error : new Error(String(error)));
      }
    });
    pool.on('message', (reply: WorkerReply) => this.emit('message', reply));
  }

  postMessage(task: WorkerTask): void {
    this.channel.port1.postMessage(task);
  }

  /** Closes the channel: tasks and replies not yet delivered are dropped, as a terminated worker's are. */
  async terminate(): Promise<number> {
    this.channel.port1.close();
    this.channel.port2.close();
    return 0;
  }
}
