/** `eemt worker` settings: the DEM cell limits its jobs read with, as on the service. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WorkerSettingsError, workerSettingsFromEnv } from '../../src/worker/settings.js';

const REDIS = { EEMT_REDIS_URL: 'redis://127.0.0.1:6379/0' };

test('a worker limits DEM cells per workflow from its memory limit, or by EEMT_MAX_DEM_CELLS for both', () => {
  // (2048 − 256) MiB over 32 bytes per cell (sol) and 1024 (eemt), worked by hand
  assert.deepEqual(workerSettingsFromEnv({ ...REDIS, CONTAINER_MEMORY_LIMIT: '2G' }).maxDemCells, { sol: 58_720_256, eemt: 1_835_008 });
  assert.deepEqual(workerSettingsFromEnv({ ...REDIS, EEMT_MAX_DEM_CELLS: '1000' }).maxDemCells, { sol: 1000, eemt: 1000 });
  assert.throws(() => workerSettingsFromEnv({ ...REDIS, EEMT_MAX_DEM_CELLS: 'lots' }), (error: unknown) => error instanceof WorkerSettingsError && /^EEMT_MAX_DEM_CELLS must be an integer/.test(error.message));
});
