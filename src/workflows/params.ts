/** Validation of workflow parameters: the ranges of SERVICE_SPEC.md ("Limits"); out of range is an error, never a clamp. */
import type { WorkflowParams } from './types.js';

/** A parameter outside its allowed range (or not a number). `field` is the submit-form name. */
export class ParameterRangeError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
    this.name = 'ParameterRangeError';
  }
}

interface Range {
  readonly min: number;
  readonly max: number;
  readonly integer: boolean;
  readonly what: string;
}

export const PARAMETER_RANGES: Readonly<Record<keyof WorkflowParams, Range>> = {
  step: { min: 3, max: 60, integer: false, what: 'time step in minutes' },
  linke_value: { min: 1, max: 8, integer: false, what: 'Linke turbidity' },
  albedo_value: { min: 0, max: 1, integer: false, what: 'surface albedo' },
  num_threads: { min: 1, max: 32, integer: true, what: 'number of threads' },
  start_year: { min: 1980, max: 2024, integer: true, what: 'first Daymet year' },
  end_year: { min: 1980, max: 2024, integer: true, what: 'last Daymet year' },
};

/** Default values of the submit form. */
export const DEFAULT_PARAMS = {
  step: 15,
  linke_value: 3,
  albedo_value: 0.2,
  num_threads: 4,
  start_year: 2020,
  end_year: 2020,
} as const;

/** Throws ParameterRangeError for the first parameter that is missing a number or out of range. */
export function validateWorkflowParams(params: WorkflowParams): void {
  for (const field of Object.keys(PARAMETER_RANGES) as (keyof WorkflowParams)[]) {
    const value = params[field];
    if (value === undefined && (field === 'start_year' || field === 'end_year')) continue;
    checkRange(field, value);
  }
  if (params.start_year !== undefined && params.end_year !== undefined && params.end_year < params.start_year) {
    throw new ParameterRangeError('end_year', `end_year (${params.end_year}) must not be before start_year (${params.start_year})`);
  }
}

function checkRange(field: keyof WorkflowParams, value: unknown): void {
  const range = PARAMETER_RANGES[field];
  const allowed = `${range.min}–${range.max}${range.integer ? ', an integer' : ''}`;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new ParameterRangeError(field, `${field} (${range.what}) must be a number in ${allowed}`);
  }
  if (value < range.min || value > range.max || (range.integer && !Number.isInteger(value))) {
    throw new ParameterRangeError(field, `${field} (${range.what}) must be in ${allowed}; got ${value}`);
  }
}
