/**
 * Cell limits per workflow: the tiled `sol` engine keeps only the DEM and its pyramid resident, the `eemt`
 * workflow holds whole-DEM maps, so by default a job memory limit admits far larger `sol` DEMs than `eemt` ones;
 * an explicit EEMT_MAX_DEM_CELLS is one limit for both. A DEM over its workflow's limit is refused at submission
 * (400 naming the limit, the workflow and the setting) and nothing is stored.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { configFromEnv } from '../../src/server/config.js';
import { JOB_BASE_BYTES, JOB_BYTES_PER_DEM_CELL } from '../../src/workflows/demLimits.js';
import { fixture, getJson, startTestService, submit, waitForStatus, type TestService } from './helpers.js';
import { jobEntries } from '../helpers/dataFolders.js';

const MIB = 1024 ** 2;

test('default limits follow the memory limit and each workflow’s bytes per cell; EEMT_MAX_DEM_CELLS sets both', () => {
  const eightG = configFromEnv({ CONTAINER_MEMORY_LIMIT: '8G' }).maxDemCells;
  // worked by hand: (8192 − 256) MiB over 1024 bytes per cell for eemt
  assert.equal(eightG.eemt, 8_126_464);
  assert.equal(eightG.sol, Math.floor((8192 * MIB - JOB_BASE_BYTES) / JOB_BYTES_PER_DEM_CELL.sol));
  // the sol engine's budget admits the ≈ 100 M-cell DEM (10364 × 9591) under the default 8 GB job limit
  assert.ok(eightG.sol >= 10364 * 9591, `sol limit ${eightG.sol}`);
  assert.ok(eightG.sol > 10 * eightG.eemt);
  assert.deepEqual(configFromEnv({ CONTAINER_MEMORY_LIMIT: '8G', EEMT_MAX_DEM_CELLS: '5000' }).maxDemCells, { sol: 5000, eemt: 5000 });
});

describe('a DEM within the sol limit but over the eemt limit', () => {
  let svc: TestService;
  // 300 MiB: eemt (300 − 256) MiB / 1024 B = 45 056 cells; sol over ten times that. mcn_10m has 228 × 211 = 48 108.
  const memory = '300M';
  before(async () => {
    svc = await startTestService({ env: { EEMT_RUNTIME: 'process', CONTAINER_MEMORY_LIMIT: memory } });
  });
  after(async () => {
    await svc?.stop();
  });

  test('an eemt job is refused with its own limit named; nothing is stored', async () => {
    const dem = { name: 'mcn_10m.tif', bytes: fixture('mcn_10m.tif') };
    const res = await submit(svc.base, { workflow_type: 'eemt', start_year: '2020', end_year: '2020' }, dem);
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.detail, 'DEM file must be a GeoTIFF (.tif): 228 × 211 cells is more than the limit of 45056 cells of eemt jobs (EEMT_MAX_DEM_CELLS)');
    const jobs = await getJson(`${svc.base}/api/jobs`);
    assert.equal(jobs.body.length, 0);
    assert.deepEqual(jobEntries(join(svc.root, 'uploads')), []);
  });

  test('the same DEM as a sol job is accepted and runs under the job limit it was sized for', async () => {
    const dem = { name: 'mcn_10m.tif', bytes: fixture('mcn_10m.tif') };
    const res = await submit(svc.base, { workflow_type: 'sol', step: '60', num_threads: '1' }, dem);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const job = await waitForStatus(svc.base, res.body.job_id, ['completed', 'failed'], 240_000);
    assert.equal(job.status, 'completed', job.error_message);
  });
});
