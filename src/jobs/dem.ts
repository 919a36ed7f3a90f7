/**
 * The DEM check at submission: an upload must be a readable, georeferenced, single-band GeoTIFF that the
 * workflows accept.
 *
 * First a quick look at the TIFF header and first image directory (any file size). Then, for files up to
 * `fullCheckMaxBytes`, the raster reader's own DEM rules (`validateDem`: complete data, supported CRS and
 * compression, not all nodata), run in a worker thread so the service stays responsive. Larger files get the
 * full check in the job, whose failure message then says what is wrong.
 */
import { open, stat } from 'node:fs/promises';
import { fromFile } from 'geotiff';
import { siblingModuleUrl, startModuleWorker } from '../util/modules.js';

/** Files up to this size get the full check at submission [bytes]. */
export const FULL_CHECK_MAX_BYTES = 256 * 1024 * 1024;

/** Why the file at `path` is not an acceptable DEM, or null when it is. */
export async function demProblem(path: string, fullCheckMaxBytes = FULL_CHECK_MAX_BYTES): Promise<string | null> {
  const quick = await headerProblem(path);
  if (quick) return quick;
  const { size } = await stat(path);
  if (size > fullCheckMaxBytes) return null;
  return fullProblem(path);
}

/** The raster reader's verdict, from a worker thread. */
function fullProblem(path: string): Promise<string | null> {
  return new Promise((resolve) => {
    const worker = startModuleWorker(siblingModuleUrl(import.meta.url, 'demCheckWorker'), { workerData: { path } });
    let settled = false;
    const finish = (value: string | null) => {
      if (settled) return;
      settled = true;
      void worker.terminate();
      resolve(value);
    };
    worker.once('message', (reply: { ok: boolean; format?: boolean; message?: string }) => {
      if (reply.ok) finish(null);
      else finish(reply.format ? (reply.message ?? 'not a usable DEM') : `the file cannot be read as a DEM (${reply.message ?? 'unknown error'})`);
    });
    worker.once('error', (error) => finish(`the file cannot be read as a DEM (${error.message})`));
    worker.once('exit', () => finish('the file cannot be read as a DEM'));
  });
}

/** The quick check: TIFF magic, first image directory, one band, georeferencing, data inside the file. */
async function headerProblem(path: string): Promise<string | null> {
  const handle = await open(path, 'r');
  let header: Buffer;
  let size: number;
  try {
    size = (await handle.stat()).size;
    header = Buffer.alloc(4);
    await handle.read(header, 0, 4, 0);
  } finally {
    await handle.close();
  }
  if (size === 0) return 'the file is empty';
  const magic = header.toString('hex');
  // Classic TIFF (42) or BigTIFF (43), little- or big-endian.
  if (!['49492a00', '4d4d002a', '49492b00', '4d4d002b'].includes(magic)) return 'the file is not a TIFF image';

  let tiff;
  try {
    tiff = await fromFile(path);
  } catch (error) {
    return `the TIFF cannot be read (${error instanceof Error ? error.message : String(error)})`;
  }
  try {
    const count = await tiff.getImageCount();
    if (count < 1) return 'the TIFF holds no image';
    const image = await tiff.getImage(0);
    const width = image.getWidth();
    const height = image.getHeight();
    if (width === 0 || height === 0) return 'the TIFF is truncated or damaged (no valid image directory)';
    if (width < 3 || height < 3) return `the raster is ${width}×${height} cells; at least 3×3 are needed`;
    const bands = image.getSamplesPerPixel();
    if (bands !== 1) return `the GeoTIFF has ${bands} bands; a DEM must have exactly one`;
    const keys = image.getGeoKeys();
    let origin: number[] | null = null;
    let resolution: number[] | null = null;
    try {
      origin = image.getOrigin();
      resolution = image.getResolution();
    } catch {
      origin = null;
    }
    if (!keys || Object.keys(keys).length === 0 || !origin || !resolution) {
      return 'the TIFF is not georeferenced (no GeoTIFF coordinate reference system or geotransform)';
    }
    if (!resolution.slice(0, 2).every((r) => Number.isFinite(r) && r !== 0)) return 'the GeoTIFF has an invalid cell size';
    const tiled = image.fileDirectory.hasTag('TileOffsets');
    const offsets = (await image.fileDirectory.loadValue(tiled ? 'TileOffsets' : 'StripOffsets')) as ArrayLike<number | bigint> | undefined;
    const counts = (await image.fileDirectory.loadValue(tiled ? 'TileByteCounts' : 'StripByteCounts')) as ArrayLike<number | bigint> | undefined;
    if (!offsets || !counts) return 'the TIFF has no image data';
    let end = 0;
    for (let i = 0; i < offsets.length; i++) end = Math.max(end, Number(offsets[i]) + Number(counts[i] ?? 0));
    if (end > size) return `the file is truncated (${size} of ${end} bytes)`;
    return null;
  } catch (error) {
    return `the TIFF cannot be read (${error instanceof Error ? error.message : String(error)})`;
  } finally {
    (tiff as { close?: () => void }).close?.();
  }
}
