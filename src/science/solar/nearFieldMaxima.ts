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
import type { TerrainModel } from './terrainModel.js';

/** Quadrants of a cell's near field. */
export const NEAR_QUADRANTS = 4;

/**
 * The quadrant of a ray from the signs of its cells' offsets (bit 0: a column offset < 0, bit 1: one > 0, bit 2: a
 * row offset < 0, bit 3: one > 0), see the module comment; −1 if they change sign (no quadrant holds the ray).
 */
export function quadrantOfSigns(signs: number): number {
  if ((signs & 3) === 3 || (signs & 12) === 12) return -1;
  return (signs & 8 ? 2 : 0) + (signs & 2 ? 1 : 0);
}

/**
 * The readable definition: the largest elevation of quadrant `quadrant` around cell (row, col) of the grid
 * (−∞ if all its cells are nodata).
 */
export function nearQuadrantMaximum(model: TerrainModel, row: number, col: number, quadrant: number, reachRows: number, reachCols: number): number {
  const { elevation, width, height } = model;
  const south = quadrant >= 2;
  const east = quadrant % 2 === 1;
  const rowFrom = Math.max(0, south ? row : row - reachRows);
  const rowTo = Math.min(height - 1, south ? row + reachRows : row);
  const colFrom = Math.max(0, east ? col : col - reachCols);
  const colTo = Math.min(width - 1, east ? col + reachCols : col);
  let highest = -Infinity;
  for (let r = rowFrom; r <= rowTo; r++) {
    for (let c = colFrom; c <= colTo; c++) {
      const z = elevation[r * width + c]!;
      if (z > highest) highest = z;
    }
  }
  return highest;
}
