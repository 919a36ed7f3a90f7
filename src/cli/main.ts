#!/usr/bin/env node
/** Entry point of the `eemt` command (bin/eemt.js loads this module). */
import { startSolWorkersEarly } from './earlyWorkers.js';

// the workers of `sol` start loading before the rest of the command does
// (a promise chain rather than top-level awaits: the command's bundle is a CommonJS module, scripts/build-cli.mjs)
void startSolWorkersEarly(process.argv)
  .then(() => import('./program.js'))
  .then(({ main }) => main(process.argv))
  .then((code) => {
    process.exitCode = code;
  });
