/**
 * The affine georeferencing of a GeoTIFF (ModelTransformation, or ModelTiepoint + ModelPixelScale) as a
 * GDAL-order geotransform, and back. Like GDAL, the geotransform always refers to the outer corner of
 * pixel (0, 0): for PixelIsPoint rasters the tiepoint (a pixel centre) is shifted by half a pixel.
 */
import { RasterFormatError, type GeoTransform } from '../types.js';

export interface GeoreferenceTags {
  modelTransformation?: ArrayLike<number> | undefined;
  modelTiepoint?: ArrayLike<number> | undefined;
  modelPixelScale?: ArrayLike<number> | undefined;
}

/** Geotransform of a north-up raster; throws NO_GEOREFERENCE or ROTATED. */
export function geoTransformFromTags(tags: GeoreferenceTags, rasterType: 1 | 2): GeoTransform {
  const shift = rasterType === 2 ? 0.5 : 0;
  const { modelTransformation: m, modelTiepoint: tie, modelPixelScale: scale } = tags;
  let gt: [number, number, number, number, number, number];
  if (m && m.length >= 16) {
    // Row-major 4x4: x = m0*i + m1*j + m3, y = m4*i + m5*j + m7.
    gt = [m[3]!, m[0]!, m[1]!, m[7]!, m[4]!, m[5]!];
    gt[0] -= shift * (gt[1] + gt[2]);
    gt[3] -= shift * (gt[4] + gt[5]);
  } else if (tie && tie.length >= 6 && scale && scale.length >= 2) {
    if (tie.length > 6) {
      throw new RasterFormatError(
        'NO_GEOREFERENCE',
        'The GeoTIFF is georeferenced by several ground control points, not by a regular grid. Warp it first, e.g. gdalwarp -t_srs EPSG:32613 in.tif out.tif.',
      );
    }
    const [i, j, , x, y] = [tie[0]!, tie[1]!, tie[2]!, tie[3]!, tie[4]!];
    const sx = scale[0]!;
    const sy = scale[1]!;
    gt = [x - (i + shift) * sx, sx, 0, y + (j + shift) * sy, 0, -sy];
  } else if (tie && tie.length > 6) {
    throw new RasterFormatError(
      'NO_GEOREFERENCE',
      'The GeoTIFF is georeferenced only by ground control points, not by a regular grid. Warp it first, e.g. gdalwarp -t_srs EPSG:32613 in.tif out.tif.',
    );
  } else {
    throw new RasterFormatError(
      'NO_GEOREFERENCE',
      'The GeoTIFF has no georeferencing (neither ModelTransformation nor ModelTiepoint with ModelPixelScale), so cell positions and sizes are unknown.',
    );
  }
  if (!gt.every(Number.isFinite) || gt[1] === 0 || gt[5] === 0) {
    throw new RasterFormatError('NO_GEOREFERENCE', `The GeoTIFF's georeferencing is invalid (geotransform ${gt.join(', ')}).`);
  }
  if (gt[2] !== 0 || gt[4] !== 0) {
    throw new RasterFormatError(
      'ROTATED',
      'The DEM grid is rotated or sheared relative to its coordinate system; a north-up grid is required. Resample it first, e.g. gdalwarp in.tif out.tif.',
    );
  }
  if (gt[1] < 0 || gt[5] > 0) {
    throw new RasterFormatError(
      'ROTATED',
      'The DEM grid is flipped (rows run south to north or columns east to west); a north-up grid is required. Resample it first, e.g. gdalwarp in.tif out.tif.',
    );
  }
  return gt;
}

/** ModelTiepoint (pixel (0,0) or its centre for PixelIsPoint) and ModelPixelScale for a north-up geotransform. */
export function tagsFromGeoTransform(gt: GeoTransform, rasterType: 1 | 2): { tiepoint: number[]; pixelScale: number[] } {
  const shift = rasterType === 2 ? 0.5 : 0;
  return {
    tiepoint: [0, 0, 0, gt[0] + shift * gt[1], gt[3] + shift * gt[5], 0],
    pixelScale: [gt[1], -gt[5], 0],
  };
}
