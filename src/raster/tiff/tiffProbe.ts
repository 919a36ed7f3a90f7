/**
 * The first check on raw bytes: a TIFF header, or a message naming the format the file looks like instead.
 * (The structure behind the header is checked by `tiffStructure.ts`.)
 */
import { RasterFormatError } from '../types.js';

/** Throws NOT_TIFF unless `bytes` start with a classic or BigTIFF header. */
export function assertTiffHeader(bytes: Uint8Array): void {
  if (bytes.length >= 8) {
    const order = String.fromCharCode(bytes[0]!, bytes[1]!);
    const little = order === 'II';
    if (little || order === 'MM') {
      const magic = little ? bytes[2]! | (bytes[3]! << 8) : (bytes[2]! << 8) | bytes[3]!;
      if (magic === 42 || magic === 43) return;
    }
  }
  // What the file should have been is for the caller to say (a DEM, a climate grid): this says what it is.
  throw new RasterFormatError('NOT_TIFF', `The file is not a GeoTIFF${describeOtherFormat(bytes)}.`);
}

/** " (it looks like a PNG image)" etc. for well-known signatures, else "". */
function describeOtherFormat(bytes: Uint8Array): string {
  if (bytes.length === 0) return ' (it is empty)';
  const head = Buffer.from(bytes.subarray(0, 16));
  const text = head.toString('latin1');
  if (text.startsWith('\x89PNG')) return ' (it looks like a PNG image)';
  if (head[0] === 0xff && head[1] === 0xd8) return ' (it looks like a JPEG image)';
  if (text.startsWith('PK\x03\x04')) return ' (it looks like a ZIP archive; unzip it first)';
  if (head[0] === 0x1f && head[1] === 0x8b) return ' (it looks gzip-compressed; decompress it first)';
  if (text.startsWith('\x89HDF') || text.startsWith('CDF')) return ' (it looks like a NetCDF/HDF file; convert it with gdal_translate -of GTiff)';
  if (/^\s*ncols/i.test(text)) return ' (it looks like an Esri ASCII grid; convert it with gdal_translate -of GTiff)';
  return '';
}
