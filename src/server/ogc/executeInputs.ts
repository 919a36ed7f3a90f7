/**
 * The inputs of an execute request of `sol` or `eemt`: the DEM (an inline base64 qualified value, or an `href` when
 * references are enabled), the numeric parameters and (eemt) the model choices, checked with the rules of /api submissions.
 */
import { Buffer } from 'node:buffer';
import type { JobParameters } from '../../jobs/types.js';
import type { WorkflowType } from '../../workflows/index.js';
import { HttpError } from '../errors.js';
import { OGC_EXCEPTION_TYPES, OgcError } from '../errors.js';
import { MODEL_CHOICE_PARAMS } from '../../workflows/params.js';
import { parseParameters, SubmitParameters } from '../routes/submit.js';

export type DemInput = { readonly bytes: Buffer } | { readonly href: string };

export interface ExecuteInputs {
  readonly dem: DemInput;
  readonly parameters: JobParameters;
}

const invalid = (detail: string): never => {
  throw new OgcError(400, OGC_EXCEPTION_TYPES.invalidParameterValue, detail);
};

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const TIFF_MEDIA_TYPES = ['image/tiff; application=geotiff', 'image/tiff'];

/** A media type compared without case and spaces around parameters. */
function normalisedMediaType(type: string): string {
  return type.toLowerCase().split(';').map((part) => part.trim()).join('; ');
}

function demInput(raw: unknown, maxInlineBytes: number, hrefEnabled: boolean): DemInput {
  if (raw === undefined) invalid('Input dem is required');
  // The value alone, as the input's schema (a base64 string) allows.
  if (typeof raw === 'string') return demInput({ value: raw }, maxInlineBytes, hrefEnabled);
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
    invalid(`Input dem must have mediaType "image/tiff; application=geotiff", got ${JSON.stringify(mediaType).slice(0, 80)}`);
  }
  if (typeof input.value !== 'string') invalid('Input dem: value must be the GeoTIFF as a base64 string');
  const text = (input.value as string).replace(/\s+/g, '');
  if (text.length % 4 === 1 || !BASE64.test(text)) invalid('Input dem: value is not valid base64');
  if (Math.floor((text.length * 3) / 4) > maxInlineBytes + 2) {
    throw new OgcError(413, OGC_EXCEPTION_TYPES.invalidParameterValue, `Input dem is larger than the inline limit of ${maxInlineBytes} bytes`);
  }
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length === 0) invalid('Input dem is empty');
  return { bytes };
}

/** A JSON number written in plain decimal notation, as the /api form fields are. */
function decimal(name: string, raw: unknown): string {
  const value = typeof raw === 'object' && raw !== null && 'value' in raw ? (raw as { value: unknown }).value : raw;
  if (typeof value !== 'number' || !Number.isFinite(value)) invalid(`Input ${name} must be a number`);
  return (value as number).toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 });
}

/** A string input, given alone or as a qualified value {"value": "…"}. */
function text(name: string, raw: unknown): string {
  const value = typeof raw === 'object' && raw !== null && 'value' in raw ? (raw as { value: unknown }).value : raw;
  if (typeof value !== 'string') invalid(`Input ${name} must be a string`);
  return value as string;
}

export function executeInputs(
  type: WorkflowType,
  inputs: Record<string, unknown>,
  limits: { maxInlineBytes: number; hrefEnabled: boolean },
): ExecuteInputs {
  const numeric = Object.keys(SubmitParameters).filter((name) => type === 'eemt' || !name.endsWith('_year'));
  const choices: readonly string[] = type === 'eemt' ? MODEL_CHOICE_PARAMS : [];
  const known = [...numeric, ...choices];
  for (const name of Object.keys(inputs)) {
    if (name !== 'dem' && !known.includes(name)) invalid(`Unknown input ${name.slice(0, 40)}; the inputs of ${type} are dem, ${known.join(', ')}`);
  }
  const fields: Record<string, string> = {};
  for (const name of numeric) if (inputs[name] !== undefined) fields[name] = decimal(name, inputs[name]);
  for (const name of choices) if (inputs[name] !== undefined) fields[name] = text(name, inputs[name]);
  let parameters: JobParameters;
  try {
    parameters = parseParameters(type, fields);
  } catch (error) {
    if (error instanceof HttpError) invalid(error.detail);
    throw error;
  }
  return { dem: demInput(inputs.dem, limits.maxInlineBytes, limits.hrefEnabled), parameters: parameters! };
}
