/**
 * The near-field horizon bounds in WebAssembly: `nearHorizonBounds` of nearHorizonBounds.ts for the cells of a
 * row segment, compiled from assembly/nearBounds.ts (AssemblyScript, statement for statement, bounds equal to
 * the bit — a test holds them equal). One instance per thread keeps its own memory: the candidate lists (copied
 * once per list), the sector selection, a window of the elevation grid around the rows being bounded (copied
 * when a row's candidates reach beyond it), a scratch of views and the row's bounds.
 * @see nearHorizonBounds.ts (the bounds and their readable form), scripts/build-wasm.mjs (the build)
 */
import { MAX_HORIZON_UNITS } from './horizon.js';
import type { NearCandidates, SectorSelection } from './nearHorizonBounds.js';
import { copyElevations, type TerrainModel } from './terrainModel.js';
import { Arena, PAGE_BYTES, instantiateKernel } from '../../util/wasmModules.js';

/** Descriptor fields of assembly/nearBounds.ts (i32 each). */
const DESCRIPTOR_FIELDS = 33;
/** Rows a freshly loaded elevation window reaches below the row that needed it (fewer reloads). */
const WINDOW_LOOKAHEAD_ROWS = 64;

/** What the memory is laid out for. */
interface Capacity {
  discCells: number;
  upperEntries: number;
  lowerEntries: number;
  sectors: number;
  lowerGroups: number;
  rowCells: number;
  windowCells: number;
}

interface MemoryLayout {
  readonly descriptor: Int32Array;
  readonly upperStart: Int32Array;
  readonly lowerStart: Int32Array;
  readonly upperDisc: Int32Array;
  readonly lowerDisc: Int32Array;
  /** Lower-bound entries of sector pairs (2p, 2p + 1) per step: pairs pairStart[p·n + s] … pairStart[p·n + s + 1] − 1 of pairDisc. */
  readonly pairStart: Int32Array;
  readonly pairDisc: Int32Array;
  /** The disc cells a cell inside the grid looks at (every one, or the selection's), in runs of neighbours along a grid row. */
  readonly runFirst: Int32Array;
  readonly runLength: Int32Array;
  readonly inverseDistance: Float64Array;
  readonly curvatureSlope: Float64Array;
  readonly discOffset: Int32Array;
  readonly discCol: Int32Array;
  readonly discRow: Int32Array;
  readonly needed: Uint8Array;
  readonly view: Float64Array;
  readonly upperOut: Int16Array;
  readonly lowerOut: Int16Array;
  readonly elevation: Float32Array;
}

function layMemory(arena: Arena, c: Capacity): MemoryLayout {
  return {
    descriptor: arena.take(Int32Array, DESCRIPTOR_FIELDS),
    upperStart: arena.take(Int32Array, c.sectors + 1),
    lowerStart: arena.take(Int32Array, c.lowerGroups + 1),
    upperDisc: arena.take(Int32Array, c.upperEntries),
    lowerDisc: arena.take(Int32Array, c.lowerEntries),
    pairStart: arena.take(Int32Array, c.lowerGroups + 1),
    pairDisc: arena.take(Int32Array, 2 * (c.lowerEntries + c.lowerGroups)),
    runFirst: arena.take(Int32Array, c.discCells),
    runLength: arena.take(Int32Array, c.discCells),
    inverseDistance: arena.take(Float64Array, c.discCells),
    curvatureSlope: arena.take(Float64Array, c.discCells),
    discOffset: arena.take(Int32Array, c.discCells),
    discCol: arena.take(Int32Array, c.discCells),
    discRow: arena.take(Int32Array, c.discCells),
    needed: arena.take(Uint8Array, c.sectors),
    view: arena.take(Float64Array, c.discCells + 1),
    upperOut: arena.take(Int16Array, c.rowCells * c.sectors),
    lowerOut: arena.take(Int16Array, c.rowCells * c.sectors),
    elevation: arena.take(Float32Array, c.windowCells),
  };
}

/** One thread's compiled near-field bounds (see the module comment). */
export class WasmNearBounds {
  private memory: WebAssembly.Memory | null = null;
  private bound: ((descriptor: number) => void) | null = null;
  private views: MemoryLayout | null = null;
  private capacity: Capacity = { discCells: 0, upperEntries: 0, lowerEntries: 0, sectors: 0, lowerGroups: 0, rowCells: 0, windowCells: 0 };
  /** What the memory holds: candidates (with offsets for the window's width), selection, window. */
  private candidates: NearCandidates | null = null;
  private offsetsWidth = -1;
  private selection: SectorSelection | null | undefined = undefined;
  private model: TerrainModel | null = null;
  private readonly window = { rowStart: 0, rowEnd: 0, colStart: 0, colEnd: 0 };
  /** Runs of the disc cells looked at (`loadRuns`), for the selection held. */
  private runCount = 0;
  /** Whether a step of a sector of the candidates held has no candidate (`loadSectorPairs`). */
  private emptyStep = false;

  /**
   * The bounds of cells (row, colStart … colEnd − 1) of `model` in every sector of `candidates` (with
   * `selection`, only its sectors: the others get open horizons), as `nearHorizonBounds` computes them:
   * cell col's sector k at upperOut/lowerOut[outBase + (col − colStart)·K + k]. Nodata cells get open horizons.
   */
  boundsOfRow(
    model: TerrainModel,
    row: number,
    colStart: number,
    colEnd: number,
    candidates: NearCandidates,
    selection: SectorSelection | null,
    upperOut: Int16Array,
    lowerOut: Int16Array,
    outBase: number,
  ): void {
    if (selection && selection.candidates !== candidates) throw new RangeError('the sector selection is for other candidates');
    if (row < 0 || row >= model.height || colStart < 0 || colEnd > model.width || colStart >= colEnd) throw new RangeError(`cells ${colStart}…${colEnd - 1} of row ${row} are not in the grid`);
    const { sectors, steps, reachRows, reachCols } = candidates;
    const cols = colEnd - colStart;
    const rowStart = Math.max(0, row - reachRows);
    const rowEnd = Math.min(model.height, row + reachRows + 1);
    const spanStart = Math.max(0, colStart - reachCols);
    const spanEnd = Math.min(model.width, colEnd + reachCols);
    const w = this.window;
    // a new window: from the row's reach up to WINDOW_LOOKAHEAD_ROWS rows further, the segment's columns and reach
    const loadRowEnd = Math.min(model.height, rowEnd + WINDOW_LOOKAHEAD_ROWS);
    this.reserve({
      discCells: candidates.disc.colOffset.length,
      upperEntries: candidates.upperDisc.length,
      lowerEntries: candidates.lowerDisc.length,
      sectors,
      lowerGroups: sectors * steps,
      rowCells: cols,
      windowCells: (loadRowEnd - rowStart) * (spanEnd - spanStart),
    });
    const views = this.views!;
    const windowFits = this.model === model && rowStart >= w.rowStart && rowEnd <= w.rowEnd && spanStart >= w.colStart && spanEnd <= w.colEnd;
    if (!windowFits) this.loadWindow(model, rowStart, loadRowEnd, spanStart, spanEnd);
    const windowWidth = w.colEnd - w.colStart;
    if (this.candidates !== candidates) this.loadCandidates(candidates);
    if (this.offsetsWidth !== windowWidth) {
      const { colOffset, rowOffset } = candidates.disc;
      for (let i = 0; i < colOffset.length; i++) views.discOffset[i] = rowOffset[i]! * windowWidth + colOffset[i]!;
      this.offsetsWidth = windowWidth;
    }
    if (this.selection !== selection) {
      if (selection) views.needed.set(selection.sectors);
      this.runCount = this.loadRuns(candidates, selection);
      this.selection = selection;
    }
    views.descriptor.set([
      row,
      colStart,
      colEnd,
      model.width,
      model.height,
      w.rowStart,
      w.colStart,
      w.colEnd - w.colStart,
      views.elevation.byteOffset,
      sectors,
      steps,
      views.upperStart.byteOffset,
      views.lowerStart.byteOffset,
      views.upperDisc.byteOffset,
      views.lowerDisc.byteOffset,
      views.inverseDistance.byteOffset,
      views.curvatureSlope.byteOffset,
      views.discOffset.byteOffset,
      views.discCol.byteOffset,
      views.discRow.byteOffset,
      reachCols,
      reachRows,
      selection ? views.needed.byteOffset : 0,
      views.view.byteOffset,
      views.upperOut.byteOffset,
      views.lowerOut.byteOffset,
      MAX_HORIZON_UNITS,
      views.pairStart.byteOffset,
      views.pairDisc.byteOffset,
      views.runFirst.byteOffset,
      views.runLength.byteOffset,
      this.runCount,
      this.emptyStep ? 1 : 0,
    ]);
    this.bound!(views.descriptor.byteOffset);
    upperOut.set(views.upperOut.subarray(0, cols * sectors), outBase);
    lowerOut.set(views.lowerOut.subarray(0, cols * sectors), outBase);
  }

  /** Lays the memory out again when `needed` exceeds it (everything held is then loaded again). */
  private reserve(needed: Capacity): void {
    const c = this.capacity;
    const fits = (Object.keys(needed) as (keyof Capacity)[]).every((key) => needed[key] <= c[key]);
    if (this.views && fits) return;
    const capacity = Object.fromEntries((Object.keys(needed) as (keyof Capacity)[]).map((key) => [key, Math.max(needed[key], c[key])])) as unknown as Capacity;
    const bytes = new Arena(null);
    layMemory(bytes, capacity);
    const pages = Math.ceil(bytes.used / PAGE_BYTES);
    if (!this.memory) {
      this.memory = new WebAssembly.Memory({ initial: pages });
      this.bound = instantiateKernel('nearBounds', this.memory, DESCRIPTOR_FIELDS).exports.nearBoundsRow as (descriptor: number) => void;
    } else if (this.memory.buffer.byteLength < pages * PAGE_BYTES) {
      this.memory.grow(pages - this.memory.buffer.byteLength / PAGE_BYTES);
    }
    this.views = layMemory(new Arena(this.memory.buffer), capacity);
    this.capacity = capacity;
    this.candidates = null;
    this.offsetsWidth = -1;
    this.selection = undefined;
    this.model = null;
  }

  private loadCandidates(candidates: NearCandidates): void {
    const views = this.views!;
    views.upperStart.set(candidates.upperStart);
    views.upperDisc.set(candidates.upperDisc);
    views.lowerStart.set(candidates.lowerStart);
    views.lowerDisc.set(candidates.lowerDisc);
    this.loadSectorPairs(candidates);
    views.inverseDistance.set(candidates.disc.inverseDistance);
    views.curvatureSlope.set(candidates.disc.curvatureSlope);
    views.discCol.set(candidates.disc.colOffset);
    views.discRow.set(candidates.disc.rowOffset);
    this.candidates = candidates;
    this.offsetsWidth = -1;
    this.selection = undefined;
  }

  /**
   * The lower-bound entries of sectors 2p and 2p + 1 side by side, step by step, each step's shorter list padded
   * by repeating its last entry (an empty list reads the view slot after the disc's, which holds NaN: the module's
   * pmin and pmax pass over it, as the readable loops find the smallest and largest of no view, +∞ and −∞).
   */
  private loadSectorPairs(candidates: NearCandidates): void {
    const views = this.views!;
    const { sectors, steps, lowerStart, lowerDisc } = candidates;
    const nothing = candidates.disc.colOffset.length;
    this.emptyStep = false;
    views.view[nothing] = NaN;
    let at = 0;
    for (let p = 0; p < Math.floor(sectors / 2); p++) {
      for (let s = 0; s < steps; s++) {
        views.pairStart[p * steps + s] = at;
        const first = [2 * p, 2 * p + 1].map((k) => lowerStart[k * steps + s]!);
        const count = [2 * p, 2 * p + 1].map((k) => lowerStart[k * steps + s + 1]! - lowerStart[k * steps + s]!);
        if (count.includes(0)) this.emptyStep = true;
        for (let j = 0; j < Math.max(1, ...count); j++) {
          for (let lane = 0; lane < 2; lane++) {
            views.pairDisc[2 * at + lane] = count[lane]! === 0 ? nothing : lowerDisc[first[lane]! + Math.min(j, count[lane]! - 1)]!;
          }
          at++;
        }
      }
    }
    views.pairStart[Math.floor(sectors / 2) * steps] = at;
  }

  /**
   * The disc cells the selection uses (all without one) in runs of neighbours along a grid row — consecutive disc
   * indices (the disc is row-major, nearHorizonBounds.ts) one column apart, so consecutive in the elevation window
   * too — into runFirst and runLength; returns the number of runs.
   */
  private loadRuns(candidates: NearCandidates, selection: SectorSelection | null): number {
    const { runFirst, runLength } = this.views!;
    const { colOffset, rowOffset } = candidates.disc;
    const count = selection ? selection.disc.length : colOffset.length;
    let runs = 0;
    let previous = -2;
    for (let j = 0; j < count; j++) {
      const i = selection ? selection.disc[j]! : j;
      if (i === previous + 1 && rowOffset[i] === rowOffset[previous] && colOffset[i] === colOffset[previous]! + 1) runLength[runs - 1] += 1;
      else {
        runFirst[runs] = i;
        runLength[runs++] = 1;
      }
      previous = i;
    }
    return runs;
  }

  private loadWindow(model: TerrainModel, rowStart: number, rowEnd: number, colStart: number, colEnd: number): void {
    copyElevations(model, { rowStart, rowEnd, colStart, colEnd }, this.views!.elevation);
    Object.assign(this.window, { rowStart, rowEnd, colStart, colEnd });
    this.model = model;
  }
}
