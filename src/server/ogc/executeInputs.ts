/**
 * The inputs of an execute request of `sol` or `eemt`: the DEM (an inline base64 qualified value, or an `href` when
 * references are enabled), the numeric parameters, (eemt) the model choices and the grammar parameters (`products`), typed JSON values checked against the
 * parameter contract with the rules of /api submissions.
 *
 * An inline DEM reaches this point already decoded into a staged file (the route's body parser streams the
 * base64 strings at `inputs.dem` and `inputs.dem.value` into files, checking the base64 and the inline limit as
 * they arrive; see INLINE_DEM_PATHS): here it is an InlineFile.
 */
import type { JobParameters } from '../../jobs/types.js';
import { echoed } from '../../util/echoed.js';
import type { WorkflowType } from '../../workflows/index.js';
import { parametersOf } from '../../workflows/parameters/contract.js';
import { parametersFromValues, type TypedParameterValues } from '../../workflows/parameters/values.js';
import { ParameterRangeError } from '../../workflows/params.js';
import { OGC_EXCEPTION_TYPES, OgcError } from '../errors.js';
import { InlineFile } from '../jsonBody/inlineFile.js';

export type DemInput = { readonly file: InlineFile } | { readonly href: string };

/** Where an execute request's body carries an inline DEM: the bare base64 value, or a qualified value's `value`. */
export const INLINE_DEM_PATHS = [['inputs', 'dem'], ['inputs', 'dem', 'value']] as const;

export const NOT_BASE64 = 'Input dem: value is not valid base64';

export function inlineDemTooLarge(maxInlineBytes: number): string {
  return `Input dem is larger than the inline limit of ${maxInlineBytes} bytes`;
}

export interface ExecuteInputs {
  readonly dem: DemInput;
  readonly parameters: JobParameters;
}

const invalid = (detail: string): never => {
  throw new OgcError(400, OGC_EXCEPTION_TYPES.invalidParameterValue, detail);
};

const TIFF_MEDIA_TYPES = ['image/tiff; application=geotiff', 'image/tiff'];

/** A media type compared without case and spaces around parameters. */
function normalisedMediaType(type: string): string {
  return type.toLowerCase().split(';').map((part) => part.trim()).join('; ');
}

function demInput(raw: unknown, hrefEnabled: boolean): DemInput {
  if (raw === undefined) invalid('Input dem is required');
  // The value alone, as the input's schema (a base64 string) allows.
  if (raw instanceof InlineFile) return demInput({ value: raw }, hrefEnabled);
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    invalid(`Input dem must be the GeoTIFF as base64, or a qualified value {"value": "<base64>", "mediaType": "image/tiff; application=geotiff"}`);
  }
  const input = raw as Record<string, unknown>;
  if ('href' in input) {
    if (!hrefEnabled) invalid('Input dem: references (href) are not enabled on this service; send the DEM inline as base64');
    if (typeof input.href !== 'string') invalid('Input dem: href must be a string');
    return { href: input.href as string };
  }
  const format = typeof input.format === 'object' && input.format !== null ? (input.format as Record<string, unknown>) : {};
  const mediaType = input.mediaType ?? format.mediaType ?? input.type;
  if (mediaType !== undefined && (typeof mediaType !== 'string' || !TIFF_MEDIA_TYPES.includes(normalisedMediaType(mediaType)))) {
    invalid(`Input dem must have mediaType "image/tiff; application=geotiff", got ${echoed(JSON.stringify(mediaType))}`);
  }
  if (!(input.value instanceof InlineFile)) invalid('Input dem: value must be the GeoTIFF as a base64 string');
  const file = input.value as InlineFile;
  if (file.bytes === 0) invalid('Input dem is empty');
  return { file };
}

/** The value of an input given alone or as a qualified value {"value": …}. */
function unqualified(raw: unknown): unknown {
  return typeof raw === 'object' && raw !== null && 'value' in raw ? (raw as { value: unknown }).value : raw;
}

/** A numeric input: a finite JSON number. */
function finiteNumber(name: string, raw: unknown): number {
  const value = unqualified(raw);
  if (typeof value !== 'number' || !Number.isFinite(value)) invalid(`Input ${name} must be a number`);
  return value as number;
}

/** A string input. */
function text(name: string, raw: unknown): string {
  const value = unqualified(raw);
  if (typeof value !== 'string') invalid(`Input ${name} must be a string`);
  return value as string;
}

export function executeInputs(
  type: WorkflowType,
  inputs: Record<string, unknown>,
  limits: { hrefEnabled: boolean },
): ExecuteInputs {
  const { numeric, choices, grammar } = parametersOf(type);
  const known: readonly string[] = [...numeric, ...choices, ...grammar];
  for (const name of Object.keys(inputs)) {
    if (name !== 'dem' && !known.includes(name)) invalid(`Unknown input ${echoed(name)}; the inputs of ${type} are dem, ${known.join(', ')}`);
  }
  const values: TypedParameterValues = {};
  for (const name of numeric) if (inputs[name] !== undefined) values[name] = finiteNumber(name, inputs[name]);
  for (const name of choices) if (inputs[name] !== undefined) values[name] = text(name, inputs[name]);
  for (const name of grammar) if (inputs[name] !== undefined) values[name] = text(name, inputs[name]);
  let parameters: JobParameters;
  try {
    parameters = parametersFromValues(type, values);
  } catch (error) {
    if (error instanceof ParameterRangeError) invalid(error.message);
    throw error;
  }
  return { dem: demInput(inputs.dem, limits.hrefEnabled), parameters: parameters! };
}
