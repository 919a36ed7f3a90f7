/**
 * The one place the job layer reaches the workflow pipelines: which workflow types can run here, and
 * `runWorkflow(type, run)` dispatching to them.
 */
import type { WorkflowResult, WorkflowRun, WorkflowType } from './types.js';

export type { WorkflowParams, WorkflowResult, WorkflowRun, WorkflowType, ProgressUpdate } from './types.js';

export const WORKFLOW_TYPES: readonly WorkflowType[] = ['sol', 'eemt'];

/** Why a known workflow type cannot run in this build, or null when it can. */
export function workflowUnavailableReason(type: WorkflowType): string | null {
  switch (type) {
    case 'sol':
      return null;
    case 'eemt':
      return "Workflow type 'eemt' is not available yet in this version of the service; use 'sol'";
  }
}

/** Thrown when a workflow type is known but its pipeline is not part of this build. */
export class WorkflowUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkflowUnavailableError';
  }
}

/** Runs the workflow `type` to completion (see `WorkflowRun` for progress and cancellation). */
export async function runWorkflow(type: WorkflowType, run: WorkflowRun): Promise<WorkflowResult> {
  const reason = workflowUnavailableReason(type);
  if (reason) throw new WorkflowUnavailableError(reason);
  switch (type) {
    case 'sol': {
      // Loaded on first use: the service process never needs the pipeline, only the job child does.
      const { runSolWorkflow } = await import('./sol/index.js');
      return runSolWorkflow(run);
    }
    case 'eemt':
      throw new WorkflowUnavailableError(reason ?? 'eemt workflow unavailable');
  }
}
