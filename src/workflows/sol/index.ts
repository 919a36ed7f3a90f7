export { runSolWorkflow, runSolarAssembly } from './pipeline.js';
export * from '../solarYear/products.js';
export { DaySpecError, parseDaySpec } from '../solarYear/days.js';
export { MAX_REQUESTED_TILE_SIZE, checkTileSize } from '../solarYear/tilePlan.js';
