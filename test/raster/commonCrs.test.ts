// Needs: gdal
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { GeoKeys, ProjectionParameters } from 'geotiff-geokeys-to-proj4';
import { commonCrsDefinition } from '../../src/raster/geo/commonCrs.js';
import { crsFromGeoKeys } from '../../src/raster/geo/crs.js';
import { geoKeysByName } from '../../src/raster/geotiff/geoKeys.js';
import { readDem } from '../../src/raster/geotiff/readGeoTiff.js';
import { FIXTURE_DEM, tempDir, translateAsync } from './gdal.js';

// the library itself: every definition of the fast path must be the one it gives
const library = createRequire(import.meta.url)('geotiff-geokeys-to-proj4') as { toProj4(keys: GeoKeys): ProjectionParameters };

const utmCodes = [
  ...range(32601, 32660),
  ...range(32701, 32760),
  ...range(26901, 26923),
  ...range(26701, 26722),
  ...range(25828, 25838),
];
const geographicCodes = [4326, 4269, 4258, 4267];

function range(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

function assertAsLibrary(keys: Record<string, unknown>): void {
  const fast = commonCrsDefinition(keys as unknown as GeoKeys);
  assert.ok(fast, `${JSON.stringify(keys)} takes the fast path`);
  assert.deepEqual(fast, library.toProj4(keys as unknown as GeoKeys), JSON.stringify(keys));
}

describe('the common coordinate systems without the EPSG tables', () => {
  test('every covered UTM zone and geographic system, keyed by its code alone, is defined as the library defines it', () => {
    for (const code of utmCodes) assertAsLibrary({ GTModelTypeGeoKey: 1, ProjectedCSTypeGeoKey: code });
    for (const code of geographicCodes) assertAsLibrary({ GTModelTypeGeoKey: 2, GeographicTypeGeoKey: code });
  });

  test('and keyed as GDAL keys them: citations, units, raster type, a zero datum shift', () => {
    for (const code of utmCodes) {
      for (const towgs84 of [undefined, [0, 0, 0], [0, 0, 0, 0, 0, 0, 0]]) {
        assertAsLibrary({
          GTModelTypeGeoKey: 1,
          GTRasterTypeGeoKey: code % 2 === 0 ? 1 : 2,
          GTCitationGeoKey: `UTM ${code}`,
          GeogCitationGeoKey: 'datum',
          GeogAngularUnitsGeoKey: 9102,
          ...(towgs84 ? { GeogTOWGS84GeoKey: towgs84 } : {}),
          ProjectedCSTypeGeoKey: code,
          ProjLinearUnitsGeoKey: 9001,
        });
      }
    }
  });

  test('keys that could change the definition, and other systems, are left to the library', () => {
    const utm = { GTModelTypeGeoKey: 1, ProjectedCSTypeGeoKey: 32633 };
    const refused: Record<string, unknown>[] = [
      { ...utm, ProjLinearUnitsGeoKey: 9002 }, // feet
      { ...utm, GeogTOWGS84GeoKey: [1, 2, 3] },
      { ...utm, ProjNatOriginLongGeoKey: 10 },
      { ...utm, GeographicTypeGeoKey: 4326 },
      { ...utm, GTModelTypeGeoKey: 3 },
      { ...utm, ProjectedCSTypeGeoKey: 32661 }, // UPS north
      { ...utm, ProjectedCSTypeGeoKey: 2056 }, // Swiss oblique Mercator
      { ...utm, ProjectedCSTypeGeoKey: 32767 }, // user-defined
      { ...utm, VerticalUnitsGeoKey: 9002 },
      { GTModelTypeGeoKey: 2, GeographicTypeGeoKey: 4326, GeogAngularUnitsGeoKey: 9105 }, // grads
      { GTModelTypeGeoKey: 2, GeographicTypeGeoKey: 4326, GeogInvFlatteningGeoKey: 300 },
      { GTModelTypeGeoKey: 2, GeographicTypeGeoKey: 4322 }, // WGS 72
      { GTModelTypeGeoKey: 2 },
    ];
    for (const keys of refused) assert.equal(commonCrsDefinition(keys as unknown as GeoKeys), null, JSON.stringify(keys));
  });
});

describe('GeoTIFFs GDAL writes in the common systems', () => {
  let dir = '';
  let cleanup = () => {};
  before(() => ({ dir, cleanup } = tempDir('common-crs')));
  after(() => cleanup());

  test('read with the fast path, their coordinate systems are those the library gives', async () => {
    const codes = [32612, 32719, 26913, 26712, 25832, 4326, 4269, 4258, 4267];
    const files = await Promise.all(codes.map((code) => translateAsync(FIXTURE_DEM, join(dir, `${code}.tif`), ['-a_srs', `EPSG:${code}`])));
    for (const file of [FIXTURE_DEM, ...files]) {
      const { geoKeys } = (await readDem(file)).grid;
      assertAsLibrary(geoKeysByName(geoKeys));
      const crs = crsFromGeoKeys(geoKeys);
      assert.equal(crs.proj4, library.toProj4(geoKeysByName(geoKeys) as unknown as GeoKeys).proj4.trim(), file);
    }
  });
});
