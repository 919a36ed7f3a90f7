export { runSolWorkflow, runSolarAssembly } from './pipeline.js';
export * from './products.js';
export { DaySpecError, parseDaySpec } from './days.js';
export { MAX_REQUESTED_TILE_SIZE, checkTileSize } from './plan.js';
