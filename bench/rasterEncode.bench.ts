/**
 * Timing and size of `encodeFloat32GeoTiff` on product-like fields: a smooth irradiance-like field with full
 * float mantissas and a sunshine-hours-like field with few distinct values, at 228×211 (the mcn_10m grid)
 * and 1000×1000, for several zlib levels.
 * Run: node --import tsx bench/rasterEncode.bench.ts [levels, e.g. 1,2,6]
 */
import { encodeFloat32GeoTiff } from '../src/raster/writeGeoTiff.js';
import type { GridSpec } from '../src/raster/types.js';

function grid(width: number, height: number): GridSpec {
  return {
    width,
    height,
    geoTransform: [352120, 10, 0, 3964370, 0, -10],
    crs: { kind: 'projected', proj4: '+proj=utm +zone=13 +ellps=GRS80 +units=m +no_defs', epsg: 26913, name: 'NAD83 / UTM zone 13N' },
    geoKeys: [
      { id: 1024, value: 1 },
      { id: 1025, value: 1 },
      { id: 1026, value: 'NAD83 / UTM zone 13N' },
      { id: 3072, value: 26913 },
    ],
    rasterType: 1,
  };
}

/** Terrain-modulated daily irradiance [Wh m⁻²]: smooth large-scale part times a cell-scale cosine factor. */
function irradianceField(width: number, height: number): Float32Array {
  const v = new Float32Array(width * height);
  for (let r = 0; r < height; r++) {
    for (let c = 0; c < width; c++) {
      const slope = 0.3 * Math.sin(c * 0.07 + Math.cos(r * 0.05)) + 0.2 * Math.sin((c + 2 * r) * 0.013);
      v[r * width + c] = 6500 + 1800 * Math.cos(slope) * (1 + 0.1 * Math.sin(r * 0.11)) - 900 * Math.max(0, Math.sin(c * 0.031 - r * 0.017));
    }
  }
  v[0] = NaN;
  return v;
}

/** Sunshine hours: quarter-hour steps between 8 and 14.5 h. */
function hoursField(width: number, height: number): Float32Array {
  const v = irradianceField(width, height);
  for (let i = 0; i < v.length; i++) v[i] = Math.round(((v[i]! - 4000) / 4500) * 26) / 4 + 8;
  return v;
}

function measure(label: string, g: GridSpec, values: Float32Array, level: number, zlibStrategy: 'default' | 'rle'): void {
  const runs = g.width * g.height > 100_000 ? 10 : 100;
  let bytes = 0;
  encodeFloat32GeoTiff(g, values, { level, zlibStrategy });
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) bytes = encodeFloat32GeoTiff(g, values, { level, zlibStrategy }).length;
  const ms = (performance.now() - t0) / runs;
  console.log(`${label.padEnd(22)} ${zlibStrategy.padEnd(7)} level ${level}: ${ms.toFixed(2).padStart(7)} ms/file ${String(bytes).padStart(9)} bytes`);
}

const levels = (process.argv[2] ?? '1,2,4,6').split(',').map(Number);
for (const [w, h] of [[228, 211], [1000, 1000]] as const) {
  const g = grid(w, h);
  const irr = irradianceField(w, h);
  const hrs = hoursField(w, h);
  for (const zlibStrategy of ['rle', 'default'] as const) {
    for (const level of zlibStrategy === 'rle' ? [1] : levels) {
      measure(`${w}×${h} irradiance`, g, irr, level, zlibStrategy);
      measure(`${w}×${h} hours`, g, hrs, level, zlibStrategy);
    }
  }
}
