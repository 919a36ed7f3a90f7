/**
 * System tools that some tests need: GDAL's command-line tools (with its Python bindings and COG validator, python3-gdal), bubblewrap, Chromium, curl, unzip, redis-server, Debian's Python client libraries, and iproute2 run
 * as root for network namespaces. Locally, a test whose tool is missing is skipped with a one-line reason. `.ci/run` installs
 * every tool and sets EEMT_TEST_REQUIRE_TOOLS=1: then a missing tool fails the run instead, so CI skips nothing.
 *
 * A test file that needs a tool throughout says so on its first line, `// Needs: gdal, bwrap`, and the test runner
 * (scripts/run-tests.mjs) skips the whole file; a file that needs a tool for some tests only passes
 * `{ skip: skipUnless('gdal') }` to those.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { join } from 'node:path';

export type SystemTool = 'gdal' | 'bwrap' | 'chromium' | 'netns' | 'curl' | 'unzip' | 'redis' | 'python-clients';

export const CHROMIUM_PATH = '/usr/bin/chromium';
/** Debian's Python, with the client libraries of docs/python.md (python3-owslib, python3-requests, python3-rasterio). */
export const DEBIAN_PYTHON = '/usr/bin/python3';
/** GDAL's Cloud Optimized GeoTIFF validator, from Debian's python3-gdal (part of the 'gdal' tool here). */
export const COG_VALIDATOR = '/usr/lib/python3/dist-packages/osgeo_utils/samples/validate_cloud_optimized_geotiff.py';

function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(':').some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Why the tool is unusable here, or null when it is usable. */
function problem(tool: SystemTool): string | null {
  switch (tool) {
    case 'gdal':
      if (!onPath('gdalinfo') || !onPath('gdal_translate')) return 'GDAL command-line tools (gdal-bin) not installed';
      return existsSync(COG_VALIDATOR) ? null : `GDAL's COG validator (python3-gdal) not installed (${COG_VALIDATOR})`;
    case 'bwrap':
      return onPath('bwrap') ? null : 'bubblewrap not installed';
    case 'chromium':
      return existsSync(CHROMIUM_PATH) ? null : `chromium not installed (${CHROMIUM_PATH})`;
    case 'curl':
    case 'unzip':
      return onPath(tool) ? null : `${tool} not installed`;
    case 'redis':
      return onPath('redis-server') ? null : 'redis-server not installed';
    case 'python-clients': {
      if (!existsSync(DEBIAN_PYTHON)) return `Debian's Python (${DEBIAN_PYTHON}) not installed`;
      const check = spawnSync(DEBIAN_PYTHON, ['-c', 'import owslib, requests, rasterio'], { encoding: 'utf8' });
      return check.status === 0 ? null : 'python3-owslib, python3-requests or python3-rasterio not installed';
    }
    case 'netns':
      if (!onPath('ip')) return 'iproute2 (ip) not installed';
      return process.getuid?.() === 0 ? null : 'network namespaces need root';
  }
}

export const SYSTEM_TOOLS: readonly SystemTool[] = ['gdal', 'bwrap', 'chromium', 'netns', 'curl', 'unzip', 'redis', 'python-clients'];

/** What is missing of `tools` here, one reason each (empty when everything is there). */
export function missingTools(tools: readonly SystemTool[]): string[] {
  return tools.map(problem).filter((p): p is string => p !== null);
}

/**
 * The `skip` option of a test that needs `tools`: false when they are all there, else a one-line reason.
 * With EEMT_TEST_REQUIRE_TOOLS=1 (CI) a missing tool throws instead.
 */
export function skipUnless(...tools: SystemTool[]): string | false {
  const problems = missingTools(tools);
  if (problems.length === 0) return false;
  const reason = `skipped: ${problems.join('; ')}`;
  if (process.env.EEMT_TEST_REQUIRE_TOOLS === '1') throw new Error(`${reason} — CI installs every tool and must not skip tests`);
  return reason;
}
