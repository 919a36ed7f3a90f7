/**
 * The floating-point predictor (Predictor 3) of a raster's blocks undone in WebAssembly (assembly/deflateTile.ts's
 * `undoPredictor` and `undoPredictor64`, to the bit what floatPredictor.ts's `decodeFloatPredictorRows` and
 * `decodeFloat64PredictorRows` restore, several times as fast). The DEM reader decodes every block of a
 * predicted float DEM through it: in TypeScript, undoing the predictor of a 99 M-cell Float64 DEM took 2.8 s.
 */
import { Arena, PAGE_BYTES, instantiateKernel } from '../../util/wasmModules.js';
import { WORK_BYTES } from './tileEncoderWasm.js';
import { decodeFloat64PredictorRows, decodeFloatPredictorRows } from './floatPredictor.js';

/** Input bytes decoded per call at most: a block with more rows (a tall strip) is decoded in parts of whole rows. */
const PART_BYTES = 4 * 2 ** 20;

/**
 * Rows of `width` `bits`-bit values decoded per call: as many as PART_BYTES holds, no more than `maxRows` (a block's
 * height: a small raster's decoder takes a few kilobytes, not PART_BYTES, whose allocation and collection dominated
 * reading files of a few thousand cells), at least one.
 */
function partRowsOf(bits: 32 | 64, width: number, maxRows: number): number {
  return Math.max(1, Math.min(Math.floor(PART_BYTES / ((width * bits) / 8)), Math.floor(maxRows)));
}

/** Decodes predicted rows of one width and sample size; the values of each call stay in its memory until the next. */
export class WasmFloatPredictor implements FloatPredictorRows {
  /** Rows decoded per call at most. */
  readonly partRows: number;
  private readonly input: Uint8Array;
  private readonly values: Float32Array | Float64Array;
  /** The values' memory as f32 (float64 values narrowed in place). */
  private readonly narrowed: Float32Array;
  private readonly undo: (data: number, width: number, rows: number, out: number, stride: number, cols: number) => void;
  private readonly narrowToF32: (values: number, count: number, out: number) => void;
  private readonly canonicalNaN: (values: number, count: number) => void;
  readonly canonicalNaNs = true;

  constructor(
    readonly bits: 32 | 64,
    readonly width: number,
    maxRows = Infinity,
  ) {
    if (!Number.isInteger(width) || width < 1) throw new RangeError(`no rows of ${width} values`);
    this.partRows = partRowsOf(bits, width, maxRows);
    const rowBytes = (width * bits) / 8;
    const layout = (arena: Arena) => ({
      input: arena.take(Uint8Array, rowBytes * this.partRows),
      values: bits === 64 ? arena.take(Float64Array, width * this.partRows) : arena.take(Float32Array, width * this.partRows),
    });
    const counting = new Arena(null);
    layout(counting);
    const memory = new WebAssembly.Memory({ initial: Math.ceil((counting.used + 16) / PAGE_BYTES) });
    const instance = instantiateKernel('deflateTile', memory, WORK_BYTES, 'WORK_BYTES');
    const views = layout(new Arena(memory.buffer));
    this.input = views.input;
    this.values = views.values;
    this.narrowed = new Float32Array(memory.buffer, this.values.byteOffset, width * this.partRows);
    this.undo = instance.exports[bits === 64 ? 'undoPredictor64' : 'undoPredictor'] as WasmFloatPredictor['undo'];
    this.narrowToF32 = instance.exports.narrowToF32 as WasmFloatPredictor['narrowToF32'];
    this.canonicalNaN = instance.exports[bits === 64 ? 'canonicalNaN64' : 'canonicalNaN32'] as WasmFloatPredictor['canonicalNaN'];
    // (a module built before these functions: the TypeScript decoders take over, floatPredictorRows)
    if (![this.undo, this.narrowToF32, this.canonicalNaN].every((f) => typeof f === 'function')) throw new Error('build/wasm/deflateTile.wasm predates the float predictor: run `npm run build`');
  }

  /**
   * The values of `rows` (at most `partRows`) predicted rows at the start of `data`, their first `cols` each: row r
   * at r · width of the array returned (a view of the module's memory, overwritten by the next call), every NaN
   * the one NaN JavaScript stores (whatever its sign and payload in the file). `float32`: float64 values come
   * rounded to float32 (as a Float32Array stores them).
   */
  decode(data: Uint8Array, rows: number, cols = this.width, float32 = false): Float32Array | Float64Array {
    const bytes = (rows * this.width * this.bits) / 8;
    if (!Number.isInteger(rows) || rows < 0 || rows > this.partRows || data.length < bytes) throw new RangeError(`${rows} rows of ${this.width} values do not fit ${data.length} bytes and ${this.partRows} rows`);
    if (!Number.isInteger(cols) || cols < 0 || cols > this.width) throw new RangeError(`rows of ${this.width} values have no ${cols} columns`);
    this.input.set(data.subarray(0, bytes));
    this.undo(this.input.byteOffset, this.width, rows, this.values.byteOffset, this.width, cols);
    if (!float32 || this.bits === 32) {
      this.canonicalNaN(this.values.byteOffset, rows * this.width);
      return this.values;
    }
    this.narrowToF32(this.values.byteOffset, rows * this.width, this.narrowed.byteOffset);
    return this.narrowed;
  }
}

/** Rows of one width decoded by `WasmFloatPredictor` or, where its module cannot be loaded, by floatPredictor.ts. */
export interface FloatPredictorRows {
  readonly partRows: number;
  /** Whether every NaN `decode` gives is the one NaN JavaScript stores. */
  readonly canonicalNaNs: boolean;
  /** See `WasmFloatPredictor.decode`; `float32` may be ignored (the values then come as float64). */
  decode(data: Uint8Array, rows: number, cols?: number, float32?: boolean): Float32Array | Float64Array;
}

/** floatPredictor.ts's decoders behind `FloatPredictorRows`. */
class ScalarFloatPredictor implements FloatPredictorRows {
  readonly partRows: number;
  readonly canonicalNaNs = false;
  private readonly values: Float32Array | Float64Array;
  private readonly words: Uint32Array;

  constructor(
    readonly bits: 32 | 64,
    readonly width: number,
    maxRows = Infinity,
  ) {
    this.partRows = partRowsOf(bits, width, maxRows);
    this.values = bits === 64 ? new Float64Array(width * this.partRows) : new Float32Array(width * this.partRows);
    this.words = new Uint32Array(this.values.buffer);
  }

  decode(data: Uint8Array, rows: number, cols = this.width): Float32Array | Float64Array {
    if (rows > this.partRows || data.length < (rows * this.width * this.bits) / 8) throw new RangeError(`${rows} rows of ${this.width} values do not fit ${data.length} bytes and ${this.partRows} rows`);
    if (this.bits === 64) decodeFloat64PredictorRows(data, this.width, rows, this.words, this.width, cols);
    else decodeFloatPredictorRows(data, this.width, rows, this.words, this.width, cols);
    return this.values;
  }
}

/**
 * A decoder of predicted rows of `width` `bits`-bit floats, at most `maxRows` per call (a block's height) or as many
 * as PART_BYTES holds: in WebAssembly, or in TypeScript where the module is not built or its memory cannot be had
 * (tried again for every raster: one failure does not disable it for the process).
 */
export function floatPredictorRows(bits: 32 | 64, width: number, maxRows = Infinity): FloatPredictorRows {
  try {
    return new WasmFloatPredictor(bits, width, maxRows);
  } catch {
    return new ScalarFloatPredictor(bits, width, maxRows);
  }
}
