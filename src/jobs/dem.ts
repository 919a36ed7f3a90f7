/**
 * The DEM check at submission: an upload must be a readable, georeferenced, single-band GeoTIFF.
 * Only the TIFF header and first image directory are read, so the check is quick for any file size; the
 * full read (nodata, CRS support) happens in the job, whose failure message then says what is wrong.
 */
import { open } from 'node:fs/promises';
import { fromFile } from 'geotiff';

/** Why the file at `path` is not an acceptable DEM, or null when it is. */
export async function demProblem(path: string): Promise<string | null> {
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
