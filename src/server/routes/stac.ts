/**
 * STAC Items of a completed job (src/jobs/catalogue/stac.ts makes them; the same Items as in the catalogue, see
 * stacCatalogue.ts) and its output files one by one, with HTTP range requests, so that the Items' assets are
 * Cloud Optimized GeoTIFFs that GDAL (/vsicurl/) and other clients read in part.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { openRegularFile, type ListedFile } from '../../jobs/store/files.js';
import type { JobPaths } from '../../jobs/store/paths.js';
import { catalogueUrls, COG_MEDIA_TYPE, DAILY_GROUPS, STAC_ITEM_MEDIA_TYPE, type DailyGroup } from '../../jobs/catalogue/stac.js';
import type { StacCatalogue } from '../../jobs/catalogue/stacCatalogue.js';
import type { JobStore } from '../../jobs/store/store.js';
import type { JobRecord } from '../../jobs/types.js';
import { badRequest, notFound } from '../errors.js';
import { answerNotModified, byteRange, fileValidators, NOT_MODIFIED_RESPONSE } from '../httpCaching.js';
import { ErrorDetail, JobIdParams } from '../schemas.js';
import { echoed } from '../../util/echoed.js';

const StacItemSchema = Type.Object(
  {
    type: Type.Literal('Feature'),
    stac_version: Type.String(),
    stac_extensions: Type.Array(Type.String()),
    id: Type.String(),
    collection: Type.String(),
    geometry: Type.Object({ type: Type.Literal('Polygon'), coordinates: Type.Array(Type.Array(Type.Array(Type.Number()))) }),
    bbox: Type.Array(Type.Number()),
    properties: Type.Object({}, { additionalProperties: true }),
    links: Type.Array(Type.Object({ rel: Type.String(), href: Type.String() }, { additionalProperties: true })),
    assets: Type.Record(Type.String(), Type.Object({ href: Type.String() }, { additionalProperties: true })),
  },
  { $id: 'StacItem', description: 'STAC 1.0.0 Item with the projection and raster extensions', additionalProperties: true },
);

const GroupParams = Type.Object({
  job_id: Type.String({ description: 'Job identifier (a UUID)' }),
  group: Type.Union(DAILY_GROUPS.map((g) => Type.Literal(g)), { description: 'daily-global or daily-hours' }),
});

const FileParams = Type.Object({
  job_id: Type.String({ description: 'Job identifier (a UUID)' }),
  '*': Type.String({ description: 'Path of the file in the output tree, e.g. global/monthly/total_sun_jun_sum.tif' }),
});

const errors = { 400: ErrorDetail, 404: ErrorDetail, 416: ErrorDetail, 422: ErrorDetail };

export interface StacRoutesDeps {
  readonly store: JobStore;
  readonly paths: JobPaths;
  readonly catalogue: StacCatalogue;
}

export default async function stacRoutes(app: FastifyInstance, { store, paths, catalogue }: StacRoutesDeps) {
  /** The job's output files, when the job completed and its results are still there. */
  const completedFiles = async (id: string): Promise<{ job: JobRecord; files: ListedFile[] }> => {
    const job = store.get(id) ?? notFound('Job not found');
    if (job.status !== 'completed') badRequest('Job not completed');
    const files = await catalogue.jobFiles(job);
    if (files.length === 0) notFound('Results not found');
    return { job, files };
  };

  const stacOf = async (request: FastifyRequest, id: string) => {
    const { job, files } = await completedFiles(id);
    const urls = catalogueUrls(`${request.protocol}://${request.host}${app.prefix}`);
    return (await catalogue.jobStac(job, urls, files)) ?? notFound('Results not found');
  };

  app.get(
    '/jobs/:job_id/stac',
    {
      schema: {
        summary: 'STAC Item of a completed job',
        description:
          'STAC 1.0.0 Item (projection v1.1.0 and raster v1.1.0 extensions): footprint in WGS 84, datetime of the run (and the ' +
          'climate years of eemt jobs), one asset per summary product (Cloud Optimized GeoTIFF); the daily maps are in the related ' +
          'Items (also at …/stac/daily-global and …/stac/daily-hours). The same Item as the STAC catalogue serves at ' +
          '/api/stac/collections/{workflow_type}/items/{job_id} (its links point there); the results ZIP holds it with relative links.',
        tags: ['jobs'],
        params: JobIdParams,
        produces: [STAC_ITEM_MEDIA_TYPE],
        response: { 200: StacItemSchema, ...errors },
      },
    },
    async (request, reply) => {
      const stac = await stacOf(request, (request.params as { job_id: string }).job_id);
      return reply.type(STAC_ITEM_MEDIA_TYPE).send(stac.job);
    },
  );

  app.get(
    '/jobs/:job_id/stac/:group',
    {
      schema: {
        summary: 'STAC Item of the daily maps of a completed job (365 assets)',
        tags: ['jobs'],
        params: GroupParams,
        produces: [STAC_ITEM_MEDIA_TYPE],
        response: { 200: StacItemSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { job_id: id, group } = request.params as { job_id: string; group: DailyGroup };
      const item = (await stacOf(request, id)).groups[group] ?? notFound(`The job has no ${group} maps`);
      return reply.type(STAC_ITEM_MEDIA_TYPE).send(item);
    },
  );

  app.get(
    '/jobs/:job_id/files/*',
    {
      schema: {
        summary: 'One output file of a completed job (HTTP range requests supported)',
        description:
          'A single byte range (Range: bytes=a-b, a-, -n) is answered with 206, one outside the file with 416 (Content-Range: bytes */size); ' +
          'an invalid or multiple range is ignored (200). ETag and Last-Modified validate If-None-Match / If-Modified-Since (304) and ' +
          'If-Range. GeoTIFFs are Cloud Optimized.',
        tags: ['jobs'],
        params: FileParams,
        produces: [COG_MEDIA_TYPE, 'text/plain', 'application/octet-stream'],
        response: { 200: Type.String({ format: 'binary' }), 206: Type.String({ format: 'binary' }), 304: NOT_MODIFIED_RESPONSE, ...errors },
      },
    },
    async (request, reply) => {
      const { job_id: id, '*': rel } = request.params as { job_id: string; '*': string };
      const { job, files } = await completedFiles(id);
      const file = files.find((f) => f.rel === rel) ?? notFound(`File not found: ${echoed(rel)}`);
      const size = file.stats.size;
      const type = rel.endsWith('.tif') ? COG_MEDIA_TYPE : rel.endsWith('.txt') ? 'text/plain; charset=utf-8' : 'application/octet-stream';
      reply.type(type).header('Accept-Ranges', 'bytes');
      const validators = fileValidators(file.stats);
      if (answerNotModified(request, reply, validators)) return reply.code(304).send();
      const range = byteRange(request, reply, size, validators);
      const { handle } = await openRegularFile(`${paths.outputDir(job.id)}/${file.rel}`, file.stats);
      if (range === null) {
        return reply.header('Content-Length', size).send(handle.createReadStream());
      }
      return reply
        .code(206)
        .header('Content-Range', `bytes ${range.start}-${range.end}/${size}`)
        .header('Content-Length', range.end - range.start + 1)
        .send(handle.createReadStream({ start: range.start, end: range.end }));
    },
  );
}
