/**
 * API documentation, all served from local packages (no CDN): Swagger UI at /docs, ReDoc at /redoc and the
 * OpenAPI document at /openapi.json, generated from the route schemas.
 */
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const REDOC_BUNDLE = require.resolve('redoc/bundles/redoc.standalone.js');

/** The one remote resource of ReDoc's bundle (the "API docs by Redocly" logo), served locally instead. */
const REDOC_REMOTE_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const LOCAL_LOGO_PATH = '/redoc/logo-mini.svg';
const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#32329f"/></svg>';

let redocBundle: Buffer | null = null;
function redocScript(): Buffer {
  redocBundle ??= Buffer.from(readFileSync(REDOC_BUNDLE, 'utf8').split(REDOC_REMOTE_LOGO).join(LOCAL_LOGO_PATH));
  return redocBundle;
}

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

/**
 * Swagger UI's own content security policy (`staticCSP: true`: its scripts' hashes, nothing from elsewhere) without
 * `upgrade-insecure-requests`: the service speaks plain http, and a browser opening `http://<host>:5000/docs` from
 * another machine would otherwise fetch the page's scripts over https and show a blank page.
 */
function withoutUpgradeInsecureRequests(csp: string): string {
  return csp
    .split(';')
    .map((directive) => directive.trim())
    .filter((directive) => directive !== '' && directive.toLowerCase() !== 'upgrade-insecure-requests')
    .join('; ');
}

export default async function docsRoutes(app: FastifyInstance) {
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true },
    staticCSP: true,
    transformStaticCSP: withoutUpgradeInsecureRequests,
  });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  app.get('/redoc', { schema: { hide: true } }, async (_request, reply) => reply.type('text/html; charset=utf-8').send(REDOC_PAGE));

  app.get('/redoc/redoc.standalone.js', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('application/javascript; charset=utf-8').header('Cache-Control', 'public, max-age=86400').send(redocScript()),
  );

  app.get(LOCAL_LOGO_PATH, { schema: { hide: true } }, async (_request, reply) => reply.type('image/svg+xml').send(LOGO_SVG));
}
