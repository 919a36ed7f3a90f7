/**
 * Worker thread of the `sol` pipeline: takes one compute tile at a time (`TileRun`: its horizons, then every
 * requested day, each product's tile sent back compressed). Once every tile is done, the workers assemble the
 * products' COGs (`assembleCog`), one file at a time each.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { assembleCog } from '../../raster/geotiff/geoTiffStreams.js';
import type { WorkerReply, WorkerSetup, WorkerStart, WorkerTask } from './messages.js';
import { TileRun } from './tileRun.js';
import { warmUp } from './warmUp.js';
import { detachABufferNow } from '../../util/bufferDetaching.js';

// the kernel's memory grows and tiles are transferred: detached buffers from the first tile on (bufferDetaching.ts)
detachABufferNow();
const port = parentPort!;
// Tasks arriving before the worker is ready wait here: a worker started ahead of its run (workerData null,
// `prestartSolWorkers`) loads its modules, then waits for its setup message.
const early: WorkerTask[] = [];
let handleTask: ((task: WorkerTask) => void) | null = null;
let receiveSetup: (setup: WorkerSetup) => void = () => {};
const setupMessage = new Promise<WorkerSetup>((resolve) => (receiveSetup = resolve));
port.on('message', (message: WorkerTask | WorkerStart) => {
  if (message.type === 'setup') receiveSetup(message.setup);
  else if (handleTask) handleTask(message);
  else early.push(message);
});
// a worker started ahead warms its code up on a made-up tile while the command reads the DEM and plans the run
if (workerData === null) {
  try {
    warmUp();
  } catch {
    // (only time is lost: the run computes its own tiles whatever happened here)
  }
}
const setup = (workerData as WorkerSetup | null) ?? (await setupMessage);
const send = (reply: WorkerReply, transfer?: ArrayBuffer[]) => port.postMessage(reply, transfer);
const run = new TileRun(setup, send);

function failed(error: unknown, assembly?: number): void {
  const message = error instanceof Error ? error.message : String(error);
  port.postMessage((assembly === undefined ? { type: 'error', message } : { type: 'error', message, assembly }) satisfies WorkerReply);
}

handleTask = (task: WorkerTask) => {
  if (task.type === 'assemble') {
    // (several at once: one's file reads and writes overlap another's computing)
    assembleCog(task.job).then(
      (bytes) => send({ type: 'assembled', id: task.id, bytes }),
      (error: unknown) => failed(error, task.id),
    );
    return;
  }
  try {
    run.computeTile(task.tile);
  } catch (error) {
    failed(error);
  }
};
for (const task of early.splice(0)) handleTask(task);
