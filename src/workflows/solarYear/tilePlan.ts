/**
 * How a DEM is cut into work.
 *
 * - **Compute tiles** are the tiles of the output GeoTIFFs: a worker takes one, computes its horizons once
 *   and then every requested day, and hands over each product's tile compressed. Their size is a
 *   multiple of 16 (TIFF), at most 384 (large DEMs: fewer far-field sweeps per cell), smaller on small DEMs
 *   so that there are enough tiles to keep the threads busy.
 * - **Sun tiles** are blocks of cells that share one sun geometry (centre latitude and meridian
 *   convergence, p/p₀ range). They lie on a grid of their own over the whole DEM, independent of the
 *   compute tiles: a compute tile integrates the parts of the sun tiles it overlaps with the geometry of
 *   the whole sun tile, so a cell's sun does not depend on the compute tile size. (Its far field may, by a
 *   fraction of a degree: the distant terrain is simplified from a distance counted from the compute tile,
 *   sweptHorizon.ts.)
 */
import { pressureRatio } from '../../science/solar/clearSky.js';
import { SIMPLIFIED_FROM_CELLS } from '../../science/solar/sweptHorizon.js';
import { nearFieldModeOfDays, sunSectors, type CellBlock, type TileGeometry } from '../../science/solar/dailyKernel.js';
import { sectorMasks, type HorizonLayout, type NearFieldMode } from '../../science/solar/tileHorizons.js';
import type { RasterTiling } from '../../raster/geotiff/writeGeoTiff.js';

/** A block of cells whose sun is computed at the block centre. */
export interface SunTile extends CellBlock, TileGeometry {}

/** The piece of sun tile `sun` (an index into the plan's sun tiles) inside a compute tile. */
export interface SunPart extends CellBlock {
  readonly sun: number;
}

/** A compute tile: writer tile `index` of the products, its cells, and the sun-tile pieces covering them. */
export interface ComputeTile extends CellBlock {
  readonly index: number;
  readonly validCells: number;
  readonly parts: readonly SunPart[];
}

/** Largest latitude span of a sun tile [deg]: the altitude error it causes is below 5e-5 rad. */
const MAX_TILE_SPAN_DEG = 0.005;
/** Sun tile sides in cells, largest first: each divides the compute tile sizes chosen by default. */
const SUN_TILE_SIZES = [64, 48, 32, 16, 8, 4] as const;

/** Compute tiles: at most this side. */
const MAX_COMPUTE_TILE_SIZE = 384;
/**
 * By default at least this many compute tiles when the DEM allows and more than one thread shares them (or the
 * tiles are dealt to slices of a split job), so that the threads stay busy to the end.
 */
export const MIN_SHARED_COMPUTE_TILES = 8;
/** Work of a compute tile that does not grow with its area, in cells per cell of its side (at least). */
const MIN_TILE_OVERHEAD_CELLS = 16;
/**
 * Largest horizon arrays of a default compute tile, per thread [bytes]: 384 × 384 with up to 192 far
 * directions (189 MB), 320 × 320 with 256 (171 MB; 256 × 256 took 109 MB when tiles were at most 256).
 */
const MAX_TILE_HORIZON_BYTES = 192 * 1024 ** 2;
/**
 * What a padding cell of an edge tile (NaN, outside the DEM) costs against a cell of the DEM in
 * `defaultComputeTileSize`: it has no horizons and no days to integrate, but its tile is swept, encoded and
 * written whole. Measured with the `eemt sol` command, 2 threads, tile sides side by side (2026-11-29):
 * mcn_10m's year 4.63 s with tiles of 96 (two fifths of their area padding) against 4.90 s with 48 (5 rounds,
 * faster in 4); a 1 m DEM of 400 × 400 cells, days 1–31, 3.86 s with 192 against 4.17 s with 128 (3 rounds,
 * faster in 2); while on north62_20m's three low-sun days (340, 350, 360) tiles of 128 (slivers of 14 cells at
 * the edges, half their area padding) took 0.587 s against 0.568 s with 96 (7 rounds, faster in 1). Counted
 * whole (weight 1) the model picked 48 and 128 on the first two; uncounted (0), 128 on the last.
 */
const PADDING_WEIGHT = 0.5;
/** Largest compute tile accepted from the caller (per-tile working set grows with its square). */
export const MAX_REQUESTED_TILE_SIZE = 512;

/** Cell size of the grid rows: one east-west size per row and the north-south size [m]. */
export interface RowCellSizes {
  readonly dx: Float64Array;
  readonly dy: Float64Array;
}

/** Side of a sun tile in cells, for cells of `cellSizeM` metres: the largest allowed size within the span. */
export function sunTileSize(cellSizeM: number): number {
  const span = MAX_TILE_SPAN_DEG / (cellSizeM / 111_320);
  return SUN_TILE_SIZES.find((size) => size <= span) ?? SUN_TILE_SIZES.at(-1)!;
}

/**
 * Default compute tile side for a width × height DEM whose sun tiles are `sunSize` cells: among the
 * multiples of lcm(16, sunSize) up to 384 that give at least `minTiles` tiles (MIN_SHARED_COMPUTE_TILES when
 * threads share them: they stay busy to the end; 1 for one thread, which gains nothing from more), the one with
 * the least work: the DEM's cells plus the NaN padding of the edge tiles at PADDING_WEIGHT, with a per-tile
 * overhead of `tileOverheadCells` per cell of side: (cells + weight × padding) × (1 + overhead / side).
 * Multiples of the sun tile size keep every sun tile inside one compute tile (sun samples are computed once
 * per sun tile and day).
 * `horizonBytesPerCell` (the layout's, 0 without terrain shadows) keeps a tile's horizons within
 * MAX_TILE_HORIZON_BYTES.
 */
export function defaultComputeTileSize(width: number, height: number, sunSize: number, horizonBytesPerCell = 0, minTiles = MIN_SHARED_COMPUTE_TILES): number {
  const unit = lcm(16, sunSize);
  const overhead = tileOverheadCells(width, height);
  let best = unit;
  let bestCost = Infinity;
  for (let size = unit; size <= MAX_COMPUTE_TILE_SIZE; size += unit) {
    if (size > unit && size * size * horizonBytesPerCell > MAX_TILE_HORIZON_BYTES) break;
    const across = Math.ceil(width / size);
    const down = Math.ceil(height / size);
    if (across * down < minTiles) continue;
    const padding = across * down * size * size - width * height;
    const cost = (width * height + PADDING_WEIGHT * padding) * (1 + overhead / size);
    if (cost <= bestCost) {
      best = size;
      bestCost = cost;
    }
  }
  return best;
}

/**
 * The work of a compute tile beyond its cells, in cells per cell of its side: mostly the far-field sweep's
 * approach, which every line of a tile pushes before reaching it — up to SIMPLIFIED_FROM_CELLS at full
 * resolution and then the simplified spans (sweptHorizon.ts), at most the way to the DEM's edge, taken as a
 * quarter of the DEM's larger side. Measured on the 0.22 m DEM (day 172, one 768 × 768 window, one thread):
 * horizons 47.3, 36.8 and 29.9 s per million cells with tiles of 192, 256 and 384 cells, which
 * c · (1 + 535 / side) fits within 5 %.
 */
function tileOverheadCells(width: number, height: number): number {
  return Math.max(MIN_TILE_OVERHEAD_CELLS, Math.min(SIMPLIFIED_FROM_CELLS, Math.max(width, height) / 4));
}

/** Checks a requested compute tile size: a multiple of 16 in 16–512. */
export function checkTileSize(size: number): number {
  if (!Number.isInteger(size) || size < 16 || size > MAX_REQUESTED_TILE_SIZE || size % 16 !== 0) {
    throw new RangeError(`tile size must be a multiple of 16 in 16–${MAX_REQUESTED_TILE_SIZE}, got ${size}`);
  }
  return size;
}

/**
 * Sun tiles on the global grid of `size`-cell blocks, in row-major order; null for blocks without a valid
 * cell (NaN elevation = nodata).
 * @param position latitude [rad] and convergence [rad] at a fractional pixel position (col, row)
 */
export function planSunTiles(
  width: number,
  height: number,
  size: number,
  sizes: RowCellSizes,
  elevation: ArrayLike<number>,
  position: (col: number, row: number) => { latitudeRad: number; convergenceRad: number },
): (SunTile | null)[] {
  const tiles: (SunTile | null)[] = [];
  for (let rowStart = 0; rowStart < height; rowStart += size) {
    const rowEnd = Math.min(height, rowStart + size);
    for (let colStart = 0; colStart < width; colStart += size) {
      const colEnd = Math.min(width, colStart + size);
      let zMin = Infinity;
      let zMax = -Infinity;
      for (let r = rowStart; r < rowEnd; r++) {
        for (let c = colStart; c < colEnd; c++) {
          const z = elevation[r * width + c]!;
          if (z < zMin) zMin = z;
          if (z > zMax) zMax = z;
        }
      }
      if (zMin === Infinity) {
        tiles.push(null); // no valid cell
        continue;
      }
      // p/p₀ falls with elevation: its range comes from the highest and lowest cell
      const pzMin = pressureRatio(zMax);
      const pzMax = pressureRatio(zMin);
      const midRow = Math.floor((rowStart + rowEnd) / 2);
      tiles.push({
        rowStart,
        rowEnd,
        colStart,
        colEnd,
        ...position((colStart + colEnd) / 2, (rowStart + rowEnd) / 2),
        cellSizeXM: sizes.dx[midRow]!,
        cellSizeYM: sizes.dy[midRow]!,
        pressureRatioCentre: (pzMin + pzMax) / 2,
        pressureRatioHalfRange: (pzMax - pzMin) / 2,
      });
    }
  }
  return tiles;
}

/**
 * The compute tiles of `tiling` with their sun-tile parts (sun tiles of `sunSize` cells, `sunTiles` as
 * made by planSunTiles), largest amount of work first.
 */
export function planComputeTiles(tiling: RasterTiling, sunSize: number, sunTiles: readonly (SunTile | null)[], elevation: ArrayLike<number>): ComputeTile[] {
  const { width, height, tileWidth, tileHeight, across } = tiling;
  const sunAcross = Math.ceil(width / sunSize);
  const tiles: ComputeTile[] = [];
  for (let index = 0; index < tiling.count; index++) {
    const rowStart = Math.floor(index / across) * tileHeight;
    const colStart = (index % across) * tileWidth;
    const rowEnd = Math.min(height, rowStart + tileHeight);
    const colEnd = Math.min(width, colStart + tileWidth);
    const parts: SunPart[] = [];
    for (let sy = Math.floor(rowStart / sunSize); sy * sunSize < rowEnd; sy++) {
      for (let sx = Math.floor(colStart / sunSize); sx * sunSize < colEnd; sx++) {
        const sun = sy * sunAcross + sx;
        const tile = sunTiles[sun];
        if (!tile) continue;
        parts.push({
          sun,
          rowStart: Math.max(rowStart, tile.rowStart),
          rowEnd: Math.min(rowEnd, tile.rowEnd),
          colStart: Math.max(colStart, tile.colStart),
          colEnd: Math.min(colEnd, tile.colEnd),
        });
      }
    }
    let validCells = 0;
    for (let r = rowStart; r < rowEnd; r++) {
      for (let c = colStart; c < colEnd; c++) if (!Number.isNaN(elevation[r * width + c]!)) validCells++;
    }
    tiles.push({ index, rowStart, rowEnd, colStart, colEnd, validCells, parts });
  }
  // largest first, so that the last tiles to finish are small (threads end together)
  return tiles.sort((a, b) => b.validCells - a.validCells || a.index - b.index);
}

function lcm(a: number, b: number): number {
  const gcd = (x: number, y: number): number => (y === 0 ? x : gcd(y, x % y));
  return (a / gcd(a, b)) * b;
}

/** Sun tiles spread over the DEM on which `runNearField` judges a run. */
const RUN_NEAR_FIELD_TILES = 9;

/**
 * The near field of a whole run: 'traced' when its days are so few that a tile would trace its near field at the
 * samples rather than bound it (`nearFieldMode`), judged on RUN_NEAR_FIELD_TILES sun tiles spread over the DEM (the
 * sample count of the one whose sun is up longest, the sectors of all). Every tile of such a run traces, and its
 * horizons keep no near-field bounds per cell (`allocateTileHorizons`), so its tiles may be larger. 'bounded':
 * each tile decides. Either gives the same outputs on projected grids (the bounds only spare traces).
 */
export function runNearField(layout: HorizonLayout, days: readonly number[], sunTiles: readonly (SunTile | null)[], stepMinutes: number): NearFieldMode {
  if (layout.nearSteps === 0) return 'bounded';
  const present = sunTiles.filter((tile): tile is SunTile => tile !== null);
  if (present.length === 0) return 'bounded';
  const stride = Math.max(1, Math.floor((present.length - 1) / (RUN_NEAR_FIELD_TILES - 1)));
  const spread = present.filter((_, i) => i % stride === 0 || i === present.length - 1);
  // a year has far more samples than any layout's bounds cost: the first tile's count says so (the count judged is
  // the most over the tiles), without counting the others' or finding the sectors
  if (nearFieldModeOfDays(layout, null, days, spread.slice(0, 1), stepMinutes) === 'bounded') return 'bounded';
  return nearFieldModeOfDays(layout, sectorMasks(layout, sunSectors(days, spread, stepMinutes, layout.directions)), days, spread, stepMinutes);
}
