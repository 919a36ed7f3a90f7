/**
 * Horizon data of a tile of cells, computed from the resident terrain model alone, so tiles can be done in
 * any order and in bounded memory: per cell
 *  - the far-field horizon (ray steps > n) in N directions (sweptHorizon.ts, swept for the whole tile),
 *  - upper and lower bounds of the near-field horizon (steps 1 … n) in K = N·m sectors
 *    (nearHorizonBounds.ts),
 *  - per far sector, the sun altitude from which the surface is certainly lit (`sunlitBounds`).
 * A cell's values never depend on the tile it was computed in (on geographic grids the near and far fields
 * take the cell size of the first row of the cell's band of rows, `cellSizeBands`). With `SectorMasks`, only
 * the sectors the tile's sun can stand in are computed; the others are left open (the kernel never reads them).
 * A run of few days leaves the near-field bounds undecided instead (`nearFieldMode`): the kernel then traces
 * the near field at each of its samples, which costs less than bounding it.
 *
 * Arrays are tile-local and cell-major: cell (row, col) of block B has index
 * i = (row − B.rowStart)·(B.colEnd − B.colStart) + (col − B.colStart), and its values of direction k sit at
 * i·N + k (far, litBound) or i·s + k (near bounds, s = `nearStride`: K, or 0 where every cell shares one row of
 * undecided bounds, `allocateTileHorizons` for a traced near field); angles in units of HORIZON_ANGLE_UNIT_RAD.
 */
import { HORIZON_ANGLE_UNIT_RAD, MAX_HORIZON_UNITS } from './horizon.js';
import { nearCandidates, nearHorizonBounds, nearScratchLength, selectSectors, type NearCandidates, type SectorSelection } from './nearHorizonBounds.js';
import type { WasmNearBounds } from './nearHorizonBoundsWasm.js';
import type { SurfaceTerms } from './surface.js';
import { sweepScratch, sweptFarHorizons, type CompiledFarSweep, type GroupDark, type SweepScratch } from './sweptHorizon.js';
import { cellSizeBands, type CellBlock, type TerrainModel } from './terrainModel.js';

/** How horizons are stored: N far directions, K near sectors (a multiple of N), n near-field steps. */
export interface HorizonLayout {
  readonly directions: number;
  readonly nearSectors: number;
  readonly nearSteps: number;
}

/** Far sectors per kernel group sector: groups of about 32 sectors around the horizon, whatever N is. */
export function farSectorsPerGroup(directions: number): number {
  const r = Math.max(1, Math.floor(directions / 32));
  return directions % r === 0 ? r : 1;
}

/** Number of group sectors of a layout (see `TileHorizons.litBound`). */
export function groupSectors(layout: HorizonLayout): number {
  return layout.directions / farSectorsPerGroup(layout.directions);
}

export type { CellBlock } from './terrainModel.js';

/** The horizon arrays of one tile (see the module comment for the layout). Reusable across tiles. */
export interface TileHorizons {
  /** Cells the arrays have room for. */
  readonly capacity: number;
  readonly far: Int16Array;
  readonly nearUpper: Int16Array;
  readonly nearLower: Int16Array;
  /**
   * Near-field values per cell: K, or 0 when the arrays hold one row of undecided bounds (+MAX_HORIZON_UNITS upper,
   * −MAX_HORIZON_UNITS lower) that every cell reads (the near field traced at every sample, `nearFieldMode`).
   */
  readonly nearStride: number;
  /**
   * Per cell and group sector g (G = groupSectors(layout) sectors of r = N/G far sectors: azimuths g·2π/G …
   * (g + 1)·2π/G), the altitude at and above which a sun in that sector certainly lights the surface (above
   * the stored far directions, the near-field upper bounds and the plane of the surface), and the altitude
   * below which it certainly does not (below the lowest far direction bounding the sector, below the lowest
   * near-field lower bound of the sector, or behind the plane of the surface everywhere in the sector). G per
   * cell.
   */
  readonly litBound: Int16Array;
  readonly darkBound: Int16Array;
  /** Per cell, the largest of its G lit bounds: a sun at or above it lights the surface whatever its azimuth. */
  readonly litEverywhere: Int16Array;
}

/**
 * The horizon arrays of a tile of up to `capacity` cells, in this order, each from `allocate` (default: the heap;
 * the WebAssembly kernel takes them from its memory). `nearField` 'traced' (every tile of the run traces its near
 * field): the near-field bounds are one shared row of undecided values instead of K per cell — 2 K·2 bytes less
 * per cell (1 KiB with K = 256), so a tile of a few days' run can be larger within the same memory.
 */
export function allocateTileHorizons(
  layout: HorizonLayout,
  capacity: number,
  allocate: (length: number) => Int16Array = (length) => new Int16Array(length),
  nearField: NearFieldMode = 'bounded',
): TileHorizons {
  const groups = groupSectors(layout);
  const nearStride = nearField === 'traced' ? 0 : layout.nearSectors;
  const nearValues = nearField === 'traced' ? layout.nearSectors : capacity * layout.nearSectors;
  const far = allocate(capacity * layout.directions);
  const nearUpper = allocate(nearValues);
  const nearLower = allocate(nearValues);
  if (nearField === 'traced') {
    nearUpper.fill(MAX_HORIZON_UNITS);
    nearLower.fill(-MAX_HORIZON_UNITS);
  }
  return {
    capacity,
    far,
    nearUpper,
    nearLower,
    nearStride,
    litBound: allocate(capacity * groups),
    darkBound: allocate(capacity * groups),
    litEverywhere: allocate(capacity),
  };
}

/** Bytes of a tile's horizon arrays (`allocateTileHorizons`) per cell of the tile (the shared row not counted). */
export function horizonBytesPerCell(layout: HorizonLayout, nearField: NearFieldMode = 'bounded'): number {
  let values = 0;
  allocateTileHorizons(
    layout,
    1,
    (length) => {
      values += length;
      return new Int16Array(0);
    },
    nearField,
  );
  if (nearField === 'traced') values -= 2 * layout.nearSectors;
  return values * Int16Array.BYTES_PER_ELEMENT;
}

/**
 * The sectors a tile's horizons are read in, from the far sectors its sun can stand in (`sunSectors` in
 * dailyKernel.ts: far sector k spans azimuths k·2π/N … (k + 1)·2π/N): the kernel reads a cell's far field
 * only in the two directions bounding a sector with the sun in it, and its near-field bounds only in the
 * near sectors inside one. Horizons elsewhere are left open: they would never be read.
 */
export interface SectorMasks {
  /** Per far sector (N): 1 where the sun can stand. */
  readonly farSectors: Uint8Array;
  /** Per far direction (N): 1 where a sector on either side of it has the sun. */
  readonly directions: Uint8Array;
  /** Per near sector (K): 1 where its far sector has the sun. */
  readonly nearSectors: Uint8Array;
}

export function sectorMasks(layout: HorizonLayout, sunSectors: Uint8Array): SectorMasks {
  const { directions: n, nearSectors: k } = layout;
  if (sunSectors.length !== n) throw new RangeError(`sun sectors for ${sunSectors.length} directions, the layout has ${n}`);
  const perFar = k / n;
  return {
    farSectors: sunSectors,
    directions: Uint8Array.from(sunSectors, (on, d) => on | sunSectors[(d + n - 1) % n]!),
    nearSectors: Uint8Array.from({ length: k }, (_, j) => sunSectors[Math.floor(j / perFar)]!),
  };
}

/**
 * How the near field (ray steps 1 … n) is decided at the kernel's samples:
 *  - 'bounded': per near sector an upper and a lower bound (nearHorizonBounds.ts) decide most samples, and the
 *    kernel traces the ray only between them;
 *  - 'traced': the bounds are stored undecided (upper +MAX_HORIZON_UNITS, lower −MAX_HORIZON_UNITS), so the
 *    kernel traces the ray at every sample the plane and the far field leave open.
 * The bounds only spare traces: on projected grids both give the kernel the same decisions, so the same outputs
 * to the bit. (On geographic grids a bound can decide a sample within the candidates' cell-size slack of the
 * near horizon differently from the trace; docs/solar-model.md, "Horizons".)
 */
export type NearFieldMode = 'bounded' | 'traced';

/**
 * One near sector-step of the bounds costs about this many traced samples (the kernel's exact test of a sample
 * and its trace, which mostly ends early or is short): with the compiled bounds and kernel, 0.5 on a 270 × 270,
 * 20 m DEM at 62° N (n 48; 20 ns per sector-step, 40 ns per sample) and 0.38 on mcn_10m at 2.5 m (n 16), both on
 * a few days (bench/horizons.bench.mjs, bench/sol.bench.mjs); the smaller is taken.
 */
const BOUND_SECTOR_STEP_IN_TRACED_SAMPLES = 0.4;

/**
 * The cheaper near field for a tile whose cells take `sunSamples` sun samples over the run's days
 * (`sunSampleCount`): bounding costs ∝ n·(near sectors computed), tracing ∝ the samples. A year (≈ 16 000
 * samples at mid-latitudes; at most 0.4 · 64 · 256 ≈ 6 600 for the largest layout) is always bounded; a few days
 * are traced.
 */
export function nearFieldMode(layout: HorizonLayout, masks: SectorMasks | null, sunSamples: number): NearFieldMode {
  return sunSamples < tracedSampleLimit(layout, masks) ? 'traced' : 'bounded';
}

/**
 * The sun samples from which `nearFieldMode` bounds the near field instead of tracing it (0 without a near field):
 * a count of samples needs to go no further (`sunSampleCount`'s `enough`).
 */
export function tracedSampleLimit(layout: HorizonLayout, masks: SectorMasks | null): number {
  if (layout.nearSteps === 0) return 0;
  let sectors = layout.nearSectors;
  if (masks) sectors = masks.nearSectors.reduce((count, on) => count + on, 0);
  return BOUND_SECTOR_STEP_IN_TRACED_SAMPLES * layout.nearSteps * sectors;
}

/** Relative change of a row's cell size tolerated before the near-field candidates are listed again. */
const CELL_SIZE_TOLERANCE = 5e-4;
/**
 * Rows between a cell and the row whose cell size its near-field rays are traced with (the middle row of its
 * sun tile, workflows/solarYear/tilePlan.ts: sun tiles are at most twice this tall).
 */
export const RAY_CELL_SIZE_ROWS = 32;

/**
 * Largest relative difference between the cell sizes of a band's first row (its candidates') and those of a
 * row up to RAY_CELL_SIZE_ROWS from any of the band's rows: the cell-size slack of the near-field candidates.
 */
function rayCellSizeSlack(model: TerrainModel): number {
  const { cellSizeX, cellSizeY, height } = model;
  let slack = 0;
  for (let row = 0; row < height; row++) {
    const other = Math.min(height - 1, row + RAY_CELL_SIZE_ROWS);
    for (const sizes of [cellSizeX, cellSizeY]) {
      const ratio = sizes[other]! / sizes[row]!;
      slack = Math.max(slack, Math.abs(ratio - 1), Math.abs(1 / ratio - 1));
    }
  }
  return slack > 0 ? slack + CELL_SIZE_TOLERANCE : 0;
}

/** What tracing needs besides the model, reused across the tiles of a run (one per worker thread). */
export interface HorizonTracer {
  readonly model: TerrainModel;
  readonly layout: HorizonLayout;
  /** Near-field candidates for the row's cell size: those of the first row of its band of similar rows (listed once per band). */
  candidatesForRow(row: number): NearCandidates;
  /** The far-field sweep's hull. */
  readonly sweep: SweepScratch;
  /** The near-field bounds compiled to WebAssembly (the same bounds), or null: computed in TypeScript. */
  readonly compiledBounds: WasmNearBounds | null;
  /** The far-field sweep compiled to WebAssembly (the same horizons), or null: swept in TypeScript. */
  readonly compiledSweep: CompiledFarSweep | null;
  /**
   * With `compiledSweep`: the least far-field horizon of each group sector of the cells of the block last swept
   * (`tileFarHorizons`, with those masks), which `tileNearHorizons` reads instead of the group's directions.
   */
  groupDark: { block: CellBlock; masks: SectorMasks | null; values: Int16Array } | null;
  /** The per-cell lit and dark bounds compiled to WebAssembly (the same bounds), or null: computed in TypeScript. */
  readonly compiledCellBounds: CompiledCellBounds | null;
}

/**
 * The cell loop of `tileNearHorizons` (`sunlitBounds`, then `groupBounds`, per cell) compiled: the daily kernel's
 * module, whose memory holds a tile's surface terms and horizons (dailyKernelWasm.ts, assembly/cellBounds.ts).
 */
export interface CompiledCellBounds {
  /**
   * The lit and dark bounds of the `cells` cells of `surface` into `out`, as the cell loop of `tileNearHorizons`
   * computes them with these arguments; false, with nothing done, when the arrays do not lie in the module's memory
   * (the loop then runs in TypeScript).
   */
  cellBounds(
    surface: SurfaceTerms,
    out: TileHorizons,
    layout: HorizonLayout,
    cells: number,
    masks: SectorMasks | null,
    sunGroups: Int32Array,
    traced: boolean,
    farDarks: GroupDarkSource,
  ): boolean;
}

/** Each group's least far horizon: the compiled sweep's kept minima (G per cell), or each group's directions. */
export type GroupDarkSource = Int16Array | { start: Int32Array; list: Int32Array };

export function horizonTracer(
  model: TerrainModel,
  layout: HorizonLayout,
  compiledBounds: WasmNearBounds | null = null,
  compiledSweep: CompiledFarSweep | null = null,
  compiledCellBounds: CompiledCellBounds | null = null,
): HorizonTracer {
  if (layout.directions <= 0) throw new RangeError('a horizon layout needs at least one direction');
  if (layout.nearSectors % layout.directions !== 0) throw new RangeError('near sectors must subdivide the far directions');
  // a row takes the candidates of its band's first row, whatever rows its thread visited before it
  const { bandOfRow, firstRow } = cellSizeBands(model, CELL_SIZE_TOLERANCE);
  const cache = new Map<number, NearCandidates>();
  const slack = rayCellSizeSlack(model);
  return {
    model,
    layout,
    sweep: sweepScratch(),
    compiledBounds,
    compiledSweep,
    groupDark: null,
    compiledCellBounds,
    candidatesForRow(row) {
      const band = bandOfRow[row]!;
      let candidates = cache.get(band);
      if (!candidates) {
        const first = firstRow[band]!;
        candidates = nearCandidates(model.cellSizeX[first]!, model.cellSizeY[first]!, layout.nearSectors, layout.nearSteps, model.width, slack);
        cache.set(band, candidates);
      }
      return candidates;
    },
  };
}

/**
 * Fills `out` with the horizon data of the cells of `block` (tile-local layout); `surface` holds the
 * block's surface terms in the same tile-local order. Nodata cells get open horizons; with `masks`, so do
 * the sectors the sun never stands in.
 */
export function tileHorizons(
  tracer: HorizonTracer,
  block: CellBlock,
  surface: SurfaceTerms,
  out: TileHorizons,
  masks: SectorMasks | null = null,
  nearField: NearFieldMode = 'bounded',
): void {
  tileFarHorizons(tracer, block, out, masks);
  tileNearHorizons(tracer, block, surface, out, masks, nearField);
}

/** The far-field horizons of the cells of `block` (swept, sweptHorizon.ts), all directions at once. */
export function tileFarHorizons(tracer: HorizonTracer, block: CellBlock, out: TileHorizons, masks: SectorMasks | null = null): void {
  const { directions, nearSteps } = tracer.layout;
  const cells = checkCapacity(block, out);
  const perGroup = farSectorsPerGroup(directions);
  let groupDark: GroupDark | null = null;
  if (tracer.compiledSweep) {
    // the compiled sweep also keeps each group's least horizon (`groupBounds` needs no other far values)
    const length = cells * (directions / perGroup);
    const values = tracer.groupDark && tracer.groupDark.values.length >= length ? tracer.groupDark.values : new Int16Array(length);
    tracer.groupDark = { block: { ...block }, masks, values };
    groupDark = { perGroup, out: values.subarray(0, length) };
  }
  sweptFarHorizons(tracer.model, block, directions, nearSteps, out.far, tracer.sweep, { needed: masks?.directions ?? null, compiled: tracer.compiledSweep, groupDark });
}

/** The group minima `tileFarHorizons` kept for the cells of `block` (a band of rows of the block it swept), or null. */
function keptGroupDark(tracer: HorizonTracer, block: CellBlock, masks: SectorMasks | null): Int16Array | null {
  const kept = tracer.groupDark;
  if (!kept || kept.masks !== masks) return null;
  const swept = kept.block;
  if (block.colStart !== swept.colStart || block.colEnd !== swept.colEnd || block.rowStart < swept.rowStart || block.rowEnd > swept.rowEnd) return null;
  const groups = groupSectors(tracer.layout);
  const width = block.colEnd - block.colStart;
  return kept.values.subarray((block.rowStart - swept.rowStart) * width * groups, (block.rowEnd - swept.rowStart) * width * groups);
}

/**
 * The rest of the horizon data of the cells of `block` once their far field is in `out`: near-field bounds
 * (undecided with `nearField` 'traced'), lit and dark bounds; nodata cells get open near-field bounds. Any band
 * of rows of a block can be done on its own.
 */
export function tileNearHorizons(
  tracer: HorizonTracer,
  block: CellBlock,
  surface: SurfaceTerms,
  out: TileHorizons,
  masks: SectorMasks | null = null,
  nearField: NearFieldMode = 'bounded',
): void {
  const { layout } = tracer;
  const { directions } = layout;
  const cells = checkCapacity(block, out);
  if (out.nearStride === 0 && nearField === 'bounded') throw new Error('horizons made for a traced near field have no room for near-field bounds');
  // (the shared row of a traced near field is undecided from its allocation)
  if (nearField === 'traced' && out.nearStride > 0) undecidedNearBounds(tracer, block, out);
  else if (nearField === 'bounded') boundedNearHorizons(tracer, block, out, masks);
  const fine = new Int16Array(directions);
  const perGroup = farSectorsPerGroup(directions);
  const groups = directions / perGroup;
  // the groups the kernel reads (once per tile, not per cell); the others get lit and dark bounds that decide
  // nothing, −MAX_HORIZON_UNITS, here for every cell at once
  const sunGroups = masks ? groupsWithSun(masks.farSectors, perGroup) : Int32Array.from({ length: groups }, (_, g) => g);
  if (sunGroups.length < groups) {
    out.litBound.fill(-MAX_HORIZON_UNITS, 0, cells * groups);
    out.darkBound.fill(-MAX_HORIZON_UNITS, 0, cells * groups);
  }
  // traced: a sun sector's lit bound is at least the undecided near bound's +MAX, whatever the far field and
  // the plane say (no sample is that high), so it is +MAX without computing them, and so is the lit bound of every
  // group the sun stands in
  const traced = nearField === 'traced';
  // each group's least far horizon: kept by the compiled sweep, else taken from the group's directions
  const farDarks = keptGroupDark(tracer, block, masks) ?? groupDarkDirections(directions, perGroup, masks);
  if (tracer.compiledCellBounds?.cellBounds(surface, out, layout, cells, masks, sunGroups, traced, farDarks)) return;
  for (let cell = 0; cell < cells; cell++) {
    const litUndecided = traced && surface.valid[cell] === 1;
    if (!litUndecided) sunlitBounds(surface, out.far, out.nearUpper, directions, layout.nearSectors, cell, fine, masks?.farSectors ?? null);
    groupBounds(surface, out, layout, perGroup, cell, litUndecided ? null : fine, masks, sunGroups, traced, farDarks);
  }
}

/** Near-field bounds that decide nothing (the kernel traces every sample): upper +MAX, lower −MAX; nodata cells open. */
function undecidedNearBounds(tracer: HorizonTracer, block: CellBlock, out: TileHorizons): void {
  const { width, elevation } = tracer.model;
  const { nearSectors } = tracer.layout;
  const blockWidth = block.colEnd - block.colStart;
  const values = blockWidth * (block.rowEnd - block.rowStart) * nearSectors;
  out.nearUpper.fill(MAX_HORIZON_UNITS, 0, values);
  out.nearLower.fill(-MAX_HORIZON_UNITS, 0, values);
  for (let row = block.rowStart; row < block.rowEnd; row++) {
    for (let col = block.colStart; col < block.colEnd; col++) {
      if (!Number.isNaN(elevation[row * width + col]!)) continue;
      const nearBase = ((row - block.rowStart) * blockWidth + (col - block.colStart)) * nearSectors;
      out.nearUpper.fill(-MAX_HORIZON_UNITS, nearBase, nearBase + nearSectors);
    }
  }
}

/** The near-field bounds of the cells of `block` (nearHorizonBounds.ts, compiled when the tracer has it). */
function boundedNearHorizons(tracer: HorizonTracer, block: CellBlock, out: TileHorizons, masks: SectorMasks | null): void {
  const { model, layout } = tracer;
  const { width, elevation } = model;
  const { nearSectors, nearSteps } = layout;
  const blockWidth = block.colEnd - block.colStart;
  let scratch = new Float64Array(0);
  let selection: SectorSelection | null = null;
  for (let row = block.rowStart; row < block.rowEnd; row++) {
    const candidates = nearSteps > 0 ? tracer.candidatesForRow(row) : null;
    if (masks && candidates && selection?.candidates !== candidates) selection = selectSectors(candidates, masks.nearSectors);
    if (candidates && tracer.compiledBounds) {
      const rowBase = (row - block.rowStart) * blockWidth * nearSectors;
      tracer.compiledBounds.boundsOfRow(model, row, block.colStart, block.colEnd, candidates, selection, out.nearUpper, out.nearLower, rowBase);
      continue;
    }
    if (candidates && scratch.length < nearScratchLength(candidates)) scratch = new Float64Array(nearScratchLength(candidates));
    for (let col = block.colStart; col < block.colEnd; col++) {
      const local = (row - block.rowStart) * blockWidth + (col - block.colStart);
      const nearBase = local * nearSectors;
      if (Number.isNaN(elevation[row * width + col]!)) {
        out.nearUpper.fill(-MAX_HORIZON_UNITS, nearBase, nearBase + nearSectors);
        out.nearLower.fill(-MAX_HORIZON_UNITS, nearBase, nearBase + nearSectors);
        continue;
      }
      if (candidates) nearHorizonBounds(elevation, width, model.height, row, col, candidates, out.nearUpper, out.nearLower, nearBase, scratch, selection);
      else {
        out.nearUpper.fill(-MAX_HORIZON_UNITS, nearBase, nearBase + nearSectors);
        out.nearLower.fill(-MAX_HORIZON_UNITS, nearBase, nearBase + nearSectors);
      }
    }
  }
}

function checkCapacity(block: CellBlock, out: TileHorizons): number {
  const cells = (block.colEnd - block.colStart) * (block.rowEnd - block.rowStart);
  if (cells > out.capacity) throw new RangeError(`tile of ${cells} cells exceeds the horizon arrays' ${out.capacity}`);
  return cells;
}

/**
 * The far directions whose horizons bound each group sector of r far sectors from below (the group's r + 1
 * directions, the last one N ≡ 0; with `masks`, only the directions computed): group g's are
 * list[start[g]] … list[start[g + 1] − 1].
 */
function groupDarkDirections(directions: number, r: number, masks: SectorMasks | null): { start: Int32Array; list: Int32Array } {
  const groups = directions / r;
  const start = new Int32Array(groups + 1);
  const list: number[] = [];
  for (let g = 0; g < groups; g++) {
    start[g] = list.length;
    for (let k = g * r; k <= (g + 1) * r; k++) {
      const d = k === directions ? 0 : k;
      if (!masks || masks.directions[d] === 1) list.push(d);
    }
  }
  start[groups] = list.length;
  return { start, list: Int32Array.from(list) };
}

/**
 * The bounds of one cell per group sector of r far sectors (G = N/r): the largest of its far sectors' lit
 * bounds (`fine`, N values; null: every lit bound +MAX_HORIZON_UNITS, undecided); and the largest of three altitudes below each of which the sun is certainly
 * hidden anywhere in the sector — the lowest far direction bounding it, the lowest near-field lower bound
 * of its near sectors, and the lowest altitude of the surface's plane over its azimuths (rounded down, one
 * unit of margin). Also the cell's lit bound over all sectors (`litEverywhere`). With `nearUndecided` (the near field
 * traced, `undecidedNearBounds`) every near-field lower bound is −MAX_HORIZON_UNITS and decides nothing: they are
 * not read. The lowest far direction of each group comes from `farDarks`: the group minima the compiled sweep kept
 * (cell-major, G per cell), or the list of each group's directions (`groupDarkDirections`) to take it from `far`.
 */
function groupBounds(
  surface: SurfaceTerms,
  out: TileHorizons,
  layout: HorizonLayout,
  r: number,
  cell: number,
  fine: Int16Array | null,
  masks: SectorMasks | null,
  sunGroups: Int32Array,
  nearUndecided: boolean,
  farDarks: GroupDarkSource,
): void {
  const { directions, nearSectors } = layout;
  const { far, nearLower, litBound, darkBound } = out;
  const groups = directions / r;
  const nearPerGroup = (nearSectors / directions) * r;
  const base = cell * directions;
  const inclined = surface.valid[cell] === 1 && surface.inclined[cell] === 1;
  const nE = surface.normalEast[cell]!;
  const nN = surface.normalNorth[cell]!;
  const nU = surface.normalUp[cell]!;
  // the plane's lowest tangent, −|∇|/n_U, lies downslope; in sectors narrower than 90° the sector holding it has
  // both boundary tangents below 0 already (their azimuths are less than 90° from it), so it raises no dark bound
  // and is needed only in wider sectors
  const boundaries = sectorBoundaries(groups);
  const sectorOfLowest = inclined && groups < 5 ? sectorOfAzimuth(Math.atan2(nE, nN), groups) : -1;
  const lowestTangent = sectorOfLowest >= 0 ? -(Math.hypot(nE, nN) / nU) : 0;
  // each group's least far horizon as the compiled sweep kept it, else from the group's directions
  const kept = farDarks instanceof Int16Array ? farDarks : null;
  const lists = kept ? null : (farDarks as { start: Int32Array; list: Int32Array });
  let everywhere = -MAX_HORIZON_UNITS;
  for (let n = 0; n < sunGroups.length; n++) {
    const g = sunGroups[n]!;
    let lit = fine ? -MAX_HORIZON_UNITS : MAX_HORIZON_UNITS;
    for (let k = g * r; fine && k < (g + 1) * r; k++) lit = Math.max(lit, fine[k]!);
    // only the directions and near sectors a sun in the group can be compared with (masks: those computed)
    let farDark = MAX_HORIZON_UNITS;
    if (kept) farDark = kept[cell * groups + g]!;
    else for (let i = lists!.start[g]!; i < lists!.start[g + 1]!; i++) farDark = Math.min(farDark, far[base + lists!.list[i]!]!);
    let nearDark = nearUndecided ? -MAX_HORIZON_UNITS : MAX_HORIZON_UNITS;
    for (let k = g * nearPerGroup; !nearUndecided && k < (g + 1) * nearPerGroup; k++) {
      if (!masks || masks.nearSectors[k] === 1) nearDark = Math.min(nearDark, nearLower[cell * nearSectors + k]!);
    }
    let dark = Math.max(farDark, nearDark);
    if (inclined) {
      // tan h below the plane's lowest tan over the sector: behind the plane at every azimuth of it
      let lowest = Math.min(planeTangent(nE, nN, nU, boundaries, g), planeTangent(nE, nN, nU, boundaries, g + 1));
      if (g === sectorOfLowest) lowest = Math.min(lowest, lowestTangent);
      if (lowest > 0) dark = Math.max(dark, Math.floor(Math.atan(lowest) / HORIZON_ANGLE_UNIT_RAD) - 1);
    }
    litBound[cell * groups + g] = lit;
    darkBound[cell * groups + g] = dark;
    everywhere = Math.max(everywhere, lit);
  }
  out.litEverywhere[cell] = everywhere;
}

/** The group sectors of r far sectors in one of which the sun stands, ascending. */
function groupsWithSun(farSectors: Uint8Array, r: number): Int32Array {
  const groups = farSectors.length / r;
  return Int32Array.from({ length: groups }, (_, g) => g).filter((g) => farSectors.subarray(g * r, (g + 1) * r).includes(1));
}

/**
 * Per far sector, the lowest sun altitude [horizon units] at which a sun anywhere in the sector certainly
 * lights the surface of `cell`: at or above the stored far-field horizon of both bounding directions, the
 * near-field upper bounds of the sector, and the self-shading altitude of the plane — the sun is in front
 * of a plane with upward unit normal n when tan h > −(n_E sin az + n_N cos az)/n_U. Writes N values to `out`
 * (with `sunSectors`, −MAX_HORIZON_UNITS in the sectors without the sun, whose horizons were not computed).
 * Called for every cell of a tile, so its parameters stay positional (no record built and read per cell).
 */
export function sunlitBounds(
  surface: SurfaceTerms,
  far: Int16Array,
  nearUpper: Int16Array,
  directions: number,
  nearSectors: number,
  cell: number,
  out: Int16Array,
  sunSectors: Uint8Array | null = null,
): void {
  const nearPerSector = nearSectors / directions;
  const base = cell * directions;
  if (surface.valid[cell] === 0) {
    out.fill(-MAX_HORIZON_UNITS, 0, directions);
    return;
  }
  const inclined = surface.inclined[cell] === 1;
  const nE = surface.normalEast[cell]!;
  const nN = surface.normalNorth[cell]!;
  const nU = surface.normalUp[cell]!;
  // the plane hides the sun most toward the upslope azimuth (grid frame), where its tangent is |∇|/n_U
  const boundaries = sectorBoundaries(directions);
  const sectorOfHighest = inclined ? sectorOfAzimuth(Math.atan2(-nE, -nN), directions) : -1;
  const highestTangent = inclined ? Math.hypot(nE, nN) / nU : 0;
  for (let k = 0; k < directions; k++) {
    if (sunSectors && sunSectors[k] === 0) {
      out[k] = -MAX_HORIZON_UNITS;
      continue;
    }
    const k1 = k + 1 === directions ? 0 : k + 1;
    let bound = Math.max(far[base + k]!, far[base + k1]!);
    for (let j = 0; j < nearPerSector; j++) bound = Math.max(bound, nearUpper[cell * nearSectors + k * nearPerSector + j]!);
    if (inclined) {
      let worst = Math.max(planeTangent(nE, nN, nU, boundaries, k), planeTangent(nE, nN, nU, boundaries, k + 1));
      if (k === sectorOfHighest) worst = Math.max(worst, highestTangent);
      if (worst > 0) bound = Math.max(bound, Math.ceil(Math.atan(worst) / HORIZON_ANGLE_UNIT_RAD) + 1);
    }
    out[k] = bound;
  }
}

/**
 * The plane's self-shading tangent −(n_E sin az + n_N cos az)/n_U (the sun is behind the plane below it) at boundary
 * k of the S equal sectors of `boundaries` (azimuth k·2π/S). Its extremes ±|∇|/n_U lie upslope and downslope.
 */
function planeTangent(nE: number, nN: number, nU: number, boundaries: SectorBoundaries, k: number): number {
  return -(nE * boundaries.sin[k]! + nN * boundaries.cos[k]!) / nU;
}

/** The one of S equal sectors (sector k from azimuth k·2π/S) that holds `azimuthRad` (in −π…π, as from Math.atan2). */
function sectorOfAzimuth(azimuthRad: number, sectors: number): number {
  const turn = azimuthRad < 0 ? azimuthRad + 2 * Math.PI : azimuthRad;
  return Math.min(sectors - 1, Math.floor((turn / (2 * Math.PI)) * sectors));
}

export interface SectorBoundaries {
  readonly sin: Float64Array;
  readonly cos: Float64Array;
}

const boundaryTables = new Map<number, SectorBoundaries>();

/** sin and cos of the azimuths k·2π/S, k = 0 … S (computed once per S). */
export function sectorBoundaries(sectors: number): SectorBoundaries {
  let table = boundaryTables.get(sectors);
  if (!table) {
    table = { sin: new Float64Array(sectors + 1), cos: new Float64Array(sectors + 1) };
    for (let k = 0; k <= sectors; k++) {
      table.sin[k] = Math.sin((2 * Math.PI * k) / sectors);
      table.cos[k] = Math.cos((2 * Math.PI * k) / sectors);
    }
    boundaryTables.set(sectors, table);
  }
  return table;
}
