/** EEMT science: per-quantity scalar functions (pvlib style) and grid kernels. @see eemt-model.md */
export * from './constants.js';
export * from './atmosphere.js';
export * from './daylength.js';
export * from './trad.js';
export * from './topo.js';
export * from './kernels.js';
