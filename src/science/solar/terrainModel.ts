/**
 * The resident terrain of a run: the DEM's elevations, the cell size of every row and a maximum pyramid
 * (the largest elevation in every 2^ℓ × 2^ℓ block of cells). Everything else the solar engine needs is
 * computed per tile from this model, so a run holds the DEM plus about a third of it for the pyramid.
 *
 * Layout: row-major, row 0 north, index row · width + col; nodata cells are NaN in `elevation` and
 * count as −∞ in the pyramid (they hide nothing).
 */

/** Allocation hook, so the pipeline can place the arrays in shared memory for its worker threads. */
export type Float32Allocator = (length: number) => Float32Array;

const heapFloat32: Float32Allocator = (length) => new Float32Array(length);

/** A rectangular block of cells [rowStart, rowEnd) × [colStart, colEnd) in grid coordinates. */
export interface CellBlock {
  readonly rowStart: number;
  readonly rowEnd: number;
  readonly colStart: number;
  readonly colEnd: number;
}

export interface TerrainModel {
  readonly width: number;
  readonly height: number;
  /** Elevation [m], Float32 like r.sun's FCELL maps; NaN = nodata. */
  readonly elevation: Float32Array;
  /** Cell size of each row [m]: east-west and north-south (equal for all rows of a projected grid). */
  readonly cellSizeX: Float64Array;
  readonly cellSizeY: Float64Array;
  /** Largest valid elevation of the DEM [m] (−∞ if it has none). */
  readonly zMaxM: number;
  /**
   * pyramid[ℓ − 1] (ℓ = 1, 2, …) holds the largest elevation of each block of 2^ℓ × 2^ℓ cells, block
   * (row >> ℓ, col >> ℓ) at index (row >> ℓ) · pyramidWidth(ℓ) + (col >> ℓ); the last level is one block.
   */
  readonly pyramid: readonly Float32Array[];
}

/** Blocks per row of pyramid level ℓ. */
export function pyramidWidth(width: number, level: number): number {
  return Math.ceil(width / 2 ** level);
}

/** Builds the terrain model (the maximum pyramid) over `elevation`, which it keeps by reference. */
export function buildTerrainModel(
  elevation: Float32Array,
  width: number,
  height: number,
  cellSizeX: Float64Array,
  cellSizeY: Float64Array,
  allocate: Float32Allocator = heapFloat32,
): TerrainModel {
  if (elevation.length !== width * height) throw new RangeError(`elevation has ${elevation.length} cells, expected ${width} × ${height}`);
  let zMaxM = -Infinity;
  for (let i = 0; i < elevation.length; i++) {
    const z = elevation[i]!;
    if (z > zMaxM) zMaxM = z;
  }
  const pyramid: Float32Array[] = [];
  let below: Float32Array = elevation;
  let belowWidth = width;
  let belowHeight = height;
  while (belowWidth > 1 || belowHeight > 1) {
    const levelWidth = Math.ceil(belowWidth / 2);
    const levelHeight = Math.ceil(belowHeight / 2);
    const level = allocate(levelWidth * levelHeight);
    for (let r = 0; r < levelHeight; r++) {
      const r0 = 2 * r;
      const r1 = Math.min(r0 + 1, belowHeight - 1);
      for (let c = 0; c < levelWidth; c++) {
        const c0 = 2 * c;
        const c1 = Math.min(c0 + 1, belowWidth - 1);
        // NaN compares false, so nodata never wins; a block of nodata only stays −∞
        let m = -Infinity;
        const a = below[r0 * belowWidth + c0]!;
        const b = below[r0 * belowWidth + c1]!;
        const e = below[r1 * belowWidth + c0]!;
        const f = below[r1 * belowWidth + c1]!;
        if (a > m) m = a;
        if (b > m) m = b;
        if (e > m) m = e;
        if (f > m) m = f;
        level[r * levelWidth + c] = m;
      }
    }
    pyramid.push(level);
    below = level;
    belowWidth = levelWidth;
    belowHeight = levelHeight;
  }
  return { width, height, elevation, cellSizeX, cellSizeY, zMaxM, pyramid };
}

/** Rows grouped into bands of similar cell size (`cellSizeBands`). */
export interface CellSizeBands {
  /** Band of each row. */
  readonly bandOfRow: Int32Array;
  /** First row of each band: the row whose cell size the band's rows take. */
  readonly firstRow: Int32Array;
}

const bandCache = new WeakMap<TerrainModel, Map<number, CellSizeBands>>();

/**
 * The rows of `model` in bands, from row 0 down: a band ends where a row's cell size (either side) differs from
 * that of the band's first row by more than `tolerance` (relative). Computations that take one cell size for
 * several rows take the band's first row's, so a row's numbers do not depend on the rows computed with it (on a
 * projected grid every row is in band 0). Computed once per model and tolerance.
 */
export function cellSizeBands(model: TerrainModel, tolerance: number): CellSizeBands {
  let byTolerance = bandCache.get(model);
  if (!byTolerance) bandCache.set(model, (byTolerance = new Map()));
  let bands = byTolerance.get(tolerance);
  if (!bands) {
    const { cellSizeX, cellSizeY } = model;
    const close = (a: number, b: number) => Math.abs(a / b - 1) <= tolerance;
    const bandOfRow = new Int32Array(model.height);
    const firstRow: number[] = [];
    for (let row = 0; row < model.height; row++) {
      const first = firstRow.at(-1);
      if (first === undefined || !close(cellSizeX[row]!, cellSizeX[first]!) || !close(cellSizeY[row]!, cellSizeY[first]!)) firstRow.push(row);
      bandOfRow[row] = firstRow.length - 1;
    }
    bands = { bandOfRow, firstRow: Int32Array.from(firstRow) };
    byTolerance.set(tolerance, bands);
  }
  return bands;
}

/** Copies the elevations of `block` into `out`, row-major, (block width) cells a row. */
export function copyElevations(model: TerrainModel, block: CellBlock, out: Float32Array | Float64Array): void {
  const width = block.colEnd - block.colStart;
  for (let row = block.rowStart; row < block.rowEnd; row++) {
    const from = row * model.width + block.colStart;
    out.set(model.elevation.subarray(from, from + width), (row - block.rowStart) * width);
  }
}
