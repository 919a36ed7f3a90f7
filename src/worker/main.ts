/** Entry point of a worker of the distributed queue: `node dist/worker/main.js` (the same as `eemt worker`). */
import { runWorker } from './run.js';

process.exitCode = await runWorker();
process.exit();
