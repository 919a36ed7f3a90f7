/**
 * Cheap checks on raw bytes before handing them to geotiff.js, so that the commonest bad inputs get a
 * message naming the problem instead of a decoder error.
 */
import { RasterFormatError } from './types.js';

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
  throw new RasterFormatError('NOT_TIFF', `The file is not a GeoTIFF${describeOtherFormat(bytes)}. Upload a single-band GeoTIFF DEM (.tif).`);
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

/**
 * Throws TRUNCATED when a strip or tile runs past the end of the file (an incomplete upload or copy).
 * Offsets of 0 with byte count 0 are GDAL's sparse (empty) blocks and are allowed.
 */
export function assertBlocksInside(offsets: ArrayLike<number | bigint>, byteCounts: ArrayLike<number | bigint>, fileLength: number): void {
  let end = 0;
  for (let k = 0; k < offsets.length; k++) {
    const blockEnd = Number(offsets[k]) + Number(byteCounts[k] ?? 0);
    if (blockEnd > end) end = blockEnd;
  }
  if (offsets.length !== byteCounts.length) {
    throw new RasterFormatError('TRUNCATED', 'The GeoTIFF is damaged: its strip/tile offset and size tables differ in length.');
  }
  if (end > fileLength) {
    throw new RasterFormatError(
      'TRUNCATED',
      `The GeoTIFF is truncated: it is ${fileLength} bytes long but its pixel data runs to byte ${end} (incomplete upload or copy?).`,
    );
  }
}
