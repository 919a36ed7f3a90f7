/**
 * API documentation, all served from local packages (no CDN): Swagger UI at /docs, ReDoc at /redoc and the
 * OpenAPI document at /openapi.json, generated from the route schemas.
 */
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const REDOC_BUNDLE = require.resolve('redoc/bundles/redoc.standalone.js');

const REDOC_PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>EEMT service API (ReDoc)</title>
  <style>body { margin: 0; padding: 0; }</style>
</head>
<body>
  <div id="redoc-container"></div>
  <script src="/redoc/redoc.standalone.js"></script>
  <script>
    Redoc.init('/openapi.json', { hideDownloadButton: false, expandResponses: '200' }, document.getElementById('redoc-container'));
  </script>
</body>
</html>
`;

export default async function docsRoutes(app: FastifyInstance) {
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true },
    staticCSP: true,
  });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  app.get('/redoc', { schema: { hide: true } }, async (_request, reply) => reply.type('text/html; charset=utf-8').send(REDOC_PAGE));

  app.get('/redoc/redoc.standalone.js', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('application/javascript; charset=utf-8').header('Cache-Control', 'public, max-age=86400').send(createReadStream(REDOC_BUNDLE)),
  );
}
