/**
 * The JSON schemas of OGC API – Processes – Part 1: Core 1.0 (vendored in test/fixtures/ogcapi-processes-1.0/, see
 * its README), compiled for validating the service's responses as the standard's test suite does: each file under
 * the URL the suite loads it from (https://schemas.opengis.net/ogcapi/processes/part1/1.0/openapi/schemas/…), so
 * their relative references resolve among them.
 *
 * The files are OpenAPI 3.0 Schema Objects: `exclusiveMinimum` / `exclusiveMaximum` are booleans beside `minimum` /
 * `maximum` (JSON Schema draft 4 style). They are read into the JSON Schema form Ajv validates (`exclusiveMinimum: n`)
 * in memory; the files stay as published.
 */
import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import { readdirSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';

const DIR = new URL('../fixtures/ogcapi-processes-1.0/', import.meta.url);
export const SCHEMA_BASE = 'https://schemas.opengis.net/ogcapi/processes/part1/1.0/openapi/schemas/';

/** An OpenAPI 3.0 Schema Object in JSON Schema draft 7 form (boolean exclusive bounds become numbers). */
function toJsonSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toJsonSchema);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = toJsonSchema(value);
  for (const [exclusive, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
    if (typeof out[exclusive] !== 'boolean') continue;
    if (out[exclusive] === true && typeof out[bound] === 'number') {
      out[exclusive] = out[bound];
      delete out[bound];
    } else delete out[exclusive];
  }
  return out;
}

const ajv = new Ajv({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv) => void)(ajv);
for (const file of readdirSync(DIR).filter((f) => f.endsWith('.yaml'))) {
  const schema = toJsonSchema(parse(readFileSync(new URL(file, DIR), 'utf8'))) as Record<string, unknown>;
  ajv.addSchema({ ...schema, $id: `${SCHEMA_BASE}${file}` });
}

/** The schema files of the standard that responses are checked against. */
export type OgcSchema = 'landingPage' | 'confClasses' | 'processList' | 'process' | 'inputDescription' | 'outputDescription' | 'schema' | 'statusInfo' | 'jobList' | 'exception' | 'results' | 'execute';

/** The validation errors of `document` against the standard's `schema` (none: valid). */
export function schemaErrors(schema: OgcSchema, document: unknown): ErrorObject[] {
  const validate = ajv.getSchema(`${SCHEMA_BASE}${schema}.yaml`);
  if (!validate) throw new Error(`no schema ${schema}.yaml`);
  return validate(document) ? [] : [...(validate.errors ?? [])];
}
