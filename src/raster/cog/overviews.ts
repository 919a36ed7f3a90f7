/**
 * Internal overviews of the Cloud Optimized GeoTIFFs: a pyramid of levels, each half the size of the one
 * before (rounded up), built from the full-resolution rows as they arrive, top to bottom, so only one band
 * of tile rows per level is held at a time.
 *
 * Resampling is the NaN-aware average: an overview cell is the mean of the valid (non-NaN) cells among the
 * 2 × 2 cells it covers (fewer on the last row/column of an odd size), NaN when none is valid — GDAL's
 * AVERAGE resampling with NaN nodata. The products are continuous fields (irradiation, hours, EEMT), for
 * which the mean keeps a level's sums and means close to the full map's, and nodata never spreads into
 * valid cells nor valid cells vanish at the edge of nodata.
 */
import type { RasterTiling } from '../rasterTiling.js';
import { StatisticsAccumulator, type BandStatistics } from '../geotiff/statistics.js';

/** Compresses one tile of tileWidth × tileHeight values (NaN outside the raster); the array is reused after the call. */
export type TileEncoder = (tile: Float32Array) => Uint8Array;

/** Overviews are made when either side of the raster is at least this many cells. */
const OVERVIEW_MIN_SIDE = 512;

/**
 * The tilings of the overview levels of a raster with `tiling` (same tile size), largest first: none when
 * both sides are below OVERVIEW_MIN_SIDE, else halving until a level fits in one tile (as GDAL's COG driver).
 */
export function overviewTilings(tiling: RasterTiling): RasterTiling[] {
  const levels: RasterTiling[] = [];
  if (!hasOverviewLevels(tiling)) return levels;
  let { width, height } = tiling;
  const { tileWidth, tileHeight } = tiling;
  while (width > tileWidth || height > tileHeight) {
    width = Math.ceil(width / 2);
    height = Math.ceil(height / 2);
    const across = Math.ceil(width / tileWidth);
    const down = Math.ceil(height / tileHeight);
    levels.push({ width, height, tileWidth, tileHeight, across, down, count: across * down });
  }
  return levels;
}

/** Whether a raster of `tiling` gets overview levels (`overviewTilings`). */
export function hasOverviewLevels(tiling: Pick<RasterTiling, 'width' | 'height' | 'tileWidth' | 'tileHeight'>): boolean {
  return Math.max(tiling.width, tiling.height) >= OVERVIEW_MIN_SIDE && (tiling.width > tiling.tileWidth || tiling.height > tiling.tileHeight);
}

/**
 * Mean of the valid cells of rows `upper` and `lower` (null for the last row of an odd height) pairwise
 * over columns, into `out` (ceil(width / 2) values); NaN where no cell is valid.
 */
export function averageRowPair(upper: Float32Array, lower: Float32Array | null, width: number, out: Float32Array): void {
  const half = Math.ceil(width / 2);
  for (let i = 0; i < half; i++) {
    const c = 2 * i;
    let sum = 0;
    let n = 0;
    const a = upper[c]!;
    if (a === a) (sum += a), n++;
    if (c + 1 < width) {
      const b = upper[c + 1]!;
      if (b === b) (sum += b), n++;
    }
    if (lower !== null) {
      const d = lower[c]!;
      if (d === d) (sum += d), n++;
      if (c + 1 < width) {
        const e = lower[c + 1]!;
        if (e === e) (sum += e), n++;
      }
    }
    out[i] = n === 0 ? NaN : sum / n;
  }
}

/** One overview level being built: the band of rows of its current tile row, and the row awaiting a pair. */
interface LevelState {
  readonly tiling: RasterTiling;
  /** tileHeight rows of width cells (the current tile row). */
  readonly band: Float32Array;
  rowsInBand: number;
  /** Tile rows finished so far. */
  tileRow: number;
  /** Compressed tiles, row-major. */
  readonly tiles: Uint8Array[];
  /** The row of this level waiting for its pair (to make a row of the next level; it is `heldRow`), or null. */
  held: Float32Array | null;
  /** Where the held row is copied (allocated once: a copy per row pair cost as much as the averaging). */
  readonly heldRow: Float32Array;
}

/**
 * Builds every overview level of a raster from its full-resolution rows, top to bottom (`pushRow`), and
 * encodes each level's tiles as soon as a tile row of it is complete. Memory: per level one band of tile
 * rows, one held row, and the compressed tiles.
 */
export class OverviewPyramid {
  private readonly levels: LevelState[];
  private heldFull: Float32Array | null = null;
  private readonly heldFullRow: Float32Array;
  private rowsPushed = 0;
  private readonly tile: Float32Array;
  /** The statistics of the full-resolution rows (`pushAveragedRows`' callers add theirs). */
  readonly stats = new StatisticsAccumulator();

  constructor(
    private readonly full: RasterTiling,
    private readonly encodeTile: TileEncoder,
  ) {
    this.levels = overviewTilings(full).map((tiling) => ({
      tiling,
      band: new Float32Array(tiling.width * tiling.tileHeight),
      rowsInBand: 0,
      tileRow: 0,
      tiles: [],
      held: null,
      heldRow: new Float32Array(tiling.width),
    }));
    this.heldFullRow = new Float32Array(this.levels.length > 0 ? full.width : 0);
    this.tile = new Float32Array(full.tileWidth * full.tileHeight);
  }

  /** True when the raster gets overviews at all. */
  get hasLevels(): boolean {
    return this.levels.length > 0;
  }

  /** Adds the next full-resolution row (width values; the array may be reused after the call). */
  pushRow(row: Float32Array): void {
    if (this.levels.length === 0) return;
    if (this.rowsPushed >= this.full.height) throw new RangeError(`all ${this.full.height} rows were already pushed`);
    this.rowsPushed++;
    this.stats.add(row, this.full.width);
    if (this.heldFull === null) {
      this.heldFullRow.set(row.subarray(0, this.full.width));
      this.heldFull = this.heldFullRow;
      if (this.rowsPushed === this.full.height) this.pairInto(0, this.heldFull, null, this.full.width);
      return;
    }
    this.pairInto(0, this.heldFull, row, this.full.width);
    this.heldFull = null;
  }

  /**
   * Adds the next full-resolution rows already averaged in pairs elsewhere (bandDecoderWasm.ts, as `pushRow`
   * pairs them): `rows` rows of the first level at `averaged` (ceil(width / 2) values each), made of `fullRows`
   * full-resolution rows (the last row of an odd count alone: only at the raster's last row). The caller adds
   * the full rows' statistics to `stats`. Follows an even number of rows pushed either way.
   */
  pushAveragedRows(averaged: Float32Array, rows: number, fullRows: number): void {
    if (this.levels.length === 0) return;
    if (this.heldFull !== null) throw new Error('averaged rows follow an odd number of full rows');
    if (fullRows !== 2 * rows && !(fullRows === 2 * rows - 1 && this.rowsPushed + fullRows === this.full.height)) throw new RangeError(`${rows} averaged rows cannot hold ${fullRows} full rows here`);
    if (this.rowsPushed + fullRows > this.full.height) throw new RangeError(`only ${this.full.height - this.rowsPushed} of the ${this.full.height} rows are left`);
    this.rowsPushed += fullRows;
    const width = this.levels[0]!.tiling.width;
    for (let r = 0; r < rows; r++) this.levelRow(0, (row) => row.set(averaged.subarray(r * width, (r + 1) * width)));
  }

  /**
   * Statistics of the full-resolution cells pushed (all of them once `finish` may be called); null when the
   * raster has no overviews (its rows are not pushed) or no valid cell.
   */
  statistics(): BandStatistics | null {
    return this.levels.length === 0 ? null : this.stats.result();
  }

  /** The compressed tiles of every level (largest level first), once every full-resolution row was pushed. */
  finish(): { tiling: RasterTiling; tiles: Uint8Array[] }[] {
    if (this.levels.length > 0 && this.rowsPushed !== this.full.height) {
      throw new Error(`overviews need all ${this.full.height} rows, got ${this.rowsPushed}`);
    }
    return this.levels.map(({ tiling, tiles }) => ({ tiling, tiles }));
  }

  /** Averages a row pair of the level above `k` into the next row of level k. */
  private pairInto(k: number, upper: Float32Array, lower: Float32Array | null, upperWidth: number): void {
    this.levelRow(k, (row) => averageRowPair(upper, lower, upperWidth, row));
  }

  /** The next row of level k, made by `make` in place, and what follows from it (the next level's rows, tiles). */
  private levelRow(k: number, make: (row: Float32Array) => void): void {
    const level = this.levels[k]!;
    const { width, height, tileHeight } = level.tiling;
    const row = level.band.subarray(level.rowsInBand * width, (level.rowsInBand + 1) * width);
    make(row);
    level.rowsInBand++;
    const rowIndex = level.tileRow * tileHeight + level.rowsInBand; // rows of this level done
    const last = rowIndex === height;
    if (k + 1 < this.levels.length) {
      if (level.held === null) {
        level.heldRow.set(row);
        level.held = level.heldRow;
        if (last) this.pairInto(k + 1, level.held, null, width);
      } else {
        this.pairInto(k + 1, level.held, row, width);
        level.held = null;
      }
    }
    if (level.rowsInBand === tileHeight || last) this.encodeBand(level);
  }

  private encodeBand(level: LevelState): void {
    const { width, tileWidth, tileHeight, across } = level.tiling;
    const rows = level.rowsInBand;
    const tile = this.tile;
    for (let tx = 0; tx < across; tx++) {
      const col0 = tx * tileWidth;
      const cols = Math.min(tileWidth, width - col0);
      if (cols < tileWidth || rows < tileHeight) tile.fill(NaN);
      for (let r = 0; r < rows; r++) tile.set(level.band.subarray(r * width + col0, r * width + col0 + cols), r * tileWidth);
      level.tiles.push(this.encodeTile(tile));
    }
    level.rowsInBand = 0;
    level.tileRow++;
  }
}
