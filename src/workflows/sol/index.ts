export { runSolWorkflow, computeSolarYear, DEFAULT_HORIZON_DIRECTIONS, type SolarYearOptions, type SolarYearResult } from './pipeline.js';
export * from './products.js';
