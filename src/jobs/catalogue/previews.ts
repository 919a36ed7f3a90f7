/**
 * Previews of a completed job's maps: a PNG (viridis, nodata transparent, longest side at most
 * PREVIEW_MAX_SIDE, optionally over a hillshade of the job's DEM) and its legend (title, unit, statistics of
 * the full-resolution map, colour stops). Made from the job's own GeoTIFFs — from an overview level when the
 * map is large (`RasterLevels`) — and cached on disk in the job's folder (`previews/`), so they go when the
 * job's files go.
 *
 * The job's folder can be written by the job itself, so every file is opened without following links, and
 * the cache is used only when `previews/` is a real folder; cache files are written under a temporary
 * name (exclusive create) and renamed.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createGeodesy } from '../../raster/geo/geodesy.js';
import { hillshade } from '../../raster/preview/hillshade.js';
import { colourise, encodePng, legendStops } from '../../raster/preview/render.js';
import { summedPreview, summedStatistics, type MapStatistics } from '../../raster/preview/summedMap.js';
import { previewSize, RasterLevels } from '../../raster/cog/rasterLevels.js';
import { RasterFormatError } from '../../raster/types.js';
import { previewProduct, previewProductForms, type PreviewProduct } from '../../workflows/previewProducts.js';
import { NotRegularFileError, openRegularFile } from '../store/files.js';
import type { JobPaths } from '../store/paths.js';
import { JobError, type JobRecord } from '../types.js';
import { echoed } from '../../util/echoed.js';

/** Longest side of a preview PNG [px]. */
const PREVIEW_MAX_SIDE = 1024;

/** The legend of a preview: what the map is, its statistics over valid cells at full resolution, its colours. */
export interface PreviewLegend extends MapStatistics {
  readonly product: string;
  readonly title: string;
  readonly unit: string;
  /** Size of the preview PNG [px]. */
  readonly width: number;
  readonly height: number;
  /** Size of the full-resolution map [cells]. */
  readonly map_width: number;
  readonly map_height: number;
  readonly stops: { value: number; color: string }[];
}

/** Previews are computed at most this many at a time (each reads whole maps band by band). */
const CONCURRENT_RENDERS = 2;

export class JobPreviews {
  private readonly inFlight = new Map<string, Promise<unknown>>();
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly paths: JobPaths) {}

  /** The legend of `name` for `job` (cached). Throws JobError 404/400 as the API answers them. */
  async legend(job: JobRecord, name: string): Promise<PreviewLegend> {
    const product = this.productOf(job, name);
    await this.checkResults(job);
    return this.once(`${job.id}/${name}.json`, async () => {
      const cached = await this.readCache(job, `${name}.json`);
      if (cached) return JSON.parse(cached.toString('utf8')) as PreviewLegend;
      const legend = await this.withRasters(job, product, async (rasters) => {
        const stats = await summedStatistics(rasters);
        const { width, height } = rasters[0]!.grid;
        const size = previewSize(width, height, PREVIEW_MAX_SIDE);
        const stops = stats.min === null || stats.max === null ? [] : legendStops(stats.min, stats.max);
        return { product: name, title: product.title, unit: product.unit, ...stats, ...size, map_width: width, map_height: height, stops };
      });
      await this.writeCache(job, `${name}.json`, Buffer.from(JSON.stringify(legend)));
      return legend;
    });
  }

  /** The PNG of `name` for `job`, over a hillshade of the DEM when asked (cached). */
  async png(job: JobRecord, name: string, withHillshade: boolean): Promise<Buffer> {
    const legend = await this.legend(job, name);
    const file = `${name}${withHillshade ? '-hillshade' : ''}.png`;
    return this.once(`${job.id}/${file}`, async () => {
      const cached = await this.readCache(job, file);
      if (cached) return cached;
      const product = this.productOf(job, name);
      const { width, height } = legend;
      const values = await this.withRasters(job, product, (rasters) => summedPreview(rasters, width, height));
      const shade = withHillshade ? await this.demHillshade(job, width, height) : null;
      const png = encodePng(colourise(values, legend.min ?? 0, legend.max ?? 0, shade), width, height);
      await this.writeCache(job, file, png);
      return png;
    });
  }

  private productOf(job: JobRecord, name: string): PreviewProduct {
    const product = previewProduct(job.workflow_type, name, job.parameters);
    if (!product) throw new JobError(404, `Unknown preview product '${echoed(name)}'; ${job.workflow_type} jobs have ${previewProductForms(job.workflow_type)}`);
    return product;
  }

  private async checkResults(job: JobRecord): Promise<void> {
    if (job.status !== 'completed') throw new JobError(400, 'Job not completed');
    const output = await lstat(this.paths.outputDir(job.id)).catch(() => null);
    if (job.data_deleted_at !== null || !output?.isDirectory()) throw new JobError(404, 'Results not found');
  }

  /** Runs `work` on the product's rasters, opened without following links and closed afterwards. */
  private async withRasters<T>(job: JobRecord, product: PreviewProduct, work: (rasters: RasterLevels[]) => Promise<T>): Promise<T> {
    return this.limited(async () => {
      const handles: Awaited<ReturnType<typeof openRegularFile>>['handle'][] = [];
      try {
        const rasters: RasterLevels[] = [];
        for (const rel of product.files) {
          const { handle } = await openRegularFile(join(this.paths.outputDir(job.id), rel)).catch((error: unknown) => {
            throw missing(error) ? new JobError(404, `Results not found: the job has no ${rel}`) : error;
          });
          handles.push(handle);
          rasters.push(await RasterLevels.open(handle));
        }
        return await work(rasters);
      } catch (error) {
        if (error instanceof RasterFormatError || error instanceof RangeError) throw new JobError(500, `The map ${product.name} cannot be read: ${error.message}`);
        throw error;
      } finally {
        for (const handle of handles) await handle.close();
      }
    });
  }

  /** Hillshade of the job's DEM at the preview's size, or null when the DEM is no longer there. */
  private async demHillshade(job: JobRecord, width: number, height: number): Promise<Float32Array | null> {
    let opened;
    try {
      opened = await openRegularFile(this.paths.demPath(job.id));
    } catch (error) {
      if (missing(error)) return null;
      throw error;
    }
    try {
      const dem = await RasterLevels.open(opened.handle);
      const elevation = await this.limited(() => dem.downsample(width, height));
      const geodesy = createGeodesy(dem.grid);
      const sx = dem.grid.width / width;
      const sy = dem.grid.height / height;
      return hillshade(elevation, width, height, (row) => {
        const { dx, dy } = geodesy.cellSizeM(Math.min(dem.grid.height - 1, Math.floor((row + 0.5) * sy)));
        return { dx: dx * sx, dy: dy * sy };
      });
    } finally {
      await opened.handle.close();
    }
  }

  /** One computation per key at a time: concurrent requests for the same preview share it. */
  private once<T>(key: string, make: () => Promise<T>): Promise<T> {
    const running = this.inFlight.get(key);
    if (running) return running as Promise<T>;
    const promise = make().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, promise);
    return promise;
  }

  private async limited<T>(work: () => Promise<T>): Promise<T> {
    while (this.running >= CONCURRENT_RENDERS) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
    try {
      return await work();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }

  private cacheDir(job: JobRecord): string {
    return join(this.paths.jobDir(job.id), 'previews');
  }

  private async readCache(job: JobRecord, file: string): Promise<Buffer | null> {
    try {
      const { handle } = await openRegularFile(join(this.cacheDir(job), file));
      try {
        return await readFile(handle);
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (missing(error) || error instanceof NotRegularFileError) return null;
      throw error;
    }
  }

  /** Stores `bytes` as `file` in the cache, when the cache folder is a real folder (else nothing is cached). */
  private async writeCache(job: JobRecord, file: string, bytes: Uint8Array): Promise<void> {
    const dir = this.cacheDir(job);
    await mkdir(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    const info = await lstat(dir);
    if (!info.isDirectory()) return;
    const temp = join(dir, `.${file}.${randomBytes(6).toString('hex')}.tmp`);
    const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
    try {
      await handle.writeFile(bytes);
    } finally {
      await handle.close();
    }
    await rename(temp, join(dir, file)).catch(async (error: unknown) => {
      await rm(temp, { force: true });
      throw error;
    });
  }
}

function missing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
