/**
 * Query parameters that a route schema declares as arrays (`type: array`): OpenAPI's default form style sends a
 * list as the parameter repeated (`status=running&status=failed`), and many clients send it comma-separated
 * (`status=running,failed`, form style without explode). Validation runs without coercion, so this hook turns the
 * text of each such parameter, before validation, into the list of its comma-separated values (empty values
 * dropped, spaces around values trimmed; a parameter with no value at all counts as absent); the schema then
 * checks each value.
 */
import type { FastifyInstance } from 'fastify';

interface QuerySchema {
  readonly properties?: Record<string, { readonly type?: unknown }>;
}

export function queryLists(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const properties = (request.routeOptions.schema?.querystring as QuerySchema | undefined)?.properties;
    if (!properties) return;
    const query = request.query as Record<string, unknown>;
    for (const [name, schema] of Object.entries(properties)) {
      const raw = query[name];
      if (schema.type !== 'array' || raw === undefined) continue;
      const texts = Array.isArray(raw) ? raw : [raw];
      if (!texts.every((t) => typeof t === 'string')) continue;
      const values = (texts as string[]).flatMap((t) => t.split(',')).map((v) => v.trim()).filter((v) => v !== '');
      if (values.length > 0) query[name] = values;
      else delete query[name];
    }
  });
}
