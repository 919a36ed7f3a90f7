/** Messages between the `sol` pipeline and its worker threads. */
import type { GridSpec } from '../../raster/types.js';
import type { KernelParams } from '../../science/solar/dailyKernel.js';
import type { SurfaceTerms } from '../../science/solar/surface.js';
import type { TerrainModel } from '../../science/solar/terrainModel.js';
import type { HorizonLayout, TileHorizons } from '../../science/solar/tileHorizons.js';
import type { SunTile } from './plan.js';

/** Everything a worker shares with the pipeline; typed arrays live in SharedArrayBuffers. */
export interface WorkerSetup {
  readonly grid: GridSpec;
  readonly outDir: string;
  readonly model: TerrainModel;
  readonly surface: SurfaceTerms;
  /** Null: no terrain shadows. */
  readonly layout: HorizonLayout | null;
  /** Horizons of the whole grid (the grid is the workers' one tile). */
  readonly horizons: TileHorizons;
  readonly tiles: readonly SunTile[];
  readonly params: KernelParams;
  /** Also compute the horizontal-surface daily global (returned, not written). */
  readonly flat: boolean;
  /** Metadata items written into every daily GeoTIFF. */
  readonly metadata: Record<string, string>;
}

export type WorkerTask =
  | { readonly type: 'horizon'; readonly rowStart: number; readonly rowEnd: number }
  | { readonly type: 'day'; readonly day: number };

export type WorkerReply =
  | { readonly type: 'horizonDone'; readonly rows: number }
  | { readonly type: 'dayDone'; readonly day: number; readonly global: Float32Array; readonly flatGlobal: Float32Array | null }
  | { readonly type: 'error'; readonly message: string };
