/** Choosing the job runtime from `EEMT_RUNTIME` (`auto`, `docker`, `bubblewrap` or `process`). */
import { BubblewrapRuntime } from './bubblewrap.js';
import { DockerRuntime } from './docker.js';
import { ProcessRuntime } from './process.js';
import { RuntimeSetupError, type JobRuntime, type RuntimeLimits, type RuntimeName } from './types.js';

export type RuntimeChoice = RuntimeName | 'auto';

export interface RuntimeSelection {
  readonly choice: RuntimeChoice;
  readonly limits: RuntimeLimits;
  readonly image: string;
  readonly hiddenPaths: readonly string[];
  /** The folders holding the jobs' files (uploads, results, scratch, cache), which a sandboxed job must reach. */
  readonly jobFolders?: readonly string[];
  readonly dockerSocketPath?: string;
}

/**
 * The runtime for `choice`. `auto` picks Docker when its engine answers and the image exists, else bubblewrap
 * when a sandbox can be created, else a plain process. An explicit choice is used even when it is unavailable
 * (submissions are then refused with "Container execution failed: <runtime> not available").
 *
 * Throws RuntimeSetupError when bubblewrap, chosen or next in line, can make sandboxes but no job could run in
 * them with this machine's folders (`BubblewrapRuntime.setupProblem`): the operator must fix that first, and
 * `auto` does not fall back to running jobs without a sandbox because of it.
 */
export async function selectRuntime(selection: RuntimeSelection): Promise<{ runtime: JobRuntime; notes: string[] }> {
  const { limits } = selection;
  const docker = () =>
    new DockerRuntime({ limits, image: selection.image, ...(selection.dockerSocketPath ? { socketPath: selection.dockerSocketPath } : {}) });
  const bubblewrap = () =>
    new BubblewrapRuntime({ limits, hiddenPaths: selection.hiddenPaths, ...(selection.jobFolders ? { jobFolders: selection.jobFolders } : {}) });
  switch (selection.choice) {
    case 'docker':
      return { runtime: docker(), notes: [] };
    case 'bubblewrap':
      return { runtime: await withoutSetupProblem(bubblewrap()), notes: [] };
    case 'process':
      return { runtime: new ProcessRuntime({ limits }), notes: [] };
    case 'auto': {
      const notes: string[] = [];
      const d = docker();
      const dockerReason = await d.check();
      if (dockerReason === null) return { runtime: d, notes };
      notes.push(`docker skipped: ${dockerReason}`);
      const b = await withoutSetupProblem(bubblewrap());
      const bwrapReason = await b.check();
      if (bwrapReason === null) return { runtime: b, notes };
      notes.push(`bubblewrap skipped: ${bwrapReason}`);
      return { runtime: new ProcessRuntime({ limits }), notes };
    }
  }
}

/** `runtime`, unless its setup cannot run any job (RuntimeSetupError). */
async function withoutSetupProblem(runtime: JobRuntime): Promise<JobRuntime> {
  const problem = (await runtime.setupProblem?.()) ?? null;
  if (problem) throw new RuntimeSetupError(runtime.name, problem);
  return runtime;
}
