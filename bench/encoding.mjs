// The DEFLATE settings of the GeoTIFF tiles, measured on real products: daily global irradiation and
// sunshine hours of mcn_10m for four days (computed here), cut into 256×256 tiles as the writer does,
// predictor 3 then zlib at each setting, and the WebAssembly encoder the `sol` workers use (src/raster/
// tileEncoderWasm.ts, Z_RLE's format); both of those also on 48×48 tiles (mcn_10m's in the pipeline). Prints one
// JSON line: per setting, encode MB/s (raw bytes in per second of one thread) and the compressed size relative
// to the raw bytes.
//   node bench/encoding.mjs [dem.tif]       (uses dist/: run `npm run build` first)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const dist = (path) => new URL(`../dist/${path}`, import.meta.url).href;
const { readDem, readRaster } = await import(dist('raster/geotiff/readGeoTiff.js'));
const { encodeFloat32Tile, rasterTiling } = await import(dist('raster/geotiff/writeGeoTiff.js'));
const { WasmTileEncoder } = await import(dist('raster/tiff/tileEncoderWasm.js'));
const { computeSolarYear } = await import(dist('workflows/solarYear/index.js'));

const demPath = process.argv[2] ?? fileURLToPath(new URL('../test/fixtures/mcn_10m.tif', import.meta.url));
const out = mkdtempSync(join(tmpdir(), 'bench-encoding-'));
const days = [1, 80, 172, 355];
const dem = await readDem(demPath, { precision: 'float32', shared: true });
await computeSolarYear(dem, { outDir: out, params: { stepMinutes: 15, linkeTurbidity: 3, albedo: 0.2 }, threads: 2, days });
const fields = { global: [], hours: [] };
for (const day of days) {
  fields.global.push((await readRaster(join(out, `global/daily/total_sun_day_${day}.tif`))).values);
  fields.hours.push((await readRaster(join(out, `insol/daily/hours_sun_day_${day}.tif`))).values);
}
rmSync(out, { recursive: true, force: true });

/** The writer's tiles of a field at `tiling`, NaN-padded. */
function tilesOf(values, tiling) {
  const tiles = [];
  const { width, height, tileWidth, tileHeight } = tiling;
  for (let t = 0; t < tiling.count; t++) {
    const tile = new Float32Array(tileWidth * tileHeight).fill(NaN);
    const col0 = (t % tiling.across) * tileWidth;
    const row0 = Math.floor(t / tiling.across) * tileHeight;
    for (let r = 0; r < tileHeight && row0 + r < height; r++) {
      for (let c = 0; c < tileWidth && col0 + c < width; c++) tile[r * tileWidth + c] = values[(row0 + r) * width + col0 + c];
    }
    tiles.push(tile);
  }
  return tiles;
}

const zlibSettings = [
  { name: 'rle', strategy: constants.Z_RLE, level: 1 },
  { name: 'huffman-only', strategy: constants.Z_HUFFMAN_ONLY, level: 1 },
  { name: 'level 1', strategy: constants.Z_DEFAULT_STRATEGY, level: 1 },
  { name: 'level 2', strategy: constants.Z_DEFAULT_STRATEGY, level: 2 },
  { name: 'level 4', strategy: constants.Z_DEFAULT_STRATEGY, level: 4 },
  { name: 'level 6', strategy: constants.Z_DEFAULT_STRATEGY, level: 6 },
  { name: 'level 9', strategy: constants.Z_DEFAULT_STRATEGY, level: 9 },
  { name: 'filtered 6', strategy: constants.Z_FILTERED, level: 6 },
];
/** Encoders of a tiling's tiles: zlib at each setting (`encodeFloat32Tile`), and the WebAssembly encoder. */
function encoders(tiling, names) {
  const scratch = new Uint8Array(tiling.tileWidth * tiling.tileHeight * 4);
  const wasm = new WasmTileEncoder(tiling.tileWidth, tiling.tileHeight);
  return [
    ...zlibSettings.map((setting) => ({ name: setting.name, encode: (tile) => encodeFloat32Tile(tile, tiling.tileWidth, tiling.tileHeight, setting, scratch) })),
    { name: 'wasm rle', encode: (tile) => wasm.encode(tile) },
  ].filter((e) => !names || names.includes(e.name));
}

const results = [];
for (const [tileSize, names] of [[256, null], [48, ['rle', 'wasm rle']]]) {
  const tiling = rasterTiling(dem.grid, tileSize);
  const tiles = { global: fields.global.flatMap((v) => tilesOf(v, tiling)), hours: fields.hours.flatMap((v) => tilesOf(v, tiling)) };
  for (const encoder of encoders(tiling, names)) {
    const row = { setting: encoder.name, tile: `${tiling.tileWidth}x${tiling.tileHeight}` };
    for (const [kind, list] of Object.entries(tiles)) {
      let bytes = 0;
      let raw = 0;
      let seconds = Infinity;
      for (let repeat = 0; repeat < 5; repeat++) {
        const t0 = performance.now();
        bytes = 0;
        raw = 0;
        for (const tile of list) {
          bytes += encoder.encode(tile).length;
          raw += tile.byteLength;
        }
        seconds = Math.min(seconds, (performance.now() - t0) / 1000);
      }
      row[`${kind}_mb_per_s`] = Number((raw / seconds / 1e6).toFixed(1));
      row[`${kind}_size_ratio`] = Number((bytes / raw).toFixed(4));
    }
    results.push(row);
  }
}
console.log(JSON.stringify({ benchmark: 'GeoTIFF tile encoding (predictor 3 + zlib, or the WebAssembly encoder), best of 5', dem: demPath, days, results }));
