/**
 * The solar computation of one compute tile, as the `sol` workers run it: surface terms and horizons of
 * the tile's cells once (`prepare`), then the daily kernel for each of the run's days (`integrateDay`), all
 * in tile-local arrays (index (row − rowStart) · tileWidth + (col − colStart)). Only the resident terrain
 * model (the DEM and its maximum pyramid) is shared and indexed globally; a cell's numbers do not depend
 * on the tile it is computed in. Horizons are computed only in the sectors the tile's sun stands in on the
 * run's days (`sunSectors`), so the engine integrates those days only; with few days the near field is traced
 * at the samples instead of bounded (`nearFieldMode`) — for every tile when the run's `nearField` is 'traced', whose
 * horizons then keep no near-field bounds per cell.
 *
 * The daily kernel and the near-field horizon bounds run compiled to WebAssembly (dailyKernelWasm.ts,
 * nearHorizonBoundsWasm.ts) unless the TypeScript kernel is asked for; the two give the same outputs to the
 * bit. With WebAssembly the tile's surface terms, horizons, day samples and a window of the elevations around
 * it live in the kernel module's memory.
 */
import {
  KERNEL_DAY_BATCH,
  allocateDaySamples,
  integrateBlockDays,
  integrateBlockFlat,
  nearFieldModeOfDays,
  sampleCapacity,
  sunSamplesForDay,
  sunSectors,
  transmittanceTable,
  type DaySamples,
  type TransmittanceTable,
} from '../../science/solar/dailyKernel.js';
import type { ClearSkyParams } from '../../science/solar/clearSky.js';
import { WasmDailyKernel } from '../../science/solar/dailyKernelWasm.js';
import { nearFieldReach } from '../../science/solar/horizon.js';
import { WasmNearBounds } from '../../science/solar/nearHorizonBoundsWasm.js';
import { WasmFarSweep } from '../../science/solar/sweptHorizonWasm.js';
import { surfaceTerms, type SurfaceTerms } from '../../science/solar/surface.js';
import { copyElevations, type TerrainModel } from '../../science/solar/terrainModel.js';
import {
  allocateTileHorizons,
  groupSectors,
  horizonTracer,
  sectorMasks,
  tileFarHorizons,
  tileNearHorizons,
  type CellBlock,
  type HorizonLayout,
  type HorizonTracer,
  type NearFieldMode,
  type TileHorizons,
} from '../../science/solar/tileHorizons.js';
import { hornGradientOfBlock, type HornGradient } from '../../science/terrain/slopeAspect.js';
import type { ComputeTile, SunTile } from './tilePlan.js';

/** One day's products of a tile, tile-local. */
export interface DayOutputs {
  readonly global: Float32Array;
  readonly hours: Float32Array;
  /** Horizontal unshaded surface (EEMT's S_flat), when asked for. */
  readonly flat: Float32Array | null;
  /**
   * The beam parts of `global` and `flat` (EEMT's real-sky radiation: the beam on the surface and the ground
   * reflection of the horizontal beam), with an engine made with `beamParts` (and `flat` for `flatBeam`).
   */
  readonly beamPart?: Float32Array | null;
  readonly flatBeam?: Float32Array | null;
}

/** Which implementation of the daily kernel runs: the compiled one, or the TypeScript one (same outputs). */
export type DailyKernelChoice = 'wasm' | 'typescript';

/** Horizons are computed in this many bands of rows per tile, each reported to `prepare`'s listener. */
const HORIZON_BANDS = 8;

export class TileEngine {
  private readonly table: TransmittanceTable;
  /** Sun samples of up to KERNEL_DAY_BATCH days (the TypeScript kernel's; the WebAssembly kernel has its own). */
  private readonly samples: DaySamples[];
  private readonly wasm: WasmDailyKernel | null;
  private readonly tracer: HorizonTracer | null;
  private horizons: TileHorizons | null = null;
  private tile: ComputeTile | null = null;
  private surface: SurfaceTerms | null = null;
  private readonly days: readonly number[];
  private readonly runDays: ReadonlySet<number>;

  /**
   * `layout` null: no terrain shadows. `days`: the days of the run (the only ones `integrateDays` takes).
   * `beamParts`: the kernel also gives the beam parts of the daily sums (`DayOutputs.beamPart`, `flatBeam`).
   * `nearField` 'traced': every tile traces its near field (`runNearField`, tilePlan.ts); 'bounded': each tile
   * decides (`nearFieldMode`).
   */
  constructor(
    private readonly model: TerrainModel,
    private readonly layout: HorizonLayout | null,
    private readonly params: ClearSkyParams,
    private readonly sunTiles: readonly (SunTile | null)[],
    days: readonly number[],
    kernel: DailyKernelChoice = 'wasm',
    private readonly beamParts = false,
    private readonly nearField: NearFieldMode = 'bounded',
  ) {
    this.days = days;
    this.runDays = new Set(days);
    this.table = transmittanceTable(params.linkeTurbidity);
    const capacity = sampleCapacity(params.stepMinutes);
    // (sol's kernel, made without the beam part, has neither its memory nor its stores)
    this.wasm = kernel === 'wasm' ? new WasmDailyKernel(layout, capacity, beamParts, nearField) : null;
    this.samples = this.wasm ? [] : Array.from({ length: KERNEL_DAY_BATCH }, () => allocateDaySamples(capacity, layout?.nearSteps ?? 0));
    const compiled = kernel === 'wasm';
    this.tracer = layout ? horizonTracer(model, layout, compiled ? new WasmNearBounds() : null, compiled ? new WasmFarSweep() : null, this.wasm) : null;
  }

  /** Surface terms and horizons of the cells of `tile`; `onProgress` sees the share of the horizons done. */
  prepare(tile: ComputeTile, onProgress: (fraction: number) => void = () => {}): void {
    const { elevation, width, height, cellSizeX, cellSizeY } = this.model;
    const tileWidth = tile.colEnd - tile.colStart;
    const cells = tileWidth * (tile.rowEnd - tile.rowStart);
    /** The tile's elevations, from the resident DEM. */
    const elevationsOfTile = (): Float64Array => {
      const tileElevation = new Float64Array(cells);
      copyElevations(this.model, tile, tileElevation);
      return tileElevation;
    };
    /** The Horn gradient of the tile's cells, from the resident DEM. */
    const gradientOfTile = (): HornGradient => {
      const gradient = { fallEast: new Float64Array(cells), fallNorth: new Float64Array(cells) };
      hornGradientOfBlock(elevation, width, height, tile, cellSizeX, cellSizeY, gradient);
      return gradient;
    };
    const geometries = tile.parts.map((part) => this.sunTiles[part.sun]!);
    let surface: SurfaceTerms;
    if (this.wasm) {
      // the near-field rays of the tile's cells stay within these margins (every sun tile's cell size)
      const reach = geometries.map((g) => nearFieldReach(g.cellSizeXM, g.cellSizeYM, this.layout?.nearSteps ?? 0));
      const marginRows = Math.max(0, ...reach.map((r) => r.rows));
      const marginCols = Math.max(0, ...reach.map((r) => r.cols));
      this.wasm.reserve(cells, (tile.rowEnd - tile.rowStart + 2 * marginRows) * (tileWidth + 2 * marginCols));
      // with terrain the elevation window is loaded first, and the gradient compiled from it (the same values)
      if (this.layout) this.wasm.loadElevationWindow(this.model, tile, marginRows, marginCols);
      // and the surface terms from the window and that gradient
      const windowGradient = this.layout ? this.wasm.hornGradientOfWindow(this.model) : null;
      if (windowGradient) surface = this.wasm.surfaceTermsOfWindow(windowGradient);
      else {
        const gradient = gradientOfTile();
        surface = surfaceTerms(elevationsOfTile(), gradient.fallEast, gradient.fallNorth, this.wasm.surfaceAllocator());
      }
      this.horizons = this.wasm.horizons;
    } else {
      const gradient = gradientOfTile();
      surface = surfaceTerms(elevationsOfTile(), gradient.fallEast, gradient.fallNorth);
    }
    if (this.tracer && this.layout) {
      if (!this.horizons || this.horizons.capacity < cells) this.horizons = allocateTileHorizons(this.layout, cells, undefined, this.nearField);
      const sectors = this.wasm ? this.wasm.sunSectors(this.days, geometries, this.params.stepMinutes, this.layout.directions) : sunSectors(this.days, geometries, this.params.stepMinutes, this.layout.directions);
      const masks = sectorMasks(this.layout, sectors);
      // a run of few days traces the near field at its samples instead of bounding it (the same outputs)
      const nearField = this.nearField === 'traced' ? 'traced' : nearFieldModeOfDays(this.layout, masks, this.days, geometries, this.params.stepMinutes);
      // the far field swept for the whole tile at once, the rest in bands of rows (a cell's horizons do not
      // depend on the block it is done in), for progress
      tileFarHorizons(this.tracer, tile, this.horizons, masks);
      const rows = tile.rowEnd - tile.rowStart;
      const bands = Math.min(HORIZON_BANDS, rows);
      for (let b = 0; b < bands; b++) {
        const rowStart = tile.rowStart + Math.floor((b * rows) / bands);
        const rowEnd = tile.rowStart + Math.floor(((b + 1) * rows) / bands);
        const first = (rowStart - tile.rowStart) * tileWidth;
        const last = (rowEnd - tile.rowStart) * tileWidth;
        const band: CellBlock = { rowStart, rowEnd, colStart: tile.colStart, colEnd: tile.colEnd };
        tileNearHorizons(this.tracer, band, surfaceCells(surface, first, last), horizonCells(this.horizons, this.layout, first, last), masks, nearField);
        if (b < bands - 1) onProgress((b + 1) / bands);
      }
    }
    this.tile = tile;
    this.surface = surface;
  }

  /** The products of `day` for the prepared tile, written into `out` (tile-local, NaN at nodata). */
  integrateDay(day: number, out: DayOutputs): void {
    this.integrateDays([day], [out]);
  }

  /**
   * The products of several days (at most KERNEL_DAY_BATCH; day i into outs[i]) in one pass over the
   * tile's cells, which the kernel does faster than day by day (see `integrateBlockDays`).
   */
  integrateDays(days: readonly number[], outs: readonly DayOutputs[]): void {
    const { tile, surface } = this;
    if (!tile || !surface) throw new Error('prepare a tile first');
    if (days.length > KERNEL_DAY_BATCH) throw new RangeError(`at most ${KERNEL_DAY_BATCH} days at once`);
    const foreign = days.find((day) => !this.runDays.has(day));
    if (foreign !== undefined) throw new RangeError(`day ${foreign} is not one of the days this engine was set up for`);
    const beamParts = this.beamParts ? outs.map((out) => out.beamPart ?? null) : null;
    if (beamParts && beamParts.some((out) => !out)) throw new Error('an engine made with beamParts needs an output for them');
    const terrain = this.layout && this.horizons ? { model: this.model, layout: this.layout, horizons: this.horizons } : null;
    const wasm = this.wasm;
    for (const out of outs) {
      // (the WebAssembly kernel's outputs are copied over every cell below)
      if (!wasm) {
        out.global.fill(NaN);
        out.hours.fill(NaN);
        out.beamPart?.fill(NaN);
      }
      out.flat?.fill(NaN);
      out.flatBeam?.fill(NaN);
    }
    const samples = (wasm ? wasm.daySamples : this.samples).slice(0, days.length);
    const globals = outs.map((out) => out.global);
    const hours = outs.map((out) => out.hours);
    // the WebAssembly kernel's rays index its elevation window, the TypeScript kernel's the whole grid
    const rayGridWidth = wasm ? wasm.windowWidth : this.model.width;
    const cells = (tile.colEnd - tile.colStart) * (tile.rowEnd - tile.rowStart);
    // cells of no part (sun tiles without a valid cell) stay nodata
    const covered = tile.parts.reduce((n, p) => n + (p.rowEnd - p.rowStart) * (p.colEnd - p.colStart), 0);
    if (wasm && covered < cells) {
      for (let i = 0; i < days.length; i++) [wasm.globalOut(i), wasm.hoursOut(i), ...(beamParts ? [wasm.beamPartOut(i)] : [])].forEach((out) => out.fill(NaN, 0, cells));
    }
    for (const part of tile.parts) {
      days.forEach((day, i) => sunSamplesForDay(day, this.sunTiles[part.sun]!, this.params, this.table, rayGridWidth, this.layout, samples[i]!, wasm));
      if (wasm) wasm.integrateBlockDays(part, tile, days.length, surface, terrain, this.params.albedo);
      else integrateBlockDays(part, tile, samples, surface, terrain, this.params.albedo, globals, hours, beamParts as Float32Array[] | null);
      outs.forEach((out, i) => {
        if (out.flat) integrateBlockFlat(part, tile, samples[i]!, surface, out.flat, out.flatBeam ?? null);
      });
    }
    if (wasm) {
      outs.forEach((out, i) => {
        out.global.set(wasm.globalOut(i).subarray(0, cells));
        out.hours.set(wasm.hoursOut(i).subarray(0, cells));
        if (beamParts) out.beamPart!.set(wasm.beamPartOut(i).subarray(0, cells));
      });
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
    litEverywhere: horizons.litEverywhere.subarray(first, last),
    // (a traced near field's shared row is every cell's)
    nearUpper: horizons.nearStride === 0 ? horizons.nearUpper : horizons.nearUpper.subarray(first * k, last * k),
    nearLower: horizons.nearStride === 0 ? horizons.nearLower : horizons.nearLower.subarray(first * k, last * k),
    nearStride: horizons.nearStride,
  };
}
