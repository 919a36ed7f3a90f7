/**
 * Worker thread of the `sol` pipeline: computes horizon rows and whole days, and writes each day's two
 * GeoTIFFs itself (encoding is a large share of the work, so it is spread over the threads too).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { join } from 'node:path';
import { allocateDaySamples, integrateBlock, integrateBlockFlat, sampleCapacity, sunSamplesForDay, transmittanceTable } from '../../science/solar/dailyKernel.js';
import { allocateTileHorizons, groupSectors, horizonTracer, tileHorizons, type HorizonTracer, type TileHorizons } from '../../science/solar/tileHorizons.js';
import type { SurfaceTerms } from '../../science/solar/surface.js';
import { writeFloat32GeoTiffSync } from '../../raster/writeGeoTiff.js';
import type { WorkerReply, WorkerSetup, WorkerTask } from './messages.js';
import { dailyGlobalPath, dailyHoursPath } from './products.js';

const setup = workerData as WorkerSetup;
const port = parentPort!;
const cellCount = setup.grid.width * setup.grid.height;
const wholeGrid = { rowStart: 0, rowEnd: setup.grid.height, colStart: 0, colEnd: setup.grid.width };
const table = transmittanceTable(setup.params.linkeTurbidity);
const samples = allocateDaySamples(sampleCapacity(setup.params.stepMinutes), setup.layout?.nearSteps ?? 0);
const terrain = setup.layout ? { model: setup.model, layout: setup.layout, horizons: setup.horizons } : null;
let tracer: HorizonTracer | null = null;
let scratch: TileHorizons | null = null;

/** Horizons of rows [rowStart, rowEnd), computed as one tile and copied into the whole-grid arrays. */
function computeHorizons(rowStart: number, rowEnd: number): void {
  const layout = setup.layout!;
  const { width } = setup.grid;
  const cells = (rowEnd - rowStart) * width;
  tracer ??= horizonTracer(setup.model, layout);
  if (!scratch || scratch.capacity < cells) scratch = allocateTileHorizons(layout, cells);
  tileHorizons(tracer, { rowStart, rowEnd, colStart: 0, colEnd: width }, surfaceRows(setup.surface, rowStart * width, rowEnd * width), scratch);
  const { directions, nearSectors } = layout;
  const out = setup.horizons;
  out.far.set(scratch.far.subarray(0, cells * directions), rowStart * width * directions);
  const groups = groupSectors(layout);
  out.litBound.set(scratch.litBound.subarray(0, cells * groups), rowStart * width * groups);
  out.darkBound.set(scratch.darkBound.subarray(0, cells * groups), rowStart * width * groups);
  out.nearUpper.set(scratch.nearUpper.subarray(0, cells * nearSectors), rowStart * width * nearSectors);
  out.nearLower.set(scratch.nearLower.subarray(0, cells * nearSectors), rowStart * width * nearSectors);
}

/** The surface terms of cells [start, end) as a view (tile-local indexing of a band of whole rows). */
function surfaceRows(surface: SurfaceTerms, start: number, end: number): SurfaceTerms {
  return {
    cellCount: end - start,
    valid: surface.valid.subarray(start, end),
    inclined: surface.inclined.subarray(start, end),
    normalEast: surface.normalEast.subarray(start, end),
    normalNorth: surface.normalNorth.subarray(start, end),
    normalUp: surface.normalUp.subarray(start, end),
    skyView: surface.skyView.subarray(start, end),
    muneerSlope: surface.muneerSlope.subarray(start, end),
    shadedDiffuseFactor: surface.shadedDiffuseFactor.subarray(start, end),
    groundView: surface.groundView.subarray(start, end),
    pressureRatio: surface.pressureRatio.subarray(start, end),
  };
}

function computeDay(day: number): WorkerReply {
  const global = new Float32Array(cellCount).fill(NaN);
  const hours = new Float32Array(cellCount).fill(NaN);
  const flatGlobal = setup.flat ? new Float32Array(cellCount).fill(NaN) : null;
  const { width } = setup.grid;
  for (const tile of setup.tiles) {
    sunSamplesForDay(day, tile, setup.params, table, width, setup.layout, samples);
    integrateBlock(tile, wholeGrid, samples, setup.surface, terrain, setup.params.albedo, global, hours);
    if (flatGlobal) integrateBlockFlat(tile, wholeGrid, samples, setup.surface, flatGlobal);
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
