/**
 * proj4, loaded as the CommonJS module its package's `main` is. Imported as ES module, Node first scans its
 * 317 KB UMD bundle for named exports (cjs-module-lexer): about 250 ms of every process's start that reads a
 * DEM, where `require` takes about 50 ms. Every module imports proj4 from here. The `eemt` command's bundle has
 * proj4 bundled in place of this require() (scripts/build-cli.mjs), compiled from its code cache.
 */
import { createRequire } from 'node:module';
import type proj4Module from 'proj4';

const require = createRequire(import.meta.url);

const proj4 = require('proj4') as typeof proj4Module;
export default proj4;
