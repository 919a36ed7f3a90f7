/**
 * The STAC API catalogue of completed jobs (src/jobs/catalogue/stacCatalogue.ts makes its documents), registered at
 * {API prefix}/stac: landing page, conformance, collections, their items (paged), single Items and Item
 * Search (GET and POST). Errors are STAC API exceptions {code, description} (with the service's `detail`).
 * The catalogue is read-only and open to pages of any origin (CORS, no credentials), so that browser clients
 * such as STAC Browser can read it.
 */
import cors from '@fastify/cors';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { catalogueUrls, JSON_MEDIA_TYPE, STAC_ITEM_MEDIA_TYPE } from '../../jobs/catalogue/stac.js';
import type { StacCatalogue } from '../../jobs/catalogue/stacCatalogue.js';
import { DEFAULT_LIMIT, MAX_LIMIT, searchFromBody, searchFromQuery } from '../../jobs/catalogue/stacSearch.js';
import { installStacErrorHandlers, notFound } from '../errors.js';

export interface StacCatalogueRoutesDeps {
  readonly catalogue: StacCatalogue;
  /** The API prefix the catalogue is under (/api or /api/v1): its links stay under it. */
  readonly apiPrefix: string;
}

/** Any JSON object (the documents are STAC's; the schemas here document them without dropping fields). */
const Document = (description: string) => Type.Object({}, { additionalProperties: true, description });
const Exception = Type.Object(
  { code: Type.String(), description: Type.String(), detail: Type.String({ description: 'The same text, as in every error of the service' }) },
  { description: 'STAC API exception' },
);
const errors = { 400: Exception, 404: Exception };

const pagingQuery = {
  limit: Type.Optional(Type.String({ description: `Items per page (default ${DEFAULT_LIMIT}; more than ${MAX_LIMIT} are served as ${MAX_LIMIT})` })),
  bbox: Type.Optional(Type.String({ description: 'west,south,east,north in degrees (WGS 84): Items whose footprint box intersects it' })),
  datetime: Type.Optional(
    Type.String({ description: 'RFC 3339 date-time or interval (start/end, ".." open): Items whose datetime or start–end range meets it' }),
  ),
  token: Type.Optional(Type.String({ description: 'Paging token (from the next link)' })),
};
const SearchQuery = Type.Object({
  ...pagingQuery,
  collections: Type.Optional(Type.String({ description: 'Comma-separated collection ids (sol, eemt)' })),
  ids: Type.Optional(Type.String({ description: 'Comma-separated Item ids' })),
  intersects: Type.Optional(Type.String({ description: 'A GeoJSON geometry (JSON text): Items whose footprint intersects it; not with bbox' })),
});
const CollectionParams = Type.Object({ collectionId: Type.String({ description: 'sol or eemt' }) });
const ItemParams = Type.Object({ collectionId: Type.String({ description: 'sol or eemt' }), itemId: Type.String({ description: 'Item id' }) });

export default async function stacCatalogueRoutes(app: FastifyInstance, { catalogue, apiPrefix }: StacCatalogueRoutesDeps) {
  installStacErrorHandlers(app);
  await app.register(cors, { origin: '*', methods: ['GET', 'HEAD', 'POST'], strictPreflight: false });
  const origin = (request: FastifyRequest) => `${request.protocol}://${request.host}`;
  const urlsOf = (request: FastifyRequest) => catalogueUrls(`${origin(request)}${apiPrefix}`);
  const json = (reply: FastifyReply, body: unknown) => reply.type(JSON_MEDIA_TYPE).send(body);
  const geojson = (reply: FastifyReply, body: unknown) => reply.type(STAC_ITEM_MEDIA_TYPE).send(body);
  const tags = ['stac'];

  app.get(
    '/',
    { schema: { summary: 'STAC API landing page (a Catalog with conformsTo)', tags, response: { 200: Document('STAC Catalog') } } },
    async (request, reply) =>
      json(reply, catalogue.landingPage(urlsOf(request), { description: `${origin(request)}/openapi.json`, documentation: `${origin(request)}/docs` })),
  );

  app.get('/conformance', { schema: { summary: 'Conformance classes of the STAC API', tags, response: { 200: Document('{conformsTo}') } } }, async (_request, reply) =>
    json(reply, catalogue.conformance()),
  );

  app.get(
    '/collections',
    { schema: { summary: 'The Collections: one per workflow type (sol, eemt)', tags, response: { 200: Document('{collections, links}') } } },
    async (request, reply) => json(reply, await catalogue.collections(urlsOf(request))),
  );

  app.get(
    '/collections/:collectionId',
    { schema: { summary: 'A Collection', tags, params: CollectionParams, response: { 200: Document('STAC Collection'), ...errors } } },
    async (request, reply) => {
      const { collectionId } = request.params as { collectionId: string };
      return json(reply, (await catalogue.collection(collectionId, urlsOf(request))) ?? notFound(`Collection not found: ${collectionId}`));
    },
  );

  app.get(
    '/collections/:collectionId/items',
    {
      schema: {
        summary: 'Items of a Collection, newest job first, paged (next link)',
        tags,
        params: CollectionParams,
        querystring: Type.Object(pagingQuery),
        produces: [STAC_ITEM_MEDIA_TYPE],
        response: { 200: Document('STAC ItemCollection (GeoJSON FeatureCollection) with numberMatched and numberReturned'), ...errors },
      },
    },
    async (request, reply) => {
      const { collectionId } = request.params as { collectionId: string };
      const urls = urlsOf(request);
      if (!(await catalogue.collection(collectionId, urls))) notFound(`Collection not found: ${collectionId}`);
      const { collections: _ignored, ...query } = request.query as Record<string, unknown>;
      const search = searchFromQuery({ ...query, collections: collectionId });
      const links = [{ rel: 'collection', href: urls.collection(collectionId), type: JSON_MEDIA_TYPE }];
      return geojson(reply, await catalogue.itemPage(search, urls, { self: `${origin(request)}${request.url}`, method: 'GET', links }));
    },
  );

  app.get(
    '/collections/:collectionId/items/:itemId',
    { schema: { summary: 'An Item', tags, params: ItemParams, produces: [STAC_ITEM_MEDIA_TYPE], response: { 200: Document('STAC Item'), ...errors } } },
    async (request, reply) => {
      const { collectionId, itemId } = request.params as { collectionId: string; itemId: string };
      const item = (await catalogue.item(collectionId, itemId, urlsOf(request))) ?? notFound(`Item not found: ${itemId} in collection ${collectionId}`);
      return geojson(reply, item);
    },
  );

  app.get(
    '/search',
    {
      schema: {
        summary: 'Item Search (GET): bbox or intersects, datetime, collections, ids, limit',
        tags,
        querystring: SearchQuery,
        produces: [STAC_ITEM_MEDIA_TYPE],
        response: { 200: Document('STAC ItemCollection'), ...errors },
      },
    },
    async (request, reply) => {
      const search = searchFromQuery(request.query as Record<string, unknown>);
      return geojson(reply, await catalogue.itemPage(search, urlsOf(request), { self: `${origin(request)}${request.url}`, method: 'GET' }));
    },
  );

  app.post(
    '/search',
    {
      schema: {
        summary: 'Item Search (POST)',
        description:
          'A JSON body {bbox or intersects, datetime, collections, ids, limit, token} (bbox, collections and ids as arrays, ' +
          'intersects a GeoJSON geometry, limit a number; ' +
          'no body searches everything); the next page is a POST with the body of the next link.',
        tags,
        produces: [STAC_ITEM_MEDIA_TYPE],
        response: { 200: Document('STAC ItemCollection'), ...errors },
      },
    },
    async (request, reply) => {
      const urls = urlsOf(request);
      return geojson(reply, await catalogue.itemPage(searchFromBody(request.body), urls, { self: urls.search, method: 'POST' }));
    },
  );
}
