/** Messages between the `sol` pipeline and its worker threads. */
import type { CogAssemblyJob } from '../../raster/geotiff/geoTiffStreams.js';
import type { PartialStatistics } from '../../raster/geotiff/statistics.js';
import type { TileCompression } from '../../raster/geotiff/writeGeoTiff.js';
import type { ClearSkyParams } from '../../science/solar/clearSky.js';
import type { HorizonLayout } from '../../science/solar/dailyKernel.js';
import type { TerrainModel } from '../../science/solar/terrainModel.js';
import type { NearFieldMode } from '../../science/solar/tileHorizons.js';
import type { ComputeTile, SunTile } from './tilePlan.js';
import type { DailyKernelChoice } from './tileEngine.js';

/** Everything a worker shares with the pipeline; the terrain's typed arrays live in SharedArrayBuffers. */
export interface WorkerSetup {
  /** The resident terrain (elevation and maximum pyramid on SharedArrayBuffers). */
  readonly terrain: TerrainModel;
  /** Null: no terrain shadows. */
  readonly layout: HorizonLayout | null;
  readonly params: ClearSkyParams;
  readonly sunTiles: readonly (SunTile | null)[];
  /** The compute tiles; a task names one by its position in this list. */
  readonly tiles: readonly ComputeTile[];
  /** Size of the GeoTIFF tiles the outputs are encoded as (compute tiles at the raster's edge are smaller). */
  readonly tileWidth: number;
  readonly tileHeight: number;
  /** Days to compute, ascending. */
  readonly days: readonly number[];
  /** Months (0–11) whose sums are made (their days are all computed; none when the monthly sums are not written). */
  readonly months: readonly number[];
  /** Also compute the horizontal-surface global irradiation (monthly sums only). */
  readonly flat: boolean;
  /**
   * Also the beam parts of the monthly sums of the global and (with `flat`) horizontal-surface irradiation, for EEMT's
   * real-sky radiation (monthly sums only; absent: false).
   */
  readonly beamParts?: boolean;
  /**
   * Days (ascending, among `days`) whose daily global map and whose sunshine-hour map are encoded and sent; the
   * other days are computed for the monthly sums only.
   */
  readonly dailyGlobal: readonly number[];
  readonly dailyHours: readonly number[];
  readonly compression: TileCompression;
  readonly kernel: DailyKernelChoice;
  /** 'traced': every tile traces its near field, its horizons without near-field bounds per cell (`runNearField`). */
  readonly nearField: NearFieldMode;
}

/** The first message to a worker started ahead of its run (`prestartSolWorkers`): the run's setup. */
export interface WorkerStart {
  readonly type: 'setup';
  readonly setup: WorkerSetup;
}

/** A compute tile to do (its position in `tiles`), or, once every tile is done, a product's COG to assemble. */
export type WorkerTask = { readonly type: 'tile'; readonly tile: number } | { readonly type: 'assemble'; readonly id: number; readonly job: CogAssemblyJob };

/** Seconds a worker spent on one tile, by phase. */
export interface TileTimings {
  readonly horizonSeconds: number;
  readonly kernelSeconds: number;
  readonly encodeSeconds: number;
  /** Uncompressed bytes of the tiles it encoded. */
  readonly rawBytes: number;
  /** When the worker finished the tile: milliseconds since the Unix epoch (`performance.timeOrigin + performance.now()`). */
  readonly endedAtMs: number;
}

/** A compressed GeoTIFF tile and the statistics of its cells (for the file's band statistics). */
export interface EncodedTile {
  readonly bytes: Uint8Array;
  /** Its cells' statistics; absent for a map with overviews, whose statistics the overview pyramid gathers (cogFile.ts). */
  readonly statistics?: PartialStatistics;
}

/** A compute tile's products of one day (null: that map is not written) or month. */
export type ProductTiles =
  | { readonly type: 'day'; readonly day: number; readonly global: EncodedTile | null; readonly hours: EncodedTile | null }
  | {
      readonly type: 'month';
      readonly month: number;
      readonly global: EncodedTile;
      readonly flat: EncodedTile | null;
      /** The beam parts of `global` and `flat` (a run with `beamParts`). */
      readonly beamPart?: EncodedTile | null;
      readonly flatBeam?: EncodedTile | null;
    };

/** Replies; the last one of a tile task is `tileDone`, of an assembly `assembled` (either may be `error`). */
export type WorkerReply =
  /** Share of the tile's horizon work done (1 when done). */
  | { readonly type: 'horizons'; readonly tile: number; readonly fraction: number }
  /** The products of a batch of days (one message per kernel batch: a message costs tens of µs). */
  | { readonly type: 'products'; readonly tile: number; readonly products: readonly ProductTiles[] }
  | { readonly type: 'tileDone'; readonly tile: number; readonly timings: TileTimings }
  | { readonly type: 'assembled'; readonly id: number; readonly bytes: number }
  /** `assembly`: the id of the assembly that failed (absent: a tile task). */
  | { readonly type: 'error'; readonly message: string; readonly assembly?: number };
