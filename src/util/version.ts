/** The package's version (package.json), for `eemt --version`, /health and the OpenAPI document. */
import { readFileSync } from 'node:fs';

// src/util/ and dist/util/ are both two levels below the package root.
export const PACKAGE_VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
