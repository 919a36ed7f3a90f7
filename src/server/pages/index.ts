/**
 * Browser pages: the web interface at `/` (submit and follow a job) and the job monitor at `/monitor`, with their
 * stylesheet and scripts under `/assets/`. HTML, CSS and icons are in the top-level `public/` folder; the scripts
 * are written in TypeScript (`web/`) and bundled by `npm run build` into `dist/web/` (scripts/build-web.mjs). The
 * pages talk to the service only through its HTTP API. `main.ts` registers this plugin through
 * `createService(config, { plugins: [pages] })`; tests register it the same way.
 *
 * Both folders are found relative to this module: `src/server/pages/` and `dist/server/pages/` are both three levels
 * below the project root, so the same paths work when running the TypeScript sources and the built `dist/`.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { fillParameterFields } from './parameterFields.js';

const PUBLIC_DIR = fileURLToPath(new URL('../../../public/', import.meta.url));
/** The bundled page scripts (`npm run build`). */
const SCRIPTS_DIR = fileURLToPath(new URL('../../../dist/web/', import.meta.url));
const PAGE_SCRIPTS = ['submit.js', 'monitor.js'];

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * Headers of every page: the pages load nothing from elsewhere and run no inline script, so a strict content
 * security policy is a second line of defence behind escaping of server-provided strings (file names are user input).
 */
const PAGE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

interface StaticFile {
  readonly body: Buffer;
  readonly type: string;
  readonly etag: string;
}

function load(path: string, transform?: (text: string) => string): StaticFile {
  const body = transform ? Buffer.from(transform(readFileSync(path, 'utf8'))) : readFileSync(path);
  const type = CONTENT_TYPES[extname(path)];
  if (!type) throw new Error(`pages: no content type for ${path}`);
  return { body, type, etag: `"${createHash('sha1').update(body).digest('base64url').slice(0, 20)}"` };
}

/** Sends a file; `no-cache` means the browser revalidates with the ETag, so a new version is seen at once. */
function send(file: StaticFile, ifNoneMatch: string | undefined, reply: FastifyReply, headers: Record<string, string> = {}) {
  reply.headers({ ...headers, 'Cache-Control': 'no-cache', ETag: file.etag });
  if (ifNoneMatch === file.etag) return reply.code(304).send();
  return reply.type(file.type).send(file.body);
}

export default async function pages(app: FastifyInstance): Promise<void> {
  // Loaded once: the set of assets is fixed, so no request path ever reaches the file system.
  const pagesByRoute: Record<string, StaticFile> = {
    '/': load(join(PUBLIC_DIR, 'index.html'), fillParameterFields),
    '/monitor': load(join(PUBLIC_DIR, 'monitor.html')),
  };
  const assetDir = join(PUBLIC_DIR, 'assets');
  const assets = new Map<string, StaticFile>();
  for (const name of readdirSync(assetDir)) {
    if (CONTENT_TYPES[extname(name)]) assets.set(name, load(join(assetDir, name)));
  }
  for (const name of PAGE_SCRIPTS) {
    if (!existsSync(join(SCRIPTS_DIR, name))) throw new Error(`pages: ${join(SCRIPTS_DIR, name)} is missing; build the page scripts with npm run build`);
    assets.set(name, load(join(SCRIPTS_DIR, name)));
  }

  for (const [route, file] of Object.entries(pagesByRoute)) {
    app.get(route, { schema: { hide: true } }, async (request, reply) =>
      send(file, request.headers['if-none-match'], reply, PAGE_HEADERS),
    );
  }
  app.get('/monitor/', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/monitor'));
  app.get<{ Params: { name: string } }>('/assets/:name', { schema: { hide: true } }, async (request, reply) => {
    const file = assets.get(request.params.name);
    if (!file) return reply.code(404).type('application/json').send({ detail: 'Not found' });
    return send(file, request.headers['if-none-match'], reply, { 'X-Content-Type-Options': 'nosniff' });
  });
  app.get('/favicon.ico', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/assets/favicon.svg'));
}
