/**
 * The one place the job layer reaches the workflow pipelines: which workflow types can run here, and
 * `runWorkflow(type, run)` dispatching to them.
 */
import type { ClimateSource } from '../climate/climateOnDem.js';
import type { GridSpec } from '../raster/types.js';
import { WorkflowInputError } from './failures.js';
import { DEFAULT_NUMERIC_VALUES } from './parameters/contract.js';
import { WHOLE_RUN, type WorkflowResult, type WorkflowRun, type WorkflowType } from './types.js';

export type { RunMode, WorkflowParams, WorkflowResult, WorkflowRun, WorkflowType, ProgressUpdate } from './types.js';

export const WORKFLOW_TYPES: readonly WorkflowType[] = ['sol', 'eemt'];

export { WorkflowInputError, diskFullCodeOf, explainedByMessage } from './failures.js';

/**
 * Checks what a workflow can check cheaply before a job is accepted, so a job never fails for it after
 * hours of work: for eemt, that the DEM lies inside Daymet's coverage and needs no more climate points
 * than allowed — unless the job brings its own climate grids (`hasClimateFile`, checked separately; their
 * `climateSource` must then have the observed radiation when `topo_radiation=realsky`). Throws
 * WorkflowInputError with a message for the user. Returns the Daymet cells an eemt job will use, else null.
 * @param dem the DEM's path, or its grid (as the submission check reports it, so the service never reads the DEM)
 */
export async function checkWorkflowInputs(
  type: WorkflowType,
  dem: string | GridSpec,
  params: WorkflowRun['params'],
  options: { readonly hasClimateFile?: boolean; readonly climateSource?: ClimateSource | null } = {},
): Promise<ClimateSource | null> {
  if (type !== 'eemt') return null;
  const source = options.climateSource;
  if (params.topo_radiation === 'realsky' && source?.type === 'user' && !source.radiation) {
    const { realSkyNeedsRadiation } = await import('./eemt/realSkyPhase.js');
    const { USER_CLIMATE_WITHOUT_RADIATION } = await import('../climate/userClimate.js');
    throw new WorkflowInputError(`climate_file: ${realSkyNeedsRadiation(USER_CLIMATE_WITHOUT_RADIATION)}`);
  }
  if (options.hasClimateFile) return null;
  const { checkEemtJobInputs } = await import('./eemt/index.js');
  const { ClimateCoverageError, daymetCellKey, resolveDaymetBaseUrl } = await import('../climate/index.js');
  try {
    const { coverage } = await checkEemtJobInputs(dem, { start: params.start_year ?? DEFAULT_NUMERIC_VALUES.start_year, end: params.end_year ?? params.start_year ?? DEFAULT_NUMERIC_VALUES.end_year });
    return { type: 'daymet', server: resolveDaymetBaseUrl(), cells: coverage.cells.map(daymetCellKey) };
  } catch (error) {
    if (error instanceof ClimateCoverageError) throw new WorkflowInputError(error.message);
    throw error;
  }
}

/**
 * Runs the workflow `type` to completion in the run's mode (see `WorkflowRun` for progress and cancellation): the one
 * place that picks what a mode runs. The pipelines are loaded on first use: the service process never needs them,
 * only the job child does.
 */
export async function runWorkflow(type: WorkflowType, run: WorkflowRun): Promise<WorkflowResult> {
  const mode = run.mode ?? WHOLE_RUN;
  switch (type) {
    case 'sol': {
      const { runSolarAssembly, runSolWorkflow } = await import('./sol/index.js');
      if (mode.kind === 'assemble') return runSolarAssembly(run, mode);
      if (mode.kind === 'solar-written') throw new RangeError("a sol run has nothing to do after its solar year ('solar-written')");
      return runSolWorkflow({ ...run, mode });
    }
    case 'eemt': {
      const { runEemtSolarPhase, runEemtWorkflow } = await import('./eemt/index.js');
      return mode.kind === 'slice' ? runEemtSolarPhase({ ...run, mode }) : runEemtWorkflow({ ...run, mode });
    }
  }
}
