/**
 * Writing a solar year's products. Every product file is open for writing at once (GeoTiffStreams: a `.part` file
 * collecting its compressed tiles in arrival order, within the writer's memory budget, which the workers wait for);
 * once the tiles are done each file is assembled as a Cloud Optimized GeoTIFF with its overviews and renamed. A slice
 * of the tiles (a job split across workers) instead keeps its part files and lists their tiles in a manifest, for
 * `assembleSolarYear` (sol/slices.ts).
 *
 * Where a COG is assembled: a file whose tiles are all in memory is written on this thread (a few hundred µs, less
 * than a round trip to a worker), the others by the worker threads once they have computed every tile. While they
 * compute, this thread is idle: a file complete in memory is assembled as soon as its last tile arrives, and the
 * files the COGs will be assembled in are created meanwhile (`whileComputing`).
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { GeoTiffStreams, assembleCog, type CogAssemblyJob } from '../../raster/geotiff/geoTiffStreams.js';
import type { RasterTiling } from '../../raster/geotiff/writeGeoTiff.js';
import type { EncodedTile, ProductTiles } from './messages.js';
import { ALL_PRODUCTS, type ProductSelection } from './productSelection.js';
import {
  dailyGlobalPath,
  dailyHoursPath,
  monthlyBeamPartPath,
  monthlyFlatBeamPath,
  monthlyFlatGlobalPath,
  monthlyGlobalPath,
} from './products.js';
import { writeSliceManifest, type SliceProduct } from './slices.js';
import type { WorkerPool } from './workerPool.js';
import type { ProductTileSink } from './computeTiles.js';
import type { SolarYearPlan } from './plan.js';

/**
 * A run whose whole compressed output is estimated below this keeps every tile in memory until its file is
 * finished, so each tile is written once, into its COG (GeoTiffStreams); larger runs flush through the default
 * 32 MiB buffer. The estimate: 3/4 of the raw bytes (the daily maps compress to 0.72, the hours to 0.22).
 */
const WHOLE_OUTPUT_BUFFER_BYTES = 192 * 2 ** 20;

/** Files whose assembly file is created per turn of the event loop while the workers compute. */
const ASSEMBLY_FILES_PER_TURN = 8;

/**
 * Paths of every product of a whole solar year, relative to the output folder, sorted (with the flat-surface sums for
 * eemt), and after them the beam parts of the monthly sums when asked for (eemt's working files). `products`: the
 * daily maps written (default every one); the monthly sums are listed when `products` has them or `flatMonthly`
 * (eemt, which needs them).
 */
export function solarYearProductPaths(flatMonthly: boolean, beamParts = false, products: ProductSelection = ALL_PRODUCTS): string[] {
  const paths: string[] = [...products.dailyGlobal.map(dailyGlobalPath), ...products.dailyHours.map(dailyHoursPath)];
  const parts: string[] = [];
  for (let month = 0; month < (products.monthly || flatMonthly ? 12 : 0); month++) {
    paths.push(monthlyGlobalPath(month), ...(flatMonthly ? [monthlyFlatGlobalPath(month)] : []));
    if (beamParts) parts.push(monthlyBeamPartPath(month), ...(flatMonthly ? [monthlyFlatBeamPath(month)] : []));
  }
  return [...paths.sort(), ...parts.sort()];
}

/** The tile buffer of the run's GeoTiffStreams: its whole output when that is small, else the default. */
function outputBufferBytes(files: number, tiling: RasterTiling): number | undefined {
  const estimate = 0.75 * files * tiling.count * tiling.tileWidth * tiling.tileHeight * 4;
  return estimate <= WHOLE_OUTPUT_BUFFER_BYTES ? WHOLE_OUTPUT_BUFFER_BYTES : undefined;
}

/** A product file: its path relative to the output folder, band description and metadata. */
interface ProductSpec {
  readonly path: string;
  readonly description: string;
  readonly metadata: Record<string, string>;
}

/** Stream ids of a day's map files (null: not written by this run). */
interface DayFiles {
  readonly global: number | null;
  readonly hours: number | null;
}

/** Stream ids of a month's product files (null: not written by this run). */
interface MonthFiles {
  readonly global: number;
  readonly flat: number | null;
  readonly beamPart: number | null;
  readonly flatBeam: number | null;
}

/** The product files of a solar-year run, in the order they are created (days, then months). */
function productSpecs(plan: SolarYearPlan): ProductSpec[] {
  const { metadata } = plan;
  const { flat } = plan.setup;
  const beamParts = plan.setup.beamParts === true;
  const globalDays = new Set(plan.setup.dailyGlobal);
  const hoursDays = new Set(plan.setup.dailyHours);
  const specs: ProductSpec[] = [];
  for (const day of plan.days) {
    const dayMeta = { ...metadata, DAY_OF_YEAR: String(day) };
    if (globalDays.has(day)) {
      specs.push({
        path: dailyGlobalPath(day),
        description: `Daily global irradiation, day ${day}`,
        metadata: { ...dayMeta, QUANTITY: 'daily global irradiation (beam + diffuse + reflected)', UNITS: 'Wh m-2 day-1' },
      });
    }
    if (hoursDays.has(day)) {
      specs.push({
        path: dailyHoursPath(day),
        description: `Daily sunshine hours, day ${day}`,
        metadata: { ...dayMeta, QUANTITY: 'sunshine hours (direct sun on the surface)', UNITS: 'h' },
      });
    }
  }
  for (const month of plan.months) {
    const monthMeta = { ...metadata, MONTH: String(month + 1) };
    specs.push({
      path: monthlyGlobalPath(month),
      description: `Monthly sum of daily global irradiation, month ${month + 1}`,
      metadata: { ...monthMeta, QUANTITY: 'monthly sum of daily global irradiation', UNITS: 'Wh m-2 month-1' },
    });
    if (flat) {
      specs.push({
        path: monthlyFlatGlobalPath(month),
        description: `Monthly sum of daily global irradiation on a horizontal unshaded surface, month ${month + 1}`,
        metadata: { ...monthMeta, QUANTITY: 'monthly sum of daily global irradiation, horizontal surface, no terrain shadow', UNITS: 'Wh m-2 month-1' },
      });
    }
    if (beamParts) {
      specs.push({
        path: monthlyBeamPartPath(month),
        description: `Beam part of the monthly sum of daily global irradiation, month ${month + 1}`,
        metadata: { ...monthMeta, QUANTITY: 'monthly sum of the beam on the surface and the ground reflection of the horizontal beam', UNITS: 'Wh m-2 month-1' },
      });
      if (flat) {
        specs.push({
          path: monthlyFlatBeamPath(month),
          description: `Beam part of the monthly sum of daily global irradiation on a horizontal unshaded surface, month ${month + 1}`,
          metadata: { ...monthMeta, QUANTITY: 'monthly sum of daily beam irradiation, horizontal surface, no terrain shadow', UNITS: 'Wh m-2 month-1' },
        });
      }
    }
  }
  return specs;
}

/** Where a product's COG is assembled: here while the workers compute or when its tiles are in memory, else by the workers. */
class CogAssemblyRoute {
  /** Aborted once the workers have stopped computing tiles. */
  readonly computeEnded = new AbortController();

  constructor(private readonly pool: WorkerPool) {}

  assemble(job: CogAssemblyJob): Promise<number> {
    return job.source.tiles || !this.computeEnded.signal.aborted ? assembleCog(job) : this.pool.assemble(job);
  }
}

/** The open product files of a solar-year run; the sink of its computed tiles. */
export class ProductWriter implements ProductTileSink {
  private constructor(
    private readonly plan: SolarYearPlan,
    private readonly pool: WorkerPool,
    private readonly route: CogAssemblyRoute,
    private readonly streams: GeoTiffStreams,
    /** Whether files are assembled as soon as their last tile arrives (the whole output kept in memory, not a slice). */
    private readonly finishEarly: boolean,
    private readonly specs: readonly ProductSpec[],
    private readonly ids: readonly number[],
    private readonly daily: ReadonlyMap<number, DayFiles>,
    private readonly monthly: ReadonlyMap<number, MonthFiles>,
  ) {}

  /** Creates every product file of `plan` (as an empty `.part` that collects its tiles); a slice starts from an empty folder. */
  static async open(plan: SolarYearPlan, pool: WorkerPool): Promise<ProductWriter> {
    const specs = productSpecs(plan);
    const bufferBytes = outputBufferBytes(specs.length, plan.tiling);
    const route = new CogAssemblyRoute(pool);
    const streams = new GeoTiffStreams({ assembler: (job) => route.assemble(job), ...(bufferBytes ? { bufferBytes } : {}) });
    try {
      // a slice run again (its worker was lost) starts from nothing
      if (plan.slice) await rm(plan.writeDir, { recursive: true, force: true });
      const ids = await streams.createAll(
        plan.grid,
        specs.map((spec) => ({ path: join(plan.writeDir, spec.path), options: { tileSize: plan.tileSize, description: spec.description, metadata: spec.metadata } })),
      );
      const daily = new Map<number, DayFiles>();
      const monthly = new Map<number, MonthFiles>();
      const { flat } = plan.setup;
      const beamParts = plan.setup.beamParts === true;
      const globalDays = new Set(plan.setup.dailyGlobal);
      const hoursDays = new Set(plan.setup.dailyHours);
      let k = 0;
      for (const day of plan.days) {
        const global = globalDays.has(day) ? ids[k++]! : null;
        const hours = hoursDays.has(day) ? ids[k++]! : null;
        if (global !== null || hours !== null) daily.set(day, { global, hours });
      }
      for (const month of plan.months) {
        const global = ids[k++]!;
        const flatId = flat ? ids[k++]! : null;
        const beamPart = beamParts ? ids[k++]! : null;
        const flatBeam = beamParts && flat ? ids[k++]! : null;
        monthly.set(month, { global, flat: flatId, beamPart, flatBeam });
      }
      return new ProductWriter(plan, pool, route, streams, bufferBytes !== undefined && !plan.slice, specs, ids, daily, monthly);
    } catch (error) {
      await streams.abort();
      throw error;
    }
  }

  add(tileIndex: number, product: ProductTiles): void {
    if (product.type === 'day') {
      const ids = this.daily.get(product.day)!;
      if (ids.global !== null && product.global) this.addTile(ids.global, tileIndex, product.global);
      if (ids.hours !== null && product.hours) this.addTile(ids.hours, tileIndex, product.hours);
    } else {
      const ids = this.monthly.get(product.month)!;
      this.addTile(ids.global, tileIndex, product.global);
      if (ids.flat !== null && product.flat) this.addTile(ids.flat, tileIndex, product.flat);
      if (ids.beamPart !== null && product.beamPart) this.addTile(ids.beamPart, tileIndex, product.beamPart);
      if (ids.flatBeam !== null && product.flatBeam) this.addTile(ids.flatBeam, tileIndex, product.flatBeam);
    }
  }

  ready(): Promise<void> {
    return this.streams.ready();
  }

  /**
   * Runs `compute` (the workers computing the tiles), meanwhile creating the files the COGs of the files kept in
   * memory will be assembled in, a few per turn of the event loop: creating a file can cost 30 times what opening one
   * does, and done after the last tile it is time the workers wait. A file that cannot be created now is left to its
   * finishing, which reports the error.
   */
  async whileComputing<T>(compute: () => Promise<T>): Promise<T> {
    const creating = this.finishEarly ? this.createAssemblyFiles() : null;
    try {
      return await compute();
    } finally {
      this.route.computeEnded.abort();
      await creating;
    }
  }

  /** Completes every file (remaining tiles, COG assembly, final name), reporting `progress` by files done; returns their paths, sorted. */
  async finish(report: (done: number, total: number) => void): Promise<string[]> {
    let done = 0;
    await this.streams.finishAll(this.ids, () => report(++done, this.ids.length));
    return this.specs.map((spec) => spec.path).sort();
  }

  /** Keeps every product's tiles in its part file (a slice's products) and writes the slice's manifest listing where they are. */
  async sealSlice(): Promise<void> {
    const { plan } = this;
    const products: SliceProduct[] = [];
    for (let k = 0; k < this.ids.length; k++) {
      const sealed = await this.streams.seal(this.ids[k]!);
      const spec = this.specs[k]!;
      products.push({ path: spec.path, description: spec.description, metadata: spec.metadata, tiles: sealed.tiles, statistics: sealed.statistics });
    }
    await writeSliceManifest(plan.writeDir, {
      slice: plan.slice!,
      width: plan.grid.width,
      height: plan.grid.height,
      tileSize: plan.tileSize,
      days: plan.days.length,
      directions: plan.directions,
      validCells: plan.validCells,
      products,
    });
  }

  /** Removes the files not finished. */
  abort(): Promise<void> {
    return this.streams.abort();
  }

  /** Seconds spent writing and bytes written. */
  stats(): { writeSeconds: number; bytesWritten: number } {
    return this.streams.stats();
  }

  private addTile(id: number, tile: number, { bytes, statistics }: EncodedTile): void {
    this.streams.add(id, tile, bytes, statistics);
    // a file that cannot be written fails the run at once (finish would meet the same promise)
    if (this.finishEarly && this.streams.isComplete(id)) {
      this.streams.finish(id).catch((error: unknown) => this.pool.fail(error instanceof Error ? error : new Error(String(error))));
    }
  }

  private async createAssemblyFiles(): Promise<void> {
    const computeEnded = this.route.computeEnded.signal;
    for (let k = 0; k < this.ids.length && !computeEnded.aborted; k++) {
      try {
        this.streams.createAssemblyFile(this.ids[k]!);
      } catch {
        return;
      }
      if (k % ASSEMBLY_FILES_PER_TURN === ASSEMBLY_FILES_PER_TURN - 1) await new Promise((resolve) => setImmediate(resolve));
    }
  }
}
