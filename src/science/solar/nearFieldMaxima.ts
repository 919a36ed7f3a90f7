/**
 * The highest terrain each quadrant of a cell's near field can hold: per cell, the largest elevation in each of
 * the four boxes reaching `reachRows` rows and `reachCols` columns from the cell toward the north-west,
 * north-east, south-west and south-east (the cell's own row and column included, cut at the grid's edge; nodata
 * counts as −∞, as it hides nothing). A near-field ray whose cells all lie in one quadrant hides the sun only
 * where a cell rises above the ray's height threshold there (dailyKernel.ts, `DaySamples.nearThreshold`); once
 * the quadrant's largest elevation is at or below every remaining threshold of the ray, the rest of the ray
 * hides nothing. The compiled kernel ends its traces there (assembly/sunlitLanes.ts): the same decisions,
 * fewer cells read. It finds the maxima of a tile's cells with running maxima (assembly/nearMaxima.ts,
 * `WasmDailyKernel.nearMaxima`), equal to `nearQuadrantMaximum` below (test/science/solar/nearFieldMaxima.test.ts).
 *
 * Quadrant q = 2·south + east: south when the ray's row offsets are all ≥ 0 (rows grow southward), east when
 * its column offsets are all ≥ 0 (`quadrantOfSigns`).
 */

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
