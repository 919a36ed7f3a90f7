/**
 * The wetness chain of EEMT-TOPO in one call: fill depressions → D-infinity flow → specific catchment area →
 * TWI → MCWI. The local slope comes from outside (Horn slope, slopeAspect.ts).
 *
 * @see eemt-model.md §2.2 P6
 */
import { specificCatchmentArea, type CatchmentOptions } from './catchment.js';
import { fillDepressions, type FillOptions } from './fillDepressions.js';
import { flowDirectionsDinf, type DinfFlow } from './flowDinf.js';
import { cellWidthOfRow, checkGrid, type CellArray, type GridGeometry } from './hydroGrid.js';
import { massConservingWetnessIndex, meanWetnessIndex, topographicWetnessIndex } from './wetness.js';

export interface WetnessChainOptions extends FillOptions, CatchmentOptions {
  /** Unit of the `slope` argument. Default radians. */
  readonly slopeUnit?: 'radians' | 'tangent';
  /** Lower bound of tan β. Default 1e-3. */
  readonly minimumTanSlope?: number;
}

export interface WetnessChain {
  /** Depression-filled elevations [m]. */
  readonly filled: Float64Array;
  readonly flow: DinfFlow;
  /** Upslope area [m²]. */
  readonly area: Float64Array;
  /** Specific catchment area a [m]. */
  readonly specificArea: Float64Array;
  /** λ = ln(a / tan β), guarded [-]. */
  readonly wetnessIndex: Float64Array;
  /** λ̄ over the valid cells [-]. */
  readonly meanWetnessIndex: number;
  /** α = λ / λ̄ [-]. */
  readonly wetnessRatio: Float64Array;
}

/**
 * Runs the whole wetness chain on a DEM.
 * The a ≥ cell size guard uses the smallest cell side of the grid.
 * @param elevation DEM [m], NaN = nodata
 * @param slope local slope of the original DEM (radians or tan β, see `slopeUnit`), NaN = nodata
 */
export function wetnessChain(elevation: CellArray, slope: CellArray, grid: GridGeometry, options: WetnessChainOptions = {}): WetnessChain {
  checkGrid(grid, elevation, slope);
  const filled = fillDepressions(elevation, grid, options);
  const flow = flowDirectionsDinf(filled, grid);
  const { area, specificArea } = specificCatchmentArea(flow, grid, options);
  let minimumSide = grid.dy;
  for (let row = 0; row < grid.height; row++) minimumSide = Math.min(minimumSide, cellWidthOfRow(grid, row));
  const wetnessIndex = topographicWetnessIndex(specificArea, slope, {
    slopeUnit: options.slopeUnit ?? 'radians',
    minimumSpecificAreaM: minimumSide,
    ...(options.minimumTanSlope === undefined ? {} : { minimumTanSlope: options.minimumTanSlope }),
  });
  return {
    filled,
    flow,
    area,
    specificArea,
    wetnessIndex,
    meanWetnessIndex: meanWetnessIndex(wetnessIndex),
    wetnessRatio: massConservingWetnessIndex(wetnessIndex),
  };
}
