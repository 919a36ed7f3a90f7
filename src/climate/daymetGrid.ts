/**
 * The Daymet V4 North America 1 km grid, and how a DEM grid maps onto it.
 *
 * Projection: Lambert Conformal Conic, standard parallels 25°N and 60°N, origin 42.5°N 100°W,
 * WGS84 ellipsoid, metres (`DAYMET_LCC_PROJ4`). The single-pixel API reports a query's position in
 * exactly this projection (its `X & Y on Lambert Conformal Conic` line).
 *
 * Cells (`DAYMET_NA_GRID`): 1000 m squares, 7814 columns × 8075 rows. The netCDF coordinate
 * variables of Daymet V4 give the cell centres: x = −4 560 250 + 1000·col (col 0..7813, so
 * x centres end in …750 m: −4 560 250 … 3 252 750) and y = 4 984 000 − 1000·row (row 0..8074, the
 * north row first: 4 984 000 … −3 090 000). The grid's outer edges are therefore
 * x −4 560 750 … 3 253 250 m and y −3 090 500 … 4 984 500 m. This is the only place these numbers live.
 *
 * The grid rectangle includes ocean and Greenland, where Daymet has no data; on top of the
 * rectangle, a DEM must lie within the land domain of Daymet NA, roughly 14–83°N and 179–52°W
 * (`DAYMET_NA_LATLON_BOUNDS`). Hawaii and Puerto Rico are separate Daymet grids and are not supported.
 *
 * A DEM cell belongs to the Daymet cell whose centre is nearest in the LCC plane, which (the cells
 * being squares) is the cell containing the DEM cell's centre.
 */
import proj4 from '../raster/geo/proj4.js';
import type { GridSpec } from '../raster/types.js';
import { ClimateCoverageError } from './errors.js';

/** proj4 definition of Daymet's Lambert Conformal Conic projection. */
export const DAYMET_LCC_PROJ4 =
  '+proj=lcc +lat_1=25 +lat_2=60 +lat_0=42.5 +lon_0=-100 +x_0=0 +y_0=0 +ellps=WGS84 +units=m +no_defs';

/** Geometry of the Daymet V4 North America grid (cell centres; see the module doc). */
export const DAYMET_NA_GRID = Object.freeze({
  cellSizeM: 1000,
  /** x of the centre of column 0 (western column) [m]. */
  firstColumnCentreXM: -4_560_250,
  /** y of the centre of row 0 (northern row) [m]. */
  firstRowCentreYM: 4_984_000,
  columns: 7814,
  rows: 8075,
});

/** Approximate land domain of Daymet NA in geographic coordinates [degrees]. */
export const DAYMET_NA_LATLON_BOUNDS = Object.freeze({ south: 14, north: 83, west: -179, east: -52 });

/** Default buffer around the DEM footprint when listing covering Daymet cells [m] (metget.sh pads by 2 km; eemt-model.md §3.1). */
export const DEFAULT_DAYMET_BUFFER_M = 2000;

const WGS84_LONLAT = '+proj=longlat +datum=WGS84 +no_defs';

/** A Daymet cell: grid column/row, LCC centre [m] and geographic centre [degrees]. */
export interface DaymetCell {
  readonly col: number;
  readonly row: number;
  /** LCC x of the cell centre [m]. */
  readonly x: number;
  /** LCC y of the cell centre [m]. */
  readonly y: number;
  /** Latitude of the cell centre [degrees north] (WGS84). */
  readonly lat: number;
  /** Longitude of the cell centre [degrees east] (WGS84; negative in North America). */
  readonly lon: number;
}

/** A rectangle of Daymet cells: columns col0..col0+cols−1, rows row0..row0+rows−1. */
export interface DaymetCellBlock {
  readonly col0: number;
  readonly row0: number;
  readonly cols: number;
  readonly rows: number;
}

/** An axis-aligned box in the LCC plane [m]. */
export interface LccBox {
  readonly xMin: number;
  readonly xMax: number;
  readonly yMin: number;
  readonly yMax: number;
}

const lonLatToLccConverter = proj4(WGS84_LONLAT, DAYMET_LCC_PROJ4);

/** LCC x, y [m] of a WGS84 longitude, latitude [degrees]. */
export function lonLatToDaymetLcc(lonDeg: number, latDeg: number): [number, number] {
  const [x, y] = lonLatToLccConverter.forward([lonDeg, latDeg]);
  return [x!, y!];
}

/** WGS84 longitude, latitude [degrees] of an LCC x, y [m]. */
export function daymetLccToLonLat(xM: number, yM: number): [number, number] {
  const [lon, lat] = lonLatToLccConverter.inverse([xM, yM]);
  return [lon!, lat!];
}

/** Column of the Daymet cell containing LCC x [m] (may lie outside 0..columns−1). */
export function daymetColumnOfX(xM: number): number {
  return Math.round((xM - DAYMET_NA_GRID.firstColumnCentreXM) / DAYMET_NA_GRID.cellSizeM);
}

/** Row of the Daymet cell containing LCC y [m] (may lie outside 0..rows−1). */
export function daymetRowOfY(yM: number): number {
  return Math.round((DAYMET_NA_GRID.firstRowCentreYM - yM) / DAYMET_NA_GRID.cellSizeM);
}

/** True when (col, row) is a cell of the Daymet NA grid. */
export function isDaymetCellInGrid(col: number, row: number): boolean {
  return col >= 0 && col < DAYMET_NA_GRID.columns && row >= 0 && row < DAYMET_NA_GRID.rows;
}

/** The Daymet cell at grid column `col` and row `row`, with its centre in LCC and WGS84. */
export function daymetCellAt(col: number, row: number): DaymetCell {
  const x = DAYMET_NA_GRID.firstColumnCentreXM + col * DAYMET_NA_GRID.cellSizeM;
  const y = DAYMET_NA_GRID.firstRowCentreYM - row * DAYMET_NA_GRID.cellSizeM;
  const [lon, lat] = daymetLccToLonLat(x, y);
  return { col, row, x, y, lat, lon };
}

/** The Daymet cell containing a WGS84 point (its centre is where the point is snapped to). */
export function daymetCellContaining(lonDeg: number, latDeg: number): DaymetCell {
  const [x, y] = lonLatToDaymetLcc(lonDeg, latDeg);
  return daymetCellAt(daymetColumnOfX(x), daymetRowOfY(y));
}

/** Cache/file key of a Daymet cell: its LCC centre in whole metres, `<x>_<y>` (e.g. `-576250_-687000`). */
export function daymetCellKey(cell: Pick<DaymetCell, 'x' | 'y'>): string {
  return `${Math.round(cell.x)}_${Math.round(cell.y)}`;
}

/** The cells of a block, north row first, west to east within a row. */
export function daymetCellsOfBlock(block: DaymetCellBlock): DaymetCell[] {
  const cells: DaymetCell[] = [];
  for (let r = 0; r < block.rows; r++) {
    for (let c = 0; c < block.cols; c++) cells.push(daymetCellAt(block.col0 + c, block.row0 + r));
  }
  return cells;
}

// ---------------------------------------------------------------------------------------------
// DEM footprint

function gridToSourceConverter(grid: GridSpec): proj4.Converter {
  try {
    return proj4(grid.crs.proj4, DAYMET_LCC_PROJ4);
  } catch (err) {
    throw new ClimateCoverageError(
      'OUTSIDE_COVERAGE',
      `The DEM's coordinate reference system (${grid.crs.name}) cannot be converted to Daymet's projection: ${(err as Error).message}`,
    );
  }
}

function toLonLatConverter(grid: GridSpec): proj4.Converter {
  return proj4(grid.crs.proj4, WGS84_LONLAT);
}

/** Map coordinates of a fractional pixel position (0,0 = north-west corner of the grid). */
function pixelToMap(grid: GridSpec, col: number, row: number): [number, number] {
  const [x0, dx, , y0, , dy] = grid.geoTransform;
  return [x0 + col * dx, y0 + row * dy];
}

/**
 * Points along the outer edge of the DEM (pixel edges, not centres) as fractional pixel positions,
 * in order around the footprint (clockwise from the north-west corner), at most ~`perSide` per side.
 */
function footprintBoundaryPixels(grid: GridSpec, perSide = 256): Array<[number, number]> {
  const pts: Array<[number, number]> = [];
  const nx = Math.min(grid.width, perSide);
  const ny = Math.min(grid.height, perSide);
  const w = grid.width, h = grid.height;
  for (let i = 0; i < nx; i++) pts.push([(i / nx) * w, 0]);
  for (let j = 0; j < ny; j++) pts.push([w, (j / ny) * h]);
  for (let i = nx; i > 0; i--) pts.push([(i / nx) * w, h]);
  for (let j = ny; j > 0; j--) pts.push([0, (j / ny) * h]);
  return pts;
}

/** The DEM footprint as sampled boundary points, in LCC [m] and WGS84 [degrees]. */
export interface DemFootprint {
  /** Bounding box of the footprint in LCC [m] (no buffer). */
  readonly lcc: LccBox;
  /** Area of the footprint in the LCC plane [m²]; Daymet cells are 10⁶ m² in this plane (LCC scale ≠ 1: ≈0.96 at 36°N). */
  readonly lccAreaM2: number;
  /** Geographic bounding box [degrees]. */
  readonly south: number;
  readonly north: number;
  readonly west: number;
  readonly east: number;
}

/**
 * The DEM's footprint (its outer pixel edges, densely sampled) transformed to Daymet's LCC
 * plane and to WGS84. Throws a ClimateCoverageError when the transform fails.
 */
export function demFootprint(grid: GridSpec): DemFootprint {
  const toLcc = gridToSourceConverter(grid);
  const toLonLat = toLonLatConverter(grid);
  let xMin = Infinity, xMax = -Infinity, yMin = Infinity, yMax = -Infinity;
  let south = Infinity, north = -Infinity, west = Infinity, east = -Infinity;
  let twiceArea = 0;
  let prev: [number, number] | null = null;
  let first: [number, number] | null = null;
  for (const [c, r] of footprintBoundaryPixels(grid)) {
    const p = pixelToMap(grid, c, r);
    const [x, y] = toLcc.forward(p);
    const [lon, lat] = toLonLat.forward(p);
    if (![x, y, lon, lat].every((v) => Number.isFinite(v))) {
      throw new ClimateCoverageError(
        'OUTSIDE_COVERAGE',
        `The DEM's corner or edge at map coordinates (${p[0]}, ${p[1]}) in ${grid.crs.name} has no position in Daymet's projection.`,
      );
    }
    if (prev) twiceArea += prev[0] * y! - x! * prev[1];
    prev = [x!, y!];
    first ??= prev;
    xMin = Math.min(xMin, x!); xMax = Math.max(xMax, x!);
    yMin = Math.min(yMin, y!); yMax = Math.max(yMax, y!);
    south = Math.min(south, lat!); north = Math.max(north, lat!);
    west = Math.min(west, lon!); east = Math.max(east, lon!);
  }
  if (prev && first) twiceArea += prev[0] * first[1] - first[0] * prev[1];
  return { lcc: { xMin, xMax, yMin, yMax }, lccAreaM2: Math.abs(twiceArea) / 2, south, north, west, east };
}

function formatLat(v: number): string {
  return `${Math.abs(v).toFixed(2)}°${v >= 0 ? 'N' : 'S'}`;
}
function formatLon(v: number): string {
  return `${Math.abs(v).toFixed(2)}°${v >= 0 ? 'E' : 'W'}`;
}

/** Edges of the Daymet NA grid rectangle [m]. */
export function daymetGridExtent(): LccBox {
  const g = DAYMET_NA_GRID;
  const half = g.cellSizeM / 2;
  return {
    xMin: g.firstColumnCentreXM - half,
    xMax: g.firstColumnCentreXM + (g.columns - 1) * g.cellSizeM + half,
    yMin: g.firstRowCentreYM - (g.rows - 1) * g.cellSizeM - half,
    yMax: g.firstRowCentreYM + half,
  };
}

/**
 * Throws a ClimateCoverageError (`OUTSIDE_COVERAGE`) unless the whole footprint lies inside
 * Daymet NA: inside the LCC grid rectangle and inside `DAYMET_NA_LATLON_BOUNDS`.
 */
export function assertFootprintInsideDaymet(footprint: DemFootprint): void {
  const ext = daymetGridExtent();
  const b = DAYMET_NA_LATLON_BOUNDS;
  const f = footprint;
  const insideLcc = f.lcc.xMin >= ext.xMin && f.lcc.xMax <= ext.xMax && f.lcc.yMin >= ext.yMin && f.lcc.yMax <= ext.yMax;
  const insideLatLon = f.south >= b.south && f.north <= b.north && f.west >= b.west && f.east <= b.east;
  if (insideLcc && insideLatLon) return;
  throw new ClimateCoverageError(
    'OUTSIDE_COVERAGE',
    `The DEM lies outside Daymet's coverage: it spans ${formatLat(f.south)}–${formatLat(f.north)}, ` +
      `${formatLon(f.west)}–${formatLon(f.east)}, but Daymet (V4, North America) covers only about ` +
      `${formatLat(b.south)}–${formatLat(b.north)}, ${formatLon(b.west)}–${formatLon(b.east)}. ` +
      `For a DEM elsewhere, upload monthly climate grids as climate_file (CLI: --climate-file; docs/climate-input.md), ` +
      `or use the sol workflow.`,
  );
}

/**
 * The block of Daymet cells that covers the DEM footprint grown by `bufferM` on every side: every
 * cell whose 1 km square intersects the buffered LCC bounding box of the footprint. Clipped to the grid.
 */
export function daymetBlockCoveringFootprint(footprint: DemFootprint, bufferM: number = DEFAULT_DAYMET_BUFFER_M): DaymetCellBlock {
  const { xMin, xMax, yMin, yMax } = footprint.lcc;
  // A cell intersects [a, b] when its centre lies within [a − 500, b + 500]; round() picks the containing cell.
  const col0 = Math.max(0, daymetColumnOfX(xMin - bufferM));
  const col1 = Math.min(DAYMET_NA_GRID.columns - 1, daymetColumnOfX(xMax + bufferM));
  const row0 = Math.max(0, daymetRowOfY(yMax + bufferM));
  const row1 = Math.min(DAYMET_NA_GRID.rows - 1, daymetRowOfY(yMin - bufferM));
  return { col0, row0, cols: col1 - col0 + 1, rows: row1 - row0 + 1 };
}

// ---------------------------------------------------------------------------------------------
// DEM cell → Daymet cell

/** Options of `demCellsInDaymetLcc`. */
export interface LccLatticeOptions {
  /** Spacing of the exactly transformed lattice [DEM cells]; default 16. 1 = transform every cell. */
  readonly latticeStep?: number;
  /** Largest accepted interpolation error at the check points [m]; default 0.01. The step is halved until met. */
  readonly toleranceM?: number;
}

/**
 * LCC x and y [m] of every DEM cell centre (row-major, row 0 = north).
 *
 * Exact transforms cost ~1.3 µs per point with proj4 (1.3 s for 1000×1000 cells), so only a lattice
 * of every `latticeStep`-th row and column (plus the last row and column) is transformed exactly
 * and the cells in between are interpolated bilinearly. The transform is smooth at these scales;
 * the interpolation error is checked at the centres of the lattice cells and the step halved until
 * it is below `toleranceM`.
 */
export function demCellsInDaymetLcc(grid: GridSpec, options: LccLatticeOptions = {}): { x: Float64Array; y: Float64Array } {
  const toLcc = gridToSourceConverter(grid);
  const tolerance = options.toleranceM ?? 0.01;
  let step = Math.max(1, Math.floor(options.latticeStep ?? 16));
  const { width, height } = grid;
  const centre = (c: number, r: number): [number, number] => {
    const [x, y] = toLcc.forward(pixelToMap(grid, c + 0.5, r + 0.5));
    return [x!, y!];
  };
  for (;;) {
    const lc = latticeIndices(width, step);
    const lr = latticeIndices(height, step);
    const nodeX = new Float64Array(lc.length * lr.length);
    const nodeY = new Float64Array(lc.length * lr.length);
    for (let j = 0; j < lr.length; j++) {
      for (let i = 0; i < lc.length; i++) {
        const [x, y] = centre(lc[i]!, lr[j]!);
        nodeX[j * lc.length + i] = x;
        nodeY[j * lc.length + i] = y;
      }
    }
    if (step > 1 && !latticeWithinTolerance(lc, lr, nodeX, nodeY, centre, tolerance)) {
      step = Math.max(1, Math.floor(step / 2));
      continue;
    }
    return interpolateLattice(width, height, lc, lr, nodeX, nodeY);
  }
}

function latticeIndices(n: number, step: number): Int32Array {
  const out: number[] = [];
  for (let i = 0; i < n - 1; i += step) out.push(i);
  out.push(n - 1);
  return Int32Array.from(out);
}

function bilinearAt(
  lc: Int32Array, lr: Int32Array, node: Float64Array, i: number, j: number, c: number, r: number,
): number {
  const nc = lc.length;
  const c0 = lc[i]!, c1 = lc[Math.min(i + 1, nc - 1)]!;
  const r0 = lr[j]!, r1 = lr[Math.min(j + 1, lr.length - 1)]!;
  const fc = c1 === c0 ? 0 : (c - c0) / (c1 - c0);
  const fr = r1 === r0 ? 0 : (r - r0) / (r1 - r0);
  const i1 = Math.min(i + 1, nc - 1), j1 = Math.min(j + 1, lr.length - 1);
  const top = node[j * nc + i]! * (1 - fc) + node[j * nc + i1]! * fc;
  const bottom = node[j1 * nc + i]! * (1 - fc) + node[j1 * nc + i1]! * fc;
  return top * (1 - fr) + bottom * fr;
}

function latticeWithinTolerance(
  lc: Int32Array, lr: Int32Array, nodeX: Float64Array, nodeY: Float64Array,
  centre: (c: number, r: number) => [number, number], tolerance: number,
): boolean {
  // Check the middle of up to ~64 lattice cells spread over the grid (where bilinear error peaks).
  const si = Math.max(1, Math.floor((lc.length - 1) / 8));
  const sj = Math.max(1, Math.floor((lr.length - 1) / 8));
  for (let j = 0; j < lr.length - 1; j += sj) {
    for (let i = 0; i < lc.length - 1; i += si) {
      const c = Math.floor((lc[i]! + lc[i + 1]!) / 2);
      const r = Math.floor((lr[j]! + lr[j + 1]!) / 2);
      const [x, y] = centre(c, r);
      const ex = Math.abs(bilinearAt(lc, lr, nodeX, i, j, c, r) - x);
      const ey = Math.abs(bilinearAt(lc, lr, nodeY, i, j, c, r) - y);
      if (!(ex <= tolerance && ey <= tolerance)) return false;
    }
  }
  return true;
}

function interpolateLattice(
  width: number, height: number, lc: Int32Array, lr: Int32Array, nodeX: Float64Array, nodeY: Float64Array,
): { x: Float64Array; y: Float64Array } {
  const nc = lc.length;
  const nr = lr.length;
  // 1. Along each lattice row, interpolate every grid column.
  const rowsX = new Float64Array(nr * width);
  const rowsY = new Float64Array(nr * width);
  for (let j = 0; j < nr; j++) {
    let i = 0;
    for (let c = 0; c < width; c++) {
      while (i < nc - 2 && c > lc[i + 1]!) i++;
      const c0 = lc[i]!;
      const i1 = Math.min(i + 1, nc - 1);
      const span = lc[i1]! - c0;
      const f = span === 0 ? 0 : (c - c0) / span;
      rowsX[j * width + c] = nodeX[j * nc + i]! + (nodeX[j * nc + i1]! - nodeX[j * nc + i]!) * f;
      rowsY[j * width + c] = nodeY[j * nc + i]! + (nodeY[j * nc + i1]! - nodeY[j * nc + i]!) * f;
    }
  }
  // 2. Between lattice rows, blend linearly.
  const x = new Float64Array(width * height);
  const y = new Float64Array(width * height);
  let j = 0;
  for (let r = 0; r < height; r++) {
    while (j < nr - 2 && r > lr[j + 1]!) j++;
    const j1 = Math.min(j + 1, nr - 1);
    const span = lr[j1]! - lr[j]!;
    const f = span === 0 ? 0 : (r - lr[j]!) / span;
    const a = j * width, b = j1 * width, base = r * width;
    for (let c = 0; c < width; c++) {
      x[base + c] = rowsX[a + c]! + (rowsX[b + c]! - rowsX[a + c]!) * f;
      y[base + c] = rowsY[a + c]! + (rowsY[b + c]! - rowsY[a + c]!) * f;
    }
  }
  return { x, y };
}

/** Per DEM cell, the Daymet column and row that contain its centre. */
export interface DemDaymetCells {
  readonly col: Int32Array;
  readonly row: Int32Array;
}

/** The Daymet column and row of every DEM cell centre (see `demCellsInDaymetLcc`). */
export function daymetCellOfEachDemCell(grid: GridSpec, options: LccLatticeOptions = {}): DemDaymetCells {
  const { x, y } = demCellsInDaymetLcc(grid, options);
  const col = new Int32Array(x.length);
  const row = new Int32Array(x.length);
  for (let i = 0; i < x.length; i++) {
    col[i] = daymetColumnOfX(x[i]!);
    row[i] = daymetRowOfY(y[i]!);
  }
  return { col, row };
}

/**
 * Index of each DEM cell's Daymet cell in `cells` (−1 when that cell is not in the list).
 * @param demCells Daymet column/row per DEM cell (`daymetCellOfEachDemCell`)
 * @param cells the Daymet cells, in any order
 */
export function indexIntoCells(demCells: DemDaymetCells, cells: readonly Pick<DaymetCell, 'col' | 'row'>[]): Int32Array {
  const byKey = new Map<number, number>();
  cells.forEach((cell, k) => byKey.set(cell.row * DAYMET_NA_GRID.columns + cell.col, k));
  const out = new Int32Array(demCells.col.length);
  let lastKey = -1, lastIndex = -1;
  for (let i = 0; i < out.length; i++) {
    const key = demCells.row[i]! * DAYMET_NA_GRID.columns + demCells.col[i]!;
    if (key !== lastKey) {
      lastKey = key;
      lastIndex = byKey.get(key) ?? -1;
    }
    out[i] = lastIndex;
  }
  return out;
}

/** The distinct Daymet cells that contain at least one DEM cell centre, north row first, then west to east. */
export function distinctDaymetCells(demCells: DemDaymetCells): DaymetCell[] {
  const keys = new Set<number>();
  let last = -1;
  for (let i = 0; i < demCells.col.length; i++) {
    const key = demCells.row[i]! * DAYMET_NA_GRID.columns + demCells.col[i]!;
    if (key !== last) keys.add((last = key)); // neighbouring DEM cells mostly share a Daymet cell
  }
  return [...keys]
    .sort((a, b) => a - b)
    .map((k) => daymetCellAt(k % DAYMET_NA_GRID.columns, Math.floor(k / DAYMET_NA_GRID.columns)));
}
