/**
 * How a DEM is cut into work: sun tiles (blocks of cells sharing one sun geometry) and the ray templates
 * of the horizon computation for each band of rows.
 */
import { rayTemplates, type RayTemplate } from '../../science/solar/horizon.js';
import type { CellBlock } from '../../science/solar/dailyKernel.js';

/** A block of cells whose sun is computed at the block centre. */
export interface SunTile extends CellBlock {
  readonly latitudeRad: number;
  /** Grid bearing of true north at the tile centre [rad], clockwise from grid north. */
  readonly convergenceRad: number;
}

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
  cellSizeM: number,
  valid: Uint8Array,
  position: (col: number, row: number) => { latitudeRad: number; convergenceRad: number },
): SunTile[] {
  const size = sunTileSize(cellSizeM);
  const tiles: SunTile[] = [];
  for (let rowStart = 0; rowStart < height; rowStart += size) {
    const rowEnd = Math.min(height, rowStart + size);
    for (let colStart = 0; colStart < width; colStart += size) {
      const colEnd = Math.min(width, colStart + size);
      if (!blockHasValidCell(valid, width, rowStart, rowEnd, colStart, colEnd)) continue;
      const centre = position((colStart + colEnd) / 2, (rowStart + rowEnd) / 2);
      tiles.push({ rowStart, rowEnd, colStart, colEnd, ...centre });
    }
  }
  return tiles;
}

function blockHasValidCell(valid: Uint8Array, width: number, r0: number, r1: number, c0: number, c1: number): boolean {
  for (let r = r0; r < r1; r++) for (let c = c0; c < c1; c++) if (valid[r * width + c] === 1) return true;
  return false;
}

/** Relative change of the east-west cell size tolerated within one band of rows sharing ray templates. */
const BAND_TOLERANCE = 5e-4;

/**
 * Ray templates by row: projected grids share one set; geographic grids, whose east-west cell size
 * shrinks with latitude, get one set per band of rows (built lazily and cached).
 */
export function rayTemplatesByRow(
  width: number,
  height: number,
  sizes: RowCellSizes,
  directions: number,
): (row: number) => readonly RayTemplate[] {
  const bandOfRow = new Int32Array(height);
  const bandSizes: { dx: number; dy: number }[] = [];
  for (let row = 0; row < height; row++) {
    const current = bandSizes.at(-1);
    const dx = sizes.dx[row]!;
    const dy = sizes.dy[row]!;
    if (!current || Math.abs(dx / current.dx - 1) > BAND_TOLERANCE || Math.abs(dy / current.dy - 1) > BAND_TOLERANCE) {
      bandSizes.push({ dx, dy });
    }
    bandOfRow[row] = bandSizes.length - 1;
  }
  const cache = new Map<number, readonly RayTemplate[]>();
  return (row: number) => {
    const band = bandOfRow[row]!;
    let rays = cache.get(band);
    if (!rays) {
      const { dx, dy } = bandSizes[band]!;
      rays = rayTemplates(width, height, dx, dy, directions);
      cache.set(band, rays);
    }
    return rays;
  };
}
