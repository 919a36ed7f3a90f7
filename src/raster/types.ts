/**
 * The raster types every layer shares: a north-up grid with its georeferencing, and a DEM on it.
 * Arrays are row-major, row 0 is the northern edge, column 0 the western edge: index = row * width + col.
 */

/** GDAL-order affine geotransform: [originX, pixelWidth, rowRotation, originY, colRotation, pixelHeight]. */
export type GeoTransform = readonly [number, number, number, number, number, number];

/** One GeoKey as stored in a GeoTIFF's GeoKeyDirectory (value: SHORT, DOUBLE or ASCII). */
export interface GeoKeyEntry {
  readonly id: number;
  readonly value: number | readonly number[] | string;
}

/** Coordinate reference system of a grid. */
export interface CrsInfo {
  /** `projected`: x/y in metres. `geographic`: x = longitude, y = latitude, in degrees. */
  readonly kind: 'projected' | 'geographic';
  /** proj4 definition of the CRS, as derived from the GeoKeys. */
  readonly proj4: string;
  /** EPSG code when the GeoKeys name one (e.g. 26913), else null. */
  readonly epsg: number | null;
  /** Human-readable name, e.g. "NAD83 / UTM zone 13N". */
  readonly name: string;
}

/** Size and georeferencing of a north-up raster (no rotation or shear). */
export interface GridSpec {
  readonly width: number;
  readonly height: number;
  /** pixelWidth > 0, pixelHeight < 0, rotation terms 0. */
  readonly geoTransform: GeoTransform;
  readonly crs: CrsInfo;
  /** GeoKeys of the source file, written back unchanged into every output so GDAL sees the same CRS. */
  readonly geoKeys: readonly GeoKeyEntry[];
  /** 1 = PixelIsArea (the default), 2 = PixelIsPoint, as in the source's GTRasterTypeGeoKey. */
  readonly rasterType: 1 | 2;
}

/**
 * A digital elevation model: elevations in metres, NaN where the source had nodata; Float64 unless it was
 * read as Float32 (`readDem(path, { precision: 'float32' })`).
 */
export interface Dem<E extends Float32Array | Float64Array = Float64Array> {
  readonly grid: GridSpec;
  readonly elevation: E;
  /** Number of cells that are not nodata. */
  readonly validCount: number;
  /** Nodata value declared by the source (GDAL_NODATA), or null; nodata cells are NaN in `elevation` regardless. */
  readonly sourceNodata: number | null;
}

/** A raster that failed to read or does not qualify as a DEM. `code` says which rule it broke. */
export class RasterFormatError extends Error {
  constructor(
    readonly code:
      | 'NOT_TIFF'
      | 'TRUNCATED'
      | 'DAMAGED'
      | 'TOO_LARGE'
      | 'OUT_OF_MEMORY'
      | 'NO_GEOREFERENCE'
      | 'ROTATED'
      | 'MULTIBAND'
      | 'UNSUPPORTED_SAMPLE_FORMAT'
      | 'UNSUPPORTED_COMPRESSION'
      | 'UNSUPPORTED_CRS'
      | 'ALL_NODATA'
      | 'TOO_SMALL',
    message: string,
  ) {
    super(message);
    this.name = 'RasterFormatError';
  }
}
