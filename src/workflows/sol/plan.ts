/**
 * How a DEM is cut into work: sun tiles (blocks of cells sharing one sun geometry) and the ray templates
 * of the horizon computation for each band of rows.
 */
import { nearSectors, nearStepCandidates, rayTemplates, type RowRays } from '../../science/solar/horizon.js';
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
  nearDirections: number,
  nearSteps: number,
): (row: number) => RowRays {
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
  const cache = new Map<number, RowRays>();
  return (row: number) => {
    const band = bandOfRow[row]!;
    let rays = cache.get(band);
    if (!rays) {
      const { dx, dy } = bandSizes[band]!;
      rays = {
        rays: rayTemplates(width, height, dx, dy, directions, 1, nearSteps + 1),
        nearSectors: nearSteps > 0 ? nearSectors(dx, dy, nearDirections, nearSteps) : null,
        nearCandidates: nearSteps > 0 ? nearStepCandidates(dx, dy, nearDirections, nearSteps) : null,
        cellSizeXM: dx,
        cellSizeYM: dy,
      };
      cache.set(band, rays);
    }
    return rays;
  };
}
