import { buildTerrainModel, type TerrainModel } from '../../src/science/solar/terrainModel.js';

/** Terrain model from a function of (x east, y north) in metres at cell centres, row 0 north. */
export function terrain(width: number, height: number, dx: number, dy: number, f: (x: number, y: number) => number): TerrainModel {
  const z = new Float32Array(width * height);
  for (let r = 0; r < height; r++) for (let c = 0; c < width; c++) z[r * width + c] = f(c * dx, (height - 1 - r) * dy);
  return buildTerrainModel(z, width, height, new Float64Array(height).fill(dx), new Float64Array(height).fill(dy));
}

/** A pseudo-random generator (deterministic). */
export function random(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}
