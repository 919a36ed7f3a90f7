export { runSolWorkflow, computeSolarYear, type SolarYearOptions, type SolarYearResult } from './pipeline.js';
export * from './products.js';
