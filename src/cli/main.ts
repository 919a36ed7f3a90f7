#!/usr/bin/env node
/** Entry point of the `eemt` command (bin/eemt.js loads this module). */
import { startSolWorkersEarly } from './earlyWorkers.js';

// the workers of `sol` start loading before the rest of the command does
startSolWorkersEarly(process.argv);
const { main } = await import('./program.js');
process.exitCode = await main(process.argv);
