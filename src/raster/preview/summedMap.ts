/**
 * A map that is the cell-by-cell sum of rasters on one grid (one raster: the raster itself), e.g. the annual
 * irradiation as the sum of the 12 monthly maps: its statistics over the valid cells at full resolution, and
 * its preview-sized values. A cell is nodata when it is nodata in any of the rasters.
 */
import type { RasterLevels } from '../cog/rasterLevels.js';

/** Minimum, maximum and mean over the valid cells (null when there is none), and their count. */
export interface MapStatistics {
  readonly min: number | null;
  readonly max: number | null;
  readonly mean: number | null;
  readonly validCells: number;
}

/** Cells per band of each raster when several are read side by side (1 Mi: 12 monthly maps ≈ 100 MB). */
const SUMMED_BAND_CELLS = 2 ** 20;

/**
 * Statistics of the sum of `rasters` at full resolution: a single raster's stored statistics when it has them
 * (the service's COGs with overviews do), else read band of rows by band of rows.
 */
export async function summedStatistics(rasters: readonly RasterLevels[]): Promise<MapStatistics> {
  checkSameGrid(rasters);
  const stored = rasters.length === 1 ? rasters[0]!.statistics : null;
  if (stored) {
    const { width, height } = rasters[0]!.grid;
    const validCells = Math.round((stored.validPercent / 100) * width * height);
    return { min: stored.minimum, max: stored.maximum, mean: stored.mean, validCells };
  }
  const bandCells = rasters.length === 1 ? undefined : SUMMED_BAND_CELLS;
  const walks = rasters.map((raster) => raster.bands(0, bandCells)[Symbol.asyncIterator]());
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  let validCells = 0;
  for (;;) {
    const steps = await Promise.all(walks.map((walk) => walk.next()));
    if (steps.some((step) => step.done)) break;
    const bands = steps.map((step) => step.value!.values);
    const total = sumInto(bands);
    for (let i = 0; i < total.length; i++) {
      const v = total[i]!;
      if (v !== v) continue;
      if (v < min) min = v;
      if (v > max) max = v;
      sum += v;
      validCells++;
    }
  }
  return validCells === 0 ? { min: null, max: null, mean: null, validCells } : { min, max, mean: sum / validCells, validCells };
}

/** The sum of `rasters` at `width` × `height` cells (each downsampled by its NaN-aware area average). */
export async function summedPreview(rasters: readonly RasterLevels[], width: number, height: number): Promise<Float32Array | Float64Array> {
  checkSameGrid(rasters);
  const parts: Float32Array[] = [];
  for (const raster of rasters) parts.push(await raster.downsample(width, height));
  return sumInto(parts);
}

/** Cell-by-cell sum of `arrays` (same length) in double precision, or the array itself when it is alone. */
function sumInto(arrays: readonly Float32Array[]): Float32Array | Float64Array {
  if (arrays.length === 1) return arrays[0]!;
  const out = new Float64Array(arrays[0]!.length);
  for (const array of arrays) for (let i = 0; i < out.length; i++) out[i] += array[i]!;
  return out;
}

function checkSameGrid(rasters: readonly RasterLevels[]): void {
  if (rasters.length === 0) throw new RangeError('a summed map needs at least one raster');
  const { width, height } = rasters[0]!.grid;
  for (const raster of rasters) {
    if (raster.grid.width !== width || raster.grid.height !== height) {
      throw new RangeError(`rasters of ${width}×${height} and ${raster.grid.width}×${raster.grid.height} cells cannot be summed`);
    }
  }
}
