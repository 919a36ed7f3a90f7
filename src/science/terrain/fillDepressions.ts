/**
 * Depression filling by priority flood, with an optional small rise across filled areas and flats so that
 * every cell has a strictly lower neighbour and flow is defined everywhere.
 *
 * @see Barnes, Lehman & Mulla (2014) "Priority-flood: An optimal depression-filling and watershed-labeling
 *   algorithm for digital elevation models", Computers & Geosciences 62:117–127, Algorithms 2 and 3
 */
import { NEIGHBOUR_COL, NEIGHBOUR_ROW, checkGrid, type CellArray } from './hydroGrid.js';

export interface FillOptions {
  /**
   * Rise from a cell to the cells it floods [m]:
   * - `'minimal'` (default): the next representable double above (Barnes et al. 2014 Algorithm 3), so filled
   *   areas and flats drain towards their outlet while elevations change by at most a few ulp per cell;
   * - a number ≥ 0: a fixed rise (0 = plain filling, flats stay exactly flat and do not drain).
   */
  readonly increment?: 'minimal' | number;
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;
const LO = LITTLE_ENDIAN ? 0 : 1;
const HI = LITTLE_ENDIAN ? 1 : 0;

/** Smallest double greater than `x` (finite x). */
export function nextDoubleUp(x: number): number {
  if (x === 0) return Number.MIN_VALUE;
  f64[0] = x;
  if (x > 0) {
    u32[LO] = (u32[LO]! + 1) >>> 0;
    if (u32[LO] === 0) u32[HI] = u32[HI]! + 1;
  } else {
    if (u32[LO] === 0) {
      u32[HI] = u32[HI]! - 1;
      u32[LO] = 0xffffffff;
    } else {
      u32[LO] = u32[LO]! - 1;
    }
  }
  return f64[0]!;
}

/** Binary min-heap of cell indices keyed by elevation (ties pop in an arbitrary but deterministic order). */
class CellHeap {
  private readonly cells: Int32Array;
  private readonly keys: Float64Array;
  size = 0;
  constructor(capacity: number) {
    this.cells = new Int32Array(capacity);
    this.keys = new Float64Array(capacity);
  }
  push(cell: number, key: number): void {
    const cells = this.cells;
    const keys = this.keys;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const parentKey = keys[parent]!;
      if (parentKey <= key) break;
      cells[i] = cells[parent]!;
      keys[i] = parentKey;
      i = parent;
    }
    cells[i] = cell;
    keys[i] = key;
  }
  peekKey(): number {
    return this.keys[0]!;
  }
  pop(): number {
    const cells = this.cells;
    const keys = this.keys;
    const top = cells[0]!;
    const last = --this.size;
    if (last > 0) {
      const cell = cells[last]!;
      const key = keys[last]!;
      let i = 0;
      for (;;) {
        let child = 2 * i + 1;
        if (child >= last) break;
        if (child + 1 < last && keys[child + 1]! < keys[child]!) child++;
        if (keys[child]! >= key) break;
        cells[i] = cells[child]!;
        keys[i] = keys[child]!;
        i = child;
      }
      cells[i] = cell;
      keys[i] = key;
    }
    return top;
  }
}

/**
 * Fills every depression of a DEM up to its spill elevation [m].
 * Cells on the grid edge and cells next to nodata (NaN) are outlets: water leaves the domain there.
 * NaN cells stay NaN. Runs in O(n log n) (cells inside depressions in O(1) each).
 * @param elevation elevations [m], row-major, NaN = nodata
 * @returns a new Float64Array of filled elevations [m]
 * @see Barnes, Lehman & Mulla (2014), Algorithm 2 (increment 0) and Algorithm 3 (increment > 0 / minimal)
 */
export function fillDepressions(
  elevation: CellArray,
  grid: { readonly width: number; readonly height: number },
  options: FillOptions = {},
): Float64Array {
  const { width, height } = grid;
  const n = checkGrid({ width, height, dx: 1, dy: 1 }, elevation);
  const increment = options.increment ?? 'minimal';
  if (increment !== 'minimal' && !(increment >= 0)) throw new RangeError(`bad increment ${increment}`);
  const minimal = increment === 'minimal';
  const filled = Float64Array.from(elevation);
  const closed = new Uint8Array(n);
  const heap = new CellHeap(n);
  const pit = new Int32Array(n); // FIFO; every cell enters at most once
  let pitHead = 0;
  let pitTail = 0;

  for (let row = 0; row < height; row++) {
    for (let col = 0; col < width; col++) {
      const i = row * width + col;
      if (Number.isNaN(filled[i]!)) {
        closed[i] = 1;
        continue;
      }
      let outlet = row === 0 || col === 0 || row === height - 1 || col === width - 1;
      for (let k = 0; k < 8 && !outlet; k++) {
        if (Number.isNaN(filled[(row + NEIGHBOUR_ROW[k]!) * width + col + NEIGHBOUR_COL[k]!]!)) outlet = true;
      }
      if (outlet) {
        closed[i] = 1;
        heap.push(i, filled[i]!);
      }
    }
  }

  while (pitHead < pitTail || heap.size > 0) {
    // A pit cell goes first unless the lowest open cell is just as high (Barnes et al. 2014, §4.3 / RichDEM).
    const c = pitHead < pitTail && !(heap.size > 0 && heap.peekKey() === filled[pit[pitHead]!]!) ? pit[pitHead++]! : heap.pop();
    const row = (c / width) | 0;
    const col = c - row * width;
    const zc = filled[c]!;
    // Elevation given to neighbours that are not higher: the next double up, zc + increment, or zc itself.
    const spill = minimal ? nextDoubleUp(zc) : zc + increment;
    for (let k = 0; k < 8; k++) {
      const r = row + NEIGHBOUR_ROW[k]!;
      const q = col + NEIGHBOUR_COL[k]!;
      if (r < 0 || q < 0 || r >= height || q >= width) continue;
      const nb = r * width + q;
      if (closed[nb]) continue;
      closed[nb] = 1;
      if (filled[nb]! <= spill) {
        filled[nb] = spill;
        pit[pitTail++] = nb;
      } else {
        heap.push(nb, filled[nb]!);
      }
    }
  }
  return filled;
}
