/** Choosing the job runtime from `EEMT_RUNTIME` (`auto`, `docker`, `bubblewrap` or `process`). */
import { BubblewrapRuntime } from './bubblewrap.js';
import { DockerRuntime } from './docker.js';
import { ProcessRuntime } from './process.js';
import type { JobRuntime, RuntimeLimits, RuntimeName } from './types.js';

export type RuntimeChoice = RuntimeName | 'auto';

export interface RuntimeSelection {
  readonly choice: RuntimeChoice;
  readonly limits: RuntimeLimits;
  readonly image: string;
  readonly hiddenPaths: readonly string[];
  readonly dockerSocketPath?: string;
}

/**
 * The runtime for `choice`. `auto` picks Docker when its engine answers and the image exists, else bubblewrap
 * when a sandbox can be created, else a plain process. An explicit choice is used even when it is unavailable
 * (submissions are then refused with "Container execution failed: <runtime> not available").
 */
export async function selectRuntime(selection: RuntimeSelection): Promise<{ runtime: JobRuntime; notes: string[] }> {
  const { limits } = selection;
  const docker = () =>
    new DockerRuntime({ limits, image: selection.image, ...(selection.dockerSocketPath ? { socketPath: selection.dockerSocketPath } : {}) });
  const bubblewrap = () => new BubblewrapRuntime({ limits, hiddenPaths: selection.hiddenPaths });
  switch (selection.choice) {
    case 'docker':
      return { runtime: docker(), notes: [] };
    case 'bubblewrap':
      return { runtime: bubblewrap(), notes: [] };
    case 'process':
      return { runtime: new ProcessRuntime({ limits }), notes: [] };
    case 'auto': {
      const notes: string[] = [];
      const d = docker();
      const dockerReason = await d.check();
      if (dockerReason === null) return { runtime: d, notes };
      notes.push(`docker skipped: ${dockerReason}`);
      const b = bubblewrap();
      const bwrapReason = await b.check();
      if (bwrapReason === null) return { runtime: b, notes };
      notes.push(`bubblewrap skipped: ${bwrapReason}`);
      return { runtime: new ProcessRuntime({ limits }), notes };
    }
  }
}
