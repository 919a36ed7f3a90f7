/** Climate inputs of the eemt workflow: Daymet download, cache, grid mapping and downscaling (I/O side). */
export * from './errors.js';
export * from './daymetSettings.js';
export * from './daymetGrid.js';
export * from './daymetCsv.js';
export * from './daymetCache.js';
export * from './daymetClient.js';
export * from './daymetForDem.js';
export * from './climateArchive.js';
export * from './climateLayout.js';
export * from './climateOnDem.js';
export * from './gridReprojection.js';
export * from './plausibleValues.js';
export * from './userClimate.js';
export * from './daymetPrefetch.js';
