// Needs: gdal
/**
 * The output estimate against the real outputs: the sol workflow on the real DEM mcn_10m (a quarter-hour step) and on
 * an 8 × 8 window of it (a step that is not, where every file is a block), and the eemt workflow on mcn_10m for one
 * year (Daymet from the synthetic local server). The estimate must never be below the disk the outputs take, and at
 * most half as much again. Plus the file counts and the formula's properties.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statfsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { runWorkflow } from '../../src/workflows/index.js';
import {
  DEFAULT_BLOCK_BYTES,
  estimateOutputBytes,
  OUTPUT_FILE_BYTES,
  hoursBytesPerCell,
  OUTPUT_BYTES_PER_CELL,
  outputFileCounts,
  outputKindOf,
  QUARTER_HOUR_HOURS_BYTES_PER_CELL,
} from '../../src/workflows/outputSize.js';
import { startDaymetServer, type DaymetTestServer } from '../helpers/daymetServer.js';

const MCN = fileURLToPath(new URL('../fixtures/mcn_10m.tif', import.meta.url));
const MCN_SIZE = { width: 228, height: 211 };
const PARAMS = { linke_value: 3, albedo_value: 0.2, num_threads: 2 };

/** Files and folders under `root`: their count, apparent bytes, and the disk they take (allocated blocks). */
function usage(root: string): { files: number; bytes: number; diskBytes: number; kinds: Set<string> } {
  const result = { files: 0, bytes: 0, diskBytes: statSync(root).blocks * 512, kinds: new Set<string>() };
  const walk = (folder: string, prefix: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      const stats = statSync(path);
      result.diskBytes += stats.blocks * 512;
      if (entry.isDirectory()) walk(path, `${prefix}${entry.name}/`);
      else {
        result.files++;
        result.bytes += stats.size;
        result.kinds.add(outputKindOf(`${prefix}${entry.name}`) ?? `other: ${prefix}${entry.name}`);
      }
    }
  };
  walk(root, '');
  return result;
}

/** Prints a line with the test results (the numbers behind the table in docs/configuration.md, "Disk space"). */
const diagnostic = (line: string) => process.stdout.write(`# ${line}\n`);

describe('output estimate', () => {
  const dir = mkdtempSync(join(tmpdir(), 'eemt-output-size-'));
  const blockBytes = statfsSync(dir).bsize;
  let daymet: DaymetTestServer;
  before(async () => {
    daymet = await startDaymetServer();
  });
  after(async () => {
    await daymet.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs the workflow into a fresh folder; returns what it wrote and the estimate of its outputs. */
  async function measured(
    type: 'sol' | 'eemt',
    demPath: string,
    size: { width: number; height: number },
    params: { step: number; start_year?: number; end_year?: number; products?: string },
    daymetCells = 0,
  ) {
    const outDir = mkdtempSync(join(dir, 'out-'));
    await runWorkflow(type, { demPath, outDir, params: { ...PARAMS, ...params }, ...(type === 'eemt' ? { cacheDir: join(dir, 'cache'), daymetBaseUrl: daymet.url } : {}) } as never);
    const real = usage(outDir);
    const estimate = estimateOutputBytes(type, params, size.width, size.height, { blockBytes, daymetCells });
    rmSync(outDir, { recursive: true, force: true });
    diagnostic(`${type} ${size.width} × ${size.height} step ${params.step}: ${real.bytes} bytes in ${real.files} files, ${real.diskBytes} on disk; estimate ${estimate} (${(estimate / real.diskBytes).toFixed(3)} × the disk)`);
    return { real, estimate };
  }

  test('sol on mcn_10m at 15 minutes: at least the disk its 742 files take, at most half as much again', { timeout: 300_000 }, async () => {
    const { real, estimate } = await measured('sol', MCN, MCN_SIZE, { step: 15 });
    assert.equal(real.files, 742);
    assert.deepEqual([...real.kinds].sort(), ['daily-global', 'daily-hours', 'monthly-sums']);
    assert.ok(real.diskBytes > 60 * 1024 ** 2, `${real.diskBytes} bytes: a real year of products`);
    assert.ok(estimate >= real.diskBytes, `estimate ${estimate} < ${real.diskBytes} bytes on disk`);
    assert.ok(estimate <= 1.5 * real.bytes, `estimate ${estimate} > 1.5 × ${real.bytes} bytes`);
  });

  test('sol on an 8 × 8 window at 7 minutes: every file is a block, and the estimate knows it', { timeout: 120_000 }, async () => {
    const tiny = join(dir, 'tiny.tif');
    execFileSync('gdal_translate', ['-q', '-srcwin', '100', '100', '8', '8', MCN, tiny]);
    const { real, estimate } = await measured('sol', tiny, { width: 8, height: 8 }, { step: 7 });
    assert.equal(real.files, 742);
    assert.ok(real.diskBytes >= 742 * blockBytes);
    assert.ok(estimate >= real.diskBytes, `estimate ${estimate} < ${real.diskBytes} bytes on disk`);
    assert.ok(estimate <= 1.5 * real.diskBytes, `estimate ${estimate} > 1.5 × ${real.diskBytes} bytes on disk`);
  });

  test('eemt on mcn_10m for 2020: at least the disk its products, climate grids and Daymet files take', { timeout: 300_000 }, async () => {
    // the DEM lies in 9 Daymet cells (the climate phase keeps one CSV per cell and year)
    const { real, estimate } = await measured('eemt', MCN, MCN_SIZE, { step: 60, start_year: 2020, end_year: 2020 }, 9);
    // 742 sol files, 12 flat and 12 unshaded sums (topo_radiation=unshaded, the default), 24 real-sky maps (the
    // synthetic Daymet has srad and dayl), 48 climate grids, 28 EEMT maps, 3 terrain maps, 9 CSVs and README.txt
    assert.equal(real.files, 879);
    assert.deepEqual([...real.kinds].sort(), ['climate-grids', 'daily-global', 'daily-hours', 'daymet-csv', 'eemt-maps', 'monthly-sums', 'readme', 'terrain']);
    assert.ok(estimate >= real.diskBytes, `estimate ${estimate} < ${real.diskBytes} bytes on disk`);
    assert.ok(estimate <= 1.5 * real.bytes, `estimate ${estimate} > 1.5 × ${real.bytes} bytes`);
  });

  test('file counts: sol 742; eemt adds flat, unshaded and real-sky sums, terrain, 48 climate grids and 26 EEMT maps a year, the means, CSVs and README', () => {
    const sol = outputFileCounts('sol', {});
    assert.deepEqual(sol, { 'daily-global': 365, 'daily-hours': 365, 'monthly-sums': 12, 'eemt-maps': 0, 'climate-grids': 0, terrain: 0, 'daymet-csv': 0, readme: 0 });
    // monthly sums: 12 sol, 12 flat, 12 unshaded (the default topo_radiation), 24 beam parts while the job runs,
    // 24 real-sky maps (sloped and flat)
    const eemt = outputFileCounts('eemt', { start_year: 2019, end_year: 2020 }, 9);
    assert.deepEqual(eemt, { 'daily-global': 365, 'daily-hours': 365, 'monthly-sums': 84, 'eemt-maps': 54, 'climate-grids': 96, terrain: 3, 'daymet-csv': 18, readme: 1 });
    // shaded: no unshaded sums; a climate file without srad: no real-sky maps
    assert.equal(outputFileCounts('eemt', { start_year: 2020, end_year: 2020, topo_radiation: 'shaded' }, 0, false)['monthly-sums'], 48);
    assert.equal(outputFileCounts('eemt', { start_year: 2020, end_year: 2020, topo_radiation: 'realsky' }, 4)['monthly-sums'], 72);
  });

  test('the formula: whole blocks per file, linear in the cells, slices count the solar products twice', () => {
    const block = DEFAULT_BLOCK_BYTES;
    // 742 files of one block each, the six folders, and the folder entries
    assert.equal(estimateOutputBytes('sol', { step: 15 }, 8, 8), 742 * block + 6 * block + Math.ceil((742 * 64) / block) * block);
    // a larger block rounds every file up further
    assert.ok(estimateOutputBytes('sol', { step: 15 }, 8, 8, { blockBytes: 65536 }) > estimateOutputBytes('sol', { step: 15 }, 8, 8));
    // large DEMs: the per-cell sizes dominate
    const cells = 10_000 * 10_000;
    const big = estimateOutputBytes('sol', { step: 15 }, 10_000, 10_000);
    const perCell = 365 * OUTPUT_BYTES_PER_CELL['daily-global'] + 365 * QUARTER_HOUR_HOURS_BYTES_PER_CELL + 12 * OUTPUT_BYTES_PER_CELL['monthly-sums'];
    assert.ok(Math.abs(big / cells - perCell) < 0.1, `${big / cells} bytes per cell, not ${perCell}`);
    assert.ok(estimateOutputBytes('sol', { step: 10 }, 10_000, 10_000) > big, 'a step that is no multiple of 15 minutes makes larger hour maps');
    assert.ok(estimateOutputBytes('sol', { step: 15 }, 2000, 1000) > estimateOutputBytes('sol', { step: 15 }, 1000, 1000));
    const sliced = estimateOutputBytes('sol', { step: 15 }, 10_000, 10_000, { tileSlices: true });
    assert.ok(Math.abs(sliced - 2 * big) < 0.001 * big);
    // eemt: more years, more grids and maps; more Daymet cells, more CSVs
    const one = estimateOutputBytes('eemt', { step: 15, start_year: 2020, end_year: 2020 }, 500, 500, { daymetCells: 4 });
    assert.ok(estimateOutputBytes('eemt', { step: 15, start_year: 2011, end_year: 2020 }, 500, 500, { daymetCells: 4 }) > one);
    assert.ok(estimateOutputBytes('eemt', { step: 15, start_year: 2020, end_year: 2020 }, 500, 500, { daymetCells: 40 }) > one);
    assert.ok(one > estimateOutputBytes('sol', { step: 15 }, 500, 500));
    // a climate file without srad makes no real-sky maps: 24 monthly sums and their folder less
    const withoutRealSky = estimateOutputBytes('eemt', { step: 15, start_year: 2020, end_year: 2020 }, 500, 500, { daymetCells: 4, realSky: false });
    const monthlyFile = Math.ceil((OUTPUT_FILE_BYTES['monthly-sums'] + 500 * 500 * OUTPUT_BYTES_PER_CELL['monthly-sums']) / block) * block;
    assert.ok(Math.abs(one - withoutRealSky - (24 * monthlyFile + block)) <= block, `${one - withoutRealSky} bytes for the real-sky maps`);
  });

  test('products: the estimate counts only the files chosen, and still covers what a run writes', { timeout: 120_000 }, async () => {
    const tiny = join(dir, 'tiny-products.tif');
    execFileSync('gdal_translate', ['-q', '-srcwin', '100', '100', '8', '8', MCN, tiny]);
    for (const [products, files] of [['monthly', 12], ['daily:172,hours:172', 2], ['monthly,hours:1-31', 43]] as const) {
      const { real, estimate } = await measured('sol', tiny, { width: 8, height: 8 }, { step: 15, products });
      assert.equal(real.files, files, products);
      assert.ok(estimate >= real.diskBytes && estimate <= 1.5 * real.diskBytes, `${products}: estimate ${estimate}, ${real.diskBytes} bytes on disk`);
    }
    assert.deepEqual(outputFileCounts('sol', { products: 'monthly' }), { ...outputFileCounts('sol', {}), 'daily-global': 0, 'daily-hours': 0 });
    assert.deepEqual(outputFileCounts('sol', { products: 'daily:172,hours:100-109' }), { ...outputFileCounts('sol', {}), 'daily-global': 1, 'daily-hours': 10, 'monthly-sums': 0 });
    // eemt computes its monthly sums whatever products says (they take their room while it runs)
    const eemt = { start_year: 2020, end_year: 2020 };
    assert.deepEqual(outputFileCounts('eemt', { ...eemt, products: 'daily:1' }), { ...outputFileCounts('eemt', eemt), 'daily-global': 1, 'daily-hours': 0 });
    // a 100 M-cell DEM: the monthly sums alone are 4.3 GB of the 180 GB of every product (the hour maps compress better)
    const all = estimateOutputBytes('sol', { step: 15 }, 10_000, 10_000);
    const monthly = estimateOutputBytes('sol', { step: 15, products: 'monthly' }, 10_000, 10_000);
    assert.ok(monthly < all / 40, `${monthly} of ${all} bytes`);
    // with the days computed: the maps chosen among them, the sums of the months they complete
    assert.equal(
      estimateOutputBytes('sol', { step: 15, products: 'monthly,daily' }, 500, 500, { days: Array.from({ length: 40 }, (_, i) => i + 1) }),
      estimateOutputBytes('sol', { step: 15, products: 'monthly,daily:1-40' }, 500, 500, { days: Array.from({ length: 40 }, (_, i) => i + 1) }),
    );
  });

  test('sunshine hours: quarter-hour steps compress better', () => {
    for (const step of [15, 30, 45, 60]) assert.equal(hoursBytesPerCell(step), QUARTER_HOUR_HOURS_BYTES_PER_CELL, `step ${step}`);
    for (const step of [3, 5, 7, 7.5, 10, 20, 59.5]) assert.equal(hoursBytesPerCell(step), OUTPUT_BYTES_PER_CELL['daily-hours'], `step ${step}`);
  });
});
