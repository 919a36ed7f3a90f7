/** Statistics of one raster against a reference raster, over the cells valid in both. */
import { readRaster } from '../../src/raster/index.js';

export interface Comparison {
  /** Cells valid (finite) in both rasters. */
  readonly cells: number;
  /** 95th percentile of |a − b| / b [-] (cells with b > 1). */
  readonly p95Relative: number;
  /** (mean a − mean b) / mean b [-]. */
  readonly bias: number;
  /** Mean |a − b| in the rasters' unit. */
  readonly meanAbsolute: number;
  /** Cells with |a − b| / b above 1 %. */
  readonly over1Percent: number;
}

export function compareValues(actual: ArrayLike<number>, reference: ArrayLike<number>): Comparison {
  const relative: number[] = [];
  let sumA = 0;
  let sumB = 0;
  let sumAbs = 0;
  let cells = 0;
  let over = 0;
  for (let i = 0; i < reference.length; i++) {
    const a = actual[i]!;
    const b = reference[i]!;
    if (!Number.isFinite(a) || !Number.isFinite(b)) continue;
    cells++;
    sumA += a;
    sumB += b;
    sumAbs += Math.abs(a - b);
    if (b > 1) {
      const r = Math.abs(a - b) / b;
      relative.push(r);
      if (r > 0.01) over++;
    }
  }
  relative.sort((x, y) => x - y);
  return {
    cells,
    p95Relative: relative.length ? relative[Math.floor(0.95 * (relative.length - 1))]! : 0,
    bias: sumB === 0 ? 0 : (sumA - sumB) / sumB,
    meanAbsolute: cells ? sumAbs / cells : 0,
    over1Percent: over,
  };
}

export async function compareFiles(actualPath: string, referencePath: string): Promise<Comparison> {
  const [a, b] = await Promise.all([readRaster(actualPath), readRaster(referencePath)]);
  if (a.grid.width !== b.grid.width || a.grid.height !== b.grid.height) throw new Error(`${actualPath}: size differs from ${referencePath}`);
  return compareValues(a.values, b.values);
}
