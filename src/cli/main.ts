#!/usr/bin/env node
/** Entry point of the `eemt` command (bin/eemt.js loads this module). */
import { main } from './program.js';

process.exitCode = await main(process.argv);
