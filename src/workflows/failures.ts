/**
 * Failures a workflow run explains by its message alone: input the workflow refuses (parameters, the DEM, its
 * place on Daymet's grid), climate data that could not be downloaded or read, a workflow this build lacks, and
 * cancellation. Anything else is a fault in the program, whose stack trace belongs in the log.
 */
import { ClimateCoverageError, ClimateDownloadError } from '../climate/errors.js';
import { DaymetCsvFormatError } from '../climate/daymetCsv.js';
import { RasterFormatError } from '../raster/types.js';
import { ParameterRangeError } from './params.js';

/** Thrown when a workflow type is known but its pipeline is not part of this build. */
export class WorkflowUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkflowUnavailableError';
  }
}

/** Input that a workflow refuses before it starts (e.g. a DEM outside Daymet's coverage for eemt). */
export class WorkflowInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkflowInputError';
  }
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
    error instanceof DaymetCsvFormatError ||
    error instanceof WorkflowInputError ||
    error instanceof WorkflowUnavailableError
  );
}
