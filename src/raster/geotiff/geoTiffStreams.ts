/**
 * Writing many Float32 GeoTIFFs at once, tile by tile, in bounded memory and with a bounded number of open
 * files — the `sol` pipeline fills its 742 products a compute tile at a time.
 *
 * Each file's compressed tiles (`encodeFloat32Tile`, made wherever the values are) are queued here and appended
 * in arrival order to `<path>.part`, which the first flush that reaches the file creates: whenever the queued
 * bytes pass the buffer budget they are flushed — per file one open, one vectored write at the file's end, one
 * close, at most `maxOpenFiles` files at a time. `finish` writes the remaining tiles and then assembles the Cloud
 * Optimized GeoTIFF `<path>.cog.part` from them (`cogFile.ts`: overviews built from the tiles, directory first,
 * tiles in COG order), renames it to its final name and removes `<path>.part`. A file whose tiles are all still
 * queued is assembled from them in memory instead, synchronously (a run whose whole output fits the buffer
 * writes each tile once, into its COG, and creates no `.part` file; `createAssemblyFile` lets it create the
 * `.cog.part` files early). `abort` removes every unfinished file's parts. No file ever appears under its final
 * name incomplete. `seal` instead keeps a file's tiles in its `.part` file for another run to assemble (a job
 * split into tile slices). The assembly itself (`assembleCog`, from plain data) can run elsewhere — the `sol`
 * pipeline hands the files of tiles on disk to its worker threads, idle by then — through the `assembler` option.
 */
import { closeSync, constants, openSync, renameSync } from 'node:fs';
import { access, mkdir, open, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeAllAt, writeCogFromMemory, writeCogFromTiles, type TileSource } from '../cog/cogFile.js';
import { bandStatistics, mergeStatistics, NO_CELLS, type BandStatistics, type PartialStatistics } from './statistics.js';
import type { GridSpec } from '../types.js';
import { float32GeoTiffTags, rasterTiling, tileCompression, type Float32GeoTiffOptions, type RasterTiling } from './writeGeoTiff.js';

export interface GeoTiffStreamsOptions {
  /** Compressed tile bytes held before a flush (default 32 MiB). */
  readonly bufferBytes?: number;
  /** Files open at once while flushing (default 16). */
  readonly maxOpenFiles?: number;
  /** Files of tiles up to this size are read in one go when their COG is assembled (default 4 MiB). */
  readonly wholeReadBytes?: number;
  /** Assembles a finished file's COG (default: `assembleCog` in this thread). */
  readonly assembler?: CogAssembler;
}

/** One COG to assemble from its file of tiles, as plain data (it may be sent to a worker thread). */
export interface CogAssemblyJob {
  /** Where the COG is written. */
  readonly target: string;
  /** The name `target` is renamed to once it is complete. */
  readonly path: string;
  readonly source: TileSource;
  readonly grid: GridSpec;
  readonly options: StreamedGeoTiffOptions;
  readonly wholeReadBytes?: number;
  /** The band statistics gathered from the tiles, when every tile brought its own (maps with overviews get them from the pyramid). */
  readonly statistics?: BandStatistics | null;
}

/** Assembles the COG of a job and renames it to its final name; resolves with the bytes written. */
export type CogAssembler = (job: CogAssemblyJob) => Promise<number>;

/**
 * Assembles the COG of `job` in this thread and renames it to `job.path`; returns the bytes written. Tiles in
 * memory are written synchronously (`writeCogFromMemory`), tiles in a file through the thread pool.
 */
export async function assembleCog(job: CogAssemblyJob): Promise<number> {
  const { target, path, source, grid, options, wholeReadBytes } = job;
  const cogOptions = {
    tags: (statistics: BandStatistics | null) => float32GeoTiffTags(grid, source.tiling, { ...options, statistics: statistics ?? job.statistics ?? null }),
    compression: OVERVIEW_COMPRESSION,
    bigTiff: options.bigTiff ?? false,
    ...(wholeReadBytes === undefined ? {} : { wholeReadBytes }),
  };
  if (source.tiles) {
    const size = writeCogFromMemory(target, source, source.tiles, cogOptions);
    renameSync(target, path);
    return size;
  }
  const size = await writeCogFromTiles(target, source, cogOptions);
  await rename(target, path);
  return size;
}

/** Options of one file: its tile size, band description and metadata (as `writeFloat32GeoTiff`). */
export type StreamedGeoTiffOptions = Pick<Float32GeoTiffOptions, 'tileSize' | 'description' | 'metadata' | 'bigTiff'>;

/** Suffix of the file a finished COG is assembled in before it is renamed to its final name. */
const ASSEMBLY_SUFFIX = '.cog.part';

interface StreamedFile {
  readonly path: string;
  readonly part: string;
  readonly tiling: RasterTiling;
  /** What its tags are made from. */
  readonly grid: GridSpec;
  readonly options: StreamedGeoTiffOptions;
  readonly offsets: Float64Array;
  readonly byteCounts: Float64Array;
  /** 1 for tiles queued or written. */
  readonly received: Uint8Array;
  /** How many tiles were received. */
  receivedCount: number;
  /** The finishing of the file, once started. */
  finishing: Promise<void> | null;
  /** Where the next appended tile goes (0: none was written, and `part` does not exist: the first flush that reaches the file creates it). */
  end: number;
  queue: { tile: number; bytes: Uint8Array }[];
  state: 'open' | 'finished' | 'sealed';
  /** Per tile, the statistics of its cells, when it brought them (merged in tile order: the same bytes whatever order tiles arrive in). */
  readonly tileStatistics: (PartialStatistics | undefined)[];
}

/**
 * The tiles a sealed file holds: its `.part` file and, per tile written, [tile index, offset, byte count], and the
 * tiles' statistics in the same order (null for a tile that came without them).
 */
export interface SealedTiles {
  readonly part: string;
  readonly tiles: readonly (readonly [number, number, number])[];
  readonly statistics: readonly (PartialStatistics | null)[];
}

/** Statistics of what was written, for benchmarks. */
export interface GeoTiffStreamsStats {
  readonly files: number;
  /** Bytes of the finished files (the tiles collected in `.part` files before are not counted again). */
  readonly bytesWritten: number;
  /** Wall time during which file operations (create, append, patch, rename) were in progress [s]. */
  readonly writeSeconds: number;
  readonly flushes: number;
}

/** zlib settings of the overview tiles (the full-resolution tiles come compressed). */
const OVERVIEW_COMPRESSION = tileCompression();

export class GeoTiffStreams {
  private readonly files: StreamedFile[] = [];
  private readonly bufferBytes: number;
  private readonly maxOpenFiles: number;
  private readonly wholeReadBytes: number | undefined;
  private readonly assembler: CogAssembler;
  private readonly folders = new Set<string>();
  private queuedBytes = 0;
  private flushing: Promise<void> | null = null;
  private failure: Error | null = null;
  private aborted = false;
  private bytesWritten = 0;
  private writeSeconds = 0;
  private activeWrites = 0;
  private writesSince = 0;
  private flushes = 0;

  constructor(options: GeoTiffStreamsOptions = {}) {
    this.bufferBytes = options.bufferBytes ?? 32 * 2 ** 20;
    this.maxOpenFiles = options.maxOpenFiles ?? 16;
    this.wholeReadBytes = options.wholeReadBytes;
    this.assembler = options.assembler ?? assembleCog;
  }

  /**
   * Registers a file (its folder is created and checked writable here, so that a run fails before computing;
   * the `<path>.part` that may collect its tiles is created by the first flush that reaches it); returns the id
   * that `add` and `finish` take.
   */
  async create(path: string, grid: GridSpec, options: StreamedGeoTiffOptions = {}): Promise<number> {
    this.checkUsable();
    const tiling = rasterTiling(grid, options.tileSize);
    const file: StreamedFile = {
      path,
      part: `${path}.part`,
      tiling,
      grid,
      options,
      offsets: new Float64Array(tiling.count),
      byteCounts: new Float64Array(tiling.count),
      received: new Uint8Array(tiling.count),
      receivedCount: 0,
      finishing: null,
      end: 0,
      queue: [],
      state: 'open',
      tileStatistics: new Array<PartialStatistics | undefined>(tiling.count),
    };
    const folder = dirname(path);
    if (!this.folders.has(folder)) {
      await this.timed(async () => {
        await mkdir(folder, { recursive: true });
        await access(folder, constants.W_OK);
      });
      this.folders.add(folder);
    }
    this.checkUsable();
    const id = this.files.length;
    this.files.push(file);
    return id;
  }

  /** Creates the files `specs` on `grid`, at most `maxOpenFiles` at a time; returns their ids in order. */
  async createAll(grid: GridSpec, specs: readonly { path: string; options?: StreamedGeoTiffOptions }[]): Promise<number[]> {
    const ids = new Array<number>(specs.length);
    await forEachLimited(
      specs.map((spec, k) => ({ spec, k })),
      this.maxOpenFiles,
      async ({ spec, k }) => {
        ids[k] = await this.create(spec.path, grid, spec.options);
      },
    );
    return ids;
  }

  /** The tiling of file `id` (which tile index covers which cells). */
  tiling(id: number): RasterTiling {
    return this.file(id).tiling;
  }

  /**
   * Queues compressed tile `tile` (row-major tile index) of file `id`, with the statistics of its cells inside the
   * raster when they are known; flushes when the buffer is full.
   */
  add(id: number, tile: number, bytes: Uint8Array, statistics?: PartialStatistics): void {
    this.checkUsable();
    const file = this.file(id);
    if (file.state !== 'open') throw new Error(`${file.path} is already finished`);
    if (!Number.isInteger(tile) || tile < 0 || tile >= file.tiling.count) throw new RangeError(`tile ${tile} is outside 0–${file.tiling.count - 1} of ${file.path}`);
    if (bytes.length === 0) throw new RangeError('a compressed tile cannot be empty');
    if (file.received[tile] === 1) throw new Error(`tile ${tile} of ${file.path} was written twice`);
    file.received[tile] = 1;
    file.receivedCount++;
    if (statistics) file.tileStatistics[tile] = statistics;
    file.queue.push({ tile, bytes });
    this.queuedBytes += bytes.length;
    if (this.queuedBytes >= this.bufferBytes && !this.flushing) this.startFlush();
  }

  /**
   * Resolves once the queued bytes are below twice the budget (at once when they are): producers wait
   * on it before making more tiles, which bounds memory when the disk is slower than the computation.
   */
  async ready(): Promise<void> {
    while (this.queuedBytes >= 2 * this.bufferBytes) {
      if (!this.flushing) this.startFlush();
      await this.flushing;
      this.checkUsable();
    }
    this.checkUsable();
  }

  /**
   * Creates the empty `<path>.cog.part` in which file `id`'s COG will be assembled, unless the file's finishing
   * has begun: on some file systems creating a file costs far more than opening one (0.2–0.7 ms against 15 µs
   * on the development machine), so a run can do it while it computes rather than after its last tile.
   */
  createAssemblyFile(id: number): void {
    const file = this.file(id);
    if (file.finishing || file.state !== 'open' || this.aborted) return;
    closeSync(openSync(`${file.path}${ASSEMBLY_SUFFIX}`, 'w'));
  }

  /** Whether every tile of file `id` was received (it can be finished). */
  isComplete(id: number): boolean {
    const file = this.file(id);
    return file.receivedCount === file.tiling.count;
  }

  /**
   * Writes the remaining tiles of file `id`, assembles its COG and renames that to its final name. A file is
   * finished once: calling again returns the first call's promise.
   */
  finish(id: number): Promise<void> {
    const file = this.file(id);
    const missing = file.tiling.count - file.receivedCount;
    if (missing > 0 && file.state === 'open') return Promise.reject(new Error(`${file.path}: ${missing} of ${file.tiling.count} tiles were never written`));
    return (file.finishing ??= this.finishFile(file));
  }

  private async finishFile(file: StreamedFile): Promise<void> {
    this.checkUsable();
    if (file.state !== 'open') return;
    await this.flushing;
    this.checkUsable();
    // a file none of whose tiles went to its .part file yet is assembled from its tiles in memory
    const tiles = file.end === 0 ? this.takeQueue(file) : undefined;
    if (!tiles) await this.writeRemaining(file);
    const assembly = `${file.path}${ASSEMBLY_SUFFIX}`;
    await this.timed(async () => {
      try {
        const size = await this.assembler({
          target: assembly,
          path: file.path,
          source: { path: file.part, tiling: file.tiling, offsets: file.offsets, byteCounts: file.byteCounts, ...(tiles ? { tiles } : {}) },
          grid: file.grid,
          options: file.options,
          ...(this.wholeReadBytes === undefined ? {} : { wholeReadBytes: this.wholeReadBytes }),
          ...fileStatistics(file),
        });
        this.bytesWritten += size; // (after the await: files are finished concurrently)
      } catch (error) {
        await rm(assembly, { force: true });
        throw error;
      }
      // the .part file is ours and a plain file: unlink, not rm (which looks at it first)
      if (file.end > 0) await unlink(file.part);
    });
    file.state = 'finished';
  }

  /**
   * Writes the remaining tiles of file `id` and leaves them in `<path>.part` instead of assembling a COG (a file
   * filled by several runs, each writing some of its tiles): returns where each tile written is. The part file is
   * the caller's from then on; `abort` no longer removes it.
   */
  async seal(id: number): Promise<SealedTiles> {
    this.checkUsable();
    const file = this.file(id);
    if (file.state !== 'open') throw new Error(`${file.path} is already ${file.state}`);
    await this.writeRemaining(file);
    if (file.end === 0) await this.timed(() => writeFile(file.part, new Uint8Array(0)));
    file.state = 'sealed';
    const tiles: [number, number, number][] = [];
    const statistics: (PartialStatistics | null)[] = [];
    for (let tile = 0; tile < file.received.length; tile++) {
      if (file.received[tile] !== 1) continue;
      tiles.push([tile, file.offsets[tile]!, file.byteCounts[tile]!]);
      statistics.push(file.tileStatistics[tile] ?? null);
    }
    return { part: file.part, tiles, statistics };
  }

  /** Finishes files `ids`, at most `maxOpenFiles` at a time; `onFinished` after each. */
  async finishAll(ids: readonly number[], onFinished: (id: number) => void = () => {}): Promise<void> {
    await forEachLimited(ids, this.maxOpenFiles, async (id) => {
      await this.finish(id);
      onFinished(id);
    });
  }

  /** Stops: waits for writes in progress, then removes every unfinished `.part` file. Finished files stay. */
  async abort(): Promise<void> {
    this.aborted = true;
    await this.flushing?.catch(() => {});
    await forEachLimited(
      this.files.filter((f) => f.state === 'open'),
      this.maxOpenFiles,
      async (f) => {
        // best effort: remove what can be removed
        await rm(f.part, { force: true }).catch(() => {});
        await rm(`${f.path}${ASSEMBLY_SUFFIX}`, { force: true }).catch(() => {});
      },
    );
    for (const f of this.files) f.queue = [];
    this.queuedBytes = 0;
  }

  stats(): GeoTiffStreamsStats {
    return { files: this.files.length, bytesWritten: this.bytesWritten, writeSeconds: this.writeSeconds, flushes: this.flushes };
  }

  private file(id: number): StreamedFile {
    const file = this.files[id];
    if (!file) throw new RangeError(`no streamed GeoTIFF with id ${id}`);
    return file;
  }

  private checkUsable(): void {
    if (this.failure) throw this.failure;
    if (this.aborted) throw new Error('the GeoTIFF streams were aborted');
  }

  private startFlush(): void {
    const batch = this.files.filter((f) => f.state === 'open' && f.queue.length > 0);
    this.flushes++;
    this.flushing = (async () => {
      try {
        await forEachLimited(batch, this.maxOpenFiles, async (file) => {
          const bytes = file.queue.reduce((n, q) => n + q.bytes.length, 0);
          await this.timed(() => this.writeQueue(file));
          this.queuedBytes -= bytes;
        });
      } catch (error) {
        this.failure ??= error instanceof Error ? error : new Error(String(error));
      } finally {
        this.flushing = null;
      }
    })();
  }

  /** Waits for a flush in progress, then appends the file's tiles still queued (`finish`, `seal`). */
  private async writeRemaining(file: StreamedFile): Promise<void> {
    await this.flushing;
    this.checkUsable();
    const queued = file.queue.reduce((n, q) => n + q.bytes.length, 0);
    await this.timed(() => this.writeQueue(file));
    this.queuedBytes -= queued;
  }

  /** Takes the file's queued tiles (all of them) out of the queue, by tile index, their byte counts noted. */
  private takeQueue(file: StreamedFile): Uint8Array[] {
    const tiles = new Array<Uint8Array>(file.tiling.count);
    for (const { tile, bytes } of file.queue) tiles[tile] = bytes;
    this.queuedBytes -= placeQueue(file, 0).end;
    return tiles;
  }

  /** Appends the file's queued tiles at its end. One open. */
  private async writeQueue(file: StreamedFile): Promise<void> {
    const start = file.end;
    const { buffers, end } = placeQueue(file, start);
    if (buffers.length === 0) return;
    file.end = end;
    const handle = await open(file.part, start > 0 ? 'r+' : 'w');
    try {
      await writeAllAt(handle, buffers, start);
    } finally {
      await handle.close();
    }
  }

  /** Runs a file operation, counting the wall time while any is in progress (overlapping ones once). */
  private async timed<T>(work: () => Promise<T>): Promise<T> {
    if (this.activeWrites++ === 0) this.writesSince = performance.now();
    try {
      return await work();
    } finally {
      if (--this.activeWrites === 0) this.writeSeconds += (performance.now() - this.writesSince) / 1000;
    }
  }
}

/** The band statistics of a file whose every tile brought its own, merged in tile order; {} otherwise. */
function fileStatistics(file: StreamedFile): { statistics?: BandStatistics | null } {
  let merged = NO_CELLS;
  for (let tile = 0; tile < file.tiling.count; tile++) {
    const statistics = file.tileStatistics[tile];
    if (!statistics) return {};
    merged = mergeStatistics(merged, statistics);
  }
  return { statistics: bandStatistics(merged) };
}

/** Empties the file's queue, giving its tiles consecutive places from byte `start` (offsets, byte counts); returns them in order and where they end. */
function placeQueue(file: StreamedFile, start: number): { buffers: Uint8Array[]; end: number } {
  const queue = file.queue;
  file.queue = [];
  let end = start;
  for (const { tile, bytes } of queue) {
    file.offsets[tile] = end;
    file.byteCounts[tile] = bytes.length;
    end += bytes.length;
  }
  return { buffers: queue.map((q) => q.bytes), end };
}

/** Runs `work` on every item with at most `limit` running at once; rejects with the first failure. */
export async function forEachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: unknown = null;
  const lane = async () => {
    while (failure === null && next < items.length) {
      const item = items[next++]!;
      try {
        await work(item);
      } catch (error) {
        failure ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failure !== null) throw failure;
}
