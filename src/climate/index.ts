/** Climate inputs of the eemt workflow: Daymet download, cache, grid mapping and downscaling (I/O side). */
export * from './errors.js';
export * from './daymetSettings.js';
export * from './daymetGrid.js';
export * from './daymetCsv.js';
export * from './daymetCache.js';
export * from './daymetClient.js';
export * from './daymetForDem.js';
