/**
 * Band statistics as GDAL stores them in band metadata (STATISTICS_MINIMUM, _MAXIMUM, _MEAN, _STDDEV,
 * _VALID_PERCENT: `gdalinfo -stats` reports them and GDAL's GetStatistics returns them without reading a pixel).
 *
 * Two ways to gather them: `StatisticsAccumulator`, row by row (the overview pyramid, which sees every row), and
 * `PartialStatistics`, plain data made wherever a tile's values are (a worker thread) and merged in any order
 * (Chan, Golub & LeVeque 1979, the pairwise update of the mean and the sum of squared deviations), so that a map
 * written tile by tile carries its statistics without its tiles being decoded again.
 */

/** Statistics of the valid cells of a band; stddev is the population standard deviation, validPercent the share of valid cells [%]. */
export interface BandStatistics {
  readonly minimum: number;
  readonly maximum: number;
  readonly mean: number;
  readonly stddev: number;
  readonly validPercent: number;
}

/** Statistics of some cells that merge with others: cells seen, valid ones, extremes, mean and sum of squared deviations. */
export interface PartialStatistics {
  readonly cells: number;
  readonly count: number;
  readonly min: number;
  readonly max: number;
  readonly mean: number;
  /** Σ (v − mean)² over the valid cells. */
  readonly m2: number;
}

export const NO_CELLS: PartialStatistics = Object.freeze({ cells: 0, count: 0, min: Infinity, max: -Infinity, mean: 0, m2: 0 });

/**
 * The statistics of a block of `rows` × `cols` values stored row by row `stride` apart (NaN is nodata), in two
 * passes for an accurate m2. A map's statistics are those of its tiles (the cells of each inside the raster) merged
 * in tile order, however they were made, so that a map written in one piece and one written tile by tile are the
 * same bytes.
 */
export function partialStatistics(values: ArrayLike<number>, cols: number, rows = 1, stride = cols): PartialStatistics {
  let count = 0;
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (let r = 0; r < rows; r++) {
    for (let i = r * stride, end = i + cols; i < end; i++) {
      const v = values[i]!;
      if (v !== v) continue;
      count++;
      sum += v;
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  const cells = rows * cols;
  if (count === 0) return { ...NO_CELLS, cells };
  const mean = sum / count;
  let m2 = 0;
  for (let r = 0; r < rows; r++) {
    for (let i = r * stride, end = i + cols; i < end; i++) {
      const v = values[i]!;
      if (v === v) m2 += (v - mean) * (v - mean);
    }
  }
  return { cells, count, min, max, mean, m2 };
}

/** The statistics of the cells of `a` and `b` together. */
export function mergeStatistics(a: PartialStatistics, b: PartialStatistics): PartialStatistics {
  const count = a.count + b.count;
  const cells = a.cells + b.cells;
  if (a.count === 0) return { ...b, cells };
  if (b.count === 0) return { ...a, cells };
  const delta = b.mean - a.mean;
  return {
    cells,
    count,
    min: Math.min(a.min, b.min),
    max: Math.max(a.max, b.max),
    mean: a.mean + (delta * b.count) / count,
    m2: a.m2 + b.m2 + (delta * delta * a.count * b.count) / count,
  };
}

/** GDAL's band statistics of `p`, or null when no cell is valid. */
export function bandStatistics(p: PartialStatistics): BandStatistics | null {
  if (p.count === 0) return null;
  return { minimum: p.min, maximum: p.max, mean: p.mean, stddev: Math.sqrt(Math.max(0, p.m2 / p.count)), validPercent: (100 * p.count) / p.cells };
}

/** Numbers of a StatisticsAccumulator's `save`. */
export const STATISTICS_STATE_FIELDS = 7;

/** Accumulates BandStatistics row by row (sums in double, shifted by the first valid value for a stable variance). */
export class StatisticsAccumulator {
  private count = 0;
  private cells = 0;
  private min = Infinity;
  private max = -Infinity;
  private shift = NaN;
  private sum = 0;
  private sumSquares = 0;

  add(row: ArrayLike<number>, length = row.length): void {
    this.cells += length;
    // (in locals: the same sums in the same order, 3–5 times as fast as updating the fields cell by cell)
    let { count, min, max, shift, sum, sumSquares } = this;
    for (let i = 0; i < length; i++) {
      const v = row[i]!;
      if (v !== v) continue;
      if (shift !== shift) shift = v;
      if (v < min) min = v;
      if (v > max) max = v;
      const d = v - shift;
      sum += d;
      sumSquares += d * d;
      count++;
    }
    this.count = count;
    this.min = min;
    this.max = max;
    this.shift = shift;
    this.sum = sum;
    this.sumSquares = sumSquares;
  }

  /**
   * Its sums into `out` (STATISTICS_STATE_FIELDS values: count, cells, min, max, shift, sum, sumSquares), for
   * `add` done elsewhere on the same rows in the same order (assembly/deflateTile.ts's `accumulateStatistics`)
   * and given back with `restore`.
   */
  save(out: Float64Array): void {
    out[0] = this.count;
    out[1] = this.cells;
    out[2] = this.min;
    out[3] = this.max;
    out[4] = this.shift;
    out[5] = this.sum;
    out[6] = this.sumSquares;
  }

  /** Takes its sums back from `state` (as `save` wrote them, with more rows added). */
  restore(state: Float64Array): void {
    this.count = state[0]!;
    this.cells = state[1]!;
    this.min = state[2]!;
    this.max = state[3]!;
    this.shift = state[4]!;
    this.sum = state[5]!;
    this.sumSquares = state[6]!;
  }

  result(): BandStatistics | null {
    if (this.count === 0) return null;
    const meanShifted = this.sum / this.count;
    return {
      minimum: this.min,
      maximum: this.max,
      mean: this.shift + meanShifted,
      stddev: Math.sqrt(Math.max(0, this.sumSquares / this.count - meanShifted * meanShifted)),
      validPercent: (100 * this.count) / this.cells,
    };
  }
}
