/**
 * The PROJ definitions of the coordinate systems most DEMs come in, written as `geotiff-geokeys-to-proj4` writes
 * them, without loading that library: its EPSG tables (1.5 MB of JavaScript) take about 80 ms to load, on the
 * main thread of every process that reads a DEM, before the worker threads can start. A test holds every
 * definition here equal to the library's (test/raster/commonCrs.test.ts); any other coordinate system, or any
 * GeoKey beyond those GDAL writes for these, is left to the library.
 *
 * Covered: the UTM zones (EPSG method 9807, transverse Mercator with k₀ 0.9996, false easting 500 km, false
 * northing 10 000 km in the south) of WGS 84 (EPSG:32601–32660 north, 32701–32760 south), NAD83 (26901–26923),
 * NAD27 (26701–26722) and ETRS89 (25828–25838), and the geographic systems WGS 84 (4326), NAD83 (4269), ETRS89
 * (4258) and NAD27 (4267).
 */
import type { GeoKeys, ProjectionParameters } from 'geotiff-geokeys-to-proj4';

/** The ellipsoids of the covered systems, as the library writes them (its +a and +b). */
const ELLIPSOIDS = {
  WGS84: '+ellps=WGS84 +a=6378137 +b=6356752.314245179',
  GRS80: '+ellps=GRS80 +a=6378137 +b=6356752.314140356',
  clrk66: '+ellps=clrk66 +a=6378206.4 +b=6356583.8',
} as const;
type Ellipsoid = keyof typeof ELLIPSOIDS;

/** UTM families: the EPSG code of the first zone, the zones covered, the ellipsoid and the hemisphere. */
const UTM_FAMILIES: readonly { firstCode: number; firstZone: number; lastZone: number; ellipsoid: Ellipsoid; south: boolean }[] = [
  { firstCode: 32601, firstZone: 1, lastZone: 60, ellipsoid: 'WGS84', south: false },
  { firstCode: 32701, firstZone: 1, lastZone: 60, ellipsoid: 'WGS84', south: true },
  { firstCode: 26901, firstZone: 1, lastZone: 23, ellipsoid: 'GRS80', south: false },
  { firstCode: 26701, firstZone: 1, lastZone: 22, ellipsoid: 'clrk66', south: false },
  { firstCode: 25828, firstZone: 28, lastZone: 38, ellipsoid: 'GRS80', south: false },
];

/** Geographic systems by EPSG code, with their ellipsoid. */
const GEOGRAPHIC: Readonly<Record<number, Ellipsoid>> = { 4326: 'WGS84', 4269: 'GRS80', 4258: 'GRS80', 4267: 'clrk66' };

/** EPSG unit codes: metre (ProjLinearUnits) and degree (GeogAngularUnits), the covered systems' own units. */
const EPSG_METRE = 9001;
const EPSG_DEGREE = 9102;

/**
 * The GeoKeys GDAL writes for the covered systems, each with the values that leave the definition as the EPSG code
 * alone gives it ('text': any text; 'number': any number, the code itself). GeogTOWGS84GeoKey (GDAL writes 0,0,0 for
 * NAD83) is handled apart.
 */
const NEUTRAL_KEYS: Readonly<Record<string, 'text' | 'number' | readonly number[]>> = {
  GTModelTypeGeoKey: [1, 2],
  GTRasterTypeGeoKey: [1, 2],
  GTCitationGeoKey: 'text',
  GeogCitationGeoKey: 'text',
  PCSCitationGeoKey: 'text',
  ProjectedCSTypeGeoKey: 'number',
  GeographicTypeGeoKey: 'number',
  ProjLinearUnitsGeoKey: [EPSG_METRE],
  GeogAngularUnitsGeoKey: [EPSG_DEGREE],
};

/** The semi-major axis and inverse flattening GDAL writes with a geographic system, by ellipsoid. */
const ELLIPSOID_KEYS: Readonly<Record<Ellipsoid, readonly [number, readonly number[]]>> = {
  WGS84: [6378137, [298.257223563]],
  GRS80: [6378137, [298.257222101, 298.257222101004]],
  clrk66: [6378206.4, [294.978698213898, 294.9786982138982]],
};

/**
 * `toProj4(keys)` of `geotiff-geokeys-to-proj4` for the covered systems (see the module comment), or null: the
 * keys name another system, or carry a key that could change the definition.
 */
export function commonCrsDefinition(keys: GeoKeys): ProjectionParameters | null {
  const named = keys as unknown as Record<string, unknown>;
  const model = named.GTModelTypeGeoKey;
  const geographic = model === 2;
  const code = named[geographic ? 'GeographicTypeGeoKey' : 'ProjectedCSTypeGeoKey'];
  if ((model !== 1 && model !== 2) || typeof code !== 'number') return null;
  if (named[geographic ? 'ProjectedCSTypeGeoKey' : 'GeographicTypeGeoKey'] !== undefined) return null;
  const system = geographic ? geographicSystem(code) : utmSystem(code);
  if (!system) return null;
  let towgs84 = '';
  for (const [name, value] of Object.entries(named)) {
    if (value === undefined) continue;
    if (name === 'GeogTOWGS84GeoKey') {
      const shift = towgs84Values(value);
      if (!shift) return null;
      towgs84 = ` +towgs84=${shift.join(',')}`;
      continue;
    }
    if (geographic && (name === 'GeogSemiMajorAxisGeoKey' || name === 'GeogInvFlatteningGeoKey')) {
      const [semiMajor, inverseFlattenings] = ELLIPSOID_KEYS[system.ellipsoid];
      if (name === 'GeogSemiMajorAxisGeoKey' ? value !== semiMajor : !inverseFlattenings.includes(value as number)) return null;
      continue;
    }
    const allowed = NEUTRAL_KEYS[name];
    if (allowed === undefined) return null;
    if (allowed === 'text' ? typeof value !== 'string' : allowed === 'number' ? typeof value !== 'number' : !allowed.includes(value as number)) return null;
  }
  return {
    proj4: `${system.head} ${ELLIPSOIDS[system.ellipsoid]} +pm=0${towgs84} +axis=${geographic ? 'ne' : 'en'} +no_defs `,
    coordinatesConversionParameters: { x: 1, y: 1, z: 1 },
    shouldConvertCoordinates: false,
    coordinatesUnits: geographic ? 'degree' : 'metre',
    isGCS: geographic,
    errors: {},
  } as ProjectionParameters;
}

/** The projection part of a covered UTM zone's definition, with its ellipsoid; null for another code. */
function utmSystem(code: number): { head: string; ellipsoid: Ellipsoid } | null {
  for (const family of UTM_FAMILIES) {
    const zone = family.firstZone + code - family.firstCode;
    if (zone < family.firstZone || zone > family.lastZone) continue;
    const centralMeridianDeg = 6 * zone - 183;
    return {
      head: `+proj=tmerc +lat_0=0 +lon_0=${centralMeridianDeg} +k_0=0.9996 +x_0=500000 +y_0=${family.south ? 10000000 : 0}`,
      ellipsoid: family.ellipsoid,
    };
  }
  return null;
}

function geographicSystem(code: number): { head: string; ellipsoid: Ellipsoid } | null {
  const ellipsoid = GEOGRAPHIC[code];
  return ellipsoid ? { head: '+proj=longlat', ellipsoid } : null;
}

/** A datum shift of three or seven zeros (what GDAL writes for NAD83), as the library prints it; else null. */
function towgs84Values(value: unknown): number[] | null {
  const values = Array.isArray(value) || ArrayBuffer.isView(value) ? Array.from(value as ArrayLike<number>) : typeof value === 'object' && value ? Object.values(value) : null;
  if (!values || (values.length !== 3 && values.length !== 7) || values.some((v) => v !== 0)) return null;
  return values as number[];
}
