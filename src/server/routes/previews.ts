/** Map previews of a completed job: PNG images and their JSON legends (src/jobs/catalogue/previews.ts makes both). */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { JobPreviews } from '../../jobs/catalogue/previews.js';
import type { JobStore } from '../../jobs/store/store.js';
import { notFound } from '../errors.js';
import { ErrorDetail } from '../schemas.js';

const PreviewParams = Type.Object({
  job_id: Type.String({ description: 'Job identifier (a UUID)' }),
  product: Type.String({
    description:
      'annual (sum of the 12 monthly global maps), day-{1..365} (daily global), hours-day-{1..365} (sunshine hours), ' +
      'month-{jan..dec} (monthly global); eemt jobs also eemt-topo-annual, eemt-trad-annual (mean of the annual sums ' +
      'over the climate years), twi, slope',
  }),
});

const PngQuery = Type.Object({
  hillshade: Type.Optional(Type.Union([Type.Literal('0'), Type.Literal('1')], { description: '1: blend a hillshade of the job\'s DEM underneath' })),
});

const NullableNumber = Type.Union([Type.Number(), Type.Null()]);

const PreviewLegendSchema = Type.Object(
  {
    product: Type.String(),
    title: Type.String(),
    unit: Type.String({ description: 'Unit of the values, as in the product tables (e.g. Wh m-2 day-1)' }),
    min: Type.Union([Type.Number(), Type.Null()], { description: 'Minimum over the valid cells of the full-resolution map; null when none is valid' }),
    max: NullableNumber,
    mean: NullableNumber,
    valid_cells: Type.Integer({ description: 'Valid (not nodata) cells of the full-resolution map' }),
    width: Type.Integer({ description: 'Width of the preview PNG [px] (longest side at most 1024)' }),
    height: Type.Integer({ description: 'Height of the preview PNG [px]' }),
    map_width: Type.Integer({ description: 'Width of the full-resolution map [cells]' }),
    map_height: Type.Integer({ description: 'Height of the full-resolution map [cells]' }),
    stops: Type.Array(Type.Object({ value: Type.Number(), color: Type.String({ description: '#rrggbb' }) }), {
      description: 'Colour stops of the viridis scale from min to max (empty when no cell is valid)',
    }),
    png: Type.String({ description: 'Path of the PNG' }),
  },
  { $id: 'PreviewLegend' },
);

export interface PreviewRoutesDeps {
  readonly store: JobStore;
  readonly previews: JobPreviews;
}

export default async function previewRoutes(app: FastifyInstance, { store, previews }: PreviewRoutesDeps) {
  const errors = { 400: ErrorDetail, 404: ErrorDetail, 422: ErrorDetail };

  app.get(
    '/jobs/:job_id/preview/:product.png',
    {
      schema: {
        summary: 'Preview image of a map of a completed job (PNG)',
        description: 'Viridis colour scale between the map\'s minimum and maximum, nodata transparent, longest side at most 1024 px; cached.',
        tags: ['previews'],
        params: PreviewParams,
        querystring: PngQuery,
        produces: ['image/png'],
        response: { 200: Type.String({ format: 'binary', description: 'image/png' }), ...errors },
      },
    },
    async (request, reply) => {
      const { job_id: id, product } = request.params as { job_id: string; product: string };
      const job = store.get(id) ?? notFound('Job not found');
      const png = await previews.png(job, product, (request.query as { hillshade?: string }).hillshade === '1');
      return reply.type('image/png').header('Cache-Control', 'private, max-age=3600').send(png);
    },
  );

  app.get(
    '/jobs/:job_id/preview/:product.json',
    {
      schema: {
        summary: 'Legend of a map preview: unit, statistics of the full-resolution map, colour stops',
        tags: ['previews'],
        params: PreviewParams,
        response: { 200: PreviewLegendSchema, ...errors },
      },
    },
    async (request) => {
      const { job_id: id, product } = request.params as { job_id: string; product: string };
      const job = store.get(id) ?? notFound('Job not found');
      const legend = await previews.legend(job, product);
      return { ...legend, valid_cells: legend.validCells, png: `${request.url.split('?')[0]!.replace(/\.json$/, '.png')}` };
    },
  );
}
