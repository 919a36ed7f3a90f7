/**
 * What makes an upload an acceptable DEM, as one function over a file: the rules the submission check
 * applies. It runs in the check process (`demCheckChild.ts`), never in the service, because even bounded
 * parsing of an untrusted file costs memory and time the service must not spend.
 *
 * 1. not empty, a TIFF header;
 * 2. the bounded structure walk (`inspectTiff`): directory chain, tag sizes, strip/tile tables, the cell limit;
 * 3. one band, at least 3 × 3 cells, georeferenced;
 * 4. the raster reader's header rules (`readDemGrid`: sample format, compression, CRS, geotransform);
 * 5. for files up to `fullCheckMaxBytes`, the reader's full DEM rules (`validateDem`: every block decodes
 *    within its size, not all nodata).
 */
import { open } from 'node:fs/promises';
import { readDemGrid, validateDem, type DemSummary } from '../../raster/geotiff/readGeoTiff.js';
import { inspectTiffFile } from '../../raster/tiff/tiffStructure.js';
import { RasterFormatError, type GridSpec } from '../../raster/types.js';
import { demReadLimits } from '../../workflows/demLimits.js';

export interface DemRuleLimits {
  /** Largest DEM accepted [cells] (`EEMT_MAX_DEM_CELLS`). */
  readonly maxCells: number;
  /** Files up to this size are decoded completely [bytes]; larger ones get the header rules only. */
  readonly fullCheckMaxBytes: number;
}

export type DemVerdict =
  | { readonly ok: true; readonly grid: GridSpec; readonly summary: DemSummary | null }
  /** `outOfMemory`: the check ran out of memory (the checker then names its memory limit). */
  | { readonly ok: false; readonly problem: string; readonly outOfMemory?: true };

const TIFF_MAGIC = new Set(['49492a00', '4d4d002a', '49492b00', '4d4d002b']);

/** A reader message as the tail of "DEM file must be a GeoTIFF (.tif): …" (a leading "The" in lower case). */
function asClause(message: string): string {
  const text = message.replace(/\.$/, '');
  return /^[A-Z][a-z]/.test(text) ? text[0]!.toLowerCase() + text.slice(1) : text;
}

/** The verdict on the file at `path`. Throws only for errors that are not about the file (I/O). */
export async function judgeDem(path: string, limits: DemRuleLimits): Promise<DemVerdict> {
  const handle = await open(path, 'r');
  let size: number;
  const header = Buffer.alloc(4);
  try {
    size = (await handle.stat()).size;
    await handle.read(header, 0, 4, 0);
  } finally {
    await handle.close();
  }
  if (size === 0) return { ok: false, problem: 'the file is empty' };
  if (size < 8 || !TIFF_MAGIC.has(header.toString('hex'))) return { ok: false, problem: 'the file is not a TIFF image' };

  const readLimits = demReadLimits(limits.maxCells);
  try {
    const tiff = await inspectTiffFile(path, readLimits);
    if (tiff.width < 3 || tiff.height < 3) return { ok: false, problem: `the raster is ${tiff.width}×${tiff.height} cells; at least 3×3 are needed` };
    if (tiff.samplesPerPixel !== 1) return { ok: false, problem: `the GeoTIFF has ${tiff.samplesPerPixel} bands; a DEM must have exactly one` };
    if (!tiff.hasGeoKeys || !tiff.hasGeoTransform) {
      return { ok: false, problem: 'the TIFF is not georeferenced (no GeoTIFF coordinate reference system or geotransform)' };
    }
    const grid = await readDemGrid(path, readLimits);
    const summary = size <= limits.fullCheckMaxBytes ? await validateDem(path, readLimits) : null;
    return { ok: true, grid, summary };
  } catch (error) {
    if (error instanceof RasterFormatError) {
      return { ok: false, problem: asClause(error.message), ...(error.code === 'OUT_OF_MEMORY' ? { outOfMemory: true as const } : {}) };
    }
    throw error;
  }
}
