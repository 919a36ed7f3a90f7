import { test } from 'node:test';
import assert from 'node:assert/strict';
import proj4 from 'proj4';
import {
  DAYMET_LCC_PROJ4,
  DAYMET_NA_GRID,
  daymetGridExtent,
  daymetCellAt,
  daymetCellContaining,
  daymetCellKey,
  lonLatToDaymetLcc,
  demFootprint,
  daymetBlockCoveringFootprint,
  daymetCellOfEachDemCell,
  demCellsInDaymetLcc,
  distinctDaymetCells,
  indexIntoCells,
} from '../../src/climate/daymetGrid.js';
import { checkDaymetCoverage } from '../../src/climate/daymetForDem.js';
import { ClimateCoverageError } from '../../src/climate/errors.js';
import { resolveDaymetMaxPoints } from '../../src/climate/daymetSettings.js';
import { mcn10mGrid, utm13Grid, parisGrid, lonLatGrid, UTM13N_NAD83_PROJ4 } from '../helpers/grids.js';

const YEARS = { start: 2018, end: 2019 };

test('the projection reproduces the "X & Y on Lambert Conformal Conic" of published API answers', () => {
  // Pairs (query lat/lon → X & Y line) quoted from public Daymet single-pixel responses.
  const published: Array<[number, number, number, number]> = [
    [37.9146, -107.8456, -659717.37, -455261.18], // Telluride, CO
    [47.6519, -122.3046, -1583161.66, 759257.95], // Seattle, WA
    [41.9, -93.6, 506022.01, -44135.47], // Iowa
    [35.9313, -84.3104, 1352953.24, -569846.6], // Oak Ridge, TN
  ];
  for (const [lat, lon, x, y] of published) {
    const [px, py] = lonLatToDaymetLcc(lon, lat);
    assert.ok(Math.abs(px - x) < 0.01 && Math.abs(py - y) < 0.01, `${lat},${lon}: ${px},${py}`);
  }
});

test('grid constants: 7814×8075 cells of 1 km, centres at x = −4560250 + 1000 i, y = 4984000 − 1000 j', () => {
  assert.deepEqual(daymetGridExtent(), { xMin: -4560750, xMax: 3253250, yMin: -3090500, yMax: 4984500 });
  const first = daymetCellAt(0, 0);
  assert.equal(first.x, -4560250);
  assert.equal(first.y, 4984000);
  const last = daymetCellAt(DAYMET_NA_GRID.columns - 1, DAYMET_NA_GRID.rows - 1);
  assert.equal(last.x, 3252750);
  assert.equal(last.y, -3090000);
  // A point snaps to the centre of the cell containing it; the key is that centre in metres.
  const cell = daymetCellContaining(-106.6263, 35.8057);
  assert.equal(daymetCellKey(cell), '-575250_-688000');
  const [x, y] = lonLatToDaymetLcc(cell.lon, cell.lat);
  assert.ok(Math.abs(x - cell.x) < 1e-6 && Math.abs(y - cell.y) < 1e-6);
});

test('mcn_10m: footprint, 2 km buffered block of 7×7 cells, 3×3 cells under the DEM', () => {
  const grid = mcn10mGrid();
  const fp = demFootprint(grid);
  // Independent: the four corners in LCC (the UTM→LCC rotation is ~3°, so corners are the extremes).
  const toLcc = proj4(UTM13N_NAD83_PROJ4, DAYMET_LCC_PROJ4);
  const [x0, dx, , y0, , dy] = grid.geoTransform;
  const corners = [[x0, y0], [x0 + 228 * dx, y0], [x0, y0 + 211 * dy], [x0 + 228 * dx, y0 + 211 * dy]].map((p) => toLcc.forward(p));
  const xs = corners.map((p) => p[0]!), ys = corners.map((p) => p[1]!);
  assert.ok(Math.abs(fp.lcc.xMin - Math.min(...xs)) < 0.01 && Math.abs(fp.lcc.xMax - Math.max(...xs)) < 0.01);
  assert.ok(Math.abs(fp.lcc.yMin - Math.min(...ys)) < 0.01 && Math.abs(fp.lcc.yMax - Math.max(...ys)) < 0.01);
  // Shoelace over the corners (order NW, NE, SE, SW). LCC shrinks lengths by ~4 % at 35.8°N (scale ≈ 0.96).
  const ring = [corners[0]!, corners[1]!, corners[3]!, corners[2]!];
  const area = Math.abs(ring.reduce((a, p, i) => a + p[0]! * ring[(i + 1) % 4]![1]! - ring[(i + 1) % 4]![0]! * p[1]!, 0)) / 2;
  assert.ok(Math.abs(fp.lccAreaM2 / area - 1) < 1e-6, `area ${fp.lccAreaM2} vs ${area}`);
  assert.ok(fp.south > 35.79 && fp.north < 35.82 && fp.west > -106.64 && fp.east < -106.61);

  // Cells whose 1 km square meets the footprint grown by 2 km: edges at −4560750 + 1000 i.
  const colOf = (x: number) => Math.floor((x + 4560750) / 1000);
  const rowOf = (y: number) => Math.floor((4984500 - y) / 1000);
  const block = daymetBlockCoveringFootprint(fp, 2000);
  assert.deepEqual(block, {
    col0: colOf(Math.min(...xs) - 2000),
    row0: rowOf(Math.max(...ys) + 2000),
    cols: colOf(Math.max(...xs) + 2000) - colOf(Math.min(...xs) - 2000) + 1,
    rows: rowOf(Math.min(...ys) - 2000) - rowOf(Math.max(...ys) + 2000) + 1,
  });
  assert.equal(block.cols * block.rows, 49);
  assert.equal(daymetBlockCoveringFootprint(fp, 0).cols * daymetBlockCoveringFootprint(fp, 0).rows, 9);

  const used = distinctDaymetCells(daymetCellOfEachDemCell(grid));
  assert.equal(used.length, 9);
  assert.deepEqual(used.map(daymetCellKey), [
    '-576250_-687000', '-575250_-687000', '-574250_-687000',
    '-576250_-688000', '-575250_-688000', '-574250_-688000',
    '-576250_-689000', '-575250_-689000', '-574250_-689000',
  ]);
});

test('nearest-cell assignment: every mcn_10m cell gets the Daymet cell with the nearest centre (brute force)', () => {
  const grid = mcn10mGrid();
  const coverage = checkDaymetCoverage(grid, YEARS, { cellSelection: 'buffered' });
  assert.equal(coverage.cells.length, 49);
  const toLcc = proj4(UTM13N_NAD83_PROJ4, DAYMET_LCC_PROJ4);
  const [x0, dx, , y0, , dy] = grid.geoTransform;
  const counts = new Map<number, number>();
  for (let r = 0; r < grid.height; r++) {
    for (let c = 0; c < grid.width; c++) {
      const [x, y] = toLcc.forward([x0 + (c + 0.5) * dx, y0 + (r + 0.5) * dy]) as [number, number];
      let best = -1, bestD = Infinity;
      coverage.cells.forEach((cell, k) => {
        const d = (cell.x - x) ** 2 + (cell.y - y) ** 2;
        if (d < bestD) { bestD = d; best = k; }
      });
      const got = coverage.nearestCellIndex[r * grid.width + c]!;
      assert.equal(got, best, `DEM cell row ${r} col ${c}`);
      counts.set(got, (counts.get(got) ?? 0) + 1);
    }
  }
  assert.equal(counts.size, 9);
  // The default selection keeps just those 9 cells, and indexes them.
  const nearest = checkDaymetCoverage(grid, YEARS);
  assert.equal(nearest.cells.length, 9);
  assert.ok(nearest.nearestCellIndex.every((k) => k >= 0 && k < 9));
  assert.equal(nearest.block.cols * nearest.block.rows, 49);
});

test('lattice interpolation matches exact transforms (projected and geographic DEMs); indexIntoCells −1 when absent', () => {
  for (const grid of [mcn10mGrid(), lonLatGrid(300, 200)]) {
    const exact = demCellsInDaymetLcc(grid, { latticeStep: 1 });
    const fast = demCellsInDaymetLcc(grid);
    let err = 0;
    for (let i = 0; i < exact.x.length; i++) err = Math.max(err, Math.abs(exact.x[i]! - fast.x[i]!), Math.abs(exact.y[i]! - fast.y[i]!));
    assert.ok(err < 0.01, `${grid.crs.name}: max error ${err} m`);
  }
  const demCells = daymetCellOfEachDemCell(mcn10mGrid());
  const idx = indexIntoCells(demCells, [daymetCellAt(3985, 5672)]);
  assert.ok(idx.some((k) => k === 0) && idx.some((k) => k === -1));
});

test('nearest-cell mapping of a 1000×1000 DEM is fast', () => {
  const grid = utm13Grid(1000, 1000, 10);
  const t0 = performance.now();
  const demCells = daymetCellOfEachDemCell(grid);
  const ms = performance.now() - t0;
  const cells = distinctDaymetCells(demCells);
  const idx = indexIntoCells(demCells, cells);
  const total = performance.now() - t0;
  console.log(`1000×1000 DEM → Daymet cells: ${ms.toFixed(0)} ms mapping, ${total.toFixed(0)} ms with indexing, ${cells.length} cells`);
  assert.ok(cells.length >= 100 && cells.length <= 144);
  assert.ok(idx.every((k) => k >= 0));
  assert.ok(total < 3000, `${total} ms`);
});

test('coverage: a DEM in Europe fails fast with a clear message', () => {
  assert.throws(
    () => checkDaymetCoverage(parisGrid(), YEARS),
    (err: unknown) => {
      assert.ok(err instanceof ClimateCoverageError);
      assert.equal(err.code, 'OUTSIDE_COVERAGE');
      assert.match(err.message, /^The DEM lies outside Daymet's coverage: it spans 48\.\d\d°N–48\.\d\d°N, 2\.\d\d°E–2\.\d\d°E, but Daymet \(V4, North America\) covers only about 14\.00°N–83\.00°N, 179\.00°W–52\.00°W/);
      return true;
    },
  );
});

test('max points: limit from the option or EEMT_DAYMET_MAX_POINTS (default 400); big DEMs refused before mapping', () => {
  assert.equal(resolveDaymetMaxPoints(undefined, {}), 400);
  assert.equal(resolveDaymetMaxPoints(undefined, { EEMT_DAYMET_MAX_POINTS: '25' }), 25);
  assert.equal(resolveDaymetMaxPoints(7, { EEMT_DAYMET_MAX_POINTS: '25' }), 7);
  assert.throws(() => resolveDaymetMaxPoints(undefined, { EEMT_DAYMET_MAX_POINTS: 'many' }), /EEMT_DAYMET_MAX_POINTS must be a positive integer, got "many"/);

  assert.throws(() => checkDaymetCoverage(mcn10mGrid(), YEARS, { maxPoints: 8 }), (err: unknown) => {
    assert.ok(err instanceof ClimateCoverageError);
    assert.equal(err.code, 'TOO_MANY_POINTS');
    assert.equal(err.message, 'The DEM needs Daymet data for 9 1 km cells, more than the limit of 8 per-point downloads (setting EEMT_DAYMET_MAX_POINTS). Use a smaller DEM or raise the limit.');
    return true;
  });
  assert.equal(checkDaymetCoverage(mcn10mGrid(), YEARS, { maxPoints: 9 }).cells.length, 9);
  assert.throws(() => checkDaymetCoverage(mcn10mGrid(), YEARS, { maxPoints: 48, cellSelection: 'buffered' }), /for 49 1 km cells/);

  // 100 000 × 100 000 cells of 10 m (1000 km square): refused from the footprint alone, in milliseconds.
  const huge = utm13Grid(100_000, 100_000, 10, 300000, 4400000);
  const t0 = performance.now();
  assert.throws(() => checkDaymetCoverage(huge, YEARS), /needs Daymet data for at least \d+ 1 km cells/);
  assert.ok(performance.now() - t0 < 500);
});

test('years outside the Daymet record are refused', () => {
  assert.throws(() => checkDaymetCoverage(mcn10mGrid(), { start: 1975, end: 1985 }), /Daymet covers 1980 to at most/);
  assert.throws(() => checkDaymetCoverage(mcn10mGrid(), { start: 2019, end: 2018 }), /start ≤ end/);
  assert.throws(() => checkDaymetCoverage(mcn10mGrid(), { start: 2018, end: new Date().getUTCFullYear() }), (err: unknown) => err instanceof ClimateCoverageError && err.code === 'BAD_YEARS');
});
