/** What the job layer and the CLI need to know about a workflow run. */
import type { LiethNppGate, PetMethod, TopoNppModel, TopoRadiation } from '../science/eemt/constants.js';

export type WorkflowType = 'sol' | 'eemt';

/** Slice `index` (0-based) of `count` slices of a solar year's compute tiles (`sol/slices.ts`). */
export interface TileSlice {
  readonly index: number;
  readonly count: number;
}

/**
 * What a run computes. A whole job is one run; a job split across workers (the job layer plans its parts,
 * `jobs/queue/partPlan.ts`) runs its solar year in tile slices, then assembles it:
 * - `whole`: the whole workflow;
 * - `slice`: only this slice of the solar year's compute tiles, for the run's days, left under the output folder for
 *   the assembly (`sol/slices.ts`); eemt checks its inputs first and runs no other phase;
 * - `assemble`: the solar year assembled from the `slices` slices computed before — `sol` only that, or only `share`
 *   of its products when given (shares run side by side on several workers); `eemt` then runs every other phase;
 * - `solar-written` (eemt): every phase but the solar one, whose whole year is already in the output folder.
 */
export type RunMode =
  | { readonly kind: 'whole' }
  | { readonly kind: 'slice'; readonly slice: TileSlice }
  | { readonly kind: 'assemble'; readonly slices: number; readonly share?: TileSlice }
  | { readonly kind: 'solar-written' };

/** The modes of a run that computes solar-year tiles itself. */
export type ComputingMode = Extract<RunMode, { kind: 'whole' | 'slice' }>;
/** The mode of a run that assembles the solar year from its slices. */
export type AssembleMode = Extract<RunMode, { kind: 'assemble' }>;

/** The mode of a run that says none. */
export const WHOLE_RUN: RunMode = { kind: 'whole' };

/** Phases of an `eemt` run (see `RunMode`): everything, the solar phase alone, or everything after it. */
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
  /**
   * The solar products written, in the grammar of solarYear/productSelection.ts (`monthly,daily:172`); every product
   * when absent. A job records the normalised text.
   */
  readonly products?: string;
}

/** The numeric parameters of a run (the solar settings, the threads and the years). */
export type NumericWorkflowParam = 'step' | 'linke_value' | 'albedo_value' | 'num_threads' | 'start_year' | 'end_year';
/** The EEMT model choices of a run (each one of a fixed list of values). */
export type ModelChoiceParam = 'pet_method' | 'topo_npp' | 'topo_radiation' | 'lieth_npp_gate';
/** The parameters written in a grammar of their own (parameters/contract.ts, GRAMMAR_PARAMETERS). */
export type GrammarWorkflowParam = 'products';

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
   * for `eemt` the days of its solar phase alone (`runEemtSolarPhase`).
   */
  readonly days?: readonly number[];
  /** What the run computes (default whole). */
  readonly mode?: RunMode;
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
  /**
   * Wall seconds from the end of the last tile's computing (in its worker thread) to the run's end: the files'
   * completion that did not overlap the computing.
   */
  readonly afterComputeSeconds: number;
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
