/**
 * The full-resolution rows of a COG's overviews, in WebAssembly (assembly/deflateTile.ts): a row of decompressed
 * tiles decoded into one band of the raster's width (`undoPredictor`, as floatPredictor.ts's
 * `decodeFloatPredictorRows` does it, to the bit, about six times as fast), then its rows' statistics and their
 * averages in pairs, the first overview level (`reduce`: the same numbers as the overview pyramid's own
 * `pushRow`). The COG assembly decodes every full-resolution tile of a map once to build its overviews
 * (cogFile.ts); in TypeScript, decoding was about a fifth of its time and the first level and statistics about
 * a third.
 */
import { Arena, PAGE_BYTES, instantiateKernel } from '../../util/wasmModules.js';
import { WORK_BYTES } from './tileEncoderWasm.js';
import { STATISTICS_STATE_FIELDS, type StatisticsAccumulator } from '../geotiff/statistics.js';

/** Decodes tiles of one size into a band of one width; its band is overwritten by the next tile row. */
export class WasmBandDecoder {
  /** `tileHeight` rows of `width` cells, in the module's memory. */
  readonly band: Float32Array;
  private readonly tile: Uint8Array;
  private readonly averaged: Float32Array;
  private readonly statistics: Float64Array;
  private readonly undoPredictor: (data: number, width: number, rows: number, bits: number, stride: number, cols: number) => void;
  private readonly accumulateStatistics: (band: number, width: number, rows: number, state: number) => void;
  private readonly averageRowPairs: (band: number, width: number, rows: number, out: number) => void;

  constructor(
    readonly width: number,
    readonly tileWidth: number,
    readonly tileHeight: number,
  ) {
    if (![width, tileWidth, tileHeight].every((n) => Number.isInteger(n) && n >= 1)) throw new RangeError(`no band of ${width} cells for tiles of ${tileWidth} × ${tileHeight}`);
    const layout = (arena: Arena) => ({
      tile: arena.take(Uint8Array, 4 * tileWidth * tileHeight),
      band: arena.take(Float32Array, width * tileHeight),
      averaged: arena.take(Float32Array, Math.ceil(width / 2) * Math.ceil(tileHeight / 2)),
      statistics: arena.take(Float64Array, STATISTICS_STATE_FIELDS),
    });
    const counting = new Arena(null);
    layout(counting);
    const memory = new WebAssembly.Memory({ initial: Math.ceil((counting.used + 16) / PAGE_BYTES) });
    const instance = instantiateKernel('deflateTile', memory, WORK_BYTES, 'WORK_BYTES');
    const views = layout(new Arena(memory.buffer));
    this.tile = views.tile;
    this.band = views.band;
    this.averaged = views.averaged;
    this.statistics = views.statistics;
    this.undoPredictor = instance.exports.undoPredictor as WasmBandDecoder['undoPredictor'];
    this.accumulateStatistics = instance.exports.accumulateStatistics as WasmBandDecoder['accumulateStatistics'];
    this.averageRowPairs = instance.exports.averageRowPairs as WasmBandDecoder['averageRowPairs'];
  }

  /**
   * The first `rows` rows of the band, reduced: their statistics added to `statistics` (as its `add` of each row
   * would), and the rows averaged in pairs (as overviews.ts's `averageRowPair`; the last of an odd count alone)
   * into ceil(rows / 2) rows of ceil(width / 2) values, returned (in the module's memory, until the next call).
   */
  reduce(rows: number, statistics: StatisticsAccumulator): Float32Array {
    if (!Number.isInteger(rows) || rows < 0 || rows > this.tileHeight) throw new RangeError(`the band has ${this.tileHeight} rows, not ${rows}`);
    statistics.save(this.statistics);
    this.accumulateStatistics(this.band.byteOffset, this.width, rows, this.statistics.byteOffset);
    statistics.restore(this.statistics);
    this.averageRowPairs(this.band.byteOffset, this.width, rows, this.averaged.byteOffset);
    return this.averaged.subarray(0, Math.ceil(this.width / 2) * Math.ceil(rows / 2));
  }

  /**
   * Decodes the decompressed tile `data` (4 · tileWidth · tileHeight bytes) into the band: its first `rows` rows,
   * their first `cols` values, at column `col0`.
   */
  decodeTile(data: Uint8Array, rows: number, col0: number, cols: number): void {
    if (data.length !== this.tile.length) throw new RangeError(`a ${this.tileWidth} × ${this.tileHeight} tile has ${this.tile.length} bytes, got ${data.length}`);
    if (rows < 0 || rows > this.tileHeight || col0 < 0 || cols < 0 || cols > this.tileWidth || col0 + cols > this.width) throw new RangeError(`rows ${rows}, columns ${col0}+${cols} are outside the band`);
    this.tile.set(data);
    this.undoPredictor(this.tile.byteOffset, this.tileWidth, rows, this.band.byteOffset + 4 * col0, this.width, cols);
  }
}

/** The thread's last decoder (one band is kept: a band of a wide raster is tens of MB). */
let lastDecoder: WasmBandDecoder | null = null;
let unavailable = false;

/**
 * The thread's decoder for bands of `width` cells and tiles of this size, or null when the module cannot be loaded
 * (not built). Its band holds one tile row at a time: callers decode a row and use it before they yield.
 */
export function wasmBandDecoder(width: number, tileWidth: number, tileHeight: number): WasmBandDecoder | null {
  if (unavailable) return null;
  if (lastDecoder && lastDecoder.width === width && lastDecoder.tileWidth === tileWidth && lastDecoder.tileHeight === tileHeight) return lastDecoder;
  try {
    lastDecoder = new WasmBandDecoder(width, tileWidth, tileHeight);
  } catch {
    unavailable = true;
    lastDecoder = null;
  }
  return lastDecoder;
}
