/**
 * Query strings carry text, and some route schemas declare a query parameter as a number. Fastify's validator
 * would coerce such text with JavaScript's rules (`0x10` is 16; `Infinity` and `1e999` are infinite and pass an
 * integer check), so validation runs without coercion and this hook converts, before it, the text of each
 * number-typed query parameter that is plain decimal and finite. Anything else stays text, which the schema
 * refuses with a 422 naming the parameter.
 */
import type { FastifyInstance } from 'fastify';
import { parseDecimal } from '../util/decimal.js';

interface QuerySchema {
  readonly properties?: Record<string, { readonly type?: unknown }>;
}

export function strictQueryNumbers(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const properties = (request.routeOptions.schema?.querystring as QuerySchema | undefined)?.properties;
    if (!properties) return;
    const query = request.query as Record<string, unknown>;
    for (const [name, schema] of Object.entries(properties)) {
      const text = query[name];
      if (typeof text !== 'string' || (schema.type !== 'integer' && schema.type !== 'number')) continue;
      const value = parseDecimal(text);
      if (value !== null) query[name] = value;
    }
  });
}
