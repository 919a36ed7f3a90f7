/**
 * The highest terrain each quadrant of a cell's near field can hold: per cell, the largest elevation in each of
 * the four boxes reaching `reachRows` rows and `reachCols` columns from the cell toward the north-west,
 * north-east, south-west and south-east (the cell's own row and column included, cut at the grid's edge; nodata
 * counts as −∞, as it hides nothing). A near-field ray whose cells all lie in one quadrant hides the sun only
 * where a cell rises above the ray's height threshold there (dailyKernel.ts, `DaySamples.nearThreshold`); once
 * the quadrant's largest elevation is at or below every remaining threshold of the ray, the rest of the ray
 * hides nothing. The compiled kernel ends its traces there (assembly/sunlitLanes.ts): the same decisions,
 * fewer cells read.
 *
 * Quadrant q = 2·south + east: south when the ray's row offsets are all ≥ 0 (rows grow southward), east when
 * its column offsets are all ≥ 0 (`quadrantOfSigns`).
 */
import type { CellBlock } from './terrainModel.js';

/** Quadrants of a cell's near field. */
export const NEAR_QUADRANTS = 4;

/** A block of the elevation grid: rows from `rowStart`, columns from `colStart`, `width` columns, row-major. */
export interface ElevationWindow {
  readonly elevation: Float32Array;
  readonly rowStart: number;
  readonly colStart: number;
  readonly width: number;
  readonly rows: number;
}

/**
 * The quadrant of a ray from the signs of its cells' offsets (bit 0: a column offset < 0, bit 1: one > 0, bit 2: a
 * row offset < 0, bit 3: one > 0), see the module comment; −1 if they change sign (no quadrant holds the ray).
 */
export function quadrantOfSigns(signs: number): number {
  if ((signs & 3) === 3 || (signs & 12) === 12) return -1;
  return (signs & 8 ? 2 : 0) + (signs & 2 ? 1 : 0);
}

/**
 * The readable definition: the largest elevation of quadrant `quadrant` around grid cell (row, col) of a window
 * (−∞ if all its cells are nodata).
 */
export function nearQuadrantMaximum(window: ElevationWindow, row: number, col: number, quadrant: number, reachRows: number, reachCols: number): number {
  const south = quadrant >= 2;
  const east = quadrant % 2 === 1;
  const rowFrom = Math.max(window.rowStart, south ? row : row - reachRows);
  const rowTo = Math.min(window.rowStart + window.rows - 1, south ? row + reachRows : row);
  const colFrom = Math.max(window.colStart, east ? col : col - reachCols);
  const colTo = Math.min(window.colStart + window.width - 1, east ? col + reachCols : col);
  let highest = -Infinity;
  for (let r = rowFrom; r <= rowTo; r++) {
    for (let c = colFrom; c <= colTo; c++) {
      const z = window.elevation[(r - window.rowStart) * window.width + (c - window.colStart)]!;
      if (z > highest) highest = z;
    }
  }
  return highest;
}

/** Scratch of `nearQuadrantMaxima`, reusable across tiles. */
export interface NearMaximaScratch {
  east: Float32Array;
  west: Float32Array;
  deque: Int32Array;
}

export function nearMaximaScratch(): NearMaximaScratch {
  return { east: new Float32Array(0), west: new Float32Array(0), deque: new Int32Array(0) };
}

/**
 * `nearQuadrantMaximum` of every cell of `tile` (inside `window`) and quadrant, into `out` at
 * (tile-local cell)·4 + quadrant: the maxima along each row, then along each column (running maxima, linear time).
 */
export function nearQuadrantMaxima(
  window: ElevationWindow,
  tile: CellBlock,
  reachRows: number,
  reachCols: number,
  out: Float32Array,
  scratch: NearMaximaScratch = nearMaximaScratch(),
): void {
  const tileWidth = tile.colEnd - tile.colStart;
  const tileRows = tile.rowEnd - tile.rowStart;
  const { rows, width } = window;
  if (tile.rowStart < window.rowStart || tile.rowEnd > window.rowStart + rows || tile.colStart < window.colStart || tile.colEnd > window.colStart + width) {
    throw new RangeError('the tile lies outside the elevation window');
  }
  if (out.length < tileWidth * tileRows * NEAR_QUADRANTS) throw new RangeError('the output has no room for the tile');
  if (scratch.east.length < rows * tileWidth) {
    scratch.east = new Float32Array(rows * tileWidth);
    scratch.west = new Float32Array(rows * tileWidth);
  }
  if (scratch.deque.length < Math.max(rows, width)) scratch.deque = new Int32Array(Math.max(rows, width));
  const { east, west, deque } = scratch;
  const firstCol = tile.colStart - window.colStart;
  const firstRow = tile.rowStart - window.rowStart;
  // along each row of the window, at the tile's columns: the maxima over [col, col + reachCols] and [col − reachCols, col]
  for (let r = 0; r < rows; r++) {
    const row = { values: window.elevation, offset: r * width, stride: 1, length: width };
    runningMaxima(row, 0, reachCols, firstCol, firstCol + tileWidth, east, r * tileWidth - firstCol, 1, deque);
    runningMaxima(row, reachCols, 0, firstCol, firstCol + tileWidth, west, r * tileWidth - firstCol, 1, deque);
  }
  // along each column, at the tile's rows: the quadrants
  for (let c = 0; c < tileWidth; c++) {
    const outBase = c * NEAR_QUADRANTS - firstRow * tileWidth * NEAR_QUADRANTS;
    const stride = tileWidth * NEAR_QUADRANTS;
    for (const [values, eastward] of [
      [west, 0],
      [east, 1],
    ] as const) {
      const column = { values, offset: c, stride: tileWidth, length: rows };
      runningMaxima(column, reachRows, 0, firstRow, firstRow + tileRows, out, outBase + eastward, stride, deque);
      runningMaxima(column, 0, reachRows, firstRow, firstRow + tileRows, out, outBase + 2 + eastward, stride, deque);
    }
  }
}

/** A strided run of values: element i at values[offset + i·stride], i < length. */
interface Run {
  readonly values: Float32Array;
  readonly offset: number;
  readonly stride: number;
  readonly length: number;
}

/**
 * For i in [from, to): the largest element of `run` over [i − back, i + ahead] (within the run; NaN as −∞) into
 * out[outOffset + i·outStride]. A deque of candidate indices with falling values: each index enters and leaves once.
 */
function runningMaxima(run: Run, back: number, ahead: number, from: number, to: number, out: Float32Array, outOffset: number, outStride: number, deque: Int32Array): void {
  const { values, offset, stride, length } = run;
  const valueAt = (i: number) => {
    const z = values[offset + i * stride]!;
    return z === z ? z : -Infinity;
  };
  let head = 0;
  let tail = 0;
  let next = Math.max(0, from - back);
  for (let i = from; i < to; i++) {
    const last = Math.min(length - 1, i + ahead);
    for (; next <= last; next++) {
      const z = valueAt(next);
      while (tail > head && valueAt(deque[tail - 1]!) <= z) tail--;
      deque[tail++] = next;
    }
    while (deque[head]! < i - back) head++;
    out[outOffset + i * outStride] = valueAt(deque[head]!);
  }
}
