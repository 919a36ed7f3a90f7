/**
 * The compute tiles of one `sol` run in a worker thread (solWorker.ts): per tile its horizons, then every
 * requested day, each product's tile sent back compressed (encoding is spread over the threads and overlaps the
 * other thread's computing). Monthly sums are accumulated here, per tile.
 */
import { WasmTileEncoder, wasmEncodes } from '../../raster/tiff/tileEncoderWasm.js';
import { NO_CELLS, partialStatistics } from '../../raster/geotiff/statistics.js';
import { encodeFloat32Tile } from '../../raster/geotiff/writeGeoTiff.js';
import { hasOverviewLevels } from '../../raster/cog/overviews.js';
import type { EncodedTile, ProductTiles, TileTimings, WorkerReply, WorkerSetup } from './messages.js';
import type { ComputeTile } from './tilePlan.js';
import { lastDayOfMonth, monthOfDay } from './products.js';
import { KERNEL_DAY_BATCH } from '../../science/solar/dailyKernel.js';
import { TileEngine, type DayOutputs } from './tileEngine.js';

/** Where a run's replies go: the pipeline's port (a buffer in `transfer` moves with the message). */
export type ReplyPort = (reply: WorkerReply, transfer?: ArrayBuffer[]) => void;

type MonthSums = { global: Float64Array; flat: Float64Array | null; beamPart: Float64Array | null; flatBeam: Float64Array | null };

export class TileRun {
  private readonly engine: TileEngine;
  private readonly beamParts: boolean;
  private readonly padded: Float32Array;
  private readonly scratch: Uint8Array;
  /** Tiles are compressed in WebAssembly with the compiled kernel (the same zlib streams' contents as Node's zlib makes). */
  private readonly wasmEncoder: WasmTileEncoder | null;
  private readonly summedMonths: ReadonlySet<number>;
  /**
   * The maps' statistics: gathered per tile only for maps without overviews (those with overviews get theirs from the
   * overview pyramid, which reads every cell back: geoTiffStreams.ts).
   */
  private readonly statisticsOfTiles: boolean;
  /** The daily maps written: the other days are computed for the monthly sums only, not encoded. */
  private readonly globalDays: ReadonlySet<number>;
  private readonly hoursDays: ReadonlySet<number>;
  private timings = { horizonSeconds: 0, kernelSeconds: 0, encodeSeconds: 0, rawBytes: 0 };
  /** The compressed all-nodata tile, made once (tiles without a valid cell send copies of it). */
  private nodataTile: Uint8Array | null = null;

  constructor(
    private readonly setup: WorkerSetup,
    private readonly reply: ReplyPort,
  ) {
    this.beamParts = setup.beamParts === true;
    this.engine = new TileEngine(setup.terrain, setup.layout, setup.params, setup.sunTiles, setup.days, setup.kernel, this.beamParts, setup.nearField);
    const { tileWidth, tileHeight } = setup;
    this.padded = new Float32Array(tileWidth * tileHeight);
    this.scratch = new Uint8Array(this.padded.byteLength);
    this.wasmEncoder = setup.kernel === 'wasm' && wasmEncodes(setup.compression) ? new WasmTileEncoder(tileWidth, tileHeight) : null;
    this.summedMonths = new Set(setup.months);
    this.statisticsOfTiles = !hasOverviewLevels({ width: setup.terrain.width, height: setup.terrain.height, tileWidth, tileHeight });
    this.globalDays = new Set(setup.dailyGlobal);
    this.hoursDays = new Set(setup.dailyHours);
  }

  /** Computes compute tile `index` of the setup's tiles and sends its products, then `tileDone` with its timings. */
  computeTile(index: number): void {
    const { setup, engine } = this;
    const tile: ComputeTile = setup.tiles[index]!;
    this.timings = { horizonSeconds: 0, kernelSeconds: 0, encodeSeconds: 0, rawBytes: 0 };
    const timings = this.timings;
    const width = tile.colEnd - tile.colStart;
    const height = tile.rowEnd - tile.rowStart;
    const cells = width * height;
    let t0 = performance.now();
    if (tile.validCells > 0) engine.prepare(tile, (fraction) => this.reply({ type: 'horizons', tile: index, fraction }));
    timings.horizonSeconds += (performance.now() - t0) / 1000;
    this.reply({ type: 'horizons', tile: index, fraction: 1 });

    const outs: DayOutputs[] = Array.from({ length: Math.min(KERNEL_DAY_BATCH, setup.days.length) }, () => ({
      global: new Float32Array(cells).fill(NaN),
      hours: new Float32Array(cells).fill(NaN),
      flat: setup.flat ? new Float32Array(cells).fill(NaN) : null,
      beamPart: this.beamParts ? new Float32Array(cells).fill(NaN) : null,
      flatBeam: this.beamParts && setup.flat ? new Float32Array(cells).fill(NaN) : null,
    }));
    const sums = new Map<number, MonthSums>();
    const products: ProductTiles[] = [];
    for (let i = 0; i < setup.days.length; i++) {
      // the kernel computes a batch of days in one pass; they are then summed, encoded and sent one by one
      const batchIndex = i % KERNEL_DAY_BATCH;
      t0 = performance.now();
      if (batchIndex === 0 && tile.validCells > 0) {
        const batch = setup.days.slice(i, i + KERNEL_DAY_BATCH);
        engine.integrateDays(batch, outs.slice(0, batch.length));
      }
      const day = setup.days[i]!;
      const out = outs[batchIndex]!;
      const month = monthOfDay(day);
      let sum = this.summedMonths.has(month) ? sums.get(month) : undefined;
      if (this.summedMonths.has(month) && !sum) {
        const optional = (out: Float32Array | null | undefined) => (out ? new Float64Array(cells) : null);
        sum = { global: new Float64Array(cells), flat: optional(out.flat), beamPart: optional(out.beamPart), flatBeam: optional(out.flatBeam) };
        sums.set(month, sum);
      }
      if (sum) {
        addInto(sum.global, out.global);
        if (sum.flat && out.flat) addInto(sum.flat, out.flat);
        if (sum.beamPart && out.beamPart) addInto(sum.beamPart, out.beamPart);
        if (sum.flatBeam && out.flatBeam) addInto(sum.flatBeam, out.flatBeam);
      }
      timings.kernelSeconds += (performance.now() - t0) / 1000;
      const empty = tile.validCells === 0;
      const global = this.globalDays.has(day) ? this.encode(out.global, width, height, empty) : null;
      const hours = this.hoursDays.has(day) ? this.encode(out.hours, width, height, empty) : null;
      if (global || hours) products.push({ type: 'day', day, global, hours });
      if (sum && day === lastDayOfMonth(month)) {
        products.push({
          type: 'month',
          month,
          global: this.encode(Float32Array.from(sum.global), width, height, empty),
          flat: sum.flat ? this.encode(Float32Array.from(sum.flat), width, height, empty) : null,
          ...(sum.beamPart ? { beamPart: this.encode(Float32Array.from(sum.beamPart), width, height, empty) } : {}),
          ...(sum.flatBeam ? { flatBeam: this.encode(Float32Array.from(sum.flatBeam), width, height, empty) } : {}),
        });
        sums.delete(month);
      }
      if (batchIndex === KERNEL_DAY_BATCH - 1) this.sendProducts(index, products);
    }
    this.sendProducts(index, products);
    this.reply({ type: 'tileDone', tile: index, timings: { ...timings, endedAtMs: performance.timeOrigin + performance.now() } satisfies TileTimings });
  }

  /**
   * Compresses a tile-local array of a `width` × `height` tile as a GeoTIFF tile (padded with NaN), with the
   * statistics of its cells.
   */
  private encode(values: Float32Array, width: number, height: number, allNodata = false): EncodedTile {
    const { tileWidth, tileHeight } = this.setup;
    const cells = width * height;
    if (allNodata && this.nodataTile) return { bytes: this.nodataTile, statistics: { ...NO_CELLS, cells } };
    const t0 = performance.now();
    const statistics = allNodata ? { ...NO_CELLS, cells } : this.statisticsOfTiles ? partialStatistics(values, width, height) : undefined;
    let tile = values;
    if (width !== tileWidth || height !== tileHeight) {
      this.padded.fill(NaN);
      for (let r = 0; r < height; r++) this.padded.set(values.subarray(r * width, (r + 1) * width), r * tileWidth);
      tile = this.padded;
    }
    const bytes = this.wasmEncoder ? this.wasmEncoder.encode(tile) : encodeFloat32Tile(tile, tileWidth, tileHeight, this.setup.compression, this.scratch);
    this.timings.encodeSeconds += (performance.now() - t0) / 1000;
    this.timings.rawBytes += tile.byteLength;
    if (allNodata) this.nodataTile = new Uint8Array(bytes);
    // (a buffer of its own until sendProducts copies it into the batch's)
    return { bytes, statistics };
  }

  /**
   * Sends the products made since the last call in one message, their tiles copied into one buffer that the
   * message transfers (a message costs tens of µs, and each buffer transferred about as much again).
   */
  private sendProducts(tile: number, products: ProductTiles[]): void {
    if (products.length === 0) return;
    let bytes = 0;
    for (const p of products) {
      bytes += p.global?.bytes.length ?? 0;
      bytes += p.type === 'day' ? (p.hours?.bytes.length ?? 0) : (p.flat?.bytes.length ?? 0) + (p.beamPart?.bytes.length ?? 0) + (p.flatBeam?.bytes.length ?? 0);
    }
    const all = new Uint8Array(bytes);
    let at = 0;
    const place = ({ bytes: tileBytes, statistics }: EncodedTile): EncodedTile => {
      all.set(tileBytes, at);
      at += tileBytes.length;
      return { bytes: all.subarray(at - tileBytes.length, at), statistics };
    };
    const placed = products.map(
      (p): ProductTiles =>
        p.type === 'day'
          ? { ...p, global: p.global ? place(p.global) : null, hours: p.hours ? place(p.hours) : null }
          : {
              ...p,
              global: place(p.global),
              flat: p.flat ? place(p.flat) : null,
              ...(p.beamPart ? { beamPart: place(p.beamPart) } : {}),
              ...(p.flatBeam ? { flatBeam: place(p.flatBeam) } : {}),
            },
    );
    this.reply({ type: 'products', tile, products: placed }, [all.buffer]);
    products.length = 0;
  }
}

/** Adds a day's map to a monthly sum, cell by cell (f64; a NaN cell stays NaN). */
function addInto(sum: Float64Array, day: Float32Array): void {
  for (let i = 0; i < sum.length; i++) sum[i]! += day[i]!;
}
