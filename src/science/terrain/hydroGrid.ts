/**
 * Grid geometry shared by the hydrology functions (depression filling, D-infinity flow, catchment area,
 * wetness index). Arrays are row-major, row 0 is the northern edge: index = row * width + col.
 * NaN marks nodata; nodata cells lie outside the domain.
 */

/** A per-cell array of numbers (elevations, slopes, …). */
export type CellArray = Float64Array | Float32Array;

/** Size and cell spacing of a north-up grid. */
export interface GridGeometry {
  readonly width: number;
  readonly height: number;
  /**
   * East–west cell size [m]: one value, or one value per row (length `height`) for geographic grids whose
   * cell width shrinks with latitude.
   */
  readonly dx: number | ArrayLike<number>;
  /** North–south cell size [m]. */
  readonly dy: number;
}

/** East–west cell size of `row` [m]. */
export function cellWidthOfRow(grid: GridGeometry, row: number): number {
  return typeof grid.dx === 'number' ? grid.dx : grid.dx[row]!;
}

/** Throws unless the geometry is usable and `arrays` all have width × height cells. */
export function checkGrid(grid: GridGeometry, ...arrays: ArrayLike<number>[]): number {
  const { width, height, dy } = grid;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new RangeError(`bad grid size ${width}×${height}`);
  }
  if (!(dy > 0)) throw new RangeError(`dy must be > 0, got ${dy}`);
  if (typeof grid.dx === 'number') {
    if (!(grid.dx > 0)) throw new RangeError(`dx must be > 0, got ${grid.dx}`);
  } else {
    if (grid.dx.length !== height) throw new RangeError(`per-row dx needs ${height} values, got ${grid.dx.length}`);
    for (let r = 0; r < height; r++) if (!(grid.dx[r]! > 0)) throw new RangeError(`dx of row ${r} must be > 0`);
  }
  const n = width * height;
  for (const a of arrays) {
    if (a.length !== n) throw new RangeError(`array has ${a.length} cells, grid has ${n}`);
  }
  return n;
}

/** Row offsets of the 8 neighbours, clockwise from north: N, NE, E, SE, S, SW, W, NW. */
export const NEIGHBOUR_ROW: readonly number[] = [-1, -1, 0, 1, 1, 1, 0, -1];
/** Column offsets of the 8 neighbours, clockwise from north: N, NE, E, SE, S, SW, W, NW. */
export const NEIGHBOUR_COL: readonly number[] = [0, 1, 1, 1, 0, -1, -1, -1];
