/**
 * `farHorizon` (farHorizon.ts) compiled to WebAssembly (assembly/farRay.ts, in build/wasm/farSweep.wasm): the same
 * tangent and step to the bit (test/science/solar/farHorizonWasm.test.ts). The horizon budget traces its few thousand
 * rays with it on small DEMs (horizonBudget.ts), whose elevations and maximum pyramid it copies into the module's
 * memory: a third more than the DEM, so only up to COMPILED_RAY_MAX_CELLS cells; larger DEMs keep the JavaScript
 * rays, whose share of such a run is negligible.
 */
import { Arena, PAGE_BYTES, instantiateKernel } from '../../util/wasmModules.js';
import { FAR_SWEEP_DESCRIPTOR_FIELDS } from './sweptHorizonWasm.js';
import { MAX_STEPS, type FarHorizon } from './farHorizon.js';
import { EARTH_RADIUS_M } from './horizon.js';
import type { TerrainModel } from './terrainModel.js';

/** DEMs up to this many cells get compiled rays (a copy of 5.3 MB at most). */
export const COMPILED_RAY_MAX_CELLS = 1_000_000;

/** A far-horizon ray tracer: `farHorizon`'s signature without the model (its own). */
export type FarRayTracer = (row: number, col: number, colPerStep: number, northPerStep: number, firstStep: number, out: FarHorizon) => FarHorizon;

/**
 * The compiled rays over a copy of `model` (`farHorizon(model, …)`, to the bit), or null when the DEM is larger than
 * COMPILED_RAY_MAX_CELLS or the module cannot be loaded (not built).
 */
export function compiledFarRays(model: TerrainModel): FarRayTracer | null {
  const { width, height, elevation, pyramid } = model;
  if (width * height > COMPILED_RAY_MAX_CELLS) return null;
  try {
    const layout = (arena: Arena) => ({
      elevation: arena.take(Float32Array, elevation.length),
      levels: pyramid.map((level) => arena.take(Float32Array, level.length)),
      table: arena.take(Int32Array, Math.max(1, pyramid.length)),
    });
    const counting = new Arena(null);
    layout(counting);
    const memory = new WebAssembly.Memory({ initial: Math.ceil((counting.used + 16) / PAGE_BYTES) });
    const exports = instantiateKernel('farSweep', memory, FAR_SWEEP_DESCRIPTOR_FIELDS).exports as unknown as {
      setRayTerrain(elevation: number, width: number, height: number, levelTable: number, levels: number, zMaxM: number, earthRadiusM: number, maxSteps: number): void;
      farHorizonRay(row: number, col: number, colPerStep: number, northPerStep: number, firstStep: number, dx: number, dy: number): number;
      farRayStep(): number;
    };
    const views = layout(new Arena(memory.buffer));
    views.elevation.set(elevation);
    pyramid.forEach((level, k) => {
      views.levels[k]!.set(level);
      views.table[k] = views.levels[k]!.byteOffset;
    });
    exports.setRayTerrain(views.elevation.byteOffset, width, height, views.table.byteOffset, pyramid.length, model.zMaxM, EARTH_RADIUS_M, MAX_STEPS);
    const { cellSizeX, cellSizeY } = model;
    return (row, col, colPerStep, northPerStep, firstStep, out) => {
      out.tangent = exports.farHorizonRay(row, col, colPerStep, northPerStep, firstStep, cellSizeX[row]!, cellSizeY[row]!);
      out.step = exports.farRayStep();
      return out;
    };
  } catch {
    return null;
  }
}
