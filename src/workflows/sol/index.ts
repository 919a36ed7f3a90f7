export { runSolWorkflow, runSolarAssembly, computeSolarYear, type SolarYearOptions, type SolarYearResult } from './pipeline.js';
export * from './products.js';
export { DaySpecError, parseDaySpec } from './days.js';
export { MAX_REQUESTED_TILE_SIZE, checkTileSize } from './plan.js';
