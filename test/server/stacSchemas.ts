/**
 * The official STAC schemas vendored in test/fixtures/stac/ (see test/fixtures/README.md), compiled offline
 * with ajv: each JSON schema under its own `$id`, each OpenAPI fragment of STAC API v1.0.0 under
 * https://api.stacspec.org/v1.0.0/<its path>, so that every `$ref` between them resolves to a vendored file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';

export const SCHEMA_DIR = new URL('../fixtures/stac/', import.meta.url).pathname;
const API_DIR = 'stac-api-spec/v1.0.0/';
const API_BASE = 'https://api.stacspec.org/v1.0.0/';

const CORE_SCHEMAS: Record<string, string> = {
  Feature: 'https://schemas.stacspec.org/v1.0.0/item-spec/json-schema/item.json',
  Catalog: 'https://schemas.stacspec.org/v1.0.0/catalog-spec/json-schema/catalog.json',
  Collection: 'https://schemas.stacspec.org/v1.0.0/collection-spec/json-schema/collection.json',
};

/** The STAC API v1.0.0 schemas of the catalogue's responses (OpenAPI components). */
export const API_SCHEMAS = {
  landingPage: `${API_BASE}core/openapi.yaml#/components/schemas/landingPage`,
  conformance: `${API_BASE}core/commons.yaml#/components/schemas/conformanceClasses`,
  collections: `${API_BASE}ogcapi-features/openapi-features.yaml#/components/schemas/collections`,
  collection: `${API_BASE}core/commons.yaml#/components/schemas/collection`,
  item: `${API_BASE}core/commons.yaml#/components/schemas/item`,
  features: `${API_BASE}ogcapi-features/openapi-features.yaml#/components/schemas/featureCollectionGeoJSON`,
  itemCollection: `${API_BASE}fragments/itemcollection/openapi.yaml#/components/schemas/itemCollection`,
  searchBody: `${API_BASE}item-search/openapi.yaml#/components/schemas/searchBody`,
  exception: `${API_BASE}core/commons.yaml#/components/schemas/exception`,
} as const;

/** Every vendored file (relative path) and the URL it is known by. */
export function vendoredSchemas(): { file: string; id: string; schema: Record<string, unknown> }[] {
  const files = (readdirSync(SCHEMA_DIR, { recursive: true }) as string[]).filter((f) => /\.(json|yaml)$/.test(f)).sort();
  return files.map((file) => {
    const text = readFileSync(join(SCHEMA_DIR, file), 'utf8');
    if (file.endsWith('.yaml')) return { file, id: API_BASE + file.slice(API_DIR.length), schema: parse(text) as Record<string, unknown> };
    const schema = JSON.parse(text) as Record<string, unknown>;
    return { file, id: String(schema.$id).replace(/#$/, ''), schema };
  });
}

export class StacSchemas {
  private readonly ajv = new Ajv({ strict: false, allErrors: true });

  constructor() {
    (addFormats as unknown as (a: Ajv) => void)(this.ajv);
    // IRIs are URIs that may hold non-ASCII characters: checking as URIs is the stricter test. OpenAPI's "url" is a URI.
    const formats = this.ajv.formats as Record<string, unknown>;
    this.ajv.addFormat('iri', formats.uri as never);
    this.ajv.addFormat('iri-reference', formats['uri-reference'] as never);
    this.ajv.addFormat('url', formats.uri as never);
    for (const { id, schema } of vendoredSchemas()) {
      if (id.startsWith(API_BASE)) this.ajv.addSchema(schema, id);
      else this.ajv.addSchema(schema);
    }
  }

  private schema(id: string): ValidateFunction {
    const validate = this.ajv.getSchema(id);
    if (!validate) throw new Error(`no vendored schema ${id}`);
    return validate;
  }

  /** Errors of `value` against the schema `id` (none when valid). */
  errors(id: string, value: unknown): string[] {
    const validate = this.schema(id);
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${id}${e.instancePath}: ${e.message} ${JSON.stringify(e.params)}`);
  }

  /**
   * Errors of STAC object `value` against the official schemas of what it declares: the core schema of its
   * type and STAC version, and the schema of each extension in `stac_extensions` (which must be vendored).
   */
  stacErrors(value: { type?: unknown; stac_version?: unknown; stac_extensions?: unknown }): string[] {
    const core = CORE_SCHEMAS[String(value.type)];
    if (!core || value.stac_version !== '1.0.0') return [`not a STAC 1.0.0 Catalog, Collection or Item: ${String(value.type)} ${String(value.stac_version)}`];
    const extensions = Array.isArray(value.stac_extensions) ? (value.stac_extensions as string[]) : [];
    return [core, ...extensions].flatMap((id) => (this.ajv.getSchema(id) ? this.errors(id, value) : [`${id}: no vendored schema`]));
  }

  /** Errors of an ItemCollection (a search or items page): STAC API schemas, and each Item as a STAC Item. */
  itemCollectionErrors(page: { features?: unknown[] }): string[] {
    return [
      ...this.errors(API_SCHEMAS.itemCollection, page),
      ...this.errors(API_SCHEMAS.features, page),
      ...(page.features ?? []).flatMap((item) => [...this.errors(API_SCHEMAS.item, item), ...this.stacErrors(item as object)]),
    ];
  }
}
