export { runEemtWorkflow, runEemtSolarPhase, DEFAULT_EEMT_CACHE_DIR, type EemtWorkflowRun, type EemtWorkflowResult } from './pipeline.js';
export { checkEemtJobInputs, eemtYearRange, type EemtInputCheckOptions, type EemtJobInputs } from './jobInputs.js';
export { EEMT_PHASES, EEMT_PHASE_LABELS, eemtPhaseWeights, eemtSolarShare, type EemtPhase } from './progress.js';
export type { ClimateDownloadSettings } from './climatePhase.js';
export type { EemtDiagnostics, ValueSummary } from './diagnostics.js';
export * from './products.js';
