/**
 * Coordinate reference system of a GeoTIFF from its GeoKeys, via `geotiff-geokeys-to-proj4` (the common systems
 * without loading it: commonCrs.ts).
 *
 * Units policy: a projected CRS must measure x/y in metres and a geographic CRS in degrees. Grids in feet
 * (e.g. US State Plane ftUS) are refused with a message that says how to reproject them, because the rest
 * of the pipeline reads cell sizes and elevations as metres; the same goes for elevation units declared
 * in feet by the vertical GeoKeys.
 */
import { createRequire } from 'node:module';
import type { GeoKeys, ProjectionParameters } from 'geotiff-geokeys-to-proj4';
import proj4 from './proj4.js';
import { commonCrsDefinition } from './commonCrs.js';
import { GeoKey, geoKeysByName, geoKeyValue } from '../geotiff/geoKeys.js';
import { RasterFormatError, type CrsInfo, type GeoKeyEntry } from '../types.js';

/** EPSG unit-of-measure codes for metre, used by ProjLinearUnitsGeoKey / VerticalUnitsGeoKey. */
const EPSG_METRE = 9001;
/** EPSG angular unit codes accepted for geographic grids: degree (9102) and its DMS/hemisphere variants. */
const EPSG_DEGREE_UNITS = new Set([9102, 9110, 9122]);
const USER_DEFINED = 32767;

const require = createRequire(import.meta.url);

/**
 * `toProj4` of `geotiff-geokeys-to-proj4`: the common systems without it (commonCrs.ts), the library, with its
 * EPSG tables, loaded only for the others.
 */
function toProj4(keys: GeoKeys): ProjectionParameters {
  const common = commonCrsDefinition(keys);
  if (common) return common;
  const library = require('geotiff-geokeys-to-proj4') as { toProj4(keys: GeoKeys): ProjectionParameters };
  return library.toProj4(keys);
}

/** Reads the CRS of a raster from its GeoKeys; throws NO_GEOREFERENCE or UNSUPPORTED_CRS. */
export function crsFromGeoKeys(entries: readonly GeoKeyEntry[]): CrsInfo {
  const hasCrsKeys = [GeoKey.GTModelType, GeoKey.ProjectedCSType, GeoKey.GeographicType].some((id) => geoKeyValue(entries, id) !== undefined);
  if (!hasCrsKeys) {
    throw new RasterFormatError(
      'NO_GEOREFERENCE',
      'The GeoTIFF has no coordinate system (no GeoKeys). Assign one, e.g. gdal_translate -a_srs EPSG:32613 in.tif out.tif.',
    );
  }
  const epsgProjected = numberKey(entries, GeoKey.ProjectedCSType);
  const epsgGeographic = numberKey(entries, GeoKey.GeographicType);
  const modelType = numberKey(entries, GeoKey.GTModelType) ?? (epsgProjected ? 1 : epsgGeographic ? 2 : undefined);

  if (modelType === 3) {
    throw new RasterFormatError('UNSUPPORTED_CRS', 'The GeoTIFF uses a geocentric (earth-centred XYZ) coordinate system; a projected or geographic grid is required.');
  }
  if (modelType !== 1 && modelType !== 2) {
    throw new RasterFormatError(
      'NO_GEOREFERENCE',
      'The GeoTIFF does not say whether its grid is projected or geographic (GTModelTypeGeoKey missing), so its coordinate system is unknown.',
    );
  }
  const kind = modelType === 1 ? 'projected' : 'geographic';
  const epsgCode = kind === 'projected' ? epsgProjected : epsgGeographic;
  const epsg = epsgCode !== undefined && epsgCode !== USER_DEFINED && epsgCode > 0 ? epsgCode : null;
  const name = crsName(entries, kind, epsg);

  const converted = toProj4(geoKeysByName(entries) as unknown as GeoKeys);
  const errorKeys = Object.keys(converted.errors ?? {});
  if (errorKeys.length > 0 || !converted.proj4) {
    throw new RasterFormatError(
      'UNSUPPORTED_CRS',
      `The coordinate system "${name}" cannot be used (${errorKeys.join(', ') || 'no PROJ definition'}). Reproject the DEM to a UTM zone, e.g. gdalwarp -t_srs EPSG:32613 in.tif out.tif.`,
    );
  }
  if (converted.isGCS !== (kind === 'geographic')) {
    throw new RasterFormatError('UNSUPPORTED_CRS', `The GeoKeys of "${name}" contradict each other (model type says ${kind}).`);
  }

  const factor = converted.coordinatesConversionParameters;
  if (kind === 'projected') {
    const declared = numberKey(entries, GeoKey.ProjLinearUnits);
    if (converted.coordinatesUnits !== 'metre' || factor.x !== 1 || factor.y !== 1 || (declared !== undefined && declared !== EPSG_METRE && declared !== USER_DEFINED)) {
      const perUnit = factor.x !== 1 ? ` (1 unit = ${factor.x} m)` : '';
      throw new RasterFormatError(
        'UNSUPPORTED_CRS',
        `The projected coordinate system "${name}" does not measure x/y in metres${perUnit}. Reproject the DEM to a metre-based CRS, e.g. gdalwarp -t_srs EPSG:32613 in.tif out.tif.`,
      );
    }
  } else {
    const declared = numberKey(entries, GeoKey.GeogAngularUnits);
    if (factor.x !== 1 || factor.y !== 1 || (declared !== undefined && !EPSG_DEGREE_UNITS.has(declared))) {
      throw new RasterFormatError('UNSUPPORTED_CRS', `The geographic coordinate system "${name}" does not measure longitude/latitude in degrees.`);
    }
  }
  const verticalUnits = numberKey(entries, GeoKey.VerticalUnits);
  if ((verticalUnits !== undefined && verticalUnits !== EPSG_METRE && verticalUnits !== USER_DEFINED) || factor.z !== 1) {
    const perUnit = factor.z !== 1 ? ` (1 unit = ${factor.z} m)` : '';
    throw new RasterFormatError(
      'UNSUPPORTED_CRS',
      `The DEM declares elevations in a unit other than metres${perUnit}; convert them to metres first (gdal_calc.py, or gdal_translate -scale).`,
    );
  }

  const definition = withPolarOrigin(converted.proj4.trim());
  try {
    proj4.Proj(definition);
  } catch {
    throw new RasterFormatError('UNSUPPORTED_CRS', `The coordinate system "${name}" uses a projection this service cannot compute (${definition}).`);
  }
  return { kind, proj4: definition, epsg, name };
}

/**
 * Polar stereographic variant B (EPSG method 9829, e.g. EPSG:3031 Antarctic, 3995 Arctic) comes out of
 * geotiff-geokeys-to-proj4 without +lat_0, which proj4 then takes as 0 (an equatorial projection). The
 * projection's origin is the pole on the side of the standard parallel.
 */
function withPolarOrigin(definition: string): string {
  if (!/\+proj=stere\b/.test(definition) || /\+lat_0=/.test(definition)) return definition;
  const latTs = /\+lat_ts=(-?[\d.]+)/.exec(definition);
  if (!latTs) return definition;
  return definition.replace('+proj=stere', `+proj=stere +lat_0=${Number(latTs[1]) < 0 ? -90 : 90}`);
}

function numberKey(entries: readonly GeoKeyEntry[], id: number): number | undefined {
  const v = geoKeyValue(entries, id);
  return typeof v === 'number' ? v : undefined;
}

/** Citation text (up to a '|' or GDAL's "PCS Name = " style prefix), else "EPSG:code", else a generic name. */
function crsName(entries: readonly GeoKeyEntry[], kind: CrsInfo['kind'], epsg: number | null): string {
  const citationKeys = kind === 'projected' ? [GeoKey.GTCitation, GeoKey.PCSCitation] : [GeoKey.GeogCitation, GeoKey.GTCitation];
  for (const id of citationKeys) {
    const v = geoKeyValue(entries, id);
    if (typeof v === 'string' && v.trim() !== '') {
      const text = v.split('|')[0]!.replace(/^(PCS|GCS) Name = /, '').trim();
      if (text !== '') return text;
    }
  }
  if (epsg !== null) return `EPSG:${epsg}`;
  return kind === 'projected' ? 'user-defined projected CRS' : 'user-defined geographic CRS';
}
