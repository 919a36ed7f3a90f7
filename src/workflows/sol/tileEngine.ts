/**
 * The solar computation of one compute tile, as the `sol` workers run it: surface terms and horizons of
 * the tile's cells once (`prepare`), then the daily kernel for each requested day (`integrateDay`), all in
 * tile-local arrays (index (row − rowStart) · tileWidth + (col − colStart)). Only the resident terrain
 * model (the DEM and its maximum pyramid) is shared and indexed globally; a cell's numbers do not depend
 * on the tile it is computed in.
 */
import {
  allocateDaySamples,
  integrateBlock,
  integrateBlockFlat,
  sampleCapacity,
  sunSamplesForDay,
  transmittanceTable,
  type DaySamples,
  type KernelParams,
  type TransmittanceTable,
} from '../../science/solar/dailyKernel.js';
import { surfaceTerms, type SurfaceTerms } from '../../science/solar/surface.js';
import type { TerrainModel } from '../../science/solar/terrainModel.js';
import {
  allocateTileHorizons,
  groupSectors,
  horizonTracer,
  tileHorizons,
  type CellBlock,
  type HorizonLayout,
  type HorizonTracer,
  type TileHorizons,
} from '../../science/solar/tileHorizons.js';
import { hornGradientOfBlock } from '../../science/terrain/slopeAspect.js';
import type { ComputeTile, SunTile } from './plan.js';

/** One day's products of a tile, tile-local. */
export interface DayOutputs {
  readonly global: Float32Array;
  readonly hours: Float32Array;
  /** Horizontal unshaded surface (EEMT's S_flat), when asked for. */
  readonly flat: Float32Array | null;
}

/** Horizons are computed in this many bands of rows per tile, each reported to `prepare`'s listener. */
const HORIZON_BANDS = 8;

export class TileEngine {
  private readonly table: TransmittanceTable;
  private readonly samples: DaySamples;
  private readonly tracer: HorizonTracer | null;
  private horizons: TileHorizons | null = null;
  private tile: ComputeTile | null = null;
  private surface: SurfaceTerms | null = null;

  /** `layout` null: no terrain shadows. */
  constructor(
    private readonly model: TerrainModel,
    private readonly layout: HorizonLayout | null,
    private readonly params: KernelParams,
    private readonly sunTiles: readonly (SunTile | null)[],
  ) {
    this.table = transmittanceTable(params.linkeTurbidity);
    this.samples = allocateDaySamples(sampleCapacity(params.stepMinutes), layout?.nearSteps ?? 0);
    this.tracer = layout ? horizonTracer(model, layout) : null;
  }

  /** Surface terms and horizons of the cells of `tile`; `onProgress` sees the share of the horizons done. */
  prepare(tile: ComputeTile, onProgress: (fraction: number) => void = () => {}): void {
    const { elevation, width, height, cellSizeX, cellSizeY } = this.model;
    const tileWidth = tile.colEnd - tile.colStart;
    const cells = tileWidth * (tile.rowEnd - tile.rowStart);
    const tileElevation = new Float64Array(cells);
    for (let r = tile.rowStart; r < tile.rowEnd; r++) {
      const from = r * width + tile.colStart;
      tileElevation.set(elevation.subarray(from, from + tileWidth), (r - tile.rowStart) * tileWidth);
    }
    const gradient = { fallEast: new Float64Array(cells), fallNorth: new Float64Array(cells) };
    hornGradientOfBlock(elevation, width, height, tile, cellSizeX, cellSizeY, gradient);
    const surface = surfaceTerms(tileElevation, gradient.fallEast, gradient.fallNorth);
    if (this.tracer && this.layout) {
      if (!this.horizons || this.horizons.capacity < cells) this.horizons = allocateTileHorizons(this.layout, cells);
      // in bands of rows (a cell's horizons do not depend on the block it is traced in), for progress
      const rows = tile.rowEnd - tile.rowStart;
      const bands = Math.min(HORIZON_BANDS, rows);
      for (let b = 0; b < bands; b++) {
        const rowStart = tile.rowStart + Math.floor((b * rows) / bands);
        const rowEnd = tile.rowStart + Math.floor(((b + 1) * rows) / bands);
        const first = (rowStart - tile.rowStart) * tileWidth;
        const last = (rowEnd - tile.rowStart) * tileWidth;
        const band: CellBlock = { rowStart, rowEnd, colStart: tile.colStart, colEnd: tile.colEnd };
        tileHorizons(this.tracer, band, surfaceCells(surface, first, last), horizonCells(this.horizons, this.layout, first, last));
        if (b < bands - 1) onProgress((b + 1) / bands);
      }
    }
    this.tile = tile;
    this.surface = surface;
  }

  /** The products of `day` for the prepared tile, written into `out` (tile-local, NaN at nodata). */
  integrateDay(day: number, out: DayOutputs): void {
    const { tile, surface } = this;
    if (!tile || !surface) throw new Error('prepare a tile first');
    const terrain = this.layout && this.horizons ? { model: this.model, layout: this.layout, horizons: this.horizons } : null;
    out.global.fill(NaN);
    out.hours.fill(NaN);
    out.flat?.fill(NaN);
    for (const part of tile.parts) {
      sunSamplesForDay(day, this.sunTiles[part.sun]!, this.params, this.table, this.model.width, this.layout, this.samples);
      integrateBlock(part, tile, this.samples, surface, terrain, this.params.albedo, out.global, out.hours);
      if (out.flat) integrateBlockFlat(part, tile, this.samples, surface, out.flat);
    }
  }
}

/** Cells [first, last) of tile-local surface terms, as views. */
function surfaceCells(surface: SurfaceTerms, first: number, last: number): SurfaceTerms {
  return {
    cellCount: last - first,
    valid: surface.valid.subarray(first, last),
    inclined: surface.inclined.subarray(first, last),
    normalEast: surface.normalEast.subarray(first, last),
    normalNorth: surface.normalNorth.subarray(first, last),
    normalUp: surface.normalUp.subarray(first, last),
    skyView: surface.skyView.subarray(first, last),
    muneerSlope: surface.muneerSlope.subarray(first, last),
    shadedDiffuseFactor: surface.shadedDiffuseFactor.subarray(first, last),
    groundView: surface.groundView.subarray(first, last),
    pressureRatio: surface.pressureRatio.subarray(first, last),
  };
}

/** Cells [first, last) of tile-local horizon arrays, as views. */
function horizonCells(horizons: TileHorizons, layout: HorizonLayout, first: number, last: number): TileHorizons {
  const { directions: n, nearSectors: k } = layout;
  const g = groupSectors(layout);
  return {
    capacity: last - first,
    far: horizons.far.subarray(first * n, last * n),
    litBound: horizons.litBound.subarray(first * g, last * g),
    darkBound: horizons.darkBound.subarray(first * g, last * g),
    nearUpper: horizons.nearUpper.subarray(first * k, last * k),
    nearLower: horizons.nearLower.subarray(first * k, last * k),
  };
}
