/**
 * Builds small uncompressed single-strip TIFFs with chosen tags, for reader tests of malformed or unusual
 * files that GDAL would not write (or would take a process spawn to write).
 */
import { assembleTiff, TagType, type TiffTag } from '../../src/raster/tiff/tiffLayout.js';
import { encodeGeoKeyDirectory } from '../../src/raster/geotiff/geoKeys.js';
import type { GeoKeyEntry } from '../../src/raster/types.js';

export interface TiffSpec {
  width: number;
  height: number;
  /** Raw little-endian pixel bytes (samples interleaved). */
  data: Uint8Array;
  bitsPerSample?: number;
  /** 1 uint, 2 int, 3 float, 6 complex float. */
  sampleFormat?: number;
  samplesPerPixel?: number;
  compression?: number;
  pixelScale?: number[];
  tiepoint?: number[];
  transformation?: number[];
  geoKeys?: GeoKeyEntry[];
  nodata?: string;
}

/** NAD83 / UTM 13N, as GDAL writes it. */
export const UTM13N_KEYS: GeoKeyEntry[] = [
  { id: 1024, value: 1 },
  { id: 1025, value: 1 },
  { id: 1026, value: 'NAD83 / UTM zone 13N' },
  { id: 3072, value: 26913 },
];

/** Float32 samples as little-endian bytes. */
export function float32Bytes(values: ArrayLike<number>): Uint8Array {
  return new Uint8Array(Float32Array.from(values).buffer);
}

export function buildTiff(spec: TiffSpec): Buffer {
  const spp = spec.samplesPerPixel ?? 1;
  const bits = spec.bitsPerSample ?? 32;
  // Strips are written through the tile-offset slots of assembleTiff, so relabel them afterwards.
  const tags: TiffTag[] = [
    { tag: 256, type: TagType.LONG, values: [spec.width] },
    { tag: 257, type: TagType.LONG, values: [spec.height] },
    { tag: 258, type: TagType.SHORT, values: new Array<number>(spp).fill(bits) },
    { tag: 259, type: TagType.SHORT, values: [spec.compression ?? 1] },
    { tag: 262, type: TagType.SHORT, values: [1] },
    { tag: 277, type: TagType.SHORT, values: [spp] },
    { tag: 278, type: TagType.LONG, values: [spec.height] },
    { tag: 284, type: TagType.SHORT, values: [1] },
    { tag: 339, type: TagType.SHORT, values: new Array<number>(spp).fill(spec.sampleFormat ?? 3) },
  ];
  if (spec.pixelScale) tags.push({ tag: 33550, type: TagType.DOUBLE, values: spec.pixelScale });
  if (spec.tiepoint) tags.push({ tag: 33922, type: TagType.DOUBLE, values: spec.tiepoint });
  if (spec.transformation) tags.push({ tag: 34264, type: TagType.DOUBLE, values: spec.transformation });
  if (spec.geoKeys) {
    const keys = encodeGeoKeyDirectory(spec.geoKeys);
    tags.push({ tag: 34735, type: TagType.SHORT, values: Array.from(keys.directory) });
    if (keys.doubles.length) tags.push({ tag: 34736, type: TagType.DOUBLE, values: Array.from(keys.doubles) });
    if (keys.ascii) tags.push({ tag: 34737, type: TagType.ASCII, values: keys.ascii });
  }
  if (spec.nodata !== undefined) tags.push({ tag: 42113, type: TagType.ASCII, values: spec.nodata });
  const tiff = assembleTiff(tags, [spec.data]);
  relabelTileTagsAsStrips(tiff);
  return tiff;
}

/** Turns TileOffsets/TileByteCounts (324/325) into StripOffsets/StripByteCounts (273/279) in place. */
function relabelTileTagsAsStrips(tiff: Buffer): void {
  const ifd = tiff.readUInt32LE(4);
  const count = tiff.readUInt16LE(ifd);
  const entries: Buffer[] = [];
  for (let k = 0; k < count; k++) {
    const at = ifd + 2 + 12 * k;
    const tag = tiff.readUInt16LE(at);
    if (tag === 324) tiff.writeUInt16LE(273, at);
    if (tag === 325) tiff.writeUInt16LE(279, at);
    entries.push(Buffer.from(tiff.subarray(at, at + 12)));
  }
  // Entries must stay sorted by tag.
  entries.sort((a, b) => a.readUInt16LE(0) - b.readUInt16LE(0));
  entries.forEach((e, k) => e.copy(tiff, ifd + 2 + 12 * k));
}
