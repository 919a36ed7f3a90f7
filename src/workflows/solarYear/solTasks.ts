/**
 * The tasks of a `sol` thread: one compute tile at a time, its horizons, then every requested day, each product's
 * tile sent back compressed (encoding is spread over the threads and overlaps the other thread's computing).
 * Monthly sums are accumulated here, per tile. Once every tile is done, the threads assemble the products' COGs
 * (`assembleCog`), one file at a time each. A worker thread serves them (solWorker.ts), or, for a small run, the
 * pool's own thread (inThreadWorker.ts).
 */
import { assembleCog } from '../../raster/geotiff/geoTiffStreams.js';
import { WasmTileEncoder, wasmEncodes } from '../../raster/tiff/tileEncoderWasm.js';
import { NO_CELLS, partialStatistics } from '../../raster/geotiff/statistics.js';
import { encodeFloat32Tile } from '../../raster/geotiff/writeGeoTiff.js';
import { hasOverviewLevels } from '../../raster/cog/overviews.js';
import type { EncodedTile, ProductTiles, TileTimings, WorkerReply, WorkerSetup, WorkerTask } from './messages.js';
import type { ComputeTile } from './tilePlan.js';
import { lastDayOfMonth, monthOfDay } from './products.js';
import { KERNEL_DAY_BATCH } from '../../science/solar/dailyKernel.js';
import { TileEngine, type DayOutputs } from './tileEngine.js';

/** Where a `sol` thread's replies go: its worker's parent port, or the pool's end of a channel. */
export interface ReplyPort {
  postMessage(reply: WorkerReply, transfer?: readonly ArrayBuffer[]): void;
}

/** The handler of the tasks of a run set up by `setup`, replying on `port` (see the module comment). */
export function solTaskHandler(port: ReplyPort, setup: WorkerSetup): (task: WorkerTask) => void {
  const beamParts = setup.beamParts === true;
  const engine = new TileEngine(setup.terrain, setup.layout, setup.params, setup.sunTiles, setup.days, setup.kernel, beamParts, setup.nearField);
  const { tileWidth, tileHeight } = setup;
  const padded = new Float32Array(tileWidth * tileHeight);
  const scratch = new Uint8Array(padded.byteLength);
  // tiles are compressed in WebAssembly with the compiled kernel (the same zlib streams' contents as Node's zlib makes)
  const wasmEncoder = setup.kernel === 'wasm' && wasmEncodes(setup.compression) ? new WasmTileEncoder(tileWidth, tileHeight) : null;
  const summedMonths = new Set(setup.months);
  // the maps' statistics: gathered per tile only for maps without overviews (those with overviews get theirs from the
  // overview pyramid, which reads every cell back: geoTiffStreams.ts)
  const statisticsOfTiles = !hasOverviewLevels({ width: setup.terrain.width, height: setup.terrain.height, tileWidth, tileHeight });
  // the daily maps written: the other days are computed for the monthly sums only, not encoded
  const globalDays = new Set(setup.dailyGlobal);
  const hoursDays = new Set(setup.dailyHours);

  let timings = { horizonSeconds: 0, kernelSeconds: 0, encodeSeconds: 0, rawBytes: 0 };

  /** The compressed all-nodata tile, made once (tiles without a valid cell send copies of it). */
  let nodataTile: Uint8Array | null = null;

  /**
   * Compresses a tile-local array of a `width` × `height` tile as a GeoTIFF tile (padded with NaN), with the
   * statistics of its cells.
   */
  function encode(values: Float32Array, width: number, height: number, allNodata = false): EncodedTile {
    const cells = width * height;
    if (allNodata && nodataTile) return { bytes: nodataTile, statistics: { ...NO_CELLS, cells } };
    const t0 = performance.now();
    let tile = values;
    if (width !== tileWidth || height !== tileHeight) {
      padded.fill(NaN);
      for (let r = 0; r < height; r++) padded.set(values.subarray(r * width, (r + 1) * width), r * tileWidth);
      tile = padded;
    }
    // (the statistics of the tile's cells, without its padding: compiled with the encoder where it encodes)
    const withStatistics = statisticsOfTiles && !allNodata;
    let bytes: Uint8Array;
    let statistics = allNodata ? { ...NO_CELLS, cells } : undefined;
    if (wasmEncoder && withStatistics) ({ bytes, statistics } = wasmEncoder.encodeWithStatistics(tile, width, height));
    else {
      if (withStatistics) statistics = partialStatistics(values, width, height);
      bytes = wasmEncoder ? wasmEncoder.encode(tile) : encodeFloat32Tile(tile, tileWidth, tileHeight, setup.compression, scratch);
    }
    timings.encodeSeconds += (performance.now() - t0) / 1000;
    timings.rawBytes += tile.byteLength;
    if (allNodata) nodataTile = new Uint8Array(bytes);
    // (a buffer of its own until sendProducts copies it into the batch's)
    return { bytes, statistics };
  }

  function send(reply: WorkerReply): void {
    port.postMessage(reply);
  }

  /**
   * Sends the products made since the last call in one message, their tiles copied into one buffer that the
   * message transfers (a message costs tens of µs, and each buffer transferred about as much again).
   */
  function sendProducts(tile: number, products: ProductTiles[]): void {
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
    port.postMessage({ type: 'products', tile, products: placed } satisfies WorkerReply, [all.buffer]);
    products.length = 0;
  }

  /** Adds a day's map to a monthly sum, cell by cell (f64; a NaN cell stays NaN). */
  function addInto(sum: Float64Array, day: Float32Array): void {
    for (let i = 0; i < sum.length; i++) sum[i]! += day[i]!;
  }

  function computeTile(index: number, tile: ComputeTile): void {
    timings = { horizonSeconds: 0, kernelSeconds: 0, encodeSeconds: 0, rawBytes: 0 };
    const width = tile.colEnd - tile.colStart;
    const height = tile.rowEnd - tile.rowStart;
    const cells = width * height;
    let t0 = performance.now();
    if (tile.validCells > 0) engine.prepare(tile, (fraction) => send({ type: 'horizons', tile: index, fraction }));
    timings.horizonSeconds += (performance.now() - t0) / 1000;
    send({ type: 'horizons', tile: index, fraction: 1 });

    const outs: DayOutputs[] = Array.from({ length: Math.min(KERNEL_DAY_BATCH, setup.days.length) }, () => ({
      global: new Float32Array(cells).fill(NaN),
      hours: new Float32Array(cells).fill(NaN),
      flat: setup.flat ? new Float32Array(cells).fill(NaN) : null,
      beamPart: beamParts ? new Float32Array(cells).fill(NaN) : null,
      flatBeam: beamParts && setup.flat ? new Float32Array(cells).fill(NaN) : null,
    }));
    type MonthSums = { global: Float64Array; flat: Float64Array | null; beamPart: Float64Array | null; flatBeam: Float64Array | null };
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
      let sum = summedMonths.has(month) ? sums.get(month) : undefined;
      if (summedMonths.has(month) && !sum) {
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
      const global = globalDays.has(day) ? encode(out.global, width, height, empty) : null;
      const hours = hoursDays.has(day) ? encode(out.hours, width, height, empty) : null;
      if (global || hours) products.push({ type: 'day', day, global, hours });
      if (sum && day === lastDayOfMonth(month)) {
        products.push({
          type: 'month',
          month,
          global: encode(Float32Array.from(sum.global), width, height, empty),
          flat: sum.flat ? encode(Float32Array.from(sum.flat), width, height, empty) : null,
          ...(sum.beamPart ? { beamPart: encode(Float32Array.from(sum.beamPart), width, height, empty) } : {}),
          ...(sum.flatBeam ? { flatBeam: encode(Float32Array.from(sum.flatBeam), width, height, empty) } : {}),
        });
        sums.delete(month);
      }
      if (batchIndex === KERNEL_DAY_BATCH - 1) sendProducts(index, products);
    }
    sendProducts(index, products);
    send({ type: 'tileDone', tile: index, timings: { ...timings, endedAtMs: performance.timeOrigin + performance.now() } satisfies TileTimings });
  }

  function failed(error: unknown, assembly?: number): void {
    const message = error instanceof Error ? error.message : String(error);
    port.postMessage((assembly === undefined ? { type: 'error', message } : { type: 'error', message, assembly }) satisfies WorkerReply);
  }

  return (task: WorkerTask) => {
    if (task.type === 'assemble') {
      // (several at once: one's file reads and writes overlap another's computing)
      assembleCog(task.job).then(
        (bytes) => send({ type: 'assembled', id: task.id, bytes }),
        (error: unknown) => failed(error, task.id),
      );
      return;
    }
    try {
      computeTile(task.tile, setup.tiles[task.tile]!);
    } catch (error) {
      failed(error);
    }
  };
}
