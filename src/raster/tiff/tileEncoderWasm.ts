/**
 * GeoTIFF tiles compressed in WebAssembly (assembly/deflateTile.ts, built into build/wasm/deflateTile.wasm): the
 * floating-point predictor and a zlib stream of DEFLATE blocks (as many symbols each as zlib's) whose only
 * matches are runs of the byte before — the same format `encodeFloat32Tile` makes with Node's zlib at its default
 * settings (level 1, Z_RLE), within 1 % of the same size, 2.4–2.8 times as fast on the `sol` pipeline's tiles
 * (bench/encoding.mjs): the literals are counted and the runs found sixteen bytes at a time, and the bits written
 * eight bytes at a time.
 * Any zlib inflater reads it; `encodeFloat32Tile` stays the readable path and the one for other settings, and a
 * test holds the two to the same decoded bytes.
 */
import { constants as zlibConstants } from 'node:zlib';
import { Arena, PAGE_BYTES, instantiateKernel } from '../../util/wasmModules.js';
import { NO_CELLS, type PartialStatistics } from '../geotiff/statistics.js';

/** Whether the WebAssembly encoder makes what zlib makes with `compression` (any level ≥ 1 with Z_RLE: they are all the same). */
export function wasmEncodes(compression: { readonly level: number; readonly strategy: number }): boolean {
  return compression.level >= 1 && compression.strategy === zlibConstants.Z_RLE;
}

/** Encodes tiles of one size; one instance per thread (its memory is reused from tile to tile). */
export class WasmTileEncoder {
  private readonly values: Float32Array;
  private readonly output: Uint8Array;
  private readonly statistics: Float64Array;
  private readonly encodeTile: (values: number, width: number, height: number, pred: number, runs: number, work: number, out: number) => number;
  private readonly partialStatistics: (values: number, cols: number, rows: number, stride: number, out: number) => void;
  private readonly pointers: { values: number; pred: number; runs: number; work: number; out: number };

  constructor(
    readonly tileWidth: number,
    readonly tileHeight: number,
  ) {
    if (!Number.isInteger(tileWidth) || !Number.isInteger(tileHeight) || tileWidth < 1 || tileHeight < 1) throw new RangeError(`a tile of ${tileWidth} × ${tileHeight} cells cannot be encoded`);
    const cells = tileWidth * tileHeight;
    const bytes = 4 * cells;
    const capacity = bytes + (bytes >> 2) + 1024; // (the module's outputCapacity, checked below)
    const layout = (arena: Arena) => ({
      values: arena.take(Float32Array, cells),
      pred: arena.take(Uint8Array, bytes),
      // (position, length) as two u32 per run of at least 3 bytes
      runs: arena.take(Uint8Array, 3 * bytes + 8),
      work: arena.take(Uint8Array, WORK_BYTES),
      out: arena.take(Uint8Array, capacity),
      statistics: arena.take(Float64Array, STATISTICS_FIELDS),
    });
    const counting = new Arena(null);
    layout(counting);
    const memory = new WebAssembly.Memory({ initial: Math.ceil((counting.used + 16) / PAGE_BYTES) });
    const instance = instantiateKernel('deflateTile', memory, WORK_BYTES, 'WORK_BYTES');
    const outputCapacity = instance.exports.outputCapacity as (n: number) => number;
    const statisticsBytes = (instance.exports.PARTIAL_STATISTICS_BYTES as WebAssembly.Global | undefined)?.value as number | undefined;
    if (outputCapacity(bytes) > capacity || statisticsBytes !== STATISTICS_FIELDS * Float64Array.BYTES_PER_ELEMENT) throw new Error('build/wasm/deflateTile.wasm does not match this build: run `npm run build`');
    const views = layout(new Arena(memory.buffer));
    this.values = views.values;
    this.output = views.out;
    this.statistics = views.statistics;
    this.pointers = { values: views.values.byteOffset, pred: views.pred.byteOffset, runs: views.runs.byteOffset, work: views.work.byteOffset, out: views.out.byteOffset };
    this.encodeTile = instance.exports.encodeTile as WasmTileEncoder['encodeTile'];
    this.partialStatistics = instance.exports.partialStatistics as WasmTileEncoder['partialStatistics'];
  }

  /** The zlib stream of `tile` (tileWidth × tileHeight values, row-major), in a buffer of its own. */
  encode(tile: Float32Array): Uint8Array {
    if (tile.length !== this.tileWidth * this.tileHeight) throw new RangeError(`a ${this.tileWidth}×${this.tileHeight} tile needs ${this.tileWidth * this.tileHeight} values, got ${tile.length}`);
    this.values.set(tile);
    const { values, pred, runs, work, out } = this.pointers;
    const length = this.encodeTile(values, this.tileWidth, this.tileHeight, pred, runs, work, out);
    return this.output.slice(0, length);
  }

  /**
   * `encode`, with the statistics of the first `cols` values of the tile's first `rows` rows (the cells of a tile
   * at the raster's edge): statistics.ts's `partialStatistics` of them, the same numbers, in a fraction of the time
   * of JavaScript that has not yet been optimised (a small run encodes a few tiles).
   */
  encodeWithStatistics(tile: Float32Array, cols: number, rows: number): { bytes: Uint8Array; statistics: PartialStatistics } {
    if (!Number.isInteger(cols) || !Number.isInteger(rows) || cols < 0 || rows < 0 || cols > this.tileWidth || rows > this.tileHeight) {
      throw new RangeError(`statistics of ${cols} × ${rows} cells of a ${this.tileWidth}×${this.tileHeight} tile`);
    }
    const bytes = this.encode(tile);
    this.partialStatistics(this.pointers.values, cols, rows, this.tileWidth, this.statistics.byteOffset);
    const [count, min, max, mean, m2] = this.statistics as unknown as [number, number, number, number, number];
    const cells = cols * rows;
    return { bytes, statistics: count === 0 ? { ...NO_CELLS, cells } : { cells, count, min, max, mean, m2 } };
  }
}

/** The f64 fields of a tile's statistics in the module's memory: count, min, max, mean, m2 (its PARTIAL_STATISTICS_BYTES). */
const STATISTICS_FIELDS = 5;

/** Bytes of the module's work area (its WORK_BYTES: a module built from other sources is refused). */
export const WORK_BYTES = 13952;
