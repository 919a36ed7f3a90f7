/**
 * The daily kernel in WebAssembly: `integrateBlockDays` of dailyKernel.ts compiled from assembly/dailyKernel.ts
 * (AssemblyScript: the same decisions with the same arithmetic, outputs equal to the bit — a test holds them
 * so), with terrain shadows eight cells of a row at a time (assembly/sunlitLanes.ts). About 2× the cell-days per
 * second of the TypeScript kernel on one thread (bench/kernel.bench.mjs): the compiled loops read typed memory
 * without bounds checks, eight cells share each look at a sample, and the run sums go two at a time (SIMD).
 *
 * Everything the kernel reads lives in the module's memory, laid out once per capacity (`reserve`): the day
 * samples of a batch of days (filled by `sunSamplesForDay`, through `writeSunSamples` and `writeNearRays` in the
 * module: assembly/sunSamples.ts, assembly/nearRays.ts), the tile's horizons (filled by
 * tileHorizons.ts, as views), its surface terms (`surfaceAllocator`), a window of the elevation grid around the
 * tile (`loadElevationWindow`: the near-field rays read it) and the outputs. Near-field ray offsets must be
 * computed for the window's width (`windowWidth`).
 * @see dailyKernel.ts (the TypeScript kernel and the quantities), scripts/build-wasm.mjs (the build)
 */
import {
  KERNEL_DAY_BATCH,
  SECTOR_BOUNDARY_SLACK,
  sunSectors,
  transmittanceTableLength,
  type CellBlock,
  type DaySamples,
  type HorizonLayout,
  type KernelTerrain,
  type NearRayWriter,
  type SunSampleDay,
  type TileGeometry,
  type TransmittanceTable,
} from './dailyKernel.js';
import { solarDeclination } from './sunPosition.js';
import { AIR_MASS_SCALE_HEIGHT_M, MUNEER_LOW_SUN_ALTITUDE_RAD, MUNEER_SHADED_COEFFICIENT, RAYLEIGH_BRANCH_AIR_MASS } from './clearSky.js';
import type { ArrayAllocator, SurfaceTerms } from './surface.js';
import type { HornGradient } from '../terrain/slopeAspect.js';
import { EARTH_RADIUS_M, HORIZON_ANGLE_UNIT_RAD, MAX_HORIZON_UNITS } from './horizon.js';
import { NEAR_QUADRANTS } from './nearFieldMaxima.js';
import { copyElevations, type TerrainModel } from './terrainModel.js';
import {
  allocateTileHorizons,
  farSectorsPerGroup,
  groupSectors,
  sectorBoundaries,
  type CompiledCellBounds,
  type NearFieldMode,
  type TileHorizons,
} from './tileHorizons.js';
import { Arena, PAGE_BYTES, instantiateKernel } from '../../util/wasmModules.js';

// The descriptor fields (assembly/dailyKernel.ts, D_* and Y_*): i32 each.
const DESCRIPTOR_FIELDS = 40;
const DAY_FIELDS = 32;
const PREFIX_QUANTITIES = 26;
/** Cells whose near-field rays assembly/sunlitLanes.ts steps together (its RAY_LANES, checked on loading): it reads that many elevations at once. */
const RAY_LANES = 4;
// Scratch of the kernel (assembly/sunlitLanes.ts, LANE_SCRATCH_BYTES): eight cells' sums, run states and state,
// their group bounds for up to MAX_GROUP_SECTORS group sectors, and which of those the batch's samples stand in.
const SUMS_SCRATCH_BYTES = 11328;
const MAX_GROUP_SECTORS = 256;
/** Inputs per sample of the kernel's `nearFieldRays` (assembly/nearRays.ts, NEAR_RAY_INPUTS, checked on loading). */
const NEAR_RAY_INPUTS = 3;
/** Bytes of the inputs, results and scratch of the kernel's `sunSamples` (assembly/sunSamples.ts, SUN_SAMPLE_BYTES, checked on loading). */
const SUN_SAMPLE_BYTES = 408;
/** Days and sun tiles of one call of `sunSectorsOfDays` (assembly/sunSectors.ts); longer lists of days are done in TypeScript. */
const SECTOR_DAYS = 366;
const SECTOR_TILES = 256;
/** Where `sunSamples` leaves its results among its f64 fields (after the inputs): count, peak, groups, Σ D_h. */
const SUN_SAMPLE_COUNT = 23;
const SUN_SAMPLE_PEAK = 24;
const SUN_SAMPLE_GROUP_COUNT = 25;
const SUN_SAMPLE_SUM_DIFFUSE = 26;
/** The transmittance table the kernel's `sunSamples` keeps: room for a default table's entries (dailyKernel.ts). */
const TRANSMITTANCE_ENTRIES = transmittanceTableLength();
/** Fields of the descriptor of the kernel's `cellBounds` (assembly/cellBounds.ts, CELL_BOUNDS_FIELDS, checked on loading). */
const CELL_BOUNDS_FIELDS = 24;
/** Cells whose kept group minima (`GroupDarkSource`) are copied into the module's memory at a time. */
const CELL_BOUNDS_CHUNK_CELLS = 4096;

/** Cells and elevation-window cells the kernel's memory has room for. */
export interface WasmKernelCapacity {
  readonly cells: number;
  readonly windowCells: number;
}

/** Where the elevation window stands in the grid (`loadElevationWindow`). */
interface ElevationWindow {
  rowStart: number;
  rowEnd: number;
  colStart: number;
  width: number;
  /** Rows and columns of margin around the tile it was loaded for. */
  marginRows: number;
  marginCols: number;
  /** The tile it was loaded for (the near-field maxima are local to it). */
  tile: CellBlock | null;
}

/** The views of a memory laid out for a capacity. */
interface MemoryLayout {
  readonly descriptor: Int32Array;
  /** The inputs of `nearFieldRays`: NEAR_RAY_INPUTS f64 per sample. */
  readonly rayInputs: Float64Array;
  /** The Horn gradient of the loaded tile's cells (`hornGradientOfWindow`). */
  readonly fallEast: Float64Array;
  readonly fallNorth: Float64Array;
  readonly dayDescriptors: Int32Array;
  readonly albedo: Float64Array;
  readonly sums: Float64Array;
  readonly daySamples: DaySamples[];
  /** Per day: the floors of its samples' altitudes and of its groups' least and greatest (the module fills them). */
  readonly altitudeFloors: Int32Array[][];
  readonly dayScalars: Float64Array[];
  readonly globalOut: Float32Array[];
  readonly hoursOut: Float32Array[];
  /** The beam part of the global irradiation per day, when the kernel was made to give it (else empty). */
  readonly beamPartOut: Float32Array[];
  readonly horizons: TileHorizons | null;
  /** The highest terrain of each quadrant of every cell's near field (nearFieldMaxima.ts), with a layout. */
  readonly nearMaxima: Float32Array | null;
  /** Scratch of the kernel's `nearQuadrantMaxima` (assembly/nearMaxima.ts), with a layout. */
  readonly maximaScratch: Float32Array | null;
  /** Room for the surface terms: two u8 and eight f64 arrays of `cells`. */
  readonly surfaceBytes: Uint8Array[];
  readonly surfaceFloats: Float64Array[];
  readonly elevation: Float32Array;
  readonly elevationGuard: Float32Array;
  /** The room of `cellBounds` (assembly/cellBounds.ts), with a layout. */
  readonly cellBounds: CellBoundsRoom | null;
  /** The inputs, results and scratch of `sunSamples` (assembly/sunSamples.ts), and its transmittance table. */
  readonly sunInputs: Float64Array;
  readonly transmittance: Float64Array;
  /** The inputs of `sunSectorsOfDays` (assembly/sunSectors.ts): the days' declinations, then a chunk of sun tiles' latitudes and convergences; its marks. */
  readonly sectorInputs: Float64Array;
  readonly sectorMarks: Uint8Array;
}

/** What the kernel's `cellBounds` reads besides the tile's surface terms and horizons. */
interface CellBoundsRoom {
  readonly descriptor: Int32Array;
  /** sin and cos of the N + 1 sector boundaries and of the G + 1 group boundaries; then (`fine`) room for N lit bounds. */
  readonly tables: Float64Array;
  readonly fine: Int16Array;
  readonly farSectors: Uint8Array;
  readonly nearSectors: Uint8Array;
  readonly sunGroups: Int32Array;
  readonly listStart: Int32Array;
  readonly list: Int32Array;
  /** The kept group minima of CELL_BOUNDS_CHUNK_CELLS cells. */
  readonly kept: Int16Array;
}

/** Lays out the room of `cellBounds` for `layout`. */
function layCellBounds(arena: Arena, layout: HorizonLayout): CellBoundsRoom {
  const { directions, nearSectors } = layout;
  const groups = groupSectors(layout);
  return {
    descriptor: arena.take(Int32Array, CELL_BOUNDS_FIELDS),
    tables: arena.take(Float64Array, 2 * (directions + 1) + 2 * (groups + 1)),
    // (right after the tables: their length is even, so no alignment gap)
    fine: arena.take(Int16Array, directions),
    farSectors: arena.take(Uint8Array, directions),
    nearSectors: arena.take(Uint8Array, nearSectors),
    sunGroups: arena.take(Int32Array, groups),
    listStart: arena.take(Int32Array, groups + 1),
    list: arena.take(Int32Array, directions + groups),
    kept: arena.take(Int16Array, CELL_BOUNDS_CHUNK_CELLS * groups),
  };
}

/** Lays out the kernel's memory (`arena` without a buffer: only measures it); `beamPart`: room for its outputs. */
function layMemory(arena: Arena, layout: HorizonLayout | null, sampleCapacity: number, capacity: WasmKernelCapacity, beamPart: boolean, nearField: NearFieldMode): MemoryLayout {
  const { cells, windowCells } = capacity;
  const ints = arena.take(Int32Array, DESCRIPTOR_FIELDS + DAY_FIELDS * KERNEL_DAY_BATCH);
  const rayInputs = arena.take(Float64Array, NEAR_RAY_INPUTS * sampleCapacity);
  const fallEast = arena.take(Float64Array, cells);
  const fallNorth = arena.take(Float64Array, cells);
  const scalars = arena.take(Float64Array, 1 + SUMS_SCRATCH_BYTES / 8);
  const nearCapacity = sampleCapacity * Math.max(1, layout?.nearSteps ?? 0);
  const daySamples: DaySamples[] = [];
  const altitudeFloors: Int32Array[][] = [];
  const dayScalars: Float64Array[] = [];
  const globalOut: Float32Array[] = [];
  const hoursOut: Float32Array[] = [];
  const beamPartOut: Float32Array[] = [];
  for (let d = 0; d < KERNEL_DAY_BATCH; d++) {
    const f = (n = sampleCapacity) => arena.take(Float64Array, n);
    const i = (n = sampleCapacity + 1) => arena.take(Int32Array, n);
    daySamples.push({
      count: 0,
      stepHours: 0,
      extraterrestrialWM2: 0,
      sumDiffuseHorizontal: 0,
      pressureRatioCentre: 1,
      capacity: sampleCapacity,
      nearCapacity,
      sinAltitude: f(),
      altitudeUnits: f(),
      sunEast: f(),
      sunNorth: f(),
      horizonWeight: f(),
      groupMinAltitude: f(),
      groupMaxAltitude: f(),
      nearSector: i(),
      horizonDirection0: i(),
      horizonDirection1: i(),
      nearStart: i(),
      sampleGroup: i(),
      groupSector: i(),
      groupStart: i(),
      groupEnd: i(),
      nearOffset: i(nearCapacity),
      nearCol: i(nearCapacity),
      nearRow: i(nearCapacity),
      nearThreshold: f(nearCapacity),
      nearMinThreshold: f(nearCapacity),
      nearQuadrant: i(sampleCapacity),
      nearReachCols: 0,
      nearReachRows: 0,
      prefix: f(PREFIX_QUANTITIES * (sampleCapacity + 1)),
      peak: 0,
      groupCount: 0,
    });
    altitudeFloors.push([i(), i(), i()]);
    dayScalars.push(f(4));
    globalOut.push(arena.take(Float32Array, cells));
    hoursOut.push(arena.take(Float32Array, cells));
    if (beamPart) beamPartOut.push(arena.take(Float32Array, cells));
  }
  const horizons = layout ? allocateTileHorizons(layout, cells, (length) => arena.take(Int16Array, length), nearField) : null;
  return {
    descriptor: ints.subarray(0, DESCRIPTOR_FIELDS),
    dayDescriptors: ints.subarray(DESCRIPTOR_FIELDS),
    rayInputs,
    fallEast,
    fallNorth,
    albedo: scalars.subarray(0, 1),
    sums: scalars.subarray(1),
    daySamples,
    altitudeFloors,
    dayScalars,
    globalOut,
    hoursOut,
    beamPartOut,
    horizons,
    nearMaxima: layout ? arena.take(Float32Array, cells * NEAR_QUADRANTS) : null,
    // two arrays of the window's rows × the tile's width, two lines of the window's longer side
    maximaScratch: layout ? arena.take(Float32Array, 4 * windowCells) : null,
    surfaceBytes: [0, 1].map(() => arena.take(Uint8Array, cells)),
    surfaceFloats: [0, 1, 2, 3, 4, 5, 6, 7].map(() => arena.take(Float64Array, cells)),
    elevation: arena.take(Float32Array, windowCells),
    // read, never used, past the window's end by the kernel's four-cell reads of near-field rays (sunlitLanes.ts)
    elevationGuard: arena.take(Float32Array, RAY_LANES),
    cellBounds: layout ? layCellBounds(arena, layout) : null,
    sunInputs: arena.take(Float64Array, SUN_SAMPLE_BYTES / 8),
    transmittance: arena.take(Float64Array, TRANSMITTANCE_ENTRIES),
    sectorInputs: arena.take(Float64Array, SECTOR_DAYS + 2 * SECTOR_TILES),
    sectorMarks: arena.take(Uint8Array, MAX_GROUP_SECTORS),
  };
}

/**
 * One thread's WebAssembly kernel with its memory. Use: `reserve` for the tile, compute the surface terms with
 * `surfaceAllocator()` and the horizons into `horizons`, `loadElevationWindow`, then per batch of days fill
 * `daySamples` (with `windowWidth`) and call `integrateBlockDays`; the outputs are in `globalOut`/`hoursOut`.
 * A larger `reserve` replaces the memory: every view taken before is stale.
 */
export class WasmDailyKernel implements NearRayWriter, CompiledCellBounds {
  private memory: WebAssembly.Memory | null = null;
  private integrate: ((descriptor: number) => void) | null = null;
  private rays: ((...args: number[]) => number) | null = null;
  private hornRow: ((...args: number[]) => void) | null = null;
  private surfaceOf: ((...args: number[]) => void) | null = null;
  private sectorsOf: ((...args: number[]) => void) | null = null;
  private maxima: ((...args: number[]) => void) | null = null;
  private boundsOfCells: ((descriptor: number, tables: number) => void) | null = null;
  private samplesOfDay: ((day: number, inputs: number, rayInputs: number, table: number) => void) | null = null;
  /** The table whose entries the module's transmittance table holds (null: none yet, all NaN). */
  private transmittanceOf: TransmittanceTable | null = null;
  private capacity: WasmKernelCapacity = { cells: 0, windowCells: 0 };
  private views: MemoryLayout | null = null;
  private readonly window: ElevationWindow = { rowStart: 0, rowEnd: 0, colStart: 0, width: 0, marginRows: 0, marginCols: 0, tile: null };

  /**
   * `beamPart`: the kernel also gives the beam part of the daily global irradiation (`beamPartOut`, EEMT's real-sky
   * radiation); without it the kernel's memory and work are those of the global irradiation and hours alone.
   * `nearField` 'traced': every tile traces its near field, and `horizons` keeps no near-field bounds per cell
   * (`allocateTileHorizons`).
   */
  constructor(
    private readonly layout: HorizonLayout | null,
    private readonly sampleCapacity: number,
    private readonly beamPart = false,
    private readonly nearField: NearFieldMode = 'bounded',
  ) {
    if (layout && groupSectors(layout) > MAX_GROUP_SECTORS) throw new RangeError(`at most ${MAX_GROUP_SECTORS} group sectors, not ${groupSectors(layout)}`);
  }

  /** Makes room for a tile of `cells` cells and an elevation window of `windowCells` (keeps a larger memory). */
  reserve(cells: number, windowCells: number): void {
    if (this.memory && cells <= this.capacity.cells && windowCells <= this.capacity.windowCells) return;
    const capacity = { cells: Math.max(cells, this.capacity.cells), windowCells: Math.max(windowCells, this.capacity.windowCells) };
    const bytes = new Arena(null);
    layMemory(bytes, this.layout, this.sampleCapacity, capacity, this.beamPart, this.nearField);
    const memory = new WebAssembly.Memory({ initial: Math.ceil(bytes.used / PAGE_BYTES) });
    const instance = instantiateKernel('dailyKernel', memory, DESCRIPTOR_FIELDS);
    const dayFields = (instance.exports.DAY_FIELDS as WebAssembly.Global).value as number;
    const scratchBytes = (instance.exports.LANE_SCRATCH_BYTES as WebAssembly.Global).value as number;
    const maxGroups = (instance.exports.MAX_GROUP_SECTORS as WebAssembly.Global).value as number;
    const rayLanes = (instance.exports.RAY_LANES as WebAssembly.Global).value as number;
    const rayInputs = (instance.exports.NEAR_RAY_INPUTS as WebAssembly.Global | undefined)?.value as number | undefined;
    const boundsFields = (instance.exports.CELL_BOUNDS_FIELDS as WebAssembly.Global | undefined)?.value as number | undefined;
    const sunSampleBytes = (instance.exports.SUN_SAMPLE_BYTES as WebAssembly.Global | undefined)?.value as number | undefined;
    if (dayFields !== DAY_FIELDS || scratchBytes !== SUMS_SCRATCH_BYTES || maxGroups !== MAX_GROUP_SECTORS || rayLanes !== RAY_LANES || rayInputs !== NEAR_RAY_INPUTS || boundsFields !== CELL_BOUNDS_FIELDS || sunSampleBytes !== SUN_SAMPLE_BYTES) throw new Error('build/wasm/dailyKernel.wasm does not match this build: run `npm run build`');
    const views = layMemory(new Arena(memory.buffer), this.layout, this.sampleCapacity, capacity, this.beamPart, this.nearField);
    if (views.cellBounds && this.layout) {
      // the boundaries' sin and cos as tileHorizons.ts computes them (the same values)
      const sectors = sectorBoundaries(this.layout.directions);
      const groups = sectorBoundaries(groupSectors(this.layout));
      views.cellBounds.tables.set([...sectors.sin, ...sectors.cos, ...groups.sin, ...groups.cos]);
      const { tables, fine } = views.cellBounds;
      if (fine.byteOffset !== tables.byteOffset + tables.byteLength) throw new Error('the lit bounds of cellBounds must follow its tables');
    }
    views.daySamples.forEach((s, d) => {
      const arrays = [s.altitudeUnits, s.sinAltitude, s.sunEast, s.sunNorth, s.nearSector, s.horizonDirection0, s.horizonDirection1, s.horizonWeight, s.nearStart, s.nearOffset, s.nearCol, s.nearRow, s.nearThreshold, s.prefix, s.sampleGroup, s.groupSector, s.groupStart, s.groupEnd, s.groupMinAltitude, s.groupMaxAltitude, views.globalOut[d]!, views.hoursOut[d]!, views.dayScalars[d]!];
      // then the beam part's output (0: none), the near-field rays' quadrants and least thresholds, and the floors
      const more = [s.nearQuadrant, s.nearMinThreshold, ...views.altitudeFloors[d]!].map((a) => a.byteOffset);
      views.dayDescriptors.set([0, 0, 0, ...arrays.map((a) => a.byteOffset), views.beamPartOut[d]?.byteOffset ?? 0, ...more], d * DAY_FIELDS);
    });
    this.memory = memory;
    this.integrate = instance.exports.integrateBlockDays as (descriptor: number) => void;
    this.maxima = instance.exports.nearQuadrantMaxima as (...args: number[]) => void;
    this.rays = instance.exports.nearFieldRays as (...args: number[]) => number;
    this.hornRow = instance.exports.hornGradientRow as (...args: number[]) => void;
    this.surfaceOf = instance.exports.surfaceTermsOfWindow as (...args: number[]) => void;
    this.sectorsOf = instance.exports.sunSectorsOfDays as (...args: number[]) => void;
    this.boundsOfCells = instance.exports.cellBounds as (descriptor: number, tables: number) => void;
    this.samplesOfDay = instance.exports.sunSamples as (day: number, inputs: number, rayInputs: number, table: number) => void;
    // (a new memory: its table is empty)
    this.transmittanceOf = null;
    this.capacity = capacity;
    this.views = views;
  }

  /** Sun samples of up to KERNEL_DAY_BATCH days, in the module's memory (for `sunSamplesForDay`). */
  get daySamples(): readonly DaySamples[] {
    return this.require().daySamples;
  }

  /** Room for the near-field rays' inputs of a day's samples (`NearRayWriter`, for `sunSamplesForDay`). */
  get rayInputs(): Float64Array {
    return this.require().rayInputs;
  }

  /**
   * Writes the near-field rays of samples 0 … count − 1 of `out`, one of `daySamples`, from `rayInputs`
   * (assembly/nearRays.ts): `NearRayWriter` for `sunSamplesForDay`.
   */
  writeNearRays(out: DaySamples, count: number, steps: number, cellSizeXM: number, cellSizeYM: number, width: number): void {
    const views = this.require();
    const d = views.daySamples.indexOf(out);
    if (d < 0) throw new Error("the near-field rays go to this kernel's own day samples");
    if (count > this.sampleCapacity || count * steps > out.nearCapacity) throw new RangeError(`${count} samples of ${steps} near-field steps exceed the reserved room`);
    const reach = this.rays!(views.dayDescriptors.byteOffset + d * DAY_FIELDS * 4, views.rayInputs.byteOffset, count, steps, cellSizeXM, cellSizeYM, width, EARTH_RADIUS_M);
    out.nearReachCols = reach >>> 16;
    out.nearReachRows = reach & 0xffff;
  }

  /**
   * `NearRayWriter.writeSunSamples`: the day's samples of `out`, one of `daySamples`, computed in the module
   * (assembly/sunSamples.ts) with a transmittance table of its own, filled as `table` (the same entries; refilled
   * when another table comes); false for a table larger than the module's room.
   */
  writeSunSamples(out: DaySamples, day: SunSampleDay, table: TransmittanceTable): boolean {
    const views = this.require();
    const d = views.daySamples.indexOf(out);
    if (d < 0) throw new Error("the sun samples go to this kernel's own day samples");
    if (table.values.length > TRANSMITTANCE_ENTRIES) return false;
    if (this.transmittanceOf !== table) {
      views.transmittance.fill(NaN);
      this.transmittanceOf = table;
    }
    const { tile, diffuse, layout } = day;
    const inputs = views.sunInputs;
    // (in the order of assembly/sunSamples.ts's S_* fields)
    inputs.set([
      tile.latitudeRad,
      day.declinationRad,
      day.stepHours,
      day.extraterrestrialWM2,
      diffuse.tn,
      diffuse.a1,
      diffuse.a2,
      diffuse.a3,
      day.pressureRatioCentre,
      day.pressureRatioHalf,
      tile.convergenceRad,
      tile.cellSizeXM,
      tile.cellSizeYM,
      table.linkeTurbidity,
      layout.directions,
      layout.nearSectors,
      farSectorsPerGroup(layout.directions),
      out.capacity,
      HORIZON_ANGLE_UNIT_RAD,
      MUNEER_LOW_SUN_ALTITUDE_RAD,
      RAYLEIGH_BRANCH_AIR_MASS,
      table.stepAirMass,
      table.maxAirMass,
    ]);
    this.samplesOfDay!(views.dayDescriptors.byteOffset + d * DAY_FIELDS * 4, inputs.byteOffset, views.rayInputs.byteOffset, views.transmittance.byteOffset);
    out.count = inputs[SUN_SAMPLE_COUNT]!;
    out.peak = inputs[SUN_SAMPLE_PEAK]!;
    out.groupCount = inputs[SUN_SAMPLE_GROUP_COUNT]!;
    out.sumDiffuseHorizontal = inputs[SUN_SAMPLE_SUM_DIFFUSE]!;
    return true;
  }

  /** The tile's horizons, in the module's memory (null without a layout). */
  get horizons(): TileHorizons | null {
    return this.require().horizons;
  }

  /** Per day of the batch: daily global irradiation [Wh m⁻² day⁻¹] of the tile's cells, tile-local. */
  globalOut(day: number): Float32Array {
    return this.require().globalOut[day]!;
  }

  /** Per day of the batch: sunshine hours of the tile's cells, tile-local. */
  hoursOut(day: number): Float32Array {
    return this.require().hoursOut[day]!;
  }

  /** Per day of the batch: the beam part of the daily global irradiation [Wh m⁻² day⁻¹] (a kernel made with `beamPart`). */
  beamPartOut(day: number): Float32Array {
    const out = this.require().beamPartOut[day];
    if (!out) throw new Error('this kernel was made without the beam part');
    return out;
  }

  /** An allocator placing a tile's surface terms (surface.ts) in the module's memory; each one starts afresh. */
  surfaceAllocator(): ArrayAllocator {
    const { surfaceBytes, surfaceFloats } = this.require();
    let bytes = 0;
    let floats = 0;
    return (<T extends Float64Array | Uint8Array>(kind: 'f64' | 'u8', length: number): T => {
      if (length > this.capacity.cells) throw new RangeError(`surface terms of ${length} cells exceed the reserved ${this.capacity.cells}`);
      const pool = kind === 'f64' ? surfaceFloats : surfaceBytes;
      const index = kind === 'f64' ? floats++ : bytes++;
      const array = pool[index];
      if (!array) throw new RangeError(`no room for another ${kind} surface array`);
      // zeroed, as a new array would be (surfaceTerms leaves nodata cells' terms at 0)
      return array.subarray(0, length).fill(0) as T;
    }) as ArrayAllocator;
  }

  /**
   * The highest terrain of each quadrant of the near field of the loaded tile's cells (`nearQuadrantMaximum` of
   * nearFieldMaxima.ts within the window's margins; tile-local cell · 4 + quadrant), or null without a layout.
   */
  get nearMaxima(): Float32Array | null {
    return this.require().nearMaxima;
  }

  /** Width of the loaded elevation window: near-field ray offsets (`sunSamplesForDay`) must use it. */
  get windowWidth(): number {
    return this.window.width;
  }

  /**
   * Copies the elevations of `tile` and `marginRows`/`marginCols` around it (within the grid) into the window,
   * and finds the highest terrain of each quadrant of the tile's cells' near fields within the margins
   * (`nearMaxima`). The margins must cover the near-field rays of every day integrated for the tile.
   */
  loadElevationWindow(model: TerrainModel, tile: CellBlock, marginRows: number, marginCols: number): void {
    const rowStart = Math.max(0, tile.rowStart - marginRows);
    const rowEnd = Math.min(model.height, tile.rowEnd + marginRows);
    const colStart = Math.max(0, tile.colStart - marginCols);
    const colEnd = Math.min(model.width, tile.colEnd + marginCols);
    const width = colEnd - colStart;
    if (width * (rowEnd - rowStart) > this.capacity.windowCells) throw new RangeError('the elevation window exceeds the reserved room');
    const { elevation, nearMaxima, maximaScratch } = this.require();
    copyElevations(model, { rowStart, rowEnd, colStart, colEnd }, elevation);
    const loaded = { rowStart: tile.rowStart, rowEnd: tile.rowEnd, colStart: tile.colStart, colEnd: tile.colEnd };
    Object.assign(this.window, { rowStart, rowEnd, colStart, width, marginRows, marginCols, tile: loaded });
    if (nearMaxima && maximaScratch) {
      const tileWidth = tile.colEnd - tile.colStart;
      const tileRows = tile.rowEnd - tile.rowStart;
      this.maxima!(elevation.byteOffset, width, rowEnd - rowStart, tile.rowStart - rowStart, tile.colStart - colStart, tileWidth, tileRows, marginRows, marginCols, nearMaxima.byteOffset, maximaScratch.byteOffset);
    }
  }

  /**
   * The Horn gradient of the loaded tile's cells (`hornGradientOfBlock` of slopeAspect.ts, the same to the bit:
   * assembly/hornGradient.ts), tile-local in the module's memory; null when the window lacks a neighbour of the
   * tile's cells that lies inside the grid (margins of less than a cell).
   */
  hornGradientOfWindow(model: TerrainModel): HornGradient | null {
    const views = this.require();
    const w = this.window;
    const tile = w.tile;
    if (!tile) throw new Error('load the elevation window first');
    const rowEnd = w.rowEnd;
    const colEnd = w.colStart + w.width;
    const covered =
      (w.rowStart < tile.rowStart || tile.rowStart === 0) &&
      (rowEnd > tile.rowEnd || tile.rowEnd === model.height) &&
      (w.colStart < tile.colStart || tile.colStart === 0) &&
      (colEnd > tile.colEnd || tile.colEnd === model.width);
    if (!covered) return null;
    const tileWidth = tile.colEnd - tile.colStart;
    const { elevation, fallEast, fallNorth } = views;
    for (let row = tile.rowStart; row < tile.rowEnd; row++) {
      const first = (row - tile.rowStart) * tileWidth;
      this.hornRow!(elevation.byteOffset, w.width, w.rowStart, w.colStart, model.width, model.height, row, tile.colStart, tile.colEnd, model.cellSizeX[row]!, model.cellSizeY[row]!, fallEast.byteOffset, fallNorth.byteOffset, first);
    }
    const cells = tileWidth * (tile.rowEnd - tile.rowStart);
    return { fallEast: fallEast.subarray(0, cells), fallNorth: fallNorth.subarray(0, cells) };
  }

  /**
   * `surfaceTerms` (surface.ts) of the loaded tile's cells, from the window's elevations and `gradient` (from
   * `hornGradientOfWindow`), compiled (assembly/surfaceTerms.ts, the same to the bit) into the arrays
   * `surfaceAllocator` hands out (which it then hands out afresh).
   */
  surfaceTermsOfWindow(gradient: HornGradient): SurfaceTerms {
    const views = this.require();
    const w = this.window;
    const tile = w.tile;
    if (!tile) throw new Error('load the elevation window first');
    if (!this.holds(gradient.fallEast) || !this.holds(gradient.fallNorth)) throw new Error('the gradient must come from hornGradientOfWindow()');
    const tileWidth = tile.colEnd - tile.colStart;
    const tileRows = tile.rowEnd - tile.rowStart;
    const cells = tileWidth * tileRows;
    const [valid, inclined] = views.surfaceBytes.map((a) => a.subarray(0, cells)) as [Uint8Array, Uint8Array];
    const [normalEast, normalNorth, normalUp, skyView, muneerSlope, shadedDiffuseFactor, groundView, pressureRatio] = views.surfaceFloats.map((a) => a.subarray(0, cells)) as [
      Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array,
    ];
    const terms = { cellCount: cells, valid, inclined, normalEast, normalNorth, normalUp, skyView, muneerSlope, shadedDiffuseFactor, groundView, pressureRatio };
    this.surfaceOf!(
      views.elevation.byteOffset, w.width, tile.rowStart - w.rowStart, tile.colStart - w.colStart, tileWidth, tileRows, gradient.fallEast.byteOffset, gradient.fallNorth.byteOffset,
      ...[valid, inclined, normalEast, normalNorth, normalUp, skyView, muneerSlope, shadedDiffuseFactor, groundView, pressureRatio].map((a) => a.byteOffset),
      AIR_MASS_SCALE_HEIGHT_M, MUNEER_SHADED_COEFFICIENT,
    );
    return terms;
  }

  /**
   * `sunSectors` (dailyKernel.ts) of `days` for `tiles`, compiled (assembly/sunSectors.ts, the same sectors); in
   * TypeScript for more than SECTOR_DAYS days or MAX_GROUP_SECTORS directions.
   */
  sunSectors(days: readonly number[], tiles: readonly TileGeometry[], stepMinutes: number, directions: number): Uint8Array {
    const { sectorInputs, sectorMarks } = this.require();
    if (days.length > SECTOR_DAYS || directions > sectorMarks.length) return sunSectors(days, tiles, stepMinutes, directions);
    const declinations = sectorInputs.subarray(0, days.length);
    days.forEach((day, d) => (declinations[d] = solarDeclination(day)));
    const marks = sectorMarks.subarray(0, directions).fill(0);
    const latitudes = sectorInputs.subarray(SECTOR_DAYS, SECTOR_DAYS + SECTOR_TILES);
    const convergences = sectorInputs.subarray(SECTOR_DAYS + SECTOR_TILES);
    for (let first = 0; first < tiles.length; first += SECTOR_TILES) {
      const count = Math.min(SECTOR_TILES, tiles.length - first);
      for (let t = 0; t < count; t++) {
        latitudes[t] = tiles[first + t]!.latitudeRad;
        convergences[t] = tiles[first + t]!.convergenceRad;
      }
      this.sectorsOf!(declinations.byteOffset, days.length, latitudes.byteOffset, convergences.byteOffset, count, stepMinutes / 60, directions, SECTOR_BOUNDARY_SLACK, marks.byteOffset);
    }
    return Uint8Array.from(marks);
  }

  /**
   * `integrateBlockDays` (dailyKernel.ts) for the first `dayCount` of `daySamples`, on `surface` (from
   * `surfaceAllocator`) and, with `terrain`, this kernel's `horizons` and elevation window (loaded for `tile`).
   * Outputs go to `globalOut[d]` and `hoursOut[d]`, tile-local.
   */
  integrateBlockDays(part: CellBlock, tile: CellBlock, dayCount: number, surface: SurfaceTerms, terrain: KernelTerrain | null, albedo: number): void {
    const views = this.require();
    if (dayCount < 1 || dayCount > KERNEL_DAY_BATCH) throw new RangeError(`1 to ${KERNEL_DAY_BATCH} days at once, not ${dayCount}`);
    const tileWidth = tile.colEnd - tile.colStart;
    if (tileWidth * (tile.rowEnd - tile.rowStart) > this.capacity.cells) throw new RangeError('the tile exceeds the reserved cells');
    if (!this.holds(surface.valid) || !this.holds(surface.pressureRatio)) throw new Error('the surface terms must come from surfaceAllocator()');
    const w = this.window;
    let marginRows = 0;
    let marginCols = 0;
    const { dayDescriptors } = views;
    for (let d = 0; d < dayCount; d++) {
      const s = views.daySamples[d]!;
      const at = d * DAY_FIELDS;
      dayDescriptors[at] = s.count;
      dayDescriptors[at + 1] = s.peak;
      dayDescriptors[at + 2] = s.groupCount;
      views.dayScalars[d]!.set([s.stepHours, s.extraterrestrialWM2, s.sumDiffuseHorizontal, s.pressureRatioCentre]);
      marginRows = Math.max(marginRows, s.nearReachRows);
      marginCols = Math.max(marginCols, s.nearReachCols);
    }
    const h = terrain ? terrain.horizons : null;
    if (terrain) {
      if (terrain.horizons !== views.horizons) throw new Error("the terrain's horizons must be this kernel's `horizons`");
      if (marginRows > w.marginRows || marginCols > w.marginCols) throw new RangeError('the near-field rays reach beyond the loaded elevation window');
      const loaded = w.tile;
      const same = loaded && tile.rowStart === loaded.rowStart && tile.rowEnd === loaded.rowEnd && tile.colStart === loaded.colStart && tile.colEnd === loaded.colEnd;
      if (!same) throw new RangeError('the elevation window was loaded for another tile');
    }
    views.albedo[0] = albedo;
    const model = terrain?.model;
    const layout = terrain?.layout;
    const g = layout ? groupSectors(layout) : 1;
    views.descriptor.set([
      part.rowStart,
      part.rowEnd,
      part.colStart,
      part.colEnd,
      tile.rowStart,
      tile.colStart,
      tileWidth,
      model ? model.width : 0,
      model ? model.height : 0,
      marginRows,
      w.rowStart,
      w.colStart,
      w.width,
      views.elevation.byteOffset,
      layout ? layout.directions : 0,
      h?.nearStride ?? 0,
      g,
      h?.far.byteOffset ?? 0,
      h?.nearUpper.byteOffset ?? 0,
      h?.nearLower.byteOffset ?? 0,
      h?.litBound.byteOffset ?? 0,
      h?.darkBound.byteOffset ?? 0,
      h?.litEverywhere.byteOffset ?? 0,
      surface.valid.byteOffset,
      surface.inclined.byteOffset,
      surface.normalEast.byteOffset,
      surface.normalNorth.byteOffset,
      surface.normalUp.byteOffset,
      surface.pressureRatio.byteOffset,
      surface.shadedDiffuseFactor.byteOffset,
      surface.skyView.byteOffset,
      surface.muneerSlope.byteOffset,
      surface.groundView.byteOffset,
      dayCount,
      dayDescriptors.byteOffset,
      views.albedo.byteOffset,
      views.sums.byteOffset,
      terrain ? 1 : 0,
      marginCols,
      views.nearMaxima?.byteOffset ?? 0,
    ]);
    this.integrate!(views.descriptor.byteOffset);
  }

  /**
   * The cell loop of `tileNearHorizons` compiled (assembly/cellBounds.ts, the same bounds): `CompiledCellBounds`.
   * False when `surface` and `out` are not views of this kernel's memory (from `surfaceAllocator` and `horizons`) or
   * `layout` is not the kernel's.
   */
  cellBounds(...[surface, out, layout, cells, masks, sunGroups, traced, farDarks]: Parameters<CompiledCellBounds['cellBounds']>): boolean {
    const room = this.views?.cellBounds;
    const own = this.layout;
    if (!room || !own || own.directions !== layout.directions || own.nearSectors !== layout.nearSectors) return false;
    const read = [surface.valid, surface.inclined, surface.normalEast, surface.normalNorth, surface.normalUp, out.far, out.litBound, out.darkBound, out.litEverywhere];
    if (!read.every((a) => this.holds(a)) || (!traced && !(this.holds(out.nearUpper) && this.holds(out.nearLower)))) return false;
    const { directions, nearSectors } = layout;
    const perGroup = farSectorsPerGroup(directions);
    const groups = groupSectors(layout);
    if (masks) {
      room.farSectors.set(masks.farSectors);
      room.nearSectors.set(masks.nearSectors);
    }
    room.sunGroups.set(sunGroups);
    const kept = farDarks instanceof Int16Array ? farDarks : null;
    if (!kept) {
      const lists = farDarks as { start: Int32Array; list: Int32Array };
      room.listStart.set(lists.start);
      room.list.set(lists.list);
    }
    for (let first = 0; first < cells; first += CELL_BOUNDS_CHUNK_CELLS) {
      const count = Math.min(CELL_BOUNDS_CHUNK_CELLS, cells - first);
      if (kept) room.kept.set(kept.subarray(first * groups, (first + count) * groups));
      const at = (a: ArrayBufferView, perCell: number) => a.byteOffset + first * perCell;
      room.descriptor.set([
        count,
        directions,
        nearSectors,
        perGroup,
        MAX_HORIZON_UNITS,
        traced ? 1 : 0,
        at(surface.valid, 1),
        at(surface.inclined, 1),
        at(surface.normalEast, 8),
        at(surface.normalNorth, 8),
        at(surface.normalUp, 8),
        at(out.far, 2 * directions),
        traced ? 0 : at(out.nearUpper, 2 * nearSectors),
        traced ? 0 : at(out.nearLower, 2 * nearSectors),
        at(out.litBound, 2 * groups),
        at(out.darkBound, 2 * groups),
        at(out.litEverywhere, 2),
        masks ? room.farSectors.byteOffset : 0,
        masks ? room.nearSectors.byteOffset : 0,
        room.sunGroups.byteOffset,
        sunGroups.length,
        kept ? room.kept.byteOffset : 0,
        room.listStart.byteOffset,
        room.list.byteOffset,
      ]);
      this.boundsOfCells!(room.descriptor.byteOffset, room.tables.byteOffset);
    }
    return true;
  }

  /** Whether `view` lies in this kernel's memory (a larger `reserve` replaces it: views taken before do not). */
  private holds(view: ArrayBufferView): boolean {
    return this.memory !== null && view.buffer === this.memory.buffer;
  }

  private require(): MemoryLayout {
    if (!this.views) throw new Error('reserve room first');
    return this.views;
  }
}
