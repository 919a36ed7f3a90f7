/** What the job layer and the CLI need to know about a workflow run. */
import type { LiethNppGate, PetMethod, TopoNppModel, TopoRadiation } from '../science/eemt/constants.js';

export type WorkflowType = 'sol' | 'eemt';

/** Slice `index` (0-based) of `count` slices of a solar year's compute tiles (`sol/slices.ts`). */
export interface TileSlice {
  readonly index: number;
  readonly count: number;
}

/** Phases of an `eemt` run (see `WorkflowRun.eemtPhases`). */
export type EemtPhases = 'all' | 'solar' | 'after-solar';

/**
 * Parameters of a run, named as in the service's submit form (docs/service-contract.md); their units, ranges and defaults
 * are those of the parameter contract (parameters/contract.ts).
 */
export interface WorkflowParams {
  /** Time step of the daily integration [minutes]. */
  readonly step: number;
  /** Linke atmospheric turbidity [-]. */
  readonly linke_value: number;
  /** Ground albedo [-]. */
  readonly albedo_value: number;
  /** Worker threads (capped at the CPU count). */
  readonly num_threads: number;
  /** First and last Daymet year (eemt only). */
  readonly start_year?: number;
  readonly end_year?: number;
  /** eemt only: the EEMT model choices (parameters/contract.ts, CHOICE_PARAMETERS; eemt-model.md §0.1c); defaults when absent. */
  readonly pet_method?: PetMethod;
  readonly topo_npp?: TopoNppModel;
  readonly topo_radiation?: TopoRadiation;
  readonly lieth_npp_gate?: LiethNppGate;
}

/** The numeric parameters of a run (the solar settings, the threads and the years). */
export type NumericWorkflowParam = 'step' | 'linke_value' | 'albedo_value' | 'num_threads' | 'start_year' | 'end_year';
/** The EEMT model choices of a run (each one of a fixed list of values). */
export type ModelChoiceParam = 'pet_method' | 'topo_npp' | 'topo_radiation' | 'lieth_npp_gate';

/** A progress report: `fraction` of the whole workflow done (0–1, never decreasing) and a short message. */
export interface ProgressUpdate {
  readonly fraction: number;
  readonly message: string;
}

export type ProgressListener = (update: ProgressUpdate) => void;

export interface WorkflowRun {
  readonly demPath: string;
  /** Output folder; created if missing. Products are written under it with the spec's relative paths. */
  readonly outDir: string;
  readonly params: WorkflowParams;
  readonly onProgress?: ProgressListener;
  /** Aborting stops the run as soon as possible and rejects with an AbortError. */
  readonly signal?: AbortSignal;
  /**
   * The days of year to compute (default all 365; monthly sums for complete months only): for `sol` the run's days;
   * for `eemt` the days of its solar phase when `eemtPhases` is 'solar'.
   */
  readonly days?: readonly number[];
  /**
   * `eemt` only: the phases to run. 'all' (default) is the whole workflow; 'solar' only the solar phase, for `days`
   * (its daily maps, monthly sums and flat-surface sums); 'after-solar' every other phase, the whole solar year's
   * products being already in `outDir` (written by 'solar' runs of the same job).
   */
  readonly eemtPhases?: EemtPhases;
  /**
   * A slice of the solar year's compute tiles (a part of a job split across workers; `sol`, or `eemt` with
   * `eemtPhases: 'solar'`): only its tiles are computed, and left under `outDir` for the run that assembles them.
   */
  readonly tileSlice?: TileSlice;
  /**
   * The solar year was computed by this many tile slices (runs with `tileSlice`): `sol` only assembles their
   * products; `eemt` with `eemtPhases: 'after-solar'` assembles them first.
   */
  readonly assembleSlices?: number;
  /** `sol` with `assembleSlices`: assemble only this share of the products (shares run side by side on several workers). */
  readonly assemblyShare?: TileSlice;
  /** `sol` only: side of the compute tiles = GeoTIFF tiles [cells], a multiple of 16 in 16–512 (default by DEM size). */
  readonly tileSize?: number;
  /** `sol` only: the daily kernel's implementation, 'wasm' (default) or 'typescript' (same outputs, for comparison). */
  readonly kernel?: 'wasm' | 'typescript';
  /** Largest DEM accepted [cells] (the service's `EEMT_MAX_DEM_CELLS`); no limit when absent. */
  readonly maxDemCells?: number;
  /** `eemt` only: a ZIP of monthly climate grids used instead of Daymet (docs/climate-input.md). */
  readonly climateFile?: string;
  /** `eemt` only: the climate file's name to record (e.g. the uploaded file's name). */
  readonly climateFileName?: string;
}

/**
 * Where the time of a `sol` run went. Horizon (with the tiles' surface terms), kernel and encode seconds
 * are summed over the worker threads (CPU time of those phases); write seconds are the wall time during which file
 * operations were in progress (they overlap the computation); wall seconds are the run's elapsed time.
 */
export interface PhaseTimings {
  readonly horizonSeconds: number;
  readonly kernelSeconds: number;
  readonly encodeSeconds: number;
  readonly writeSeconds: number;
  readonly wallSeconds: number;
  /** Uncompressed bytes of every GeoTIFF tile encoded, and the bytes written to the files. */
  readonly encodedRawBytes: number;
  readonly writtenBytes: number;
}

/** Summary a workflow returns when it completes. */
export interface WorkflowResult {
  /** Output files, relative to `outDir`, with forward slashes. */
  readonly files: readonly string[];
  readonly cells: number;
  readonly validCells: number;
  readonly days: number;
  readonly seconds: number;
  /** `sol`: where the time went. */
  readonly phases?: PhaseTimings;
}
