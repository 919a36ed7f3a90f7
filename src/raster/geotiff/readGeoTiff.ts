/**
 * Reading single-band GeoTIFFs as GDAL writes them (striped or tiled; none/LZW/DEFLATE/PackBits/ZSTD,
 * with or without predictor; 8/16/32-bit integers, 16/32/64-bit floats) into Float64 (default) or Float32
 * arrays with NaN for nodata, plus the DEM rules the solar model needs.
 *
 * Arrays are row-major with row 0 at the north edge: index = row * width + col.
 * Band scale/offset declared in GDAL metadata are applied, so values are in physical units.
 *
 * Memory: a file path is read through geotiff.js's file source (only the blocks being decoded are in
 * memory, not the whole file), band by band of rows straight into the result array, which can be a
 * SharedArrayBuffer for worker threads: reading a DEM needs the result plus one band (≈ 4 M cells). A float
 * DEM with the floating-point predictor (GDAL's PREDICTOR=3, little-endian) is decoded here one row of blocks at
 * a time, the predictor undone in WebAssembly (floatPredictorWasm.ts): the result plus two rows of blocks.
 */
import { open as openFile, type FileHandle } from 'node:fs/promises';
import { GeoTIFF, fromArrayBuffer, fromFile, type BaseDecoder, type GeoTIFFImage } from 'geotiff';
import { BlockTooLargeError, boundedBlockDecoder } from '../tiff/boundedDecoders.js';
import { floatPredictorRows } from '../tiff/floatPredictorWasm.js';
import { crsFromGeoKeys } from '../geo/crs.js';
import { GeoKey, decodeGeoKeyDirectory, geoKeyValue } from './geoKeys.js';
import { geoTransformFromTags } from '../geo/georeference.js';
import { assertTiffHeader } from '../tiff/tiffProbe.js';
import { bytesSource, inspectTiff, inspectTiffFile, type ByteSource, type TiffLimits } from '../tiff/tiffStructure.js';
import { RasterFormatError, type Dem, type GridSpec } from '../types.js';

/**
 * Limits of a read: the cell limit (the structural bounds of `inspectTiff` always apply). Every file is
 * walked by `inspectTiff` before geotiff.js parses it, and every compressed block is decoded by the bounded
 * decoders of `boundedDecoders.ts` (DEFLATE by Node's zlib, capped at the block's size), so no file makes the
 * reader loop or allocate beyond its declared size.
 */
export type ReadLimits = TiffLimits;

/** A single-band raster: its grid, its values (NaN where nodata) and the nodata value it declared. */
export interface RasterData<V extends ValueArray = Float64Array> {
  readonly grid: GridSpec;
  readonly values: V;
  /** GDAL_NODATA of the file (may be NaN), or null when it declares none. */
  readonly nodata: number | null;
}

export type ValueArray = Float32Array | Float64Array;

/**
 * How to hold the values: 'float32' halves the memory and is exact for Float32 and 16-bit sources (for
 * Float64 sources it rounds to float32, as r.sun reads elevations as FCELL); `shared` puts the array on a
 * SharedArrayBuffer.
 */
export interface ReadOptions extends ReadLimits {
  readonly precision?: 'float64' | 'float32';
  readonly shared?: boolean;
  /**
   * Cells decoded at once (default 4 Mi; rounded to whole blocks; a float DEM whose predictor this module undoes: 256 Ki
   * by default, in whole rows of blocks, at least one, and the next such band is read and inflated meanwhile).
   */
  readonly bandCells?: number;
  /**
   * Called with the first image's size once the file's structure is walked, before any block is read (a caller that
   * sizes work by the raster starts it while the values are decoded).
   */
  readonly onSize?: (size: RasterSize) => void;
}

/** A raster's size in cells (`ReadOptions.onSize`; annotate the callback's parameter with it: `readDem` infers its options' type). */
export interface RasterSize {
  readonly width: number;
  readonly height: number;
}
type ArrayOf<O extends ReadOptions> = O extends { precision: 'float32' } ? Float32Array : Float64Array;

/** Cells per band of rows decoded at once. */
const DEFAULT_BAND_CELLS = 4 * 2 ** 20;
/**
 * Cells per band of a float DEM whose predictor this module undoes (`readFloatPredictorBlocks`; at least a row of
 * blocks). A 4.8 M-cell Float64 DEM in strips of one row read in 0.61–0.68 s with bands of 256 Ki cells (116 MB
 * resident), 0.75 s with 1 Mi (145 MB), 0.78–0.87 s with 4 Mi (195 MB), 1.6–2.0 s a strip at a time (92 MB).
 */
const PREDICTED_BAND_CELLS = 2 ** 18;

/** What `validateDem` reports about an acceptable DEM. */
export interface DemSummary {
  readonly width: number;
  readonly height: number;
  readonly crsName: string;
  readonly validCount: number;
}

/**
 * TIFF Compression values geotiff.js decodes losslessly for elevation data. LERC is left out: geotiff.js
 * ignores its validity mask, so nodata cells would come back as numbers.
 */
const SUPPORTED_COMPRESSION: Readonly<Record<number, string>> = {
  1: 'none',
  5: 'LZW',
  8: 'DEFLATE',
  32946: 'DEFLATE',
  32773: 'PackBits',
  50000: 'ZSTD',
};

/** Reads a single-band GeoTIFF; nodata cells (GDAL_NODATA or NaN) become NaN. */
export async function readRaster<O extends ReadOptions = { precision: 'float64' }>(path: string, options?: O): Promise<RasterData<ArrayOf<O>>> {
  const handle = await openFile(path, 'r');
  try {
    const fileLength = (await handle.stat()).size;
    const head = Buffer.alloc(Math.min(16, fileLength));
    await handle.read(head, 0, head.length, 0);
    assertTiffHeader(head);
    await walkStructure(fileHandleByteSource(handle, fileLength), options);
    try {
      const tiff = await GeoTIFF.fromSource(fileHandleSource(handle, fileLength) as unknown as Parameters<typeof GeoTIFF.fromSource>[0]);
      return await readFirstImage(tiff, options);
    } catch (err) {
      throw translateParseError(err);
    }
  } finally {
    await handle.close();
  }
}

/** Walks the file's structure (`inspectTiff`, within the options' limits) and tells `onSize` its size. */
async function walkStructure(source: ByteSource, options: ReadOptions | undefined): Promise<void> {
  const { width, height } = await inspectTiff(source, options ?? {});
  options?.onSize?.({ width, height });
}

/**
 * A geotiff.js data source reading the blocks it asks for from an open file (this module opens and closes
 * the file, so no descriptor outlives a read, whatever fails).
 */
export function fileHandleSource(handle: FileHandle, fileLength: number) {
  return {
    fileSize: fileLength,
    async fetch(slices: readonly { offset: number; length: number }[]): Promise<ArrayBuffer[]> {
      return Promise.all(
        slices.map(async ({ offset, length }) => {
          const bytes = new Uint8Array(Math.max(0, Math.min(length, fileLength - offset)));
          let done = 0;
          while (done < bytes.length) {
            const { bytesRead } = await handle.read(bytes, done, bytes.length - done, offset + done);
            if (bytesRead === 0) break;
            done += bytesRead;
          }
          return bytes.buffer;
        }),
      );
    },
    async close(): Promise<void> {},
  };
}

/** The structure walk's view of an open file. */
export function fileHandleByteSource(handle: FileHandle, fileLength: number): ByteSource {
  const source = fileHandleSource(handle, fileLength);
  return {
    size: fileLength,
    async read(offset: number, length: number): Promise<Uint8Array> {
      const [bytes] = await source.fetch([{ offset, length }]);
      return new Uint8Array(bytes!);
    },
  } as ByteSource;
}

/** Like `readRaster`, from the bytes of the file (e.g. an upload). */
export async function readRasterFromBuffer<O extends ReadOptions = { precision: 'float64' }>(bytes: Uint8Array, options?: O): Promise<RasterData<ArrayOf<O>>> {
  assertTiffHeader(bytes);
  await walkStructure(bytesSource(bytes), options);
  try {
    return await readFirstImage(await openBuffer(bytes), options);
  } catch (err) {
    throw translateParseError(err);
  }
}

async function readFirstImage<O extends ReadOptions>(tiff: GeoTIFF, options: O | undefined): Promise<RasterData<ArrayOf<O>>> {
  const image = await tiff.getImage(0);
  const grid = await readGrid(image);
  const { values, nodata } = await readValues(image, await takeOverPredictor2(image), await takeOverFloatPredictor(image), options ?? {});
  return { grid, values: values as ArrayOf<O>, nodata };
}

/**
 * Reads a DEM: a single-band GeoTIFF of elevations in metres on a north-up projected (metre) or geographic
 * (degree) grid, at least 3×3 cells, not all nodata. Nodata and non-finite cells become NaN.
 */
export async function readDem<O extends ReadOptions = { precision: 'float64' }>(path: string, options?: O): Promise<Dem<ArrayOf<O>>> {
  return demFromRaster(await readRaster(path, options));
}

/** Like `readDem`, from the bytes of the file (e.g. an upload). */
export async function readDemFromBuffer(bytes: Uint8Array, limits: ReadLimits = {}): Promise<Dem> {
  return demFromRaster(await readRasterFromBuffer(bytes, limits));
}

/**
 * The grid of the DEM at `path` from its header alone (size, georeferencing, CRS; single band, supported
 * sample format and compression), reading only the directory and tag bytes. Throws RasterFormatError.
 */
export async function readDemGrid(path: string, limits: ReadLimits = {}): Promise<GridSpec> {
  await inspectTiffFile(path, limits);
  let tiff;
  try {
    tiff = await fromFile(path);
  } catch (err) {
    throw translateParseError(err);
  }
  try {
    const grid = await readGrid(await tiff.getImage(0));
    if (grid.width < 3 || grid.height < 3) throw tooSmall(grid.width, grid.height);
    return grid;
  } catch (err) {
    throw translateParseError(err);
  } finally {
    (tiff as { close?: () => void }).close?.();
  }
}

/** Checks that `path` is a usable DEM; returns a short summary or throws RasterFormatError. */
export async function validateDem(path: string, limits: ReadLimits = {}): Promise<DemSummary> {
  return summarize(await readDem(path, limits));
}

/** Like `validateDem`, from the bytes of the file (e.g. an upload). */
export async function validateDemFromBuffer(bytes: Uint8Array, limits: ReadLimits = {}): Promise<DemSummary> {
  return summarize(await readDemFromBuffer(bytes, limits));
}

function summarize(dem: Dem): DemSummary {
  return { width: dem.grid.width, height: dem.grid.height, crsName: dem.grid.crs.name, validCount: dem.validCount };
}

/** Applies the DEM rules to a raster: at least 3×3, finite elevations (others → NaN), some valid cells. */
export function demFromRaster<V extends ValueArray>(raster: RasterData<V>): Dem<V> {
  const { grid, values } = raster;
  if (grid.width < 3 || grid.height < 3) throw tooSmall(grid.width, grid.height);
  let validCount = 0;
  for (let i = 0; i < values.length; i++) {
    if (Number.isFinite(values[i]!)) validCount++;
    else values[i] = NaN;
  }
  if (validCount === 0) {
    throw new RasterFormatError('ALL_NODATA', `Every cell of the ${grid.width}×${grid.height} DEM is nodata; there is no elevation to work with.`);
  }
  return { grid, elevation: values, validCount, sourceNodata: raster.nodata };
}

function tooSmall(width: number, height: number): RasterFormatError {
  return new RasterFormatError('TOO_SMALL', `The DEM is ${width}×${height} cells, too small to compute slope; at least 3×3 cells are required.`);
}

/** True for the errors a JavaScript engine raises when memory for an array cannot be had. */
function isAllocationFailure(err: unknown): boolean {
  return err instanceof RangeError && /allocation failed|invalid (typed )?array length|array buffer/i.test(err.message);
}

async function openBuffer(bytes: Uint8Array): Promise<GeoTIFF> {
  const buffer =
    bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
      ? (bytes.buffer as ArrayBuffer)
      : (bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
  return fromArrayBuffer(buffer);
}

/**
 * geotiff.js failures after the structure walk (RasterFormatErrors pass through), each said as it is: a
 * block that inflates past its size, memory that could not be had, or a parse error geotiff.js reports.
 */
export function translateParseError(err: unknown): RasterFormatError {
  if (err instanceof RasterFormatError) return err;
  if (err instanceof BlockTooLargeError) return new RasterFormatError('DAMAGED', `The TIFF is damaged: ${err.message}.`);
  const message = err instanceof Error ? err.message : String(err);
  if (isAllocationFailure(err)) {
    return new RasterFormatError('OUT_OF_MEMORY', `There is not enough memory to read the raster (${message}).`);
  }
  return new RasterFormatError('DAMAGED', `The TIFF cannot be parsed (${message}).`);
}

export async function readGrid(image: GeoTIFFImage): Promise<GridSpec> {
  const fd = image.fileDirectory;
  const load = async (tag: string): Promise<any> => {
    try {
      return fd.hasTag(tag as never) ? await fd.loadValue(tag as never) : undefined;
    } catch (err) {
      throw translateParseError(err);
    }
  };
  const width = image.getWidth();
  const height = image.getHeight();
  if (!(width > 0 && height > 0)) throw new RasterFormatError('NOT_TIFF', 'The TIFF has no image (width or height is 0).');

  const bands = image.getSamplesPerPixel();
  if (bands !== 1) {
    throw new RasterFormatError('MULTIBAND', `The raster has ${bands} bands; a single-band elevation raster is required.`);
  }
  checkSampleFormat(image.getSampleFormat(), image.getBitsPerSample());

  const compression = Number((await load('Compression')) ?? 1);
  if (!(compression in SUPPORTED_COMPRESSION)) {
    throw new RasterFormatError(
      'UNSUPPORTED_COMPRESSION',
      `The GeoTIFF uses compression scheme ${compression}, which this service cannot decode; re-save it with gdal_translate -co COMPRESS=DEFLATE.`,
    );
  }
  const predictor = Number((await load('Predictor')) ?? 1);
  if (predictor !== 1 && predictor !== 2 && predictor !== 3) {
    throw new RasterFormatError('UNSUPPORTED_COMPRESSION', `The GeoTIFF uses an unknown predictor (${predictor}); re-save it with gdal_translate.`);
  }
  // The strip/tile tables were checked against the file by the structure walk.

  const directory = await load('GeoKeyDirectory');
  const geoKeys = directory ? decodeGeoKeyDirectory(directory, await load('GeoDoubleParams'), await load('GeoAsciiParams')) : [];
  const rasterType = geoKeyValue(geoKeys, GeoKey.GTRasterType) === 2 ? 2 : 1;
  const geoTransform = geoTransformFromTags(
    {
      modelTransformation: await load('ModelTransformation'),
      modelTiepoint: await load('ModelTiepoint'),
      modelPixelScale: await load('ModelPixelScale'),
    },
    rasterType,
  );
  const crs = crsFromGeoKeys(geoKeys);
  return { width, height, geoTransform, crs, geoKeys, rasterType };
}

function checkSampleFormat(format: number, bits: number): void {
  const ok =
    ((format === 1 || format === 2) && (bits === 8 || bits === 16 || bits === 32)) ||
    (format === 3 && (bits === 16 || bits === 32 || bits === 64));
  if (!ok) {
    const kind = { 1: 'unsigned integer', 2: 'signed integer', 3: 'floating-point', 4: 'untyped', 5: 'complex integer', 6: 'complex floating-point' }[format] ?? `format ${format}`;
    throw new RasterFormatError(
      'UNSUPPORTED_SAMPLE_FORMAT',
      `The raster stores ${bits}-bit ${kind} samples; supported are 8/16/32-bit integers and 16/32/64-bit floats (e.g. gdal_translate -ot Float32).`,
    );
  }
}

/**
 * geotiff.js undoes horizontal differencing (Predictor 2) in the host's byte order and not at all for
 * 64-bit samples. For big-endian files and 64-bit samples this module does it instead: the predictor tag
 * is hidden from geotiff.js and the returned block width is used by `undoHorizontalDifferencing`.
 */
async function takeOverPredictor2(image: GeoTIFFImage): Promise<number | null> {
  const fd = image.fileDirectory;
  const predictor = Number((await fd.loadValue('Predictor')) ?? 1);
  if (predictor !== 2 || (image.littleEndian && image.getBitsPerSample() !== 64)) return null;
  fd.actualizedFields.set(PREDICTOR_TAG, 1);
  return image.getTileWidth();
}

const PREDICTOR_TAG = 317;

/**
 * Cumulative sum, modulo 2^bits, along each row within each block of `blockWidth` columns: the inverse of
 * TIFF horizontal differencing, on the samples' bit patterns.
 */
function undoHorizontalDifferencing(raw: ArrayBufferView, bits: number, width: number, height: number, blockWidth: number): void {
  const count = width * height;
  if (bits === 64) {
    const u = new BigUint64Array(raw.buffer, raw.byteOffset, count);
    for (let r = 0; r < height; r++) {
      for (let c0 = 0; c0 < width; c0 += blockWidth) {
        const end = Math.min(width, c0 + blockWidth);
        for (let i = r * width + c0 + 1; i < r * width + end; i++) u[i] = u[i]! + u[i - 1]!;
      }
    }
    return;
  }
  const u =
    bits === 8 ? new Uint8Array(raw.buffer, raw.byteOffset, count)
    : bits === 16 ? new Uint16Array(raw.buffer, raw.byteOffset, count)
    : new Uint32Array(raw.buffer, raw.byteOffset, count);
  for (let r = 0; r < height; r++) {
    for (let c0 = 0; c0 < width; c0 += blockWidth) {
      const end = Math.min(width, c0 + blockWidth);
      for (let i = r * width + c0 + 1; i < r * width + end; i++) u[i] = u[i]! + u[i - 1]!;
    }
  }
}

async function readValues(
  image: GeoTIFFImage,
  predictor2BlockWidth: number | null,
  floatPredictor: FloatPredictorBlocks | null,
  options: ReadOptions,
): Promise<{ values: ValueArray; nodata: number | null }> {
  const width = image.getWidth();
  const height = image.getHeight();
  const nodata = parseNodata(image.getGDALNoData() === null ? undefined : await image.fileDirectory.loadValue('GDAL_NODATA'));
  const { scale, offset } = await bandScaleOffset(image);
  const isFloat32 = image.getSampleFormat() === 3 && image.getBitsPerSample() === 32;
  const match = nodata === null || Number.isNaN(nodata) ? null : isFloat32 ? Math.fround(nodata) : nodata;
  const scaled = scale !== 1 || offset !== 0;
  const bytesPerValue = options.precision === 'float32' ? 4 : 8;
  const buffer = options.shared ? new SharedArrayBuffer(width * height * bytesPerValue) : new ArrayBuffer(width * height * bytesPerValue);
  const values = bytesPerValue === 4 ? new Float32Array(buffer) : new Float64Array(buffer);
  /**
   * Stores samples `raw[from …]` as the values from index `at` on: nodata and NaN as NaN, scaled. Float samples
   * whose NaNs are all JavaScript's one NaN (`canonicalNaNs`), without a nodata number or a scale, are copied whole.
   */
  const store = (raw: ArrayLike<number>, from: number, count: number, at: number, canonicalNaNs = false) => {
    if (canonicalNaNs && match === null && !scaled && (raw instanceof Float32Array || raw instanceof Float64Array)) {
      values.set(raw.subarray(from, from + count), at);
      return;
    }
    for (let i = 0; i < count; i++) {
      const v = raw[from + i]!;
      values[at + i] = v === match || v !== v ? NaN : scaled ? v * scale + offset : v;
    }
  };
  if (floatPredictor !== null) {
    await readFloatPredictorBlocks(image, floatPredictor, bytesPerValue === 4, options.bandCells ?? PREDICTED_BAND_CELLS, store);
    return { values, nodata };
  }
  // bands of whole blocks (tiles or strips), so that each block is decoded once
  const blockHeight = image.getTileHeight();
  const rowsPerBand = Math.max(1, Math.floor((options.bandCells ?? DEFAULT_BAND_CELLS) / width / blockHeight)) * blockHeight;
  for (let row0 = 0; row0 < height; row0 += rowsPerBand) {
    const rows = Math.min(rowsPerBand, height - row0);
    let raw: ArrayLike<number>;
    try {
      raw = (await image.readRasters({ window: [0, row0, width, row0 + rows], interleave: true })) as unknown as ArrayLike<number>;
    } catch (err) {
      throw blockError(err);
    }
    if (predictor2BlockWidth !== null) {
      undoHorizontalDifferencing(raw as unknown as ArrayBufferView, image.getBitsPerSample(), width, rows, predictor2BlockWidth);
    }
    store(raw, 0, raw.length, row0 * width);
  }
  return { values, nodata };
}

/** A block that could not be decoded: too large or out of memory as such, anything else as damaged data. */
function blockError(err: unknown): Error {
  if (err instanceof BlockTooLargeError || isAllocationFailure(err)) return translateParseError(err);
  const message = err instanceof Error ? err.message : String(err);
  return new RasterFormatError('DAMAGED', `The GeoTIFF's pixel data is damaged and cannot be decoded (${message}).`);
}

/**
 * The floating-point predictor (Predictor 3) on 32- or 64-bit float samples, one per pixel, in a little-endian file
 * (GDAL's default) is undone by `readFloatPredictorBlocks` rather than by geotiff.js: its predictor and its copy of
 * the samples one by one took 13 of the 18 s of reading a 99 M-cell Float64 DEM. The predictor tag is hidden from
 * geotiff.js, whose decoders then give each block decompressed only. Returns the samples' bits and the blocks'
 * decoder, or null when geotiff.js decodes the file.
 */
async function takeOverFloatPredictor(image: GeoTIFFImage): Promise<FloatPredictorBlocks | null> {
  const fd = image.fileDirectory;
  const predictor = Number((await fd.loadValue('Predictor')) ?? 1);
  const bits = image.getBitsPerSample();
  // (a big-endian file's byte planes come least significant first: geotiff.js decodes those)
  if (predictor !== 3 || !image.littleEndian || image.getSampleFormat() !== 3 || (bits !== 32 && bits !== 64) || image.getSamplesPerPixel() !== 1) return null;
  fd.actualizedFields.set(PREDICTOR_TAG, 1);
  const decoder = await boundedBlockDecoder(fd);
  if (decoder) return { bits, decoder };
  fd.actualizedFields.set(PREDICTOR_TAG, predictor);
  return null;
}

/** How `readFloatPredictorBlocks` decodes an image: its samples' bits and the decoder of its blocks (predictor hidden). */
interface FloatPredictorBlocks {
  readonly bits: 32 | 64;
  readonly decoder: BaseDecoder;
}

/**
 * Decodes every block (tile or strip) of a floating-point-predicted image (`takeOverFloatPredictor`), in bands of
 * whole rows of blocks of about `bandCells` cells (at least one row; the next band read and inflated meanwhile, its
 * blocks side by side on the thread pool: a file of narrow strips is not read one strip per round trip), handing each
 * block row's samples inside the raster to `store(samples, from, count, at, canonicalNaNs)` (`at`: the index of the
 * raster's first cell they are). A block the file leaves out (sparse, byte count 0) is the file's nodata, 0 where it
 * declares none, as GDAL reads it.
 */
async function readFloatPredictorBlocks(
  image: GeoTIFFImage,
  { bits, decoder }: FloatPredictorBlocks,
  float32: boolean,
  bandCells: number,
  store: (samples: ArrayLike<number>, from: number, count: number, at: number, canonicalNaNs: boolean) => void,
): Promise<void> {
  const width = image.getWidth();
  const height = image.getHeight();
  const tileWidth = image.getTileWidth();
  const tileHeight = image.getTileHeight();
  const across = Math.ceil(width / tileWidth);
  const down = Math.ceil(height / tileHeight);
  const bytesPerRow = (tileWidth * bits) / 8;
  const predictor = floatPredictorRows(bits, tileWidth, Math.min(tileHeight, height));
  const missing = new Float64Array(tileWidth).fill(image.getGDALNoData() ?? 0);
  const byteCounts = image.isTiled ? 'TileByteCounts' : 'StripByteCounts';
  /** The blocks of block row `by`, decompressed (`sparse`: left out of the file). */
  const blockRow = (by: number) =>
    Promise.all(
      Array.from({ length: across }, async (_, bx) => {
        const sparse = Number(await image.fileDirectory.loadValueIndexed(byteCounts as never, by * across + bx)) === 0;
        const { data } = await image.getTileOrStrip(bx, by, 0, decoder as never);
        return { data, sparse };
      }),
    );
  const rowsPerBand = Math.max(1, Math.floor(bandCells / (across * tileWidth * tileHeight)));
  const band = (first: number) => Promise.all(Array.from({ length: Math.min(rowsPerBand, down - first) }, (_, i) => blockRow(first + i)));
  // the next band of block rows is read and inflated (on the thread pool) while this one is decoded
  let next = band(0);
  for (let first = 0; first < down; first += rowsPerBand) {
    let rowsOfBlocks: { data: ArrayBufferLike; sparse: boolean }[][];
    try {
      rowsOfBlocks = await next;
    } catch (err) {
      throw blockError(err);
    }
    if (first + rowsPerBand < down) {
      next = band(first + rowsPerBand);
      next.catch(() => {}); // (awaited in the next turn of the loop)
    }
    rowsOfBlocks.forEach((blocks, i) => decodeBlockRow(first + i, blocks));
  }

  /** Hands the samples of block row `by` (its blocks decompressed) to `store`. */
  function decodeBlockRow(by: number, blocks: { data: ArrayBufferLike; sparse: boolean }[]): void {
    const row0 = by * tileHeight;
    const rows = Math.min(tileHeight, height - row0);
    for (let bx = 0; bx < across; bx++) {
      const { data, sparse } = blocks[bx]!;
      const col0 = bx * tileWidth;
      const cols = Math.min(tileWidth, width - col0);
      if (sparse) {
        for (let r = 0; r < rows; r++) store(missing, 0, cols, (row0 + r) * width + col0, false);
        continue;
      }
      if (data.byteLength < rows * bytesPerRow) throw blockError(new Error(`block ${by * across + bx} decodes to ${data.byteLength} bytes, not ${rows * bytesPerRow}`));
      const bytes = new Uint8Array(data, 0, rows * bytesPerRow);
      for (let part = 0; part < rows; part += predictor.partRows) {
        const partRows = Math.min(predictor.partRows, rows - part);
        const samples = predictor.decode(bytes.subarray(part * bytesPerRow), partRows, cols, float32);
        for (let r = 0; r < partRows; r++) store(samples, r * tileWidth, cols, (row0 + part + r) * width + col0, predictor.canonicalNaNs);
      }
    }
  }
}

/** GDAL_NODATA text ("-9999", "nan", "-inf", ...) as a number, or null when absent or empty. */
export function parseNodata(text: unknown): number | null {
  if (typeof text !== 'string') return null;
  const t = text.replace(/\0/g, '').trim().toLowerCase();
  if (t === '') return null;
  if (t === 'nan' || t === '-nan') return NaN;
  if (t === 'inf' || t === '+inf' || t === 'infinity') return Infinity;
  if (t === '-inf' || t === '-infinity') return -Infinity;
  const n = Number(t);
  return Number.isNaN(n) ? null : n;
}

/** Band 1 scale and offset from GDAL_METADATA (`<Item ... sample="0" role="scale">`), default 1 and 0. */
async function bandScaleOffset(image: GeoTIFFImage): Promise<{ scale: number; offset: number }> {
  const fd = image.fileDirectory;
  const xml = fd.hasTag('GDAL_METADATA') ? String(await fd.loadValue('GDAL_METADATA')) : '';
  const item = (role: string): number | undefined => {
    const m = new RegExp(`<Item[^>]*sample="0"[^>]*role="${role}"[^>]*>([^<]*)</Item>`).exec(xml);
    const v = m ? Number(m[1]) : NaN;
    return Number.isFinite(v) ? v : undefined;
  };
  return { scale: item('scale') ?? 1, offset: item('offset') ?? 0 };
}
