/** Shared helpers of the runtime tests: a temp data layout and a launch description for it. */
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildMessage } from '../../src/runtime/protocol.js';
import type { JobHandlers, JobLaunch } from '../../src/runtime/types.js';

export const FIXTURE_DEM = new URL('../fixtures/mcn_10m.tif', import.meta.url);
export const PROBE_CHILD = new URL('./fixtures/probeChild.ts', import.meta.url);

export interface Layout {
  root: string;
  uploads: string;
  results: string;
  temp: string;
  cleanup(): void;
}

/**
 * Data folders in a fresh temp folder: mode 0700 as `mkdtemp` makes it (closed to the job user, as root's home
 * is), or `mode`.
 */
export function makeLayout(mode = 0o700): Layout {
  const root = mkdtempSync(join(tmpdir(), 'eemt-rt-'));
  chmodSync(root, mode);
  const layout = { root, uploads: join(root, 'uploads'), results: join(root, 'results'), temp: join(root, 'temp') };
  for (const dir of [layout.uploads, layout.results, layout.temp]) mkdirSync(dir, { recursive: true });
  return { ...layout, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

export function makeLaunch(layout: Layout, jobId: string, overrides: Partial<JobLaunch> = {}): JobLaunch {
  const demDir = join(layout.uploads, jobId);
  mkdirSync(demDir, { recursive: true });
  const demPath = join(demDir, 'dem.tif');
  copyFileSync(FIXTURE_DEM, demPath);
  const jobDir = join(layout.results, jobId);
  mkdirSync(jobDir, { recursive: true });
  return {
    jobId,
    workflowType: 'sol',
    params: { step: 15, linke_value: 3, albedo_value: 0.2, num_threads: 8 },
    demPath,
    jobDir,
    tempDir: join(layout.temp, jobId),
    cacheDir: null,
    network: false,
    ...overrides,
  };
}

export function collect(): JobHandlers & { messages: ChildMessage[]; logs: string[] } {
  const messages: ChildMessage[] = [];
  const logs: string[] = [];
  return { messages, logs, onMessage: (m) => messages.push(m), onLog: (l) => logs.push(l) };
}
