/** The contents of a service's data folder that belong to jobs (its lock files left out). */
import { readdirSync } from 'node:fs';
import { FOLDER_LOCK_NAME } from '../../src/jobs/store/serviceLock.js';

export function jobEntries(folder: string): string[] {
  return readdirSync(folder).filter((name) => name !== FOLDER_LOCK_NAME && name !== `${FOLDER_LOCK_NAME}.json`);
}
