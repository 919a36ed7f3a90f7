/**
 * The parameters of a run from what a client sent, checked against the contract (contract.ts): form fields as
 * text (the /api submit form) or typed JSON values (OGC execute requests). A value outside its range or list is a
 * ParameterRangeError naming the field and what it allows; an absent (or blank) value is its default, except for a
 * grammar parameter, whose blank text is refused (its message says what it takes).
 */
import { echoed } from '../../util/echoed.js';
import { parseDecimal } from '../../util/decimal.js';
import { modelChoiceMessage, notBeforeMessage, ParameterRangeError } from '../params.js';
import type { GrammarWorkflowParam, ModelChoiceParam, NumericWorkflowParam, WorkflowParams, WorkflowType } from '../types.js';
import { CHOICE_PARAMETERS, GRAMMAR_PARAMETERS, GRAMMAR_PARAMS, MODEL_CHOICE_PARAMS, NUMERIC_PARAMETERS, NUMERIC_PARAMS } from './contract.js';

/** Longest part of a refused model choice repeated in its message. */
const ECHOED_CHOICE_CHARS = 40;

/** What a numeric parameter allows: `a number from <min> to <max>` or `an integer from <min> to <max>`. */
function expected(name: NumericWorkflowParam): string {
  const { type, minimum, maximum } = NUMERIC_PARAMETERS[name];
  return `${type === 'integer' ? 'an integer' : 'a number'} from ${minimum} to ${maximum}`;
}

function refuse(name: string, message: string): never {
  throw new ParameterRangeError(name, message);
}

/** A number inside its parameter's range (an integer where it must be one). */
function checkedNumber(name: NumericWorkflowParam, value: number, shown: string): number {
  const { type, minimum, maximum } = NUMERIC_PARAMETERS[name];
  if (type === 'integer' && !Number.isInteger(value)) refuse(name, `${name} must be ${expected(name)}, got ${shown}`);
  if (value < minimum || value > maximum) refuse(name, `${name} must be ${expected(name)}, got ${value}`);
  return value;
}

/** A numeric form field (decimal notation only); its default when absent or blank. */
export function numberFromText(name: NumericWorkflowParam, raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return NUMERIC_PARAMETERS[name].default;
  const value = parseDecimal(raw.trim());
  if (value === null) refuse(name, `${name} must be ${expected(name)}, got "${echoed(raw)}"`);
  return checkedNumber(name, value, `"${echoed(raw)}"`);
}

/** A numeric JSON value (a finite number); its default when absent. */
export function numberFromValue(name: NumericWorkflowParam, value: number | undefined): number {
  if (value === undefined) return NUMERIC_PARAMETERS[name].default;
  return checkedNumber(name, value, String(value));
}

/** A model choice as text; its default when absent or blank (white space around it is not part of it). */
export function choiceFromText(name: ModelChoiceParam, raw: string | undefined): string {
  if (raw === undefined || raw.trim() === '') return CHOICE_PARAMETERS[name].default;
  const value = raw.trim();
  if (!CHOICE_PARAMETERS[name].values.includes(value)) refuse(name, modelChoiceMessage(name, value.slice(0, ECHOED_CHOICE_CHARS)));
  return value;
}

/**
 * A grammar parameter's text, normalised; its default when absent. Present but blank is refused (the grammar's
 * message says what it takes): unlike a number, an empty list could mean "nothing".
 */
export function grammarFromText(name: GrammarWorkflowParam, raw: string | undefined): string {
  if (raw === undefined) return GRAMMAR_PARAMETERS[name].default;
  try {
    return GRAMMAR_PARAMETERS[name].normalise(raw);
  } catch (error) {
    if (error instanceof RangeError) refuse(name, error.message);
    throw error;
  }
}

/**
 * The parameters of a `type` run: every parameter is checked, whichever workflow uses it; those of `type` are
 * kept (a sol run drops the years and the model choices). A parameter before the one it must not precede is refused.
 */
function runParameters(
  type: WorkflowType,
  numberOf: (name: NumericWorkflowParam) => number,
  choiceOf: (name: ModelChoiceParam) => string,
  grammarOf: (name: GrammarWorkflowParam) => string,
): WorkflowParams {
  const numbers = Object.fromEntries(NUMERIC_PARAMS.map((name) => [name, numberOf(name)])) as Record<NumericWorkflowParam, number>;
  const choices = Object.fromEntries(MODEL_CHOICE_PARAMS.map((name) => [name, choiceOf(name)])) as Record<ModelChoiceParam, string>;
  const grammar = Object.fromEntries(GRAMMAR_PARAMS.map((name) => [name, grammarOf(name)])) as Record<GrammarWorkflowParam, string>;
  const used = NUMERIC_PARAMS.filter((name) => NUMERIC_PARAMETERS[name].workflows.includes(type));
  for (const name of used) {
    const earliest = NUMERIC_PARAMETERS[name].notBefore;
    if (earliest !== undefined && numbers[name] < numbers[earliest]) refuse(name, notBeforeMessage(name, numbers[name], earliest, numbers[earliest]));
  }
  return {
    ...Object.fromEntries(used.map((name) => [name, numbers[name]])),
    ...Object.fromEntries(MODEL_CHOICE_PARAMS.filter((name) => CHOICE_PARAMETERS[name].workflows.includes(type)).map((name) => [name, choices[name]])),
    ...Object.fromEntries(GRAMMAR_PARAMS.filter((name) => GRAMMAR_PARAMETERS[name].workflows.includes(type)).map((name) => [name, grammar[name]])),
  } as unknown as WorkflowParams;
}

/** The parameters of a `type` run from form fields (text); ParameterRangeError for the first bad one. */
export function parametersFromText(type: WorkflowType, fields: Readonly<Record<string, string | undefined>>): WorkflowParams {
  return runParameters(
    type,
    (name) => numberFromText(name, fields[name]),
    (name) => choiceFromText(name, fields[name]),
    (name) => grammarFromText(name, fields[name]),
  );
}

/** The values of a typed request: numbers for the numeric parameters, text for the model choices and the grammar parameters. */
export type TypedParameterValues = Partial<Record<NumericWorkflowParam, number> & Record<ModelChoiceParam | GrammarWorkflowParam, string>>;

/** The parameters of a `type` run from typed values (JSON); ParameterRangeError for the first bad one. */
export function parametersFromValues(type: WorkflowType, values: TypedParameterValues): WorkflowParams {
  return runParameters(
    type,
    (name) => numberFromValue(name, values[name]),
    (name) => choiceFromText(name, values[name]),
    (name) => grammarFromText(name, values[name]),
  );
}
