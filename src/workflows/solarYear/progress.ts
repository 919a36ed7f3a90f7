/**
 * Progress of a tiled `sol` run. Each compute tile owns a slice of the bar in proportion to its valid
 * cells, so the bar is exact whenever tiles are complete, whatever the phases cost. Within a tile the slice
 * is split between its horizons and its days by the ratio of horizon to kernel time measured on the tiles
 * finished so far (a first guess before any is), so it moves evenly through both phases; a tile's split is
 * fixed when its first report arrives, so the bar never goes back.
 */
import type { ProgressListener } from '../types.js';
import type { TileTimings } from './messages.js';
import type { ComputeTile } from './tilePlan.js';

/** First guess of a cell's horizon time in kernel cell-days (today's engine measures 130–170). */
const INITIAL_HORIZON_CELL_DAYS = 150;

export class TileProgress {
  private readonly totalCells: number;
  private readonly tileCount: number;
  private readonly tileDays: number;
  /** Per started tile: the share of its slice that its horizons take, and the progress reported so far. */
  private readonly started = new Map<number, { horizonShare: number; done: number }>();
  private horizonSeconds = 0;
  private kernelSeconds = 0;
  private daysDone = 0;
  private done = 0;

  /** Reports fractions 0…`scale` to `report`. */
  constructor(
    tiles: readonly ComputeTile[],
    private readonly dayCount: number,
    private readonly scale: number,
    private readonly report: ProgressListener,
  ) {
    this.totalCells = Math.max(1, tiles.reduce((n, t) => n + t.validCells, 0));
    this.tileCount = tiles.length;
    this.tileDays = tiles.length * dayCount;
  }

  /** The horizons of `tile` are `fraction` done. */
  horizons(tile: ComputeTile, fraction: number): void {
    const state = this.state(tile);
    const target = fraction * state.horizonShare;
    this.advance(tile, state, target, `terrain horizons: tile ${this.started.size}/${this.tileCount}`);
  }

  /** One more day of `tile` is done. */
  dayDone(tile: ComputeTile, day: number): void {
    const state = this.state(tile);
    this.daysDone++;
    const target = Math.max(state.done, state.horizonShare) + (1 - state.horizonShare) / this.dayCount;
    this.advance(tile, state, target, `day ${day} of tile ${this.started.size}/${this.tileCount} (${this.daysDone}/${this.tileDays} tile-days)`);
  }

  /** `tile` is finished: its timings refine the split of the tiles still to start. */
  tileDone(timings: TileTimings): void {
    this.horizonSeconds += timings.horizonSeconds;
    this.kernelSeconds += timings.kernelSeconds;
  }

  private state(tile: ComputeTile): { horizonShare: number; done: number } {
    let state = this.started.get(tile.index);
    if (!state) {
      const horizonPerDay = this.kernelSeconds > 0 ? (this.horizonSeconds / this.kernelSeconds) * this.dayCount : INITIAL_HORIZON_CELL_DAYS;
      state = { horizonShare: horizonPerDay / (horizonPerDay + this.dayCount), done: 0 };
      this.started.set(tile.index, state);
    }
    return state;
  }

  private advance(tile: ComputeTile, state: { done: number }, target: number, message: string): void {
    const next = Math.min(1, Math.max(state.done, target));
    this.done += ((next - state.done) * tile.validCells) / this.totalCells;
    state.done = next;
    this.report({ fraction: this.scale * Math.min(1, this.done), message });
  }
}
