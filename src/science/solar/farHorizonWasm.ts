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

/** horizonBudget.ts's lattice of rays, compiled: the rays that can hide a sun, those set beyond each near-step choice, and the cells' slopes. */
export interface BudgetLatticeCounts {
  readonly rays: number;
  /** Per near-step choice (in the order asked for), the rays whose horizon is set beyond that many steps. */
  readonly beyond: number[];
  /** The central slopes of the lattice's cells, in lattice order (NaN left out). */
  readonly slopes: number[];
}

/** The compiled rays of a model: one ray (`FarRayTracer`), and the horizon budget's whole lattice of them. */
export interface CompiledFarRays {
  /** One ray (the budget takes the lattice; the tests hold each ray to `farHorizon`, tangent and step, to the bit). */
  readonly trace: FarRayTracer;
  lattice(lattice: number, azimuths: number, nearSteps: readonly number[]): BudgetLatticeCounts;
}

/** Largest lattice side and near-step choices `CompiledFarRays.lattice` takes (the budget's are 24 and 5). */
const MAX_LATTICE = 64;
const MAX_NEAR_CHOICES = 16;

/**
 * The compiled rays over a copy of `model` (`farHorizon(model, …)`, to the bit), or null when the DEM is larger than
 * COMPILED_RAY_MAX_CELLS or the module cannot be loaded (not built).
 */
export function compiledFarRays(model: TerrainModel): CompiledFarRays | null {
  const { width, height, elevation, pyramid, cellSizeX, cellSizeY } = model;
  if (width * height > COMPILED_RAY_MAX_CELLS) return null;
  try {
    const layout = (arena: Arena) => ({
      elevation: arena.take(Float32Array, elevation.length),
      levels: pyramid.map((level) => arena.take(Float32Array, level.length)),
      table: arena.take(Int32Array, Math.max(1, pyramid.length)),
      cellSizeX: arena.take(Float64Array, height),
      cellSizeY: arena.take(Float64Array, height),
      nearSteps: arena.take(Int32Array, MAX_NEAR_CHOICES),
      beyond: arena.take(Int32Array, MAX_NEAR_CHOICES),
      slopes: arena.take(Float64Array, MAX_LATTICE * MAX_LATTICE),
    });
    const counting = new Arena(null);
    layout(counting);
    const memory = new WebAssembly.Memory({ initial: Math.ceil((counting.used + 16) / PAGE_BYTES) });
    const exports = instantiateKernel('farSweep', memory, FAR_SWEEP_DESCRIPTOR_FIELDS).exports as unknown as {
      setRayTerrain(elevation: number, width: number, height: number, levelTable: number, levels: number, zMaxM: number, earthRadiusM: number, maxSteps: number): void;
      farHorizonRay(row: number, col: number, colPerStep: number, northPerStep: number, firstStep: number, dx: number, dy: number): number;
      farRayStep(): number;
      budgetLattice(lattice: number, azimuths: number, cellSizeX: number, cellSizeY: number, nearSteps: number, choices: number, beyond: number, slopes: number): number;
      budgetLatticeSlopes(): number;
    };
    const views = layout(new Arena(memory.buffer));
    views.elevation.set(elevation);
    pyramid.forEach((level, k) => {
      views.levels[k]!.set(level);
      views.table[k] = views.levels[k]!.byteOffset;
    });
    views.cellSizeX.set(cellSizeX);
    views.cellSizeY.set(cellSizeY);
    exports.setRayTerrain(views.elevation.byteOffset, width, height, views.table.byteOffset, pyramid.length, model.zMaxM, EARTH_RADIUS_M, MAX_STEPS);
    return {
      trace: (row, col, colPerStep, northPerStep, firstStep, out) => {
        out.tangent = exports.farHorizonRay(row, col, colPerStep, northPerStep, firstStep, cellSizeX[row]!, cellSizeY[row]!);
        out.step = exports.farRayStep();
        return out;
      },
      lattice: (lattice, azimuths, nearSteps) => {
        if (!Number.isInteger(lattice) || lattice < 1 || lattice > MAX_LATTICE) throw new RangeError(`a lattice of ${lattice} × ${lattice} cells`);
        if (nearSteps.length > MAX_NEAR_CHOICES) throw new RangeError(`${nearSteps.length} near-step choices`);
        views.nearSteps.set(nearSteps);
        const rays = exports.budgetLattice(lattice, azimuths, views.cellSizeX.byteOffset, views.cellSizeY.byteOffset, views.nearSteps.byteOffset, nearSteps.length, views.beyond.byteOffset, views.slopes.byteOffset);
        return { rays, beyond: Array.from(views.beyond.subarray(0, nearSteps.length)), slopes: Array.from(views.slopes.subarray(0, exports.budgetLatticeSlopes())) };
      },
    };
  } catch {
    return null;
  }
}
