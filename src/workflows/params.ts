/** Validation of workflow parameters: the ranges of docs/service-contract.md ("Limits"); out of range is an error, never a clamp. */
import {
  DEFAULT_EEMT_OPTIONS,
  LIETH_NPP_GATES,
  PET_METHODS,
  TOPO_NPP_MODELS,
  TOPO_RADIATIONS,
  type EemtOptionsInput,
} from '../science/eemt/constants.js';
import type { ModelChoiceParam, NumericWorkflowParam, WorkflowParams } from './types.js';

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

export const PARAMETER_RANGES: Readonly<Record<NumericWorkflowParam, Range>> = {
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

/** One EEMT model choice: its allowed values (the default first) and what it selects. */
export interface ModelChoice {
  readonly values: readonly string[];
  readonly default: string;
  readonly what: string;
}

/**
 * The EEMT model choices of an eemt run (eemt-model.md §0.1c), named as in the submit form. The defaults are the
 * configurations of the published figures a user most likely compares with.
 */
export const MODEL_CHOICES: Readonly<Record<ModelChoiceParam, ModelChoice>> = {
  pet_method: { values: PET_METHODS, default: DEFAULT_EEMT_OPTIONS.petMethod, what: 'PET method of EEMT-Trad' },
  topo_npp: { values: TOPO_NPP_MODELS, default: DEFAULT_EEMT_OPTIONS.topoNppModel, what: 'NPP model of EEMT-Topo' },
  topo_radiation: { values: TOPO_RADIATIONS, default: DEFAULT_EEMT_OPTIONS.topoRadiation, what: 'radiation of the solar ratio of EEMT-Topo' },
  lieth_npp_gate: { values: LIETH_NPP_GATES, default: DEFAULT_EEMT_OPTIONS.liethNppGate, what: "months in which Lieth's NPP counts" },
};

/** The model-choice fields, in the order they are shown. */
export const MODEL_CHOICE_PARAMS = Object.keys(MODEL_CHOICES) as ModelChoiceParam[];

/** The message of a model choice outside its list: the field and the allowed values. */
export function modelChoiceMessage(field: ModelChoiceParam, value: unknown): string {
  const choice = MODEL_CHOICES[field];
  return `${field} (${choice.what}) must be one of ${choice.values.join(', ')}; got ${JSON.stringify(value)}`;
}

/** Every model choice of `params`, its default where absent (what an eemt run uses and its job records). */
export function resolvedModelChoices(params: Pick<WorkflowParams, ModelChoiceParam>): Required<Pick<WorkflowParams, ModelChoiceParam>> {
  return {
    pet_method: params.pet_method ?? DEFAULT_EEMT_OPTIONS.petMethod,
    topo_npp: params.topo_npp ?? DEFAULT_EEMT_OPTIONS.topoNppModel,
    topo_radiation: params.topo_radiation ?? DEFAULT_EEMT_OPTIONS.topoRadiation,
    lieth_npp_gate: params.lieth_npp_gate ?? DEFAULT_EEMT_OPTIONS.liethNppGate,
  };
}

/** The EEMT library options of the model choices of `params`. */
export function eemtOptionsOfParams(params: Pick<WorkflowParams, ModelChoiceParam>): EemtOptionsInput {
  const choices = resolvedModelChoices(params);
  return { petMethod: choices.pet_method, topoNppModel: choices.topo_npp, topoRadiation: choices.topo_radiation, liethNppGate: choices.lieth_npp_gate };
}

/** Throws ParameterRangeError for the first parameter that is missing a number or out of range, or a model choice not in its list. */
export function validateWorkflowParams(params: WorkflowParams): void {
  for (const field of MODEL_CHOICE_PARAMS) {
    const value = params[field];
    if (value !== undefined && !MODEL_CHOICES[field].values.includes(value)) throw new ParameterRangeError(field, modelChoiceMessage(field, value));
  }
  for (const field of Object.keys(PARAMETER_RANGES) as NumericWorkflowParam[]) {
    const value = params[field];
    if (value === undefined && (field === 'start_year' || field === 'end_year')) continue;
    checkRange(field, value);
  }
  if (params.start_year !== undefined && params.end_year !== undefined && params.end_year < params.start_year) {
    throw new ParameterRangeError('end_year', `end_year (${params.end_year}) must not be before start_year (${params.start_year})`);
  }
}

function checkRange(field: NumericWorkflowParam, value: unknown): void {
  const range = PARAMETER_RANGES[field];
  const allowed = `${range.min}–${range.max}${range.integer ? ', an integer' : ''}`;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new ParameterRangeError(field, `${field} (${range.what}) must be a number in ${allowed}`);
  }
  if (value < range.min || value > range.max || (range.integer && !Number.isInteger(value))) {
    throw new ParameterRangeError(field, `${field} (${range.what}) must be in ${allowed}; got ${value}`);
  }
}
