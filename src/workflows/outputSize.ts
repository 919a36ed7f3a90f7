/**
 * How much disk a job's outputs take, estimated before it runs from the DEM's size and the parameters alone:
 *
 *     bytes = Σ over the job's files  ⌈(OUTPUT_FILE_BYTES[kind] + cells × OUTPUT_BYTES_PER_CELL[kind]) / block⌉ × block
 *
 * plus its folders and small text files. The per-cell sizes are the compressed sizes measured on real DEMs
 * (bench/output-size.bench.mjs; the numbers and how they were taken are in docs/configuration.md, "Disk space"), rounded up
 * to a safe upper value: the estimate is meant never to be below what a job writes. A file takes whole blocks of
 * the file system, so each is rounded up to `blockBytes` (4 KiB on ext4, XFS and tmpfs): on a small DEM the
 * blocks, not the cells, are most of a job's size.
 *
 * Pure: the job layer checks the estimate against the free space of the results folder before a job is accepted and
 * again when it starts; the CLI, the job detail and the submit page can show the same number.
 */
import { DEFAULT_EEMT_OPTIONS } from '../science/eemt/constants.js';
import { CLIMATE_GRID_VARIABLES, EEMT_MODELS } from './eemt/products.js';
import { completeMonths } from './solarYear/products.js';
import { selectionOf } from './solarYear/productSelection.js';
import type { WorkflowParams, WorkflowType } from './types.js';

/** The kinds of output file, each with its own compressed size per cell. */
export type OutputKind = 'daily-global' | 'daily-hours' | 'monthly-sums' | 'eemt-maps' | 'climate-grids' | 'terrain' | 'daymet-csv' | 'readme';

/**
 * Compressed bytes per DEM cell of one file of each kind (Float32 tiles, DEFLATE with the floating-point predictor,
 * overviews included): the largest measured on four DEMs by bench/output-size.bench.mjs, rounded up (measured
 * largest in brackets): daily global 3.6 (3.55), monthly sums 3.6 (3.56), EEMT maps 2.1 (2.05), climate grids 1.6
 * (1.53), terrain 3.5 (3.44). The daily sunshine hours depend on the time step (`hoursBytesPerCell`); for a step that
 * is not a multiple of a quarter hour they take the daily global maps' 3.6 (measured up to 2.79, at 7 minutes): their
 * values are as noisy in their last bits, with more zeros. 0 for the text files.
 */
export const OUTPUT_BYTES_PER_CELL: Readonly<Record<OutputKind, number>> = {
  'daily-global': 3.6,
  'daily-hours': 3.6,
  'monthly-sums': 3.6,
  'eemt-maps': 2.1,
  'climate-grids': 1.6,
  terrain: 3.5,
  'daymet-csv': 0,
  readme: 0,
};

/**
 * Bytes per cell of a daily sunshine-hours map whose time step is a multiple of a quarter hour (15, 30, 45 or 60
 * minutes): its values are then multiples of ¼ h, numbers of few significant bits, which compress to 0.55–1.10 bytes
 * per cell (steps 15, 30, 45, 60); any other step (3, 5, 7, 10 minutes: 1.7–2.8 bytes) takes OUTPUT_BYTES_PER_CELL's.
 */
export const QUARTER_HOUR_HOURS_BYTES_PER_CELL = 1.2;

/** Bytes per cell of the sunshine-hours maps of a run at `stepMinutes` (see QUARTER_HOUR_HOURS_BYTES_PER_CELL). */
export function hoursBytesPerCell(stepMinutes: number): number {
  return Number.isInteger(stepMinutes / 15) ? QUARTER_HOUR_HOURS_BYTES_PER_CELL : OUTPUT_BYTES_PER_CELL['daily-hours'];
}

/**
 * Bytes of one file of each kind that do not grow with the DEM: for the GeoTIFFs, header, tags and metadata
 * (1 286–1 575 bytes measured on an 8 × 8 DEM; 2 KiB leaves room for longer CRS definitions and metadata); a Daymet
 * CSV of one cell and year (12 302–12 330 bytes); README.txt of one year (33 323 bytes, and README_BYTES_PER_YEAR for
 * each further year).
 */
export const OUTPUT_FILE_BYTES: Readonly<Record<OutputKind, number>> = {
  'daily-global': 2048,
  'daily-hours': 2048,
  'monthly-sums': 2048,
  'eemt-maps': 2048,
  'climate-grids': 2048,
  terrain: 2048,
  'daymet-csv': 13_000,
  readme: 32 * 1024,
};

/** What README.txt grows by per climate year (measured: 3 051 bytes). */
const README_BYTES_PER_YEAR = 4 * 1024;

/** Bytes of a folder entry per file (a name of up to ~40 characters in ext4's directory blocks, rounded up). */
const FOLDER_ENTRY_BYTES = 64;

/** The block size files are rounded up to when the file system's own is not given [bytes]. */
export const DEFAULT_BLOCK_BYTES = 4096;

/** Where a job's estimate comes from besides the DEM's size and the parameters. */
export interface OutputEstimateOptions {
  /** eemt: the Daymet cells whose CSVs the job keeps (0 or absent when it brings its own climate grids). */
  readonly daymetCells?: number;
  /** Block size of the file system the outputs go to [bytes] (statfs `bsize`); default DEFAULT_BLOCK_BYTES. */
  readonly blockBytes?: number;
  /**
   * The solar year is computed in tile slices by several workers (a split job of the distributed queue): the slices'
   * tiles stay beside the products until the job is complete, so the solar products count twice.
   */
  readonly tileSlices?: boolean;
  /**
   * eemt: the job makes the real-sky maps (its climate has observed radiation: Daymet, or srad grids in its climate
   * file); default true.
   */
  readonly realSky?: boolean;
  /** sol: the days of year computed (a run of chosen days, as the CLI's --days); default all 365. The daily maps counted are those of `products` among them. */
  readonly days?: readonly number[];
}

/** Climate years of an eemt job (1 when the parameters do not name them). */
function yearCount(params: Pick<WorkflowParams, 'start_year' | 'end_year'>): number {
  return params.start_year !== undefined && params.end_year !== undefined ? Math.max(1, params.end_year - params.start_year + 1) : 1;
}

/**
 * Output files of a job of `type` with `params`, by kind (`daymetCells`: the Daymet cells of an eemt job; `realSky`:
 * whether it makes the real-sky maps). The daily maps and monthly sums are those `params.products` selects (every one
 * when absent). The beam parts of an eemt job's monthly sums count too, and its monthly sums whatever `products` says:
 * they are removed at its end, but take their room while it runs.
 */
export function outputFileCounts(
  type: WorkflowType,
  params: Pick<WorkflowParams, 'start_year' | 'end_year' | 'topo_radiation' | 'products'>,
  daymetCells = 0,
  realSky = true,
): Record<OutputKind, number> {
  const products = selectionOf(params.products);
  const counts: Record<OutputKind, number> = {
    'daily-global': products.dailyGlobal.length,
    'daily-hours': products.dailyHours.length,
    'monthly-sums': products.monthly || type === 'eemt' ? 12 : 0,
    'eemt-maps': 0,
    'climate-grids': 0,
    terrain: 0,
    'daymet-csv': 0,
    readme: 0,
  };
  if (type === 'sol') return counts;
  const years = yearCount(params);
  counts['monthly-sums'] += 12; // the flat-surface sums
  // the sums without terrain shadows of EEMT-Topo's solar ratio
  if ((params.topo_radiation ?? DEFAULT_EEMT_OPTIONS.topoRadiation) === 'unshaded') counts['monthly-sums'] += 12;
  // the beam parts of the monthly sums (sloped and flat), until the real-sky maps are made
  counts['monthly-sums'] += 24;
  // the real-sky maps: the sloped surface and the horizontal one
  if (realSky) counts['monthly-sums'] += 24;
  counts['eemt-maps'] = EEMT_MODELS.length * (12 + 1) * years + EEMT_MODELS.length; // monthly, annual, and the mean
  counts['climate-grids'] = CLIMATE_GRID_VARIABLES.length * 12 * years;
  counts.terrain = 3; // slope, aspect, wetness index
  counts['daymet-csv'] = Math.max(0, Math.floor(daymetCells)) * years;
  counts.readme = 1;
  return counts;
}

/**
 * Folders of a job's output tree (each takes a block): sol's five and output/ itself; eemt's eight more, one per Daymet
 * cell, and those of the unshaded sums, the beam parts and the real-sky maps.
 */
function outputFolderCount(type: WorkflowType, daymetCells: number, unshaded: boolean, realSky: boolean): number {
  const sol = 6;
  if (type === 'sol') return sol;
  return sol + 2 + 1 + CLIMATE_GRID_VARIABLES.length + Math.max(0, Math.floor(daymetCells)) + 1 + (unshaded ? 1 : 0) + 1 + (realSky ? 1 : 0);
}

const SOLAR_KINDS: readonly OutputKind[] = ['daily-global', 'daily-hours', 'monthly-sums'];

/**
 * The disk a job's outputs will take at most [bytes]: its files (each rounded up to whole blocks) and folders, for a
 * `width` × `height` DEM. Pure; see the module comment for the formula and OUTPUT_BYTES_PER_CELL for the numbers.
 */
export function estimateOutputBytes(
  type: WorkflowType,
  params: Pick<WorkflowParams, 'step' | 'start_year' | 'end_year' | 'topo_radiation' | 'products'>,
  width: number,
  height: number,
  options: OutputEstimateOptions = {},
): number {
  const cells = Math.max(0, width) * Math.max(0, height);
  const block = options.blockBytes !== undefined && options.blockBytes > 0 ? options.blockBytes : DEFAULT_BLOCK_BYTES;
  const daymetCells = options.daymetCells ?? 0;
  const blocks = (bytes: number) => Math.ceil(bytes / block) * block;
  const realSky = options.realSky ?? true;
  const counts = outputFileCounts(type, params, daymetCells, realSky);
  if (type === 'sol' && options.days) {
    // the daily maps chosen among the days computed, and the sums of the months they complete
    const computed = new Set(options.days);
    const products = selectionOf(params.products);
    counts['daily-global'] = products.dailyGlobal.filter((day) => computed.has(day)).length;
    counts['daily-hours'] = products.dailyHours.filter((day) => computed.has(day)).length;
    counts['monthly-sums'] = products.monthly ? completeMonths(options.days).length : 0;
  }
  const files = Object.values(counts).reduce((n, count) => n + count, 0);
  const unshaded = (params.topo_radiation ?? DEFAULT_EEMT_OPTIONS.topoRadiation) === 'unshaded';
  let total = outputFolderCount(type, daymetCells, unshaded, realSky) * block + blocks(files * FOLDER_ENTRY_BYTES);
  for (const kind of Object.keys(counts) as OutputKind[]) {
    const perCell = kind === 'daily-hours' ? hoursBytesPerCell(params.step) : OUTPUT_BYTES_PER_CELL[kind];
    const fixed = OUTPUT_FILE_BYTES[kind] + (kind === 'readme' ? (yearCount(params) - 1) * README_BYTES_PER_YEAR : 0);
    const fileBytes = blocks(fixed + cells * perCell);
    total += counts[kind] * fileBytes;
    if (options.tileSlices && SOLAR_KINDS.includes(kind)) total += counts[kind] * fileBytes;
  }
  return total;
}

/** The kind of the output file at `rel` (relative path, forward slashes), or null for a file that is not a product. */
export function outputKindOf(rel: string): OutputKind | null {
  if (/^global\/daily\/.+\.tif$/.test(rel)) return 'daily-global';
  if (/^insol\/daily\/.+\.tif$/.test(rel)) return 'daily-hours';
  if (/^global\/monthly(_unshaded|_realsky)?\/.+\.tif$/.test(rel) || /^\.beam-parts\/.+\.tif$/.test(rel)) return 'monthly-sums';
  if (/^eemt\/.+\.tif$/.test(rel)) return 'eemt-maps';
  if (/^(daymet|climate)\/[a-z]+\/.+\.tif$/.test(rel)) return 'climate-grids';
  if (/^topo\/.+\.tif$/.test(rel)) return 'terrain';
  if (/^daymet\/.+\.csv$/.test(rel)) return 'daymet-csv';
  if (rel === 'README.txt') return 'readme';
  return null;
}
