/**
 * Writing Float32 GeoTIFFs that GDAL reads back exactly, as Cloud Optimized GeoTIFFs (`cogLayout.ts`,
 * internal overviews from `overviews.ts` when a side is ≥ 512 cells): tiled, DEFLATE with the floating-point predictor
 * (TIFF Predictor 3), the source grid's georeferencing and GeoKeys, GDAL_NODATA "nan", and optional
 * GDAL_METADATA: a band description, dataset metadata items that `gdalinfo` lists, the band's unit type (the
 * `UNITS` item again, where GDAL, rasterio and rioxarray look for a unit) and its statistics.
 *
 * The DEFLATE setting was chosen by measurement (bench/encoding.mjs: real daily global and sunshine-hours
 * maps of mcn_10m, days 1, 80, 172 and 355, cut into the writer's tiles; one thread on the shared 2-core
 * machine, best of 5; MB/s of raw bytes in, size relative to the raw bytes):
 *
 *   setting                      global: MB/s   size      hours: MB/s   size
 *   zlib RLE, level 1 (default)          136    0.724            236    0.216
 *   Huffman only                         114    0.780            145    0.294
 *   default strategy, level 1             60    0.723            169    0.222
 *   level 2                               68    0.717            169    0.218
 *   level 6                               46    0.706             67    0.203
 *   level 9                                8    0.702              9    0.200
 *
 * The predictor leaves runs of equal bytes in the sign/exponent planes and near-random low mantissa
 * planes; RLE codes the former as well as a full match search does and skips the futile search in the
 * latter: 2.3× the speed of level 1 at the same size, 3× level 6 for files 2.5 % larger. The `sol` workers
 * make the same streams in WebAssembly (tileEncoderWasm.ts): 2.4–2.8× zlib's RLE on the same tiles, the same
 * sizes (269 and 457 MB/s on the tiles above, 229 and 332 on mcn_10m's 48 × 48 pipeline tiles, against 100
 * and 192, 82 and 137 for zlib).
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { constants as zlibConstants, deflateSync } from 'node:zlib';
import { encodeFloatPredictorRows } from '../tiff/floatPredictor.js';
import { WasmTileEncoder, wasmEncodes } from '../tiff/tileEncoderWasm.js';
import { encodeGeoKeyDirectory, GEO_ASCII_PARAMS_TAG, GEO_DOUBLE_PARAMS_TAG, GEO_KEY_DIRECTORY_TAG } from './geoKeys.js';
import { assembleCog } from '../cog/cogLayout.js';
import { tagsFromGeoTransform } from '../geo/georeference.js';
import { OverviewPyramid } from '../cog/overviews.js';
import { bandStatistics, mergeStatistics, NO_CELLS, partialStatistics, type BandStatistics, type PartialStatistics } from './statistics.js';
import type { RasterTiling } from '../rasterTiling.js';
import { TagType, type TiffTag } from '../tiff/tiffLayout.js';
import type { GridSpec } from '../types.js';

export interface Float32GeoTiffOptions {
  /**
   * Tile width and height in pixels, a multiple of 16 (default 256). A raster narrower or shorter than a
   * tile gets tiles shrunk to its width/height rounded up to 16, so small rasters are not padded to 256.
   */
  readonly tileSize?: number;
  /** zlib level 0–9 (default 1; 0 stores uncompressed). With the RLE strategy all levels ≥ 1 give the same output. */
  readonly level?: number;
  /**
   * zlib strategy: 'rle' (default) finds only runs, which is what the predictor leaves in the sign/exponent
   * planes, and skips the futile match search in the noisy low mantissa planes; 'default' searches
   * matches (slower, slightly smaller files).
   */
  readonly zlibStrategy?: 'rle' | 'default';
  /** Band description (gdalinfo: "Description = ..."). */
  readonly description?: string;
  /** Band statistics written as GDAL's STATISTICS_* band metadata (the writers gather them for every map). */
  readonly statistics?: BandStatistics | null;
  /**
   * Dataset metadata items (gdalinfo: "Metadata: KEY=value"). `UNITS` is also written as the band's unit type
   * (gdalinfo: "Unit Type: …"; rasterio's `units`, rioxarray's `units` attribute).
   */
  readonly metadata?: Readonly<Record<string, string>>;
  /** Write BigTIFF even when the file would fit in a classic TIFF (it is chosen automatically past 4 GB). */
  readonly bigTiff?: boolean;
}

export const DEFAULT_TILE_SIZE = 256;
const GT_RASTER_TYPE_KEY = 1025;
export const DEFAULT_DEFLATE_LEVEL = 1;

const enum Tag {
  NewSubfileType = 254,
  ImageWidth = 256,
  ImageLength = 257,
  BitsPerSample = 258,
  Compression = 259,
  Photometric = 262,
  SamplesPerPixel = 277,
  PlanarConfiguration = 284,
  Predictor = 317,
  TileWidth = 322,
  TileLength = 323,
  SampleFormat = 339,
  ModelPixelScale = 33550,
  ModelTiepoint = 33922,
  GdalMetadata = 42112,
  GdalNodata = 42113,
}

/**
 * Encodes `values` (row-major, row 0 north, NaN = nodata; length width × height) as a Float32 GeoTIFF on
 * `grid`. Synchronous, for use inside worker threads.
 */
export function encodeFloat32GeoTiff(grid: GridSpec, values: ArrayLike<number>, options: Float32GeoTiffOptions = {}): Buffer {
  const { width, height } = grid;
  if (values.length !== width * height) {
    throw new RangeError(`Expected ${width * height} values for a ${width}×${height} grid, got ${values.length}.`);
  }
  const tiling = rasterTiling(grid, options.tileSize);
  const compression = tileCompression(options);
  const { tiles, statistics: tileStatistics } = encodeTiles(values, tiling, compression);
  const pyramid = new OverviewPyramid(tiling, overviewTileEncoder(tiling, compression));
  if (pyramid.hasLevels) {
    const row = new Float32Array(width);
    for (let r = 0; r < height; r++) {
      for (let c = 0; c < width; c++) row[c] = values[r * width + c]!;
      pyramid.pushRow(row);
    }
  }
  const overviews = pyramid.finish().map((level) => ({ tags: overviewTags(level.tiling), blocks: level.tiles }));
  // a map without overviews gets its statistics from its values (the pyramid gathers those of the others)
  const statistics = pyramid.hasLevels ? pyramid.statistics() : bandStatistics(tileStatistics);
  const tags = float32GeoTiffTags(grid, tiling, { ...options, statistics });
  return assembleCog([{ tags, blocks: tiles }, ...overviews], options.bigTiff ?? false);
}

/** Compresses tiles of `tiling` with `compression`, reusing one scratch buffer. */
export function tileEncoder({ tileWidth, tileHeight }: RasterTiling, compression: TileCompression): (tile: Float32Array) => Buffer {
  const scratch = new Uint8Array(tileWidth * tileHeight * 4);
  return (tile) => encodeFloat32Tile(tile, tileWidth, tileHeight, compression, scratch);
}

/**
 * Compresses overview tiles with `compression`: in WebAssembly (tileEncoderWasm.ts) when it makes what zlib does
 * with those settings (the default), 2.4–2.8 times as fast — the overview tiles are a third of the raw bytes of a
 * map, and the COG assembly after a `sol` run spent most of its time compressing and decoding them — else as
 * `tileEncoder`. One WebAssembly encoder per thread and tile size (an encoding is synchronous and returns a copy).
 */
export function overviewTileEncoder(tiling: RasterTiling, compression: TileCompression): (tile: Float32Array) => Uint8Array {
  const wasm = wasmEncodes(compression) ? wasmTileEncoder(tiling.tileWidth, tiling.tileHeight) : null;
  return wasm ? (tile) => wasm.encode(tile) : tileEncoder(tiling, compression);
}

const wasmEncoders = new Map<string, WasmTileEncoder | null>();

/** The thread's WebAssembly encoder of tiles of this size, or null when the module cannot be loaded (not built). */
function wasmTileEncoder(tileWidth: number, tileHeight: number): WasmTileEncoder | null {
  const key = `${tileWidth}x${tileHeight}`;
  if (!wasmEncoders.has(key)) {
    let encoder: WasmTileEncoder | null = null;
    try {
      encoder = new WasmTileEncoder(tileWidth, tileHeight);
    } catch {
      encoder = null;
    }
    wasmEncoders.set(key, encoder);
  }
  return wasmEncoders.get(key)!;
}

/** Tags of an overview image (NewSubfileType 1, no georeferencing: it is the full image's). */
export function overviewTags(tiling: RasterTiling): TiffTag[] {
  return [
    { tag: Tag.NewSubfileType, type: TagType.LONG, values: [1] },
    ...imageTags(tiling),
  ];
}

/** How a raster is cut into the tiles of its GeoTIFF: row-major tiles of tileWidth × tileHeight cells. */
export type { RasterTiling } from '../rasterTiling.js';

/**
 * The tiling of a `grid` raster with tiles of `tileSize` (a multiple of 16, default 256), shrunk to the
 * raster's width/height rounded up to 16. Checks the grid (positive size, north-up).
 */
export function rasterTiling(grid: GridSpec, tileSize = DEFAULT_TILE_SIZE): RasterTiling {
  const { width, height } = grid;
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) {
    throw new RangeError(`Grid size must be positive integers, got ${width}×${height}.`);
  }
  if (!Number.isInteger(tileSize) || tileSize < 16 || tileSize % 16 !== 0) {
    throw new RangeError(`tileSize must be a positive multiple of 16, got ${tileSize}.`);
  }
  const gt = grid.geoTransform;
  if (gt[2] !== 0 || gt[4] !== 0 || !(gt[1] > 0) || !(gt[5] < 0)) {
    throw new RangeError(`Only north-up grids can be written, got geotransform ${gt.join(', ')}.`);
  }
  const tileWidth = Math.min(tileSize, roundUpTo16(width));
  const tileHeight = Math.min(tileSize, roundUpTo16(height));
  const across = Math.ceil(width / tileWidth);
  const down = Math.ceil(height / tileHeight);
  return { width, height, tileWidth, tileHeight, across, down, count: across * down };
}

/** zlib settings of the tiles, checked. */
export interface TileCompression {
  readonly level: number;
  readonly strategy: number;
}

export function tileCompression(options: Pick<Float32GeoTiffOptions, 'level' | 'zlibStrategy'> = {}): TileCompression {
  const level = options.level ?? DEFAULT_DEFLATE_LEVEL;
  if (!Number.isInteger(level) || level < 0 || level > 9) throw new RangeError(`level must be 0–9, got ${level}.`);
  const strategy = options.zlibStrategy === 'default' ? zlibConstants.Z_DEFAULT_STRATEGY : zlibConstants.Z_RLE;
  return { level, strategy };
}

/**
 * Compresses one tile: `tile` holds tileWidth × tileHeight Float32 values, row-major (cells outside the
 * raster NaN). Applies the floating-point predictor, then DEFLATE. `scratch` (4 × tile.length bytes) may be
 * passed to avoid an allocation per call.
 */
export function encodeFloat32Tile(tile: Float32Array, tileWidth: number, tileHeight: number, compression: TileCompression, scratch?: Uint8Array): Buffer {
  if (tile.length !== tileWidth * tileHeight) throw new RangeError(`a ${tileWidth}×${tileHeight} tile needs ${tileWidth * tileHeight} values, got ${tile.length}`);
  const predicted = scratch && scratch.length >= tile.byteLength ? scratch.subarray(0, tile.byteLength) : new Uint8Array(tile.byteLength);
  encodeFloatPredictorRows(new Uint32Array(tile.buffer, tile.byteOffset, tile.length), tileWidth, tileHeight, predicted);
  return deflateSync(predicted, compression);
}

/** Writes `encodeFloat32GeoTiff(...)` to `path` via `path.part` and a rename; creates parent folders. */
export async function writeFloat32GeoTiff(path: string, grid: GridSpec, values: ArrayLike<number>, options?: Float32GeoTiffOptions): Promise<void> {
  const bytes = encodeFloat32GeoTiff(grid, values, options);
  const part = `${path}.part`;
  await mkdir(dirname(path), { recursive: true });
  try {
    await writeFile(part, bytes);
    await rename(part, path);
  } catch (err) {
    await rm(part, { force: true });
    throw err;
  }
}

/** Synchronous `writeFloat32GeoTiff`. */
export function writeFloat32GeoTiffSync(path: string, grid: GridSpec, values: ArrayLike<number>, options?: Float32GeoTiffOptions): void {
  const bytes = encodeFloat32GeoTiff(grid, values, options);
  const part = `${path}.part`;
  mkdirSync(dirname(path), { recursive: true });
  try {
    writeFileSync(part, bytes);
    renameSync(part, path);
  } catch (err) {
    rmSync(part, { force: true });
    throw err;
  }
}

function roundUpTo16(n: number): number {
  return Math.ceil(n / 16) * 16;
}

/**
 * Compressed tiles in row-major tile order (edge tiles are padded with NaN), and the statistics of the Float32
 * values stored, merged tile by tile in that order (as a map written tile by tile gets them: geoTiffStreams.ts).
 */
function encodeTiles(values: ArrayLike<number>, tiling: RasterTiling, compression: TileCompression): { tiles: Buffer[]; statistics: PartialStatistics } {
  const { width, height, tileWidth, tileHeight } = tiling;
  const tile = new Float32Array(tileWidth * tileHeight);
  const scratch = new Uint8Array(tile.byteLength);
  const out: Buffer[] = [];
  let statistics = NO_CELLS;
  for (let ty = 0; ty < tiling.down; ty++) {
    for (let tx = 0; tx < tiling.across; tx++) {
      const col0 = tx * tileWidth;
      const row0 = ty * tileHeight;
      const cols = Math.min(tileWidth, width - col0);
      const rows = Math.min(tileHeight, height - row0);
      if (cols < tileWidth || rows < tileHeight) tile.fill(NaN);
      for (let r = 0; r < rows; r++) {
        const src = (row0 + r) * width + col0;
        const dst = r * tileWidth;
        if (values instanceof Float32Array || values instanceof Float64Array) {
          tile.set(values.subarray(src, src + cols), dst);
        } else {
          for (let c = 0; c < cols; c++) tile[dst + c] = values[src + c]!;
        }
      }
      statistics = mergeStatistics(statistics, partialStatistics(tile, cols, rows, tileWidth));
      out.push(encodeFloat32Tile(tile, tileWidth, tileHeight, compression, scratch));
    }
  }
  return { tiles: out, statistics };
}

/** Tags of a Float32 GeoTIFF on `grid` with `tiling` (the block tables are added by the TIFF layout). */
export function float32GeoTiffTags(
  grid: GridSpec,
  { tileWidth, tileHeight }: RasterTiling,
  options: Pick<Float32GeoTiffOptions, 'description' | 'metadata' | 'statistics'> = {},
): TiffTag[] {
  const tags: TiffTag[] = [...imageTags({ width: grid.width, height: grid.height, tileWidth, tileHeight }), ...georeferenceTags(grid)];
  const xml = gdalMetadataXml(options.description, options.metadata, options.statistics ?? null);
  if (xml !== null) tags.push({ tag: Tag.GdalMetadata, type: TagType.ASCII, values: xml });
  return tags;
}

/** The georeferencing tags of `grid` (made once per grid: a run writes hundreds of files on one grid). */
function georeferenceTags(grid: GridSpec): readonly TiffTag[] {
  const known = georeferenceTagsByGrid.get(grid);
  if (known) return known;
  const { tiepoint, pixelScale } = tagsFromGeoTransform(grid.geoTransform, grid.rasterType);
  const tags: TiffTag[] = [
    { tag: Tag.ModelPixelScale, type: TagType.DOUBLE, values: pixelScale },
    { tag: Tag.ModelTiepoint, type: TagType.DOUBLE, values: tiepoint },
  ];
  if (grid.geoKeys.length > 0) {
    // GTRasterTypeGeoKey must agree with the tiepoint convention used above.
    const keys = encodeGeoKeyDirectory([...grid.geoKeys.filter((k) => k.id !== GT_RASTER_TYPE_KEY), { id: GT_RASTER_TYPE_KEY, value: grid.rasterType }]);
    tags.push({ tag: GEO_KEY_DIRECTORY_TAG, type: TagType.SHORT, values: Array.from(keys.directory) });
    if (keys.doubles.length > 0) tags.push({ tag: GEO_DOUBLE_PARAMS_TAG, type: TagType.DOUBLE, values: Array.from(keys.doubles) });
    if (keys.ascii.length > 0) tags.push({ tag: GEO_ASCII_PARAMS_TAG, type: TagType.ASCII, values: keys.ascii });
  }
  georeferenceTagsByGrid.set(grid, tags);
  return tags;
}

const georeferenceTagsByGrid = new WeakMap<GridSpec, readonly TiffTag[]>();

/** The image structure tags every image of the file shares: size, Float32 samples, tiles, DEFLATE + predictor 3, NaN nodata. */
function imageTags({ width, height, tileWidth, tileHeight }: Pick<RasterTiling, 'width' | 'height' | 'tileWidth' | 'tileHeight'>): TiffTag[] {
  return [
    { tag: Tag.ImageWidth, type: TagType.LONG, values: [width] },
    { tag: Tag.ImageLength, type: TagType.LONG, values: [height] },
    { tag: Tag.BitsPerSample, type: TagType.SHORT, values: [32] },
    { tag: Tag.Compression, type: TagType.SHORT, values: [8] },
    { tag: Tag.Photometric, type: TagType.SHORT, values: [1] },
    { tag: Tag.SamplesPerPixel, type: TagType.SHORT, values: [1] },
    { tag: Tag.PlanarConfiguration, type: TagType.SHORT, values: [1] },
    { tag: Tag.Predictor, type: TagType.SHORT, values: [3] },
    { tag: Tag.TileWidth, type: TagType.LONG, values: [tileWidth] },
    { tag: Tag.TileLength, type: TagType.LONG, values: [tileHeight] },
    { tag: Tag.SampleFormat, type: TagType.SHORT, values: [3] },
    { tag: Tag.GdalNodata, type: TagType.ASCII, values: 'nan' },
  ];
}

/** The dataset metadata item that is also the band's unit type. */
const UNITS_ITEM = 'UNITS';

/** GDAL_METADATA XML with dataset items and band 1's description, unit type and statistics, or null when there is nothing to say. */
export function gdalMetadataXml(
  description: string | undefined,
  metadata: Readonly<Record<string, string>> | undefined,
  statistics: BandStatistics | null = null,
): string | null {
  const items: string[] = [];
  for (const [name, value] of Object.entries(metadata ?? {})) {
    items.push(`  <Item name="${escapeXml(name)}">${escapeItemText(value)}</Item>`);
  }
  if (description !== undefined && description !== '') {
    items.push(`  <Item name="DESCRIPTION" sample="0" role="description">${escapeItemText(description)}</Item>`);
  }
  const unit = metadata?.[UNITS_ITEM];
  if (unit !== undefined && unit !== '') items.push(`  <Item name="UNITTYPE" sample="0" role="unittype">${escapeItemText(unit)}</Item>`);
  if (statistics !== null) {
    const { minimum, maximum, mean, stddev, validPercent } = statistics;
    const band = { MAXIMUM: maximum, MEAN: mean, MINIMUM: minimum, STDDEV: stddev, VALID_PERCENT: validPercent };
    for (const [name, value] of Object.entries(band)) items.push(`  <Item name="STATISTICS_${name}" sample="0">${String(value)}</Item>`);
  }
  return items.length === 0 ? null : `<GDALMetadata>\n${items.join('\n')}\n</GDALMetadata>\n`;
}

/** Item text is XML-escaped twice, as GDAL writes it (GDAL unescapes it once more after parsing). */
function escapeItemText(text: string): string {
  return escapeXml(escapeXml(text));
}

/** Characters `escapeXml` replaces. */
const XML_SPECIAL = /[&<>"]/;

function escapeXml(text: string): string {
  // (most items have none: one test instead of four replacements, for each item of each of a run's files)
  if (!XML_SPECIAL.test(text)) return text;
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
