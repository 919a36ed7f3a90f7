/**
 * Computing a solar year's tiles: the worker pool takes the plan's tiles one at a time (horizons once, then every
 * day, the monthly sums accumulated), and each product tile it sends back goes to the sink that writes it. Progress
 * is reported by tile, day and horizon (sol/progress.ts).
 */
import type { ProgressListener } from '../types.js';
import type { ProductTiles, TileTimings, WorkerTask } from './messages.js';
import { monthOfDay } from './products.js';
import { TileProgress } from './progress.js';
import type { WorkerPool } from './workerPool.js';
import type { SolarYearPlan } from './plan.js';

/** Where the computed product tiles go. */
export interface ProductTileSink {
  /** The products of one day or month of the compute tile `tileIndex`. */
  add(tileIndex: number, product: ProductTiles): void;
  /** Resolves when the sink can take more tiles (the workers wait before their next task). */
  ready(): Promise<void>;
}

/** Thread-seconds of the tiles' phases, the uncompressed bytes they encoded and when the last tile was done. */
export interface TileTotals {
  readonly horizonSeconds: number;
  readonly kernelSeconds: number;
  readonly encodeSeconds: number;
  readonly rawBytes: number;
  /** When the last tile was done in its worker [ms since the Unix epoch]; 0 without tiles. */
  readonly lastTileEndedAtMs: number;
}

/** Computes `plan.runTiles` on `pool`, sending every product tile to `sink`; reports progress 0…`progressScale`. */
export async function computeTiles(plan: SolarYearPlan, pool: WorkerPool, sink: ProductTileSink, progressScale: number, report: ProgressListener): Promise<TileTotals> {
  const { tiles, days } = plan;
  // days whose daily maps are sent (the others' progress is reported by their month's sum)
  const mapped = new Set([...plan.setup.dailyGlobal, ...plan.setup.dailyHours]);
  const positionOf = new Map(tiles.map((tile, k) => [tile, k]));
  const progress = new TileProgress(plan.runTiles, days.length, progressScale, report);
  const totals = { horizonSeconds: 0, kernelSeconds: 0, encodeSeconds: 0, rawBytes: 0, lastTileEndedAtMs: 0 };
  await pool.run(
    plan.runTiles.map((tile): WorkerTask => ({ type: 'tile', tile: positionOf.get(tile)! })),
    (reply) => {
      if (reply.type === 'horizons') progress.horizons(tiles[reply.tile]!, reply.fraction);
      else if (reply.type === 'products') {
        const tile = tiles[reply.tile]!;
        for (const product of reply.products) {
          sink.add(tile.index, product);
          if (product.type === 'day') progress.dayDone(tile, product.day);
          // a month's sum stands for the progress of its days without daily maps
          else for (const day of days) if (!mapped.has(day) && monthOfDay(day) === product.month) progress.dayDone(tile, day);
        }
      } else if (reply.type === 'tileDone') {
        addTimings(totals, reply.timings);
        progress.tileDone(reply.timings);
      }
    },
    () => sink.ready(),
  );
  return totals;
}

function addTimings(totals: { -readonly [K in keyof TileTotals]: TileTotals[K] }, t: TileTimings): void {
  totals.horizonSeconds += t.horizonSeconds;
  totals.kernelSeconds += t.kernelSeconds;
  totals.encodeSeconds += t.encodeSeconds;
  totals.rawBytes += t.rawBytes;
  totals.lastTileEndedAtMs = Math.max(totals.lastTileEndedAtMs, t.endedAtMs);
}
