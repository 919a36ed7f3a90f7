/**
 * Reading a single-band GeoTIFF at a reduced size, for previews: the full-resolution image and its internal
 * overviews (reduced-resolution images, as in the Cloud Optimized GeoTIFFs this service writes) are the
 * file's levels; `downsample` reads the smallest level that still has at least the requested size and
 * averages it down (NaN-aware area average), band of rows by band of rows, so memory is the result plus one
 * band whatever the raster's size. `bands` walks a level's rows the same way (for statistics).
 *
 * The file is opened by the caller (e.g. without following links) and walked by `inspectTiff` first, and
 * blocks are decoded by the bounded decoders, as every read of `readGeoTiff.ts`.
 */
import type { FileHandle } from 'node:fs/promises';
import { GeoTIFF, type GeoTIFFImage } from 'geotiff';
import type { BandStatistics } from '../geotiff/statistics.js';
import { assertTiffHeader } from '../tiff/tiffProbe.js';
import { inspectTiff, type TiffLimits } from '../tiff/tiffStructure.js';
import { fileHandleByteSource, fileHandleSource, parseNodata, readGrid, translateParseError } from '../geotiff/readGeoTiff.js';
import type { GridSpec } from '../types.js';

/** One level of the file: the full-resolution image (level 0) or an overview, largest first. */
export interface RasterLevel {
  readonly width: number;
  readonly height: number;
}

/** Cells per band of rows read at once. */
const BAND_CELLS = 4 * 2 ** 20;
/** NewSubfileType bit of a transparency mask (GDAL's internal masks are left out of the levels). */
const MASK_BIT = 4;

export class RasterLevels {
  private constructor(
    readonly grid: GridSpec,
    readonly levels: readonly RasterLevel[],
    private readonly images: readonly GeoTIFFImage[],
    private readonly nodata: number | null,
    /** The band statistics the file stores (GDAL's STATISTICS_* band metadata), or null. */
    readonly statistics: BandStatistics | null,
  ) {}

  /** Opens the GeoTIFF in `handle` (which stays the caller's to close). Throws RasterFormatError. */
  static async open(handle: FileHandle, limits: TiffLimits = {}): Promise<RasterLevels> {
    const size = (await handle.stat()).size;
    const head = Buffer.alloc(Math.min(16, size));
    await handle.read(head, 0, head.length, 0);
    assertTiffHeader(head);
    const summary = await inspectTiff(fileHandleByteSource(handle, size), limits);
    try {
      const tiff = await GeoTIFF.fromSource(fileHandleSource(handle, size) as unknown as Parameters<typeof GeoTIFF.fromSource>[0]);
      const full = await tiff.getImage(0);
      const grid = await readGrid(full);
      const nodataText = full.getGDALNoData() === null ? undefined : await full.fileDirectory.loadValue('GDAL_NODATA');
      const images: GeoTIFFImage[] = [full];
      for (let i = 1; i < summary.imageCount; i++) {
        const image = await tiff.getImage(i);
        const subfileType = Number((await image.fileDirectory.loadValue('NewSubfileType' as never)) ?? 0);
        const smaller = image.getWidth() <= grid.width && image.getHeight() <= grid.height && image.getWidth() * image.getHeight() < grid.width * grid.height;
        if ((subfileType & MASK_BIT) === 0 && image.getSamplesPerPixel() === 1 && smaller && image.getWidth() > 0 && image.getHeight() > 0) images.push(image);
      }
      images.sort((a, b) => b.getWidth() * b.getHeight() - a.getWidth() * a.getHeight());
      const levels = images.map((image) => ({ width: image.getWidth(), height: image.getHeight() }));
      const xml = full.fileDirectory.hasTag('GDAL_METADATA') ? String(await full.fileDirectory.loadValue('GDAL_METADATA')) : '';
      return new RasterLevels(grid, levels, images, parseNodata(nodataText), storedStatistics(xml));
    } catch (err) {
      throw translateParseError(err);
    }
  }

  /** Index of the smallest level with at least `width` × `height` cells (0 when only the full image has). */
  levelFor(width: number, height: number): number {
    let best = 0;
    this.levels.forEach((level, k) => {
      if (level.width >= width && level.height >= height) best = k;
    });
    return best;
  }

  /** The rows `row0 … row0 + rows − 1` of level `k` as Float32 (NaN for nodata). */
  async readRows(k: number, row0: number, rows: number): Promise<Float32Array> {
    const image = this.images[k]!;
    const width = image.getWidth();
    let raw: ArrayLike<number>;
    try {
      raw = (await image.readRasters({ window: [0, row0, width, row0 + rows], interleave: true })) as unknown as ArrayLike<number>;
    } catch (err) {
      throw translateParseError(err);
    }
    const match = this.nodata === null || Number.isNaN(this.nodata) ? null : this.nodata;
    const out = new Float32Array(width * rows);
    for (let i = 0; i < out.length; i++) {
      const v = raw[i]!;
      out[i] = v === match || v !== v ? NaN : v;
    }
    return out;
  }

  /** Level `k` band of rows by band of rows (whole blocks, about `bandCells` cells each), top to bottom. */
  async *bands(k = 0, bandCells = BAND_CELLS): AsyncGenerator<{ row0: number; rows: number; values: Float32Array }> {
    const image = this.images[k]!;
    const height = image.getHeight();
    const blockHeight = image.getTileHeight();
    const rowsPerBand = Math.max(1, Math.floor(bandCells / image.getWidth() / blockHeight)) * blockHeight;
    for (let row0 = 0; row0 < height; row0 += rowsPerBand) {
      const rows = Math.min(rowsPerBand, height - row0);
      yield { row0, rows, values: await this.readRows(k, row0, rows) };
    }
  }

  /**
   * The raster at `width` × `height` cells (at most its own size): the NaN-aware area average of the
   * smallest level that is at least that large; NaN where no valid cell falls in a target cell.
   */
  async downsample(width: number, height: number): Promise<Float32Array> {
    if (!(width >= 1 && height >= 1 && width <= this.grid.width && height <= this.grid.height)) {
      throw new RangeError(`cannot downsample ${this.grid.width}×${this.grid.height} to ${width}×${height}`);
    }
    const k = this.levelFor(width, height);
    const { width: lw, height: lh } = this.levels[k]!;
    const sums = new Float64Array(width * height);
    const counts = new Uint32Array(width * height);
    const targetCol = Uint32Array.from({ length: lw }, (_, c) => Math.floor((c * width) / lw));
    for await (const { row0, rows, values } of this.bands(k)) {
      for (let r = 0; r < rows; r++) {
        const base = Math.floor(((row0 + r) * height) / lh) * width;
        const line = r * lw;
        for (let c = 0; c < lw; c++) {
          const v = values[line + c]!;
          if (v === v) {
            sums[base + targetCol[c]!] += v;
            counts[base + targetCol[c]!]++;
          }
        }
      }
    }
    const out = new Float32Array(width * height);
    for (let i = 0; i < out.length; i++) out[i] = counts[i] === 0 ? NaN : sums[i]! / counts[i]!;
    return out;
  }
}

/** GDAL's STATISTICS_MINIMUM, _MAXIMUM, _MEAN, _STDDEV and _VALID_PERCENT items of band 1, when all are numbers. */
function storedStatistics(gdalMetadataXml: string): BandStatistics | null {
  const item = (name: string): number => {
    const m = new RegExp(`<Item name="STATISTICS_${name}" sample="0"[^>]*>([^<]*)</Item>`).exec(gdalMetadataXml);
    return m ? Number(m[1]) : NaN;
  };
  const stats = { minimum: item('MINIMUM'), maximum: item('MAXIMUM'), mean: item('MEAN'), stddev: item('STDDEV'), validPercent: item('VALID_PERCENT') };
  return Object.values(stats).every(Number.isFinite) ? stats : null;
}

/** The size of a preview of a `width` × `height` raster whose longest side is at most `maxSide`. */
export function previewSize(width: number, height: number, maxSide: number): { width: number; height: number } {
  if (!(maxSide >= 1)) throw new RangeError(`a preview needs at least one cell a side, got ${maxSide}`);
  const scale = Math.min(1, maxSide / Math.max(width, height));
  return { width: Math.max(1, Math.min(width, Math.round(width * scale))), height: Math.max(1, Math.min(height, Math.round(height * scale))) };
}
