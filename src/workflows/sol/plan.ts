/** How a DEM is cut into work: sun tiles (blocks of cells sharing one sun geometry). */
import type { CellBlock, TileGeometry } from '../../science/solar/dailyKernel.js';

/** A block of cells whose sun is computed at the block centre. */
export interface SunTile extends CellBlock, TileGeometry {}

/** Largest latitude span of a sun tile [deg]: the altitude error it causes is below 5e-5 rad. */
const MAX_TILE_SPAN_DEG = 0.005;
const MAX_TILE_CELLS = 64;
const MIN_TILE_CELLS = 4;

/** Cell size of the grid rows: one east-west size per row and the north-south size [m]. */
export interface RowCellSizes {
  readonly dx: Float64Array;
  readonly dy: Float64Array;
}

/** Side of a sun tile in cells, for cells of `cellSizeM` metres. */
export function sunTileSize(cellSizeM: number): number {
  const cellDeg = cellSizeM / 111_320;
  return Math.max(MIN_TILE_CELLS, Math.min(MAX_TILE_CELLS, Math.floor(MAX_TILE_SPAN_DEG / cellDeg)));
}

/**
 * Sun tiles covering the grid, skipping tiles without valid cells.
 * @param position latitude [rad] and convergence [rad] at a fractional pixel position (col, row)
 */
export function planSunTiles(
  width: number,
  height: number,
  sizes: RowCellSizes,
  valid: Uint8Array,
  pressureRatio: Float64Array,
  position: (col: number, row: number) => { latitudeRad: number; convergenceRad: number },
): SunTile[] {
  const midRow = Math.floor(height / 2);
  const size = sunTileSize(Math.min(sizes.dx[midRow]!, sizes.dy[midRow]!));
  const tiles: SunTile[] = [];
  for (let rowStart = 0; rowStart < height; rowStart += size) {
    const rowEnd = Math.min(height, rowStart + size);
    for (let colStart = 0; colStart < width; colStart += size) {
      const colEnd = Math.min(width, colStart + size);
      let pzMin = Infinity;
      let pzMax = -Infinity;
      for (let r = rowStart; r < rowEnd; r++) {
        for (let c = colStart; c < colEnd; c++) {
          if (valid[r * width + c] !== 1) continue;
          pzMin = Math.min(pzMin, pressureRatio[r * width + c]!);
          pzMax = Math.max(pzMax, pressureRatio[r * width + c]!);
        }
      }
      if (pzMin === Infinity) continue; // no valid cell
      const midTileRow = Math.floor((rowStart + rowEnd) / 2);
      tiles.push({
        rowStart,
        rowEnd,
        colStart,
        colEnd,
        ...position((colStart + colEnd) / 2, (rowStart + rowEnd) / 2),
        cellSizeXM: sizes.dx[midTileRow]!,
        cellSizeYM: sizes.dy[midTileRow]!,
        pressureRatioCentre: (pzMin + pzMax) / 2,
        pressureRatioHalfRange: (pzMax - pzMin) / 2,
      });
    }
  }
  return tiles;
}
