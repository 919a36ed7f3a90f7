/**
 * GeoTIFF GeoKeys: decoding the raw GeoKeyDirectory into `GeoKeyEntry` items, encoding them back, and the
 * value type each key has in the GeoTIFF 1.0/1.1 specification.
 */
import { RasterFormatError, type GeoKeyEntry } from '../types.js';

/** TIFF tags that hold the GeoKeys. */
export const GEO_KEY_DIRECTORY_TAG = 34735;
export const GEO_DOUBLE_PARAMS_TAG = 34736;
export const GEO_ASCII_PARAMS_TAG = 34737;

/** Well-known GeoKey ids used by this module. */
export const GeoKey = {
  GTModelType: 1024,
  GTRasterType: 1025,
  GTCitation: 1026,
  GeographicType: 2048,
  GeogCitation: 2049,
  GeogAngularUnits: 2054,
  ProjectedCSType: 3072,
  PCSCitation: 3073,
  ProjLinearUnits: 3076,
  VerticalCSType: 4096,
  VerticalUnits: 4099,
} as const;

/** Names of the GeoKeys, as the GeoTIFF specification (and `geotiff-geokeys-to-proj4`) spells them. */
const GEO_KEY_NAMES: Readonly<Record<number, string>> = {
  1024: 'GTModelTypeGeoKey',
  1025: 'GTRasterTypeGeoKey',
  1026: 'GTCitationGeoKey',
  2048: 'GeographicTypeGeoKey',
  2049: 'GeogCitationGeoKey',
  2050: 'GeogGeodeticDatumGeoKey',
  2051: 'GeogPrimeMeridianGeoKey',
  2052: 'GeogLinearUnitsGeoKey',
  2053: 'GeogLinearUnitSizeGeoKey',
  2054: 'GeogAngularUnitsGeoKey',
  2055: 'GeogAngularUnitSizeGeoKey',
  2056: 'GeogEllipsoidGeoKey',
  2057: 'GeogSemiMajorAxisGeoKey',
  2058: 'GeogSemiMinorAxisGeoKey',
  2059: 'GeogInvFlatteningGeoKey',
  2060: 'GeogAzimuthUnitsGeoKey',
  2061: 'GeogPrimeMeridianLongGeoKey',
  2062: 'GeogTOWGS84GeoKey',
  3072: 'ProjectedCSTypeGeoKey',
  3073: 'PCSCitationGeoKey',
  3074: 'ProjectionGeoKey',
  3075: 'ProjCoordTransGeoKey',
  3076: 'ProjLinearUnitsGeoKey',
  3077: 'ProjLinearUnitSizeGeoKey',
  3078: 'ProjStdParallel1GeoKey',
  3079: 'ProjStdParallel2GeoKey',
  3080: 'ProjNatOriginLongGeoKey',
  3081: 'ProjNatOriginLatGeoKey',
  3082: 'ProjFalseEastingGeoKey',
  3083: 'ProjFalseNorthingGeoKey',
  3084: 'ProjFalseOriginLongGeoKey',
  3085: 'ProjFalseOriginLatGeoKey',
  3086: 'ProjFalseOriginEastingGeoKey',
  3087: 'ProjFalseOriginNorthingGeoKey',
  3088: 'ProjCenterLongGeoKey',
  3089: 'ProjCenterLatGeoKey',
  3090: 'ProjCenterEastingGeoKey',
  3091: 'ProjCenterNorthingGeoKey',
  3092: 'ProjScaleAtNatOriginGeoKey',
  3093: 'ProjScaleAtCenterGeoKey',
  3094: 'ProjAzimuthAngleGeoKey',
  3095: 'ProjStraightVertPoleLongGeoKey',
  3096: 'ProjRectifiedGridAngleGeoKey',
  4096: 'VerticalCSTypeGeoKey',
  4097: 'VerticalCitationGeoKey',
  4098: 'VerticalDatumGeoKey',
  4099: 'VerticalUnitsGeoKey',
  5120: 'CoordinateEpochGeoKey',
};

/** Keys whose value is DOUBLE (stored in GeoDoubleParams) even when it happens to be a whole number. */
function isDoubleKey(id: number): boolean {
  return (
    id === 2053 || id === 2055 || id === 2057 || id === 2058 || id === 2059 || id === 2061 || id === 2062 ||
    (id >= 3077 && id <= 3096) ||
    id === 5120
  );
}

/**
 * Decodes the raw GeoKeyDirectory (SHORT array: header [version, revision, minor, count] then
 * [id, location, count, valueOrOffset] per key) with its DOUBLE and ASCII parameter tags.
 * ASCII values lose their trailing '|' separator. Throws NO_GEOREFERENCE when the directory is malformed.
 */
export function decodeGeoKeyDirectory(
  directory: ArrayLike<number>,
  doubles: ArrayLike<number> | undefined,
  ascii: string | undefined,
): GeoKeyEntry[] {
  const malformed = (why: string) =>
    new RasterFormatError('NO_GEOREFERENCE', `The GeoTIFF's GeoKey directory is damaged (${why}), so its coordinate system cannot be read.`);
  if (directory.length < 4) throw malformed('too short');
  const keyCount = directory[3]!;
  if (directory.length < 4 + 4 * keyCount) throw malformed('fewer keys than announced');
  const entries: GeoKeyEntry[] = [];
  for (let k = 0; k < keyCount; k++) {
    const base = 4 + 4 * k;
    const id = directory[base]!;
    const location = directory[base + 1]!;
    const count = directory[base + 2]!;
    const offset = directory[base + 3]!;
    let value: GeoKeyEntry['value'];
    if (location === 0) {
      value = offset;
    } else if (location === GEO_DOUBLE_PARAMS_TAG) {
      if (!doubles || offset + count > doubles.length) throw malformed(`key ${id} points past GeoDoubleParams`);
      const slice = Array.from({ length: count }, (_, i) => doubles[offset + i]!);
      value = count === 1 ? slice[0]! : slice;
    } else if (location === GEO_ASCII_PARAMS_TAG) {
      if (ascii === undefined || offset + count > ascii.length + 1) throw malformed(`key ${id} points past GeoAsciiParams`);
      value = ascii.substring(offset, offset + count).replace(/[|\0]+$/, '');
    } else if (location === GEO_KEY_DIRECTORY_TAG) {
      if (offset + count > directory.length) throw malformed(`key ${id} points past the directory`);
      const slice = Array.from({ length: count }, (_, i) => directory[offset + i]!);
      value = count === 1 ? slice[0]! : slice;
    } else {
      throw malformed(`key ${id} is stored in unknown tag ${location}`);
    }
    entries.push({ id, value });
  }
  return entries;
}

/** The three GeoTIFF tags that carry a set of GeoKeys. */
export interface EncodedGeoKeys {
  directory: Uint16Array;
  doubles: Float64Array;
  /** GeoAsciiParams content without the final NUL ('|'-terminated values). */
  ascii: string;
}

/**
 * Encodes GeoKeys into a GeoKeyDirectory (version 1.1.0, keys sorted by id) with GeoDoubleParams and
 * GeoAsciiParams. Strings go to the ASCII tag, DOUBLE-typed keys and non-SHORT numbers to the DOUBLE tag,
 * other numbers inline as SHORT.
 */
export function encodeGeoKeyDirectory(entries: readonly GeoKeyEntry[]): EncodedGeoKeys {
  const sorted = [...entries].sort((a, b) => a.id - b.id);
  const directory: number[] = [1, 1, 0, sorted.length];
  const doubles: number[] = [];
  let ascii = '';
  const isShort = (v: number) => Number.isInteger(v) && v >= 0 && v <= 0xffff;
  for (const { id, value } of sorted) {
    if (typeof value === 'string') {
      const text = `${value}|`;
      directory.push(id, GEO_ASCII_PARAMS_TAG, text.length, ascii.length);
      ascii += text;
    } else if (typeof value === 'number' && !isDoubleKey(id) && isShort(value)) {
      directory.push(id, 0, 1, value);
    } else {
      const values = typeof value === 'number' ? [value] : [...value];
      directory.push(id, GEO_DOUBLE_PARAMS_TAG, values.length, doubles.length);
      doubles.push(...values);
    }
  }
  return { directory: Uint16Array.from(directory), doubles: Float64Array.from(doubles), ascii };
}

/** GeoKeys as an object keyed by specification name (unknown ids are dropped), for `geotiff-geokeys-to-proj4`. */
export function geoKeysByName(entries: readonly GeoKeyEntry[]): Record<string, number | number[] | string> {
  const named: Record<string, number | number[] | string> = {};
  for (const { id, value } of entries) {
    const name = GEO_KEY_NAMES[id];
    if (name !== undefined) named[name] = typeof value === 'object' ? [...value] : value;
  }
  return named;
}

/** The value of GeoKey `id`, or undefined. */
export function geoKeyValue(entries: readonly GeoKeyEntry[], id: number): GeoKeyEntry['value'] | undefined {
  return entries.find((e) => e.id === id)?.value;
}
