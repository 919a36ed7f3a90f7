/**
 * The bounds of a JSON request body. Every JSON body is checked against them while it arrives, so a body that
 * breaks one is refused after the chunk that broke it, not after it was read, parsed and held whole.
 * A route may change them (its `config.jsonBody.bounds`); every other route has the defaults.
 */
import { echoed } from '../../util/echoed.js';
import { HttpError } from '../errors.js';

export interface JsonBounds {
  /** Deepest nesting of objects and arrays (`{}` is 1). */
  readonly maxDepth: number;
  /** Most keys of one object (a repeated key counts each time). */
  readonly maxKeys: number;
  /** Most items of one array. */
  readonly maxItems: number;
  /** Longest string, key or number [characters]. */
  readonly maxStringLength: number;
  /** Most values in the whole body (objects, arrays, strings, numbers, true, false, null). */
  readonly maxValues: number;
  /** Most characters of all strings, keys and numbers together, besides an inline file (413 when over). */
  readonly maxTextLength: number;
}

export const DEFAULT_JSON_BOUNDS: JsonBounds = {
  maxDepth: 32,
  maxKeys: 1000,
  maxItems: 10_000,
  maxStringLength: 64 * 1024,
  maxValues: 100_000,
  maxTextLength: 1024 * 1024,
};

/** A place in a JSON document: keys of objects and indices of arrays, from the top. */
export type JsonPath = readonly (string | number)[];

/** `inputs.dem.value`, `items[3]`; "the top level" for the document itself; cut to a readable length. */
function pathText(path: JsonPath): string {
  if (path.length === 0) return 'the top level';
  let text = '';
  for (const part of path) {
    text += typeof part === 'number' ? `[${part}]` : text === '' ? part : `.${part}`;
    if (text.length > 400) break;
  }
  return echoed(text);
}

/** The refusal of a body that breaks a bound: 400 (413 for sizes), naming the bound and where it was broken. */
export function boundBroken(what: string, path: JsonPath, status = 400): HttpError {
  return new HttpError(status, `JSON body: ${what} (at ${pathText(path)})`);
}

export const NOT_JSON = 'Request body is not valid JSON';
