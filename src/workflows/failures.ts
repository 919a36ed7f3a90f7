/**
 * Failures a workflow run explains by its message alone: input the workflow refuses (parameters, the DEM, its
 * place on Daymet's grid, a user climate file), climate data that could not be downloaded or read, a
 * full disk, and cancellation. Anything else is a fault in the program, whose stack trace belongs in the log.
 */
import { ClimateCoverageError, ClimateDownloadError, ClimateInputError } from '../climate/errors.js';
import { DaymetCsvFormatError } from '../climate/daymetCsv.js';
import { RasterFormatError } from '../raster/types.js';
import { ParameterRangeError } from './params.js';

/** Input that a workflow refuses before it starts (e.g. a DEM outside Daymet's coverage for eemt). */
export class WorkflowInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkflowInputError';
  }
}

/** Error codes of a write that failed for want of space: the device is full, or the user's disk quota is used up. */
export type DiskFullCode = 'ENOSPC' | 'EDQUOT';

/**
 * The code of `error` when it is a write that failed for want of space, also when it crossed a worker thread and kept
 * only its message (`ENOSPC: no space left on device, write`); null for any other error.
 */
export function diskFullCodeOf(error: unknown): DiskFullCode | null {
  if (!(error instanceof Error)) return null;
  const code = (error as { code?: unknown }).code;
  if (code === 'ENOSPC' || code === 'EDQUOT') return code;
  const named = /\b(ENOSPC|EDQUOT)\b/.exec(error.message);
  return named ? (named[1] as DiskFullCode) : null;
}

/** Whether `error` is explained by its message alone (see above); `aborted` says the run was cancelled. */
export function explainedByMessage(error: unknown, aborted = false): boolean {
  return (
    aborted ||
    (error instanceof Error && error.name === 'AbortError') ||
    error instanceof ParameterRangeError ||
    error instanceof RasterFormatError ||
    error instanceof ClimateCoverageError ||
    error instanceof ClimateDownloadError ||
    error instanceof ClimateInputError ||
    error instanceof DaymetCsvFormatError ||
    error instanceof WorkflowInputError ||
    diskFullCodeOf(error) !== null
  );
}
