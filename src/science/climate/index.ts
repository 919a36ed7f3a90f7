/** Pure climate science for the EEMT model: Daymet calendar, monthly aggregation, downscaling (eemt-model.md §3). */
export * from './calendar.js';
export * from './monthlyAggregation.js';
export * from './lapseRate.js';
export * from './downscale.js';
