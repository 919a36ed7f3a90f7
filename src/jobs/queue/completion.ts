/** The last step of every job, on either queue: 90–100, check that the outputs are there, then complete. */
import { rm } from 'node:fs/promises';
import type { JobPaths } from '../store/paths.js';
import { resultFiles } from '../catalogue/results.js';
import type { JobStore } from '../store/store.js';

export async function collectResults(store: JobStore, paths: JobPaths, id: string, write: (line: string) => void): Promise<void> {
  store.setProgress(id, 90, 'collecting results');
  const files = await resultFiles(paths.outputDir(id));
  if (files.length === 0) {
    store.fail(id, 'The workflow finished without producing any output');
    return;
  }
  write(`${files.length} result files`);
  store.setProgress(id, 95, 'cleaning up');
  await rm(paths.tempDir(id), { recursive: true, force: true }).catch(() => undefined);
  if (store.complete(id)) write('completed');
}
