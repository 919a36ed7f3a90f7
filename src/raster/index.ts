/** Raster I/O: reading DEM and product GeoTIFFs, writing Float32 GeoTIFFs, and cell geodesy. */
export type { CrsInfo, Dem, GeoKeyEntry, GeoTransform, GridSpec } from './types.js';
export { RasterFormatError } from './types.js';
export {
  demFromRaster,
  readDem,
  readDemFromBuffer,
  readDemGrid,
  readRaster,
  readRasterFromBuffer,
  validateDem,
  validateDemFromBuffer,
  type DemSummary,
  type RasterData,
  type ReadLimits,
} from './geotiff/readGeoTiff.js';
export { inspectTiff, inspectTiffFile, type TiffLimits, type TiffSummary } from './tiff/tiffStructure.js';
export {
  DEFAULT_DEFLATE_LEVEL,
  DEFAULT_TILE_SIZE,
  encodeFloat32GeoTiff,
  writeFloat32GeoTiff,
  writeFloat32GeoTiffSync,
  type Float32GeoTiffOptions,
} from './geotiff/writeGeoTiff.js';
export { cellCentreLatitudes, createGeodesy, type Geodesy } from './geo/geodesy.js';
