/**
 * Runs a worker of the distributed queue (`eemt worker`, `node dist/worker/main.js`): settings from the
 * environment (see settings.ts), the job runtime chosen as on the service, then parts until SIGTERM or SIGINT.
 * On a signal the worker kills its parts' children and leaves the parts to the other workers.
 * Exit codes: 0 after a stop; 2 for an invalid setting, or a job runtime that cannot run any part with this
 * machine's folders.
 */
import { JobPaths } from '../jobs/store/paths.js';
import { selectRuntime } from '../runtime/select.js';
import { RuntimeSetupError } from '../runtime/types.js';
import { PartWorker } from './partWorker.js';
import { WorkerSettingsError, workerSettingsFromEnv } from './settings.js';

export async function runWorker(env: Record<string, string | undefined> = process.env): Promise<number> {
  let settings;
  try {
    settings = workerSettingsFromEnv(env);
  } catch (error) {
    if (error instanceof WorkerSettingsError) {
      process.stderr.write(`eemt worker: invalid configuration: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const paths = new JobPaths(settings.dirs);
  let selected;
  try {
    selected = await selectRuntime({
      choice: settings.runtime,
      limits: { cpus: settings.cpuLimit, memoryBytes: settings.memoryBytes, maxDemCells: settings.maxDemCells },
      image: settings.containerImage,
      hiddenPaths: [paths.dirs.uploadDir, paths.dirs.resultsDir, paths.dirs.tempDir],
      jobFolders: Object.values(paths.dirs),
    });
  } catch (error) {
    if (error instanceof RuntimeSetupError) {
      process.stderr.write(`eemt worker: no part could run: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const { runtime, notes } = selected;
  for (const note of notes) process.stderr.write(`eemt worker: ${note}\n`);
  const worker = new PartWorker({ redisUrl: settings.redisUrl, paths, runtime, concurrency: settings.concurrency, lockMs: settings.lockMs });
  await worker.start();
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      process.stderr.write(`eemt worker: ${signal}: stopping; running parts go to the other workers\n`);
      void worker.close(true).finally(resolve);
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  return 0;
}
