/** Hand-built GridSpec objects for climate tests (no raster reading). */
import type { GridSpec } from '../../src/raster/types.js';

export const UTM13N_NAD83_PROJ4 = '+proj=utm +zone=13 +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs';

/** The grid of test/fixtures/mcn_10m.tif (values from `gdalinfo`): 228×211 cells of 10 m, NAD83 / UTM 13N. */
export function mcn10mGrid(): GridSpec {
  return {
    width: 228,
    height: 211,
    geoTransform: [352119.999999824329279, 10.0000000000651, 0, 3964369.999999904539436, 0, -10.000000000064],
    crs: { kind: 'projected', proj4: UTM13N_NAD83_PROJ4, epsg: 26913, name: 'NAD83 / UTM zone 13N' },
    geoKeys: [],
    rasterType: 1,
  };
}

/** A UTM 13N grid of `width`×`height` cells of `cellSize` metres with its north-west corner at (x0, y0). */
export function utm13Grid(width: number, height: number, cellSize = 10, x0 = 352120, y0 = 3964370): GridSpec {
  return {
    width,
    height,
    geoTransform: [x0, cellSize, 0, y0, 0, -cellSize],
    crs: { kind: 'projected', proj4: UTM13N_NAD83_PROJ4, epsg: 26913, name: 'NAD83 / UTM zone 13N' },
    geoKeys: [],
    rasterType: 1,
  };
}

/** A 100×100 grid of 10 m cells near Paris, in ETRS89 / UTM 31N (EPSG:25831). */
export function parisGrid(): GridSpec {
  return {
    width: 100,
    height: 100,
    geoTransform: [452000, 10, 0, 5411000, 0, -10],
    crs: { kind: 'projected', proj4: '+proj=utm +zone=31 +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m +no_defs', epsg: 25831, name: 'ETRS89 / UTM zone 31N' },
    geoKeys: [],
    rasterType: 1,
  };
}

/** A geographic (WGS84 lon/lat) grid of `width`×`height` cells of 1 arc-second starting at (lon0, lat0). */
export function lonLatGrid(width: number, height: number, lon0 = -106.64, lat0 = 35.82): GridSpec {
  const d = 1 / 3600;
  return {
    width,
    height,
    geoTransform: [lon0, d, 0, lat0, 0, -d],
    crs: { kind: 'geographic', proj4: '+proj=longlat +datum=WGS84 +no_defs', epsg: 4326, name: 'WGS 84' },
    geoKeys: [],
    rasterType: 1,
  };
}
