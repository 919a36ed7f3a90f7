/**
 * Terrain phase of the `eemt` workflow: slope, aspect, wetness index (written to `topo/`) and the two
 * per-cell inputs of EEMT-TOPO that do not change by month: the wetness ratio α = λ/λ̄ and the northness
 * n = cos(aspect)·sin(slope) (eemt-model.md §2.2 P6, P8).
 *
 * Slope comes from Horn's gradient with the true ground cell sizes (as in the solar phase); aspect is
 * clockwise from true north (trueNorth.ts); the wetness chain is the D-infinity one of
 * science/terrain/hydrology.ts with λ̄ over the whole DEM.
 */
import { join } from 'node:path';
import { createGeodesy } from '../../raster/geo/geodesy.js';
import { writeFloat32GeoTiff } from '../../raster/geotiff/writeGeoTiff.js';
import type { Dem } from '../../raster/types.js';
import { wetnessChain } from '../../science/terrain/hydrology.js';
import { northnessFromSlopeAspect } from '../../science/terrain/northness.js';
import { hornGradient, slopeRad } from '../../science/terrain/slopeAspect.js';
import type { PhaseReporter } from './progress.js';
import { TOPO_ASPECT_PATH, TOPO_SLOPE_PATH, TOPO_TWI_PATH } from './products.js';
import { trueNorthAspectRad } from './trueNorth.js';

/** The month-independent terrain inputs of EEMT-TOPO. */
export interface TerrainInputs {
  /** α = λ/λ̄ per cell [-], NaN at nodata; mean 1 over the valid cells. */
  readonly wetnessRatio: Float64Array;
  /** λ̄, the mean wetness index over the valid cells [-]. */
  readonly meanWetnessIndex: number;
  /** n = cos(aspect from true north)·sin(slope) per cell [-], NaN at nodata. */
  readonly northness: Float64Array;
  /** Files written, relative to the output folder. */
  readonly files: string[];
}

const RAD_TO_DEG = 180 / Math.PI;

function toDegrees(values: Float64Array): Float64Array {
  return values.map((v) => v * RAD_TO_DEG);
}

/** Computes the terrain indices of `dem`, writes `topo/slope.tif`, `topo/aspect.tif`, `topo/twi.tif`. */
export async function computeTerrain(dem: Dem, outDir: string, report: PhaseReporter, signal?: AbortSignal): Promise<TerrainInputs> {
  const { grid, elevation } = dem;
  const { width, height } = grid;
  report(0, 'slope and aspect');
  const geodesy = createGeodesy(grid);
  const dx = new Float64Array(height);
  const dy = new Float64Array(height);
  for (let row = 0; row < height; row++) {
    const size = geodesy.cellSizeM(row);
    dx[row] = size.dx;
    dy[row] = size.dy;
  }
  const gradient = hornGradient(elevation, width, height, dx, dy);
  const slope = new Float64Array(width * height);
  for (let i = 0; i < slope.length; i++) slope[i] = slopeRad(gradient.fallEast[i]!, gradient.fallNorth[i]!);
  const aspect = trueNorthAspectRad(gradient, grid);
  const northness = northnessFromSlopeAspect(slope, aspect);
  const common = { DEM_CELLS: `${width}x${height}` };
  await writeFloat32GeoTiff(join(outDir, TOPO_SLOPE_PATH), grid, toDegrees(slope), {
    description: 'Slope angle (Horn 3x3, true ground cell sizes)',
    metadata: { ...common, QUANTITY: 'slope angle', UNITS: 'degrees' },
  });
  await writeFloat32GeoTiff(join(outDir, TOPO_ASPECT_PATH), grid, toDegrees(aspect), {
    description: 'Aspect: downslope direction clockwise from true north (0 = north, 90 = east); NaN where flat',
    metadata: { ...common, QUANTITY: 'aspect clockwise from true north', UNITS: 'degrees', FLAT_CELLS: 'NaN (no aspect)' },
  });
  signal?.throwIfAborted();

  report(0.3, 'wetness index (depression filling, D-infinity flow, catchment area)');
  let meanRowDy = 0;
  for (let row = 0; row < height; row++) meanRowDy += dy[row]! / height;
  const wetness = wetnessChain(elevation, slope, { width, height, dx: grid.crs.kind === 'geographic' ? dx : dx[0]!, dy: meanRowDy });
  await writeFloat32GeoTiff(join(outDir, TOPO_TWI_PATH), grid, wetness.wetnessIndex, {
    description: 'Topographic wetness index ln(a / tan slope), D-infinity specific catchment area, guarded (tan slope >= 1e-3, a >= cell size, >= 0)',
    metadata: { ...common, QUANTITY: 'topographic wetness index', UNITS: 'dimensionless', MEAN_TWI: String(wetness.meanWetnessIndex) },
  });
  report(1, `mean wetness index ${wetness.meanWetnessIndex.toFixed(3)}`);
  return {
    wetnessRatio: wetness.wetnessRatio,
    meanWetnessIndex: wetness.meanWetnessIndex,
    northness,
    files: [TOPO_SLOPE_PATH, TOPO_ASPECT_PATH, TOPO_TWI_PATH],
  };
}
