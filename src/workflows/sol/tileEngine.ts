/**
 * The solar computation of one compute tile, as the `sol` workers run it: surface terms and horizons of
 * the tile's cells once (`prepare`), then the daily kernel for each requested day (`integrateDay`), all in
 * arrays that belong to the tile. Only the resident terrain (the DEM) is shared and indexed globally.
 *
 * Today's horizon and kernel functions (src/science/solar/horizon.ts, dailyKernel.ts) index the elevation
 * and the per-cell arrays with one index, so this engine works on a *window*: the tile plus a halo wide
 * enough for the near-field ray (clipped at the DEM's edges, which the kernel then sees as the DEM's edges
 * — they are). The window's elevations are a copy; surface terms and horizons are computed for the
 * tile's cells from the whole resident DEM (far-field rays run across all of it), so every cell gets
 * exactly the numbers an untiled run gives it.
 */
import {
  allocateDaySamples,
  integrateBlock,
  integrateBlockFlat,
  sampleCapacity,
  sunlitBounds,
  sunSamplesForDay,
  transmittanceTable,
  type CellBlock,
  type DaySamples,
  type HorizonLayout,
  type KernelParams,
  type TerrainHorizons,
  type TransmittanceTable,
} from '../../science/solar/dailyKernel.js';
import {
  HORIZON_ANGLE_UNIT_RAD,
  MAX_HORIZON_UNITS,
  horizonTangent,
  nearSectorBoundUnits,
  nearSectorLowerUnits,
  type RowRays,
} from '../../science/solar/horizon.js';
import { surfaceTerms, type SurfaceTerms } from '../../science/solar/surface.js';
import { hornGradientOfBlock } from '../../science/terrain/slopeAspect.js';
import { rayTemplatesByRow, type ComputeTile, type SunTile } from './plan.js';

/** The terrain every worker shares (typed arrays on SharedArrayBuffers). */
export interface ResidentTerrain {
  /** Elevation [m], row-major (index row · width + col), NaN = nodata. */
  readonly elevation: Float32Array;
  readonly width: number;
  readonly height: number;
  /** Ground cell size of each row [m]: east-west and north-south. */
  readonly cellSizeX: Float64Array;
  readonly cellSizeY: Float64Array;
  /** Highest valid elevation [m]. */
  readonly zMaxM: number;
}

/** Far-field horizon directions stored per cell (every 360/32 = 11.25°), interpolated in between. */
export const DEFAULT_HORIZON_DIRECTIONS = 32;
/** Ray steps of the near field, traced exactly at the sun azimuth at every sample. */
export const DEFAULT_NEAR_FIELD_STEPS = 16;
/** Near-field bounds are kept per quarter of a far direction sector. */
const NEAR_SECTORS_PER_DIRECTION = 4;

/** The horizon layout of a run: `directions` far directions (0 = no terrain shadows). */
export function horizonLayoutFor(directions = DEFAULT_HORIZON_DIRECTIONS, nearSteps = DEFAULT_NEAR_FIELD_STEPS): HorizonLayout {
  const steps = directions > 0 ? nearSteps : 0;
  return { directions, nearSteps: steps, nearDirections: steps > 0 ? directions * NEAR_SECTORS_PER_DIRECTION : 0 };
}

/** One day's products of a tile, tile-local (index (row − rowStart) · tileWidth + (col − colStart)). */
export interface DayOutputs {
  readonly global: Float32Array;
  readonly hours: Float32Array;
  /** Horizontal unshaded surface (EEMT's S_flat), when asked for. */
  readonly flat: Float32Array | null;
}

interface Window extends CellBlock {
  readonly width: number;
  readonly height: number;
}

export class TileEngine {
  private readonly table: TransmittanceTable;
  private readonly samples: DaySamples;
  private readonly raysForRow: ((row: number) => RowRays) | null;
  private tile: ComputeTile | null = null;
  private window: Window | null = null;
  private surface: SurfaceTerms | null = null;
  private horizons: TerrainHorizons | null = null;
  private windowGlobal = new Float32Array(0);
  private windowHours = new Float32Array(0);
  private windowFlat = new Float32Array(0);

  constructor(
    private readonly terrain: ResidentTerrain,
    private readonly layout: HorizonLayout,
    private readonly params: KernelParams,
    private readonly sunTiles: readonly (SunTile | null)[],
  ) {
    this.table = transmittanceTable(params.linkeTurbidity);
    this.samples = allocateDaySamples(sampleCapacity(params.stepMinutes), layout.nearSteps);
    const { width, height, cellSizeX, cellSizeY } = terrain;
    this.raysForRow =
      layout.directions > 0 ? rayTemplatesByRow(width, height, { dx: cellSizeX, dy: cellSizeY }, layout.directions, layout.nearDirections, layout.nearSteps) : null;
  }

  /** Surface terms and horizons of the cells of `tile`; `onProgress` sees the fraction of rows done now and then. */
  prepare(tile: ComputeTile, onProgress: (fraction: number) => void = () => {}): void {
    const { elevation, width, height, cellSizeX, cellSizeY } = this.terrain;
    const halo = this.haloCells(tile);
    const rowStart = Math.max(0, tile.rowStart - halo);
    const rowEnd = Math.min(height, tile.rowEnd + halo);
    const colStart = Math.max(0, tile.colStart - halo);
    const colEnd = Math.min(width, tile.colEnd + halo);
    const window: Window = { rowStart, rowEnd, colStart, colEnd, width: colEnd - colStart, height: rowEnd - rowStart };
    const cells = window.width * window.height;
    const windowElevation = new Float64Array(cells);
    for (let r = window.rowStart; r < window.rowEnd; r++) {
      const from = r * width + window.colStart;
      windowElevation.set(elevation.subarray(from, from + window.width), (r - window.rowStart) * window.width);
    }
    const gradient = { fallEast: new Float64Array(cells), fallNorth: new Float64Array(cells) };
    hornGradientOfBlock(elevation, width, height, window, cellSizeX, cellSizeY, gradient);
    this.surface = surfaceTerms(windowElevation, gradient.fallEast, gradient.fallNorth);
    this.horizons = this.raysForRow ? this.tileHorizons(tile, window, windowElevation, this.surface, this.raysForRow, onProgress) : null;
    if (this.windowGlobal.length < cells) {
      this.windowGlobal = new Float32Array(cells);
      this.windowHours = new Float32Array(cells);
      this.windowFlat = new Float32Array(cells);
    }
    this.tile = tile;
    this.window = window;
  }

  /** The products of `day` for the prepared tile, written into `out` (tile-local, NaN at nodata). */
  integrateDay(day: number, out: DayOutputs): void {
    const tile = this.tile;
    const window = this.window;
    const surface = this.surface;
    if (!tile || !window || !surface) throw new Error('prepare a tile first');
    const tileWidth = tile.colEnd - tile.colStart;
    out.global.fill(NaN);
    out.hours.fill(NaN);
    out.flat?.fill(NaN);
    for (const part of tile.parts) {
      const sun = this.sunTiles[part.sun]!;
      const local: CellBlock = {
        rowStart: part.rowStart - window.rowStart,
        rowEnd: part.rowEnd - window.rowStart,
        colStart: part.colStart - window.colStart,
        colEnd: part.colEnd - window.colStart,
      };
      sunSamplesForDay(day, sun, this.params, this.table, window.width, this.layout, this.samples);
      integrateBlock(local, window.width, window.height, this.samples, surface, this.horizons, this.params.albedo, this.windowGlobal, this.windowHours);
      if (out.flat) integrateBlockFlat(local, window.width, this.samples, surface, this.windowFlat);
      for (let r = local.rowStart; r < local.rowEnd; r++) {
        const from = r * window.width + local.colStart;
        const to = (r + window.rowStart - tile.rowStart) * tileWidth + (part.colStart - tile.colStart);
        const n = local.colEnd - local.colStart;
        out.global.set(this.windowGlobal.subarray(from, from + n), to);
        out.hours.set(this.windowHours.subarray(from, from + n), to);
        out.flat?.set(this.windowFlat.subarray(from, from + n), to);
      }
    }
  }

  /** Halo of the window [cells]: the near-field ray's reach plus the kernel's edge margin. */
  private haloCells(tile: ComputeTile): number {
    if (this.layout.nearSteps === 0) return 0;
    let ratio = 1;
    for (let r = tile.rowStart; r < tile.rowEnd; r++) {
      const dx = this.terrain.cellSizeX[r]!;
      const dy = this.terrain.cellSizeY[r]!;
      ratio = Math.max(ratio, (0.5 * (dx + dy)) / Math.min(dx, dy));
    }
    return Math.ceil(this.layout.nearSteps * ratio) + 2;
  }

  /**
   * Far-field horizon angles, near-field bounds and sunlit bounds of the tile's cells (window-indexed; the
   * halo's entries are not used), with today's per-cell functions over the whole resident DEM.
   */
  private tileHorizons(
    tile: ComputeTile,
    window: Window,
    windowElevation: Float64Array,
    surface: SurfaceTerms,
    raysForRow: (row: number) => RowRays,
    onProgress: (fraction: number) => void,
  ): TerrainHorizons {
    const { width, height, zMaxM } = this.terrain;
    // today's horizon functions are typed for Float64 grids; they only index the array
    const elevation = this.terrain.elevation as unknown as Float64Array;
    const { directions, nearDirections, nearSteps } = this.layout;
    const cells = window.width * window.height;
    const angles = new Int16Array(cells * directions);
    const nearBound = new Int16Array(cells * nearDirections);
    const nearLower = new Int16Array(cells * nearDirections);
    const litBound = new Int16Array(cells * directions);
    for (let row = tile.rowStart; row < tile.rowEnd; row++) {
      const { rays, nearSectors, nearCandidates } = raysForRow(row);
      for (let col = tile.colStart; col < tile.colEnd; col++) {
        const local = (row - window.rowStart) * window.width + (col - window.colStart);
        const base = local * directions;
        const nearBase = local * nearDirections;
        if (Number.isNaN(elevation[row * width + col]!)) {
          nearBound.fill(-MAX_HORIZON_UNITS, nearBase, nearBase + nearDirections);
          nearLower.fill(-MAX_HORIZON_UNITS, nearBase, nearBase + nearDirections);
          continue;
        }
        for (let k = 0; k < directions; k++) {
          const tangent = horizonTangent(elevation, width, row, col, zMaxM, rays[k]!);
          angles[base + k] = Math.max(-MAX_HORIZON_UNITS, Math.round(Math.atan(tangent) / HORIZON_ANGLE_UNIT_RAD));
        }
        for (let j = 0; j < nearDirections; j++) {
          nearBound[nearBase + j] = nearSectorBoundUnits(elevation, width, height, row, col, nearSectors!, j);
          nearLower[nearBase + j] = nearSectorLowerUnits(elevation, width, height, row, col, nearCandidates!, j);
        }
      }
      const rowStart = (row - window.rowStart) * window.width + (tile.colStart - window.colStart);
      sunlitBounds(surface, angles, nearBound, directions, nearDirections, rowStart, rowStart + (tile.colEnd - tile.colStart), litBound);
      const rows = tile.rowEnd - tile.rowStart;
      const done = row + 1 - tile.rowStart;
      if (done < rows && Math.floor((8 * done) / rows) > Math.floor((8 * (done - 1)) / rows)) onProgress(done / rows);
    }
    return { elevation: windowElevation, angles, directions, nearBound, nearLower, nearDirections, litBound, nearSteps };
  }
}
