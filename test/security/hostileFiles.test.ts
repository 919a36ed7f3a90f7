/**
 * Hostile GeoTIFFs submitted to the real service (a child process with its own folders): every attack of
 * the hardening issue is refused with a 400 that says why, while the service's RSS stays within 100 MB of
 * where it started and /health keeps answering within 1 s. Then the service still runs a real job.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test, type TestContext } from 'node:test';
import { DemChecker } from '../../src/jobs/admission/demCheck.js';
import { JOB_BASE_BYTES, JOB_BYTES_PER_DEM_CELL } from '../../src/workflows/demLimits.js';
import { ProcessRuntime } from '../../src/runtime/process.js';
import type { ServiceConfig } from '../../src/server/config.js';
import { gdal } from '../raster/gdal.js';
import { fixture, getJson, startTestService, submit, waitForStatus } from '../server/helpers.js';
import {
  constantTiledDem,
  inflateBombDem,
  selfLoopingDirectory,
  sharedTileDem,
  shrunkStripDem,
  smallDem,
  withNextDirectory,
  withTagCount,
  withTagValue,
} from './hostileTiffs.js';
import { startMonitor, startServiceProcess, type ServiceProcess } from './serviceProcess.js';
import { jobEntries } from '../helpers/dataFolders.js';

/** The sol workflow's default cell limit (the largest) for CONTAINER_MEMORY_LIMIT=2G. */
const SOL_CELLS_AT_2G = Math.floor((2048 * 1024 ** 2 - JOB_BASE_BYTES) / JOB_BYTES_PER_DEM_CELL.sol);

const MB = 1024 ** 2;
const NOT_GEOTIFF = /^DEM file must be a GeoTIFF \(\.tif\): /;

describe('hostile GeoTIFFs against the running service', () => {
  const root = mkdtempSync(join(tmpdir(), 'eemt-hostile-'));
  const work = join(root, 'files');
  let service: ServiceProcess;
  let baselineRss = 0;
  let small: Buffer;
  let maxCells = 0;
  after(async () => {
    await service?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  before(async () => {
    mkdirSync(work);
    small = readFileSync(smallDem(work));
    service = await startServiceProcess(join(root, 'service'));
    maxCells = SOL_CELLS_AT_2G; // the largest default limit for CONTAINER_MEMORY_LIMIT=2G: sol's
    // Warm up every path a refusal takes (upload, check process, error reply), then take the baseline.
    for (let i = 0; i < 3; i++) {
      const res = await submit(service.base, { workflow_type: 'sol' }, { name: 'flat.tif', bytes: fixture('nogeo_20x20.tif') });
      assert.equal(res.status, 400);
    }
    baselineRss = service.rssBytes();
  });

  /** Submits `bytes` while watching the service; returns the reply and what the watch saw. */
  async function attack(name: string, bytes: Uint8Array) {
    const monitor = startMonitor(service, 50);
    const res = await submit(service.base, { workflow_type: 'sol' }, { name, bytes });
    const seen = await monitor.stop();
    return { res, seen };
  }

  function assertUnharmed(seen: Awaited<ReturnType<ReturnType<typeof startMonitor>['stop']>>, t: TestContext): void {
    t.diagnostic(`service RSS ${((seen.peakRss - baselineRss) / MB).toFixed(1)} MB over its baseline at most; slowest /health ${seen.slowestHealthMs.toFixed(0)} ms of ${seen.count}`);
    assert.ok(seen.count >= 2, `${seen.count} samples`);
    assert.ok(seen.allOk, '/health answered 200 every time');
    assert.ok(seen.slowestHealthMs < 1000, `/health took ${seen.slowestHealthMs.toFixed(0)} ms`);
    const growth = seen.peakRss - baselineRss;
    assert.ok(growth < 100 * MB, `service RSS grew by ${(growth / MB).toFixed(1)} MB`);
  }

  function assertNothingLeft(): void {
    assert.deepEqual(jobEntries(join(service.root, 'uploads')), [], 'no upload is left behind');
  }

  const cases: [string, () => Buffer, RegExp][] = [
    ['IFD whose next offset points at itself (the 10 KB crash)', () => selfLoopingDirectory(small), /chain of image directories loops back to the directory at byte 8$/],
    ['GeoKeyDirectory count 0x3FFFFFFF', () => withTagCount(small, 34735, 0x3fffffff), /tag 34735 \(GeoKeyDirectory\) declares 1073741823 values \(2\.0 GB\) at byte \d+, which runs past the end of the 9\.\d KB file$/],
    ['20000 × 20000 DEFLATE tiles of a constant (1.8 MB)', () => constantTiledDem(20000, 20000), new RegExp(`: 20000 × 20000 cells is more than the limit of ${SOL_CELLS_AT_2G} cells \\(EEMT_MAX_DEM_CELLS\\)$`)],
    ['30000 × 30000 with every tile pointing at one (112 KB)', () => sharedTileDem(30000, 30000), /: 30000 × 30000 cells is more than the limit of \d+ cells \(EEMT_MAX_DEM_CELLS\)$/],
    ['a tile of 1024 × 1024 cells that inflates to 1 GiB', () => inflateBombDem(1024 ** 3), /decodes to more than the 4194304 bytes its cells hold$/],
    ['an LZW strip of 64 MiB declared as 256 × 256 cells', () => shrunkStripDem(work, 'LZW'), /decodes to more than the 65536 bytes its cells hold$/],
    ['tiles of 65520 × 65520 cells on a 40 × 30 DEM', () => {
      const tiled = readFileSync(smallDem(work, 'tiled.tif', ['-co', 'TILED=YES', '-co', 'BLOCKXSIZE=16', '-co', 'BLOCKYSIZE=16']));
      return withTagValue(withTagValue(tiled, 322, 65520), 323, 65520);
    }, /tiles of 65520 × 65520 cells are larger than its 40 × 30 image can need$/],
    ['a loop through two directories of a BigTIFF', () => {
      const path = smallDem(work, 'big.tif', ['-co', 'BIGTIFF=YES']);
      gdal('gdaladdo', ['-q', path, '2']);
      return withNextDirectory(readFileSync(path), 1, 0);
    }, /loops back to the directory at byte 16$/],
  ];

  for (const [name, make, detail] of cases) {
    test(name, async (t) => {
      const bytes = make();
      const { res, seen } = await attack('dem.tif', bytes);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.deepEqual(Object.keys(res.body), ['detail']);
      assert.match(res.body.detail, NOT_GEOTIFF);
      assert.match(res.body.detail, detail);
      assertUnharmed(seen, t);
      assertNothingLeft();
    });
  }

  test('a sparse 30000 × 30000 GeoTIFF written by GDAL', async (t) => {
    const path = join(work, 'sparse.tif');
    gdal('gdal_create', ['-q', '-of', 'GTiff', '-outsize', '30000', '30000', '-ot', 'Float32', '-a_srs', 'EPSG:26913', '-a_ullr', '0', '300000', '300000', '0', '-co', 'TILED=YES', '-co', 'SPARSE_OK=TRUE', path]);
    const { res, seen } = await attack('sparse.tif', readFileSync(path));
    assert.equal(res.status, 400);
    assert.equal(res.body.detail, `DEM file must be a GeoTIFF (.tif): 30000 × 30000 cells is more than the limit of ${maxCells} cells (EEMT_MAX_DEM_CELLS)`);
    assertUnharmed(seen, t);
  });

  test('four bombs at once', async (t) => {
    const monitor = startMonitor(service, 50);
    const replies = await Promise.all([
      submit(service.base, { workflow_type: 'sol' }, { name: 'a.tif', bytes: constantTiledDem(20000, 20000) }),
      submit(service.base, { workflow_type: 'sol' }, { name: 'b.tif', bytes: sharedTileDem(30000, 30000) }),
      submit(service.base, { workflow_type: 'eemt' }, { name: 'c.tif', bytes: inflateBombDem(1024 ** 3) }),
      submit(service.base, { workflow_type: 'sol' }, { name: 'd.tif', bytes: selfLoopingDirectory(small) }),
    ]);
    const seen = await monitor.stop();
    assert.deepEqual(replies.map((r) => r.status), [400, 400, 400, 400]);
    assertUnharmed(seen, t);
    assertNothingLeft();
    assert.deepEqual((await getJson(`${service.base}/api/jobs`)).body, [], 'no job was created');
  });

  test('afterwards the service still takes a real DEM and runs its job to the end', async () => {
    const res = await submit(service.base, { workflow_type: 'sol', step: '60', num_threads: '1' }, { name: 'small.tif', bytes: small });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const job = await waitForStatus(service.base, res.body.job_id, ['completed', 'failed'], 120_000);
    assert.equal(job.status, 'completed', job.error_message);
  });
});

describe('a DEM that passes the submission check but not the job', () => {
  const dir = mkdtempSync(join(tmpdir(), 'eemt-jobdem-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Submits `bytes` to a service built with `options`; the job must fail: returns its error message. */
  async function jobFailure(options: Parameters<typeof startTestService>[0], bytes: Uint8Array): Promise<string> {
    const svc = await startTestService(options);
    try {
      const res = await submit(svc.base, { workflow_type: 'sol', step: '60' }, { name: 'dem.tif', bytes });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const job = await waitForStatus(svc.base, res.body.job_id, ['completed', 'failed'], 60_000);
      assert.equal(job.status, 'failed');
      return job.error_message;
    } finally {
      await svc.stop();
    }
  }

  test('over the job’s cell limit: the job says so', async () => {
    const runtime = (c: ServiceConfig) => new ProcessRuntime({ limits: { cpus: c.cpuLimit, memoryBytes: c.memoryBytes, maxDemCells: { sol: 1000, eemt: 1000 } } });
    assert.equal(await jobFailure({ runtime }, readFileSync(smallDem(dir))), '40 × 30 cells is more than the limit of 1000 cells (EEMT_MAX_DEM_CELLS)');
  });

  test('a damaged tile in a file too large to decode at submission: the job names the damage', async () => {
    const runtime = (c: ServiceConfig) => new ProcessRuntime({ limits: { cpus: c.cpuLimit, memoryBytes: c.memoryBytes, maxDemCells: c.maxDemCells } });
    const demChecker = new DemChecker({ maxCells: 10_000_000, fullCheckMaxBytes: 0 });
    assert.equal(
      await jobFailure({ runtime, demChecker }, inflateBombDem(1024 ** 3)),
      'The TIFF is damaged: a compressed strip or tile decodes to more than the 4194304 bytes its cells hold.',
    );
  });
});
