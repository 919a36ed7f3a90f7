/**
 * The run parameters as the HTTP service states and reads them, all derived from the parameter contract
 * (workflows/parameters/contract.ts): the TypeBox schemas of the submit form (the OpenAPI document) and of a job's
 * recorded parameters, the JSON schemas of the OGC process inputs, and the form's parser (422 for a bad value).
 */
import { Type, type TSchema } from 'typebox';
import type { JobParameters } from '../jobs/types.js';
import { ParameterRangeError } from '../workflows/params.js';
import {
  CHOICE_PARAMETERS,
  GRAMMAR_PARAMETERS,
  GRAMMAR_PARAMS,
  MODEL_CHOICE_PARAMS,
  NUMERIC_PARAMETERS,
  NUMERIC_PARAMS,
  rangeText,
} from '../workflows/parameters/contract.js';
import { parametersFromText } from '../workflows/parameters/values.js';
import type { GrammarWorkflowParam, ModelChoiceParam, NumericWorkflowParam, WorkflowType } from '../workflows/types.js';
import { unprocessable } from './errors.js';

/** Whether only eemt uses a parameter (its description says so). */
function eemtOnly(workflows: readonly WorkflowType[]): boolean {
  return !workflows.includes('sol');
}

/** The API description of a numeric parameter: label, unit, range and notes (`Time step of the daily integration [minutes], <min>–<max>`). */
export function numericDescription(name: NumericWorkflowParam): string {
  const p = NUMERIC_PARAMETERS[name];
  const unit = p.unit === undefined ? '' : ` [${p.unit}]`;
  const notBefore = p.notBefore === undefined ? '' : `, not before ${p.notBefore}`;
  return `${p.label}${unit}, ${rangeText(name)}${notBefore}${p.note ?? ''}${eemtOnly(p.workflows) ? ' (eemt only)' : ''}`;
}

/** The API description of a model choice: what it selects, each value with its source. */
export function choiceDescription(name: ModelChoiceParam): string {
  const p = CHOICE_PARAMETERS[name];
  return `${eemtOnly(p.workflows) ? 'eemt only: ' : ''}${p.description}`;
}

/** The JSON schema of a numeric parameter (type, range, default), as the submit form and the OGC inputs state it. */
export function numericSchema(name: NumericWorkflowParam): { type: 'number' | 'integer'; minimum: number; maximum: number; default: number } {
  const { type, minimum, maximum, default: fallback } = NUMERIC_PARAMETERS[name];
  return { type, minimum, maximum, default: fallback };
}

/** The JSON schema of a model choice as a plain enum (OGC process inputs). */
export function modelChoiceSchema(name: ModelChoiceParam): { type: 'string'; enum: readonly string[]; default: string; description: string } {
  return { type: 'string', enum: CHOICE_PARAMETERS[name].values, default: CHOICE_PARAMETERS[name].default, description: choiceDescription(name) };
}

/** The JSON schema of a grammar parameter (text with its default; the grammar is in the description), as the submit form and the OGC inputs state it. */
export function grammarSchema(name: GrammarWorkflowParam): { type: 'string'; default: string; description: string } {
  const p = GRAMMAR_PARAMETERS[name];
  return { type: 'string', default: p.default, description: `${eemtOnly(p.workflows) ? 'eemt only: ' : ''}${p.description}` };
}

/** The grammar-parameter form fields (text, checked by the contract's grammar). */
export const SubmitGrammarParameters = Object.fromEntries(
  GRAMMAR_PARAMS.map((name) => {
    const { default: fallback, description } = grammarSchema(name);
    return [name, Type.String({ default: fallback, description, examples: [GRAMMAR_PARAMETERS[name].example] })];
  }),
) as unknown as Record<GrammarWorkflowParam, TSchema>;

/** The grammar parameters as recorded in a job's parameters: the normalised text, without a default. */
export const RecordedGrammarParameters = Object.fromEntries(
  GRAMMAR_PARAMS.map((name) => [name, Type.String({ description: `${GRAMMAR_PARAMETERS[name].title}, normalised (absent for jobs from before it was recorded: every product)` })]),
) as unknown as Record<GrammarWorkflowParam, TSchema>;

/** The numeric form fields: their bounds and defaults are the validation rules and the documentation. */
export const SubmitParameters = Object.fromEntries(
  NUMERIC_PARAMS.map((name) => {
    const { type, ...bounds } = numericSchema(name);
    const options = { ...bounds, description: numericDescription(name) };
    return [name, type === 'integer' ? Type.Integer(options) : Type.Number(options)];
  }),
) as unknown as Record<NumericWorkflowParam, TSchema>;

function choiceUnion(name: ModelChoiceParam, options: { default?: string; description: string }): TSchema {
  return Type.Union(
    CHOICE_PARAMETERS[name].values.map((value) => Type.Literal(value)),
    options,
  );
}

/** The EEMT model-choice form fields: enums with their defaults. */
export const SubmitModelChoices = Object.fromEntries(
  MODEL_CHOICE_PARAMS.map((name) => [name, choiceUnion(name, { default: CHOICE_PARAMETERS[name].default, description: choiceDescription(name) })]),
) as unknown as Record<ModelChoiceParam, TSchema>;

/** The model choices as recorded in a job's parameters: the same enums without defaults (a response schema's default would be filled in for sol jobs). */
export const RecordedModelChoices = Object.fromEntries(
  MODEL_CHOICE_PARAMS.map((name) => [name, choiceUnion(name, { description: `${choiceDescription(name)} (eemt jobs only)` })]),
) as unknown as Record<ModelChoiceParam, TSchema>;

/**
 * The job parameters of a submission (422 naming the field and its range, or the bad item of a grammar parameter, for a
 * bad value); the years and the model choices recorded for eemt only, the grammar parameters normalised.
 */
export function parseParameters(type: WorkflowType, fields: Readonly<Record<string, string>>): JobParameters {
  try {
    return parametersFromText(type, fields);
  } catch (error) {
    if (error instanceof ParameterRangeError) unprocessable(error.message);
    throw error;
  }
}
