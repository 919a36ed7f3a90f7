/** Validation of workflow parameters against their contract (parameters/contract.ts; the limits of docs/service-contract.md); out of range is an error, never a clamp. */
import type { EemtOptionsInput } from '../science/eemt/constants.js';
import { CHOICE_PARAMETERS, GRAMMAR_PARAMETERS, GRAMMAR_PARAMS, MODEL_CHOICE_PARAMS, NUMERIC_PARAMETERS, NUMERIC_PARAMS, rangeText } from './parameters/contract.js';
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

/** The message of a model choice outside its list: the field and the allowed values. */
export function modelChoiceMessage(field: ModelChoiceParam, value: unknown): string {
  const choice = CHOICE_PARAMETERS[field];
  return `${field} (${choice.what}) must be one of ${choice.values.join(', ')}; got ${JSON.stringify(value)}`;
}

/** Every model choice of `params`, its default where absent (what an eemt run uses and its job records). */
export function resolvedModelChoices(params: Pick<WorkflowParams, ModelChoiceParam>): Required<Pick<WorkflowParams, ModelChoiceParam>> {
  return Object.fromEntries(MODEL_CHOICE_PARAMS.map((name) => [name, params[name] ?? CHOICE_PARAMETERS[name].default])) as Required<
    Pick<WorkflowParams, ModelChoiceParam>
  >;
}

/** The EEMT library options of the model choices of `params`. */
export function eemtOptionsOfParams(params: Pick<WorkflowParams, ModelChoiceParam>): EemtOptionsInput {
  const choices = resolvedModelChoices(params);
  return { petMethod: choices.pet_method, topoNppModel: choices.topo_npp, topoRadiation: choices.topo_radiation, liethNppGate: choices.lieth_npp_gate };
}

/**
 * Throws ParameterRangeError for the first parameter that is missing a number or out of range, a model choice not in
 * its list, or a grammar parameter that does not follow its grammar (absent: its default).
 */
export function validateWorkflowParams(params: WorkflowParams): void {
  for (const field of GRAMMAR_PARAMS) {
    const value = params[field];
    if (value === undefined) continue;
    try {
      if (typeof value !== 'string') throw new RangeError(`${field} must be text: ${GRAMMAR_PARAMETERS[field].grammar}`);
      GRAMMAR_PARAMETERS[field].normalise(value);
    } catch (error) {
      if (error instanceof RangeError) throw new ParameterRangeError(field, error.message);
      throw error;
    }
  }
  for (const field of MODEL_CHOICE_PARAMS) {
    const value = params[field];
    if (value !== undefined && !CHOICE_PARAMETERS[field].values.includes(value)) throw new ParameterRangeError(field, modelChoiceMessage(field, value));
  }
  for (const field of NUMERIC_PARAMS) {
    const value = params[field];
    // the parameters of eemt alone may be absent (a sol run)
    if (value === undefined && !NUMERIC_PARAMETERS[field].workflows.includes('sol')) continue;
    checkRange(field, value);
  }
  for (const field of NUMERIC_PARAMS) {
    const earliest = NUMERIC_PARAMETERS[field].notBefore;
    const value = params[field];
    if (earliest === undefined || value === undefined) continue;
    const bound = params[earliest];
    if (bound !== undefined && value < bound) throw new ParameterRangeError(field, notBeforeMessage(field, value, earliest, bound));
  }
}

/** The message of a parameter smaller than the one it must not be before: `end_year (2019) must not be before start_year (2020)`. */
export function notBeforeMessage(field: string, value: number, earliest: string, bound: number | undefined): string {
  return `${field} (${value}) must not be before ${earliest} (${bound})`;
}

function checkRange(field: NumericWorkflowParam, value: unknown): void {
  const range = NUMERIC_PARAMETERS[field];
  const integer = range.type === 'integer';
  const allowed = `${rangeText(field)}${integer ? ', an integer' : ''}`;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new ParameterRangeError(field, `${field} (${range.what}) must be a number in ${allowed}`);
  }
  if (value < range.minimum || value > range.maximum || (integer && !Number.isInteger(value))) {
    throw new ParameterRangeError(field, `${field} (${range.what}) must be in ${allowed}; got ${value}`);
  }
}
