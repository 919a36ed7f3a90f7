/**
 * Worker thread of the `sol` pipeline: computes horizon rows and whole days, and writes each day's two
 * GeoTIFFs itself (encoding is a large share of the work, so it is spread over the threads too).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { join } from 'node:path';
import { computeHorizonRows } from '../../science/solar/horizon.js';
import {
  allocateDaySamples,
  integrateBlock,
  integrateBlockFlat,
  sampleCapacity,
  sunlitBounds,
  sunSamplesForDay,
  transmittanceTable,
} from '../../science/solar/dailyKernel.js';
import { writeFloat32GeoTiffSync } from '../../raster/writeGeoTiff.js';
import type { WorkerReply, WorkerSetup, WorkerTask } from './messages.js';
import { rayTemplatesByRow } from './plan.js';
import { dailyGlobalPath, dailyHoursPath } from './products.js';

const setup = workerData as WorkerSetup;
const port = parentPort!;
const cellCount = setup.grid.width * setup.grid.height;
const table = transmittanceTable(setup.params.linkeTurbidity);
const samples = allocateDaySamples(sampleCapacity(setup.params.stepMinutes), setup.nearSteps);
const terrain =
  setup.directions > 0
    ? {
        elevation: setup.elevation,
        angles: setup.horizonAngles,
        directions: setup.directions,
        nearBound: setup.horizonNear,
        nearLower: setup.horizonNearLower,
        nearDirections: setup.nearDirections,
        litBound: setup.horizonLitBound,
        nearSteps: setup.nearSteps,
      }
    : null;
let raysForRow: ReturnType<typeof rayTemplatesByRow> | null = null;

function computeHorizons(rowStart: number, rowEnd: number): void {
  const { width, height } = setup.grid;
  raysForRow ??= rayTemplatesByRow(width, height, { dx: setup.cellSizeX, dy: setup.cellSizeY }, setup.directions, setup.nearDirections, setup.nearSteps);
  computeHorizonRows(setup.elevation, width, height, rowStart, rowEnd, setup.zMaxM, raysForRow, setup.horizonAngles, setup.horizonNear, setup.horizonNearLower);
  sunlitBounds(setup.surface, setup.horizonAngles, setup.horizonNear, setup.directions, setup.nearDirections, rowStart * width, rowEnd * width, setup.horizonLitBound);
}

function computeDay(day: number): WorkerReply {
  const global = new Float32Array(cellCount).fill(NaN);
  const hours = new Float32Array(cellCount).fill(NaN);
  const flatGlobal = setup.flat ? new Float32Array(cellCount).fill(NaN) : null;
  const { width, height } = setup.grid;
  for (const tile of setup.tiles) {
    sunSamplesForDay(day, tile, setup.params, table, width, setup, samples);
    integrateBlock(tile, width, height, samples, setup.surface, terrain, setup.params.albedo, global, hours);
    if (flatGlobal) integrateBlockFlat(tile, width, samples, setup.surface, flatGlobal);
  }
  const dayMeta = { ...setup.metadata, DAY_OF_YEAR: String(day) };
  writeFloat32GeoTiffSync(join(setup.outDir, dailyGlobalPath(day)), setup.grid, global, {
    description: `Daily global irradiation, day ${day}`,
    metadata: { ...dayMeta, QUANTITY: 'daily global irradiation (beam + diffuse + reflected)', UNITS: 'Wh m-2 day-1' },
  });
  writeFloat32GeoTiffSync(join(setup.outDir, dailyHoursPath(day)), setup.grid, hours, {
    description: `Daily sunshine hours, day ${day}`,
    metadata: { ...dayMeta, QUANTITY: 'sunshine hours (direct sun on the surface)', UNITS: 'h' },
  });
  return { type: 'dayDone', day, global, flatGlobal };
}

port.on('message', (task: WorkerTask) => {
  try {
    if (task.type === 'horizon') {
      computeHorizons(task.rowStart, task.rowEnd);
      port.postMessage({ type: 'horizonDone', rows: task.rowEnd - task.rowStart } satisfies WorkerReply);
    } else {
      const reply = computeDay(task.day);
      const transfer = reply.type === 'dayDone' ? [reply.global.buffer, ...(reply.flatGlobal ? [reply.flatGlobal.buffer] : [])] : [];
      port.postMessage(reply, transfer as ArrayBuffer[]);
    }
  } catch (error) {
    port.postMessage({ type: 'error', message: error instanceof Error ? error.message : String(error) } satisfies WorkerReply);
  }
});
