/** Worker thread of the full DEM check: reads the DEM with the raster reader's rules, off the service's event loop. */
import { parentPort, workerData } from 'node:worker_threads';
import { RasterFormatError, validateDem } from '../raster/index.js';

const path = (workerData as { path: string }).path;
validateDem(path).then(
  (summary) => parentPort!.postMessage({ ok: true, summary }),
  (error: unknown) =>
    parentPort!.postMessage({
      ok: false,
      format: error instanceof RasterFormatError,
      message: error instanceof Error ? error.message : String(error),
    }),
);
