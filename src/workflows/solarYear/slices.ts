/**
 * A solar year split into tile slices, for a job run by several workers (the distributed queue). Each slice
 * computes some of the compute tiles, for every requested day, and leaves their compressed tiles in a folder of its
 * own under the output folder (`.solar-slices/slice-K-of-N/`: one `.part` file of tiles per product and a manifest
 * written last). One more run then assembles every product from the slices' tiles (`assembleSolarYear`) and
 * removes the slices. A tile is computed exactly as in a single run — its horizons depend only on the resident
 * DEM, its sun only on the sun tiles — so the assembled files are the files of a single run. Unlike a split by
 * days, no slice repeats another's horizons. The slices are removed when the job is complete (`removeSolarSlices`).
 */
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { GeoTiffStreams, forEachLimited } from '../../raster/geotiff/geoTiffStreams.js';
import type { PartialStatistics } from '../../raster/geotiff/statistics.js';
import type { GridSpec } from '../../raster/types.js';
import { MAX_TILE_SLICES } from '../partWork.js';
import type { ProgressListener, TileSlice } from '../types.js';
import type { ComputeTile } from './tilePlan.js';

export type { TileSlice } from '../types.js';

/** Folder under the output folder holding the slices until they are assembled. */
export const SLICES_FOLDER = '.solar-slices';
const MANIFEST = 'manifest.json';

/** Checks a slice: integers with 0 ≤ index < count ≤ MAX_TILE_SLICES. */
export function checkTileSlice(slice: TileSlice): TileSlice {
  const { index, count } = slice;
  if (!Number.isInteger(count) || count < 1 || count > MAX_TILE_SLICES || !Number.isInteger(index) || index < 0 || index >= count) {
    throw new RangeError(`tile slice must be 0 ≤ index < count ≤ ${MAX_TILE_SLICES}, got ${index} of ${count}`);
  }
  return slice;
}

/** The folder of `slice`'s tiles under `outDir`. */
export function sliceFolder(outDir: string, slice: TileSlice): string {
  return join(outDir, SLICES_FOLDER, `slice-${slice.index + 1}-of-${slice.count}`);
}

/**
 * The compute tiles of `slice`: the tiles are dealt out largest first (by valid cells, the measure of their work)
 * to the slice with the fewest cells so far, ties to the lower index — longest-processing-time-first, so the
 * slices' work differs by at most one tile. Every tile belongs to exactly one slice.
 */
export function sliceTiles(tiles: readonly ComputeTile[], slice: TileSlice): ComputeTile[] {
  checkTileSlice(slice);
  // an empty tile still costs its padding: count it as one cell
  const owner = dealLargestFirst(tiles.map((tile) => Math.max(1, tile.validCells)), slice.count);
  return tiles.filter((_, k) => owner[k] === slice.index);
}

/**
 * Which of `count` bins each item goes to: items by decreasing weight (ties: lower index first) each to the bin
 * with the least weight so far (ties: lower bin) — longest-processing-time-first, so the bins differ by at most
 * the largest item. Deterministic: every run that deals the same weights gets the same bins.
 */
export function dealLargestFirst(weights: readonly number[], count: number): number[] {
  const order = weights.map((weight, k) => ({ weight, k })).sort((a, b) => b.weight - a.weight || a.k - b.k);
  const load = new Array<number>(count).fill(0);
  const owner = new Array<number>(weights.length);
  for (const { weight, k } of order) {
    let target = 0;
    for (let s = 1; s < count; s++) if (load[s]! < load[target]!) target = s;
    load[target]! += weight;
    owner[k] = target;
  }
  return owner;
}

/** One product file as a slice holds it: its path under the output folder, tags, and its tiles in the `.part` file. */
export interface SliceProduct {
  readonly path: string;
  readonly description: string;
  readonly metadata: Readonly<Record<string, string>>;
  /** [tile index, offset in the part file, byte count] per tile the slice computed. */
  readonly tiles: readonly (readonly [number, number, number])[];
  /** The statistics of those tiles' cells, in the same order (null: unknown; absent in manifests written before they were kept). */
  readonly statistics?: readonly (PartialStatistics | null)[];
}

/** What a finished slice wrote. */
export interface SliceManifest {
  readonly slice: TileSlice;
  readonly width: number;
  readonly height: number;
  readonly tileSize: number;
  readonly days: number;
  readonly directions: number;
  readonly validCells: number;
  readonly products: readonly SliceProduct[];
}

/** The part file of `product` in the slice folder `folder`. */
function slicePartPath(folder: string, productPath: string): string {
  return join(folder, `${productPath}.part`);
}

/** Writes the manifest of a finished slice (last, and atomically: a slice without one is unfinished). */
export async function writeSliceManifest(folder: string, manifest: SliceManifest): Promise<void> {
  const target = join(folder, MANIFEST);
  await writeFile(`${target}.tmp`, JSON.stringify(manifest));
  await rename(`${target}.tmp`, target);
}

/** The manifests of the `count` slices under `outDir`; fails naming the first slice that did not finish. */
export async function readSliceManifests(outDir: string, count: number): Promise<SliceManifest[]> {
  const read = await Promise.allSettled(Array.from({ length: count }, (_, index) => readSliceManifest(outDir, checkTileSlice({ index, count }))));
  // the first slice in order, not the first read to fail
  const failed = read.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return read.map((r) => (r as PromiseFulfilledResult<SliceManifest>).value);
}

async function readSliceManifest(outDir: string, slice: TileSlice): Promise<SliceManifest> {
  const path = join(sliceFolder(outDir, slice), MANIFEST);
  let manifest: SliceManifest;
  try {
    manifest = JSON.parse(await readFile(path, 'utf8')) as SliceManifest;
  } catch {
    throw new Error(`Tile slice ${slice.index + 1} of ${slice.count} did not finish (no manifest in ${SLICES_FOLDER}); the solar year cannot be assembled`);
  }
  if (manifest.slice?.index !== slice.index || manifest.slice?.count !== slice.count || !Array.isArray(manifest.products)) {
    throw new Error(`${path} is not the manifest of tile slice ${slice.index + 1} of ${slice.count}`);
  }
  return manifest;
}

/** Removes the tile slices under `outDir` (once the job that assembled them is complete). */
export async function removeSolarSlices(outDir: string): Promise<void> {
  await rm(join(outDir, SLICES_FOLDER), { recursive: true, force: true });
}

export interface AssembledSolarYear {
  /** Paths of the products assembled, relative to the output folder, sorted. */
  readonly files: string[];
  readonly days: number;
  readonly directions: number;
  readonly validCells: number;
}

/**
 * Assembles every product of the solar year from the tiles of `count` slices under `outDir` on `grid`, as Cloud
 * Optimized GeoTIFFs under their final names (with `share` {index, count}: that share of the products, dealt by
 * their compressed size, so several runs can assemble one solar year side by side). Fails naming the slice when
 * one is missing or incomplete, or when the slices do not cover every tile of every product exactly once. The
 * slices stay (an assembly stopped half way can run again) until the job is complete: `removeSolarSlices`.
 */
export async function assembleSolarYear(
  outDir: string,
  grid: GridSpec,
  count: number,
  options: { readonly onProgress?: ProgressListener; readonly signal?: AbortSignal; readonly share?: TileSlice } = {},
): Promise<AssembledSolarYear> {
  const manifests = await readSliceManifests(outDir, count);
  const first = manifests[0]!;
  for (const m of manifests) {
    const same = m.width === grid.width && m.height === grid.height && m.tileSize === first.tileSize && m.days === first.days && m.directions === first.directions;
    if (!same || m.products.length !== first.products.length || m.products.some((p, k) => p.path !== first.products[k]!.path)) {
      throw new Error(`Tile slice ${m.slice.index + 1} of ${count} was computed with other settings than slice 1; the solar year cannot be assembled`);
    }
  }
  const report = options.onProgress ?? (() => {});
  const share = options.share ? checkTileSlice(options.share) : { index: 0, count: 1 };
  // shares by the products' compressed bytes (what assembling a file costs), dealt largest first
  const bytes = first.products.map((_, k) => manifests.reduce((n, m) => n + m.products[k]!.tiles.reduce((b, tile) => b + tile[2], 0), 0));
  const owner = dealLargestFirst(bytes, share.count);
  const mine = first.products.map((product, k) => ({ product, k })).filter(({ k }) => owner[k] === share.index);
  const streams = new GeoTiffStreams();
  let done = 0;
  try {
    await forEachLimited(mine, 8, async ({ product, k }) => {
      options.signal?.throwIfAborted();
      const id = await streams.create(join(outDir, product.path), grid, { tileSize: first.tileSize, description: product.description, metadata: product.metadata });
      for (const m of manifests) {
        const bytes = await readFile(slicePartPath(sliceFolder(outDir, m.slice), product.path));
        const { tiles, statistics } = m.products[k]!;
        for (let t = 0; t < tiles.length; t++) {
          const [tile, offset, length] = tiles[t]!;
          if (!(offset >= 0 && length > 0 && offset + length <= bytes.length)) throw new Error(`Tile slice ${m.slice.index + 1} of ${count}: tile ${tile} of ${product.path} lies outside its part file`);
          streams.add(id, tile, bytes.subarray(offset, offset + length), statistics?.[t] ?? undefined);
        }
        await streams.ready();
      }
      await streams.finish(id);
      done++;
      report({ fraction: done / mine.length, message: `assembling the solar year: ${done}/${mine.length} files` });
    });
  } catch (error) {
    await streams.abort();
    throw error;
  }
  return {
    files: mine.map(({ product }) => product.path).sort(),
    days: first.days,
    directions: first.directions,
    validCells: manifests.reduce((n, m) => n + m.validCells, 0),
  };
}
