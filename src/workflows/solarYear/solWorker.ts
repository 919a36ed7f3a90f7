/**
 * Worker thread of the `sol` pipeline: serves the tasks of solTasks.ts on its parent port. A worker started ahead
 * of its run (workerData null, `prestartSolWorkers`) loads its modules, then waits for its setup message.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { WorkerSetup, WorkerStart, WorkerTask } from './messages.js';
import { solTaskHandler } from './solTasks.js';
import { detachABufferNow } from '../../util/bufferDetaching.js';

// the kernel's memory grows and tiles are transferred: detached buffers from the first tile on (bufferDetaching.ts)
detachABufferNow();
const port = parentPort!;
// tasks arriving before the worker is ready wait here
const early: WorkerTask[] = [];
let handleTask: ((task: WorkerTask) => void) | null = null;
let receiveSetup: (setup: WorkerSetup) => void = () => {};
const setupMessage = new Promise<WorkerSetup>((resolve) => (receiveSetup = resolve));
port.on('message', (message: WorkerTask | WorkerStart) => {
  if (message.type === 'setup') receiveSetup(message.setup);
  else if (handleTask) handleTask(message);
  else early.push(message);
});
handleTask = solTaskHandler(port, (workerData as WorkerSetup | null) ?? (await setupMessage));
for (const task of early.splice(0)) handleTask(task);
