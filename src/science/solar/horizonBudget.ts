/**
 * How many far-field directions N and near-field steps n a DEM needs (the horizon error budget).
 * Placeholder: today's fixed layout until the budget is derived.
 */
import type { TerrainModel } from './terrainModel.js';
import type { HorizonLayout } from './tileHorizons.js';

export function horizonLayoutFor(model: TerrainModel): HorizonLayout {
  void model;
  return { directions: 32, nearSectors: 128, nearSteps: 16 };
}
