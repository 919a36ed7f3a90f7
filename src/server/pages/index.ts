/**
 * Browser pages (`/` web interface, `/monitor` job monitor). The pages are added here as routes of this plugin;
 * `main.ts` registers it through `buildApp({ plugins: [...] })`, and tests may register it the same way.
 */
import type { FastifyInstance } from 'fastify';

export default async function pages(_app: FastifyInstance): Promise<void> {
  // The web interface and the job monitor are registered here.
}
