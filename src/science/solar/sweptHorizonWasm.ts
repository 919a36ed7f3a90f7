/**
 * The far-field sweep in WebAssembly: `sweepRows` of sweptHorizon.ts compiled from assembly/farSweep.ts
 * (AssemblyScript, statement for statement, horizons equal to the bit — a test holds them equal). Each direction's
 * geometry is computed here as sweptHorizon.ts computes it; the module sweeps its lines. One instance per thread
 * keeps its own memory: a window of the elevations around the block (every cell the lines push one by one or
 * query), a window of each level of the maximum pyramid (the simplified distant spans), the hull, the planes of a
 * pass and the block's horizons, copied out at the end.
 * @see sweptHorizon.ts (the sweep and its readable form), scripts/build-wasm.mjs (the build)
 */
import { MAX_HORIZON_UNITS } from './horizon.js';
import { DIRECTIONS_PER_PASS, INVERSE_TWO_R, directionGeometry, minorShift, queryPositions, simplifiedSpans, type CompiledFarSweep, type DirectionGeometry, type GroupDark, type SweptRows } from './sweptHorizon.js';
import { copyElevations, type CellBlock } from './terrainModel.js';
import { Arena, PAGE_BYTES, instantiateKernel } from '../../util/wasmModules.js';

/** Descriptor fields of assembly/farSweep.ts (i32 each), in its order. */
export const FAR_SWEEP_DESCRIPTOR_FIELDS = 36;
const F = {
  colMajor: 0,
  toward: 1,
  first: 2,
  lag: 3,
  minorSize: 4,
  majorLo: 5,
  majorHi: 6,
  minorLo: 7,
  minorHi: 8,
  count: 9,
  lineLo: 10,
  lineHi: 11,
  simplifiedFrom: 12,
  levels: 13,
  blockRow: 14,
  blockCol: 15,
  blockWidth: 16,
  winRow0: 17,
  winCol0: 18,
  winWidth: 19,
  elevation: 20,
  levelWindows: 21,
  shift: 22,
  hullU: 23,
  hullZ: 24,
  plane: 25,
  values: 26,
  maxUnits: 27,
  cells: 28,
  directions: 29,
  far: 30,
  pass: 31,
  passCount: 32,
  groupDark: 33,
  groups: 34,
  passGroups: 35,
} as const;
/** The distance from which the module's lines are simplified when they never are (larger than any sweep). */
const NEVER_SIMPLIFIED = 2 ** 30;

/** What the memory is laid out for. */
interface Capacity {
  /** Far directions (the longest list of directions to open or of a pass). */
  directions: number;
  positions: number;
  windowCells: number;
  /** Cells of each pyramid level's window (index ℓ − 1). */
  levelCells: number[];
  planeValues: number;
  farValues: number;
  groupValues: number;
}

interface MemoryLayout {
  readonly descriptor: Int32Array;
  readonly values: Float64Array;
  readonly levelWindows: Int32Array;
  readonly pass: Int32Array;
  readonly shift: Int32Array;
  readonly hullU: Float64Array;
  readonly hullZ: Float64Array;
  readonly elevation: Float32Array;
  readonly levels: Float32Array[];
  readonly planes: Int16Array;
  readonly far: Int16Array;
  readonly passGroups: Int32Array;
  readonly groupDark: Int16Array;
}

function layMemory(arena: Arena, c: Capacity): MemoryLayout {
  return {
    descriptor: arena.take(Int32Array, FAR_SWEEP_DESCRIPTOR_FIELDS),
    values: arena.take(Float64Array, 4),
    levelWindows: arena.take(Int32Array, 4 * Math.max(1, c.levelCells.length)),
    pass: arena.take(Int32Array, c.directions),
    shift: arena.take(Int32Array, c.positions),
    hullU: arena.take(Float64Array, c.positions),
    hullZ: arena.take(Float64Array, c.positions),
    elevation: arena.take(Float32Array, c.windowCells),
    levels: c.levelCells.map((cells) => arena.take(Float32Array, cells)),
    planes: arena.take(Int16Array, c.planeValues),
    far: arena.take(Int16Array, c.farValues),
    passGroups: arena.take(Int32Array, 2 * c.directions),
    groupDark: arena.take(Int16Array, c.groupValues),
  };
}

/** A rectangle of cells of a grid or of a pyramid level, as it grows to hold the cells a sweep reads. */
class Extent {
  rowStart = Infinity;
  rowEnd = -Infinity;
  colStart = Infinity;
  colEnd = -Infinity;
  add(row0: number, row1: number, col0: number, col1: number): void {
    this.rowStart = Math.min(this.rowStart, row0);
    this.rowEnd = Math.max(this.rowEnd, row1 + 1);
    this.colStart = Math.min(this.colStart, col0);
    this.colEnd = Math.max(this.colEnd, col1 + 1);
  }
  get cells(): number {
    return this.rowEnd > this.rowStart ? (this.rowEnd - this.rowStart) * (this.colEnd - this.colStart) : 0;
  }
  block(): CellBlock {
    return this.cells > 0 ? { rowStart: this.rowStart, rowEnd: this.rowEnd, colStart: this.colStart, colEnd: this.colEnd } : { rowStart: 0, rowEnd: 0, colStart: 0, colEnd: 0 };
  }
}

/**
 * Adds to `grid` the cells a sweep of direction `g` pushes one by one or queries, and to `levels[ℓ − 1]` the
 * pyramid blocks its simplified spans read (a rectangle around each set: the lines' minor offsets move
 * monotonically along the sweep).
 */
function addReads(g: DirectionGeometry, rows: SweptRows, grid: Extent, levels: Extent[]): void {
  const { queryFrom, queryTo } = queryPositions(g);
  const spans = simplifiedSpans(queryFrom, rows.simplifiedFrom, rows.model.pyramid.length);
  const minor = (a: number): [number, number] => [Math.max(0, g.lineLo + minorShift(g.slope, a)), Math.min(g.minorSize - 1, g.lineHi + minorShift(g.slope, a))];
  const add = (extent: Extent, a0: number, a1: number, b0: number, b1: number, level = 0) => {
    if (b1 < b0) return;
    const [majorLo, majorHi] = [Math.min(a0, a1) >> level, Math.max(a0, a1) >> level];
    if (g.colMajor) extent.add(b0 >> level, b1 >> level, majorLo, majorHi);
    else extent.add(majorLo, majorHi, b0 >> level, b1 >> level);
  };
  spans.levels.forEach((level, i) => {
    const a = g.first - g.toward * spans.middles[i]!;
    const [b0, b1] = minor(a);
    add(levels[level - 1]!, a, a, b0, b1, level);
  });
  const aFrom = g.first - g.toward * spans.exactFrom;
  const aTo = g.first - g.toward * queryTo;
  const [b00, b01] = minor(aFrom);
  const [b10, b11] = minor(aTo);
  add(grid, aFrom, aTo, Math.min(b00, b10), Math.max(b01, b11));
}

/**
 * The groups of `perGroup` far directions whose lower bounds direction k is among (tileHorizons.ts's `groupBounds`:
 * group g's are directions g·r … (g + 1)·r, the last one N ≡ 0): its own, and the one before when it starts one; −1: none.
 */
function boundedGroups(k: number, perGroup: number, groups: number): [number, number] {
  const own = Math.floor(k / perGroup);
  return [own, k % perGroup === 0 ? (own - 1 + groups) % groups : -1];
}

/** One thread's compiled far-field sweep (see the module comment). */
export class WasmFarSweep implements CompiledFarSweep {
  private memory: WebAssembly.Memory | null = null;
  private exports: { sweepDirection(d: number): void; writePass(d: number): void; openDirections(d: number): void } | null = null;
  private views: MemoryLayout | null = null;
  private capacity: Capacity = { directions: 0, positions: 0, windowCells: 0, levelCells: [], planeValues: 0, farValues: 0, groupValues: 0 };

  sweepRows(rows: SweptRows, needed: Uint8Array | null, groupDark: GroupDark | null = null): void {
    const { model, block, directions, far } = rows;
    const cells = (block.rowEnd - block.rowStart) * (block.colEnd - block.colStart);
    const open: number[] = [];
    const swept: number[] = [];
    for (let k = 0; k < directions; k++) (needed && needed[k] === 0 ? open : swept).push(k);
    const geometries = swept.map((k) => directionGeometry(rows, k));
    const grid = new Extent();
    const levels = model.pyramid.map(() => new Extent());
    for (const g of geometries) addReads(g, rows, grid, levels);
    const perPass = Math.min(DIRECTIONS_PER_PASS, swept.length);
    this.reserve({
      directions,
      positions: Math.max(1, ...geometries.map((g) => g.count)),
      windowCells: grid.cells,
      levelCells: levels.map((level) => level.cells),
      planeValues: perPass * cells,
      farValues: cells * directions,
      groupValues: groupDark ? cells * (directions / groupDark.perGroup) : 0,
    });
    const views = this.views!;
    const exports = this.exports!;
    const window = grid.block();
    if (grid.cells > 0) copyElevations(model, window, views.elevation);
    levels.forEach((extent, i) => {
      const level = extent.block();
      const levelWidth = Math.ceil(model.width / 2 ** (i + 1));
      const columns = level.colEnd - level.colStart;
      for (let row = level.rowStart; row < level.rowEnd; row++) {
        const from = row * levelWidth + level.colStart;
        views.levels[i]!.set(model.pyramid[i]!.subarray(from, from + columns), (row - level.rowStart) * columns);
      }
      views.levelWindows.set([level.rowStart, level.colStart, columns, views.levels[i]!.byteOffset], 4 * i);
    });
    views.values.set([0, 0, INVERSE_TWO_R]);
    const d = views.descriptor;
    d.fill(0);
    d[F.simplifiedFrom] = Math.min(rows.simplifiedFrom, NEVER_SIMPLIFIED);
    d[F.levels] = model.pyramid.length;
    d[F.blockRow] = block.rowStart;
    d[F.blockCol] = block.colStart;
    d[F.winRow0] = window.rowStart;
    d[F.winCol0] = window.colStart;
    d[F.winWidth] = window.colEnd - window.colStart;
    d[F.elevation] = views.elevation.byteOffset;
    d[F.levelWindows] = views.levelWindows.byteOffset;
    d[F.shift] = views.shift.byteOffset;
    d[F.hullU] = views.hullU.byteOffset;
    d[F.hullZ] = views.hullZ.byteOffset;
    d[F.values] = views.values.byteOffset;
    d[F.maxUnits] = MAX_HORIZON_UNITS;
    d[F.cells] = cells;
    d[F.directions] = directions;
    d[F.far] = views.far.byteOffset;
    d[F.pass] = views.pass.byteOffset;
    const groups = groupDark ? directions / groupDark.perGroup : 0;
    if (groupDark) {
      views.groupDark.fill(MAX_HORIZON_UNITS, 0, cells * groups);
      d[F.groupDark] = views.groupDark.byteOffset;
      d[F.groups] = groups;
      d[F.passGroups] = views.passGroups.byteOffset;
    }
    if (open.length > 0) {
      views.pass.set(open);
      d[F.passCount] = open.length;
      exports.openDirections(d.byteOffset);
    }
    for (let from = 0; from < swept.length; from += perPass) {
      const pass = swept.slice(from, from + perPass);
      pass.forEach((_, j) => {
        const g = geometries[from + j]!;
        // fields colMajor … lineHi, in their order
        d.set([g.colMajor ? 1 : 0, g.toward, g.first, g.lag, g.minorSize, g.majorLo, g.majorHi, g.minorLo, g.minorHi, g.count, g.lineLo, g.lineHi], F.colMajor);
        d[F.blockWidth] = g.blockWidth;
        d[F.plane] = views.planes.byteOffset + 2 * j * cells;
        views.values[0] = g.alongM;
        views.values[1] = g.slope;
        exports.sweepDirection(d.byteOffset);
      });
      views.pass.set(pass);
      if (groupDark) views.passGroups.set(pass.flatMap((k) => boundedGroups(k, groupDark.perGroup, groups)));
      d[F.passCount] = pass.length;
      d[F.plane] = views.planes.byteOffset;
      exports.writePass(d.byteOffset);
    }
    far.set(views.far.subarray(0, cells * directions));
    if (groupDark) groupDark.out.set(views.groupDark.subarray(0, cells * groups));
  }

  /** Lays the memory out again when `needed` exceeds it. */
  private reserve(needed: Capacity): void {
    const c = this.capacity;
    const levelsFit = needed.levelCells.length === c.levelCells.length && needed.levelCells.every((cells, i) => cells <= c.levelCells[i]!);
    const fits = levelsFit && needed.directions <= c.directions && needed.positions <= c.positions && needed.windowCells <= c.windowCells && needed.planeValues <= c.planeValues && needed.farValues <= c.farValues && needed.groupValues <= c.groupValues;
    if (this.views && fits) return;
    const capacity: Capacity = {
      directions: Math.max(needed.directions, c.directions),
      positions: Math.max(needed.positions, c.positions),
      windowCells: Math.max(needed.windowCells, c.windowCells),
      levelCells: needed.levelCells.map((cells, i) => Math.max(cells, c.levelCells.length === needed.levelCells.length ? c.levelCells[i]! : 0)),
      planeValues: Math.max(needed.planeValues, c.planeValues),
      farValues: Math.max(needed.farValues, c.farValues),
      groupValues: Math.max(needed.groupValues, c.groupValues),
    };
    const bytes = new Arena(null);
    layMemory(bytes, capacity);
    const pages = Math.ceil(bytes.used / PAGE_BYTES);
    if (!this.memory) {
      this.memory = new WebAssembly.Memory({ initial: pages });
      this.exports = instantiateKernel('farSweep', this.memory, FAR_SWEEP_DESCRIPTOR_FIELDS).exports as unknown as NonNullable<WasmFarSweep['exports']>;
    } else if (this.memory.buffer.byteLength < pages * PAGE_BYTES) {
      this.memory.grow(pages - this.memory.buffer.byteLength / PAGE_BYTES);
    }
    this.views = layMemory(new Arena(this.memory.buffer), capacity);
    this.capacity = capacity;
  }
}
