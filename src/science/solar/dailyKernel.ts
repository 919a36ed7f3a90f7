/**
 * The fast daily kernel: daily global irradiation and sunshine hours of every cell of a block of cells
 * ("sun tile") that shares one sun geometry. It computes what `dailyIrradiation` computes per cell (a test
 * holds them equal), reorganised for speed:
 *  - per day and tile the sun is sampled once (altitude, azimuth, air mass, horizontal diffuse, the
 *    horizon lookup position and the near-field ray cells), at the tile's centre latitude and convergence;
 *  - per cell and sample only the "is the surface sunlit" test remains: the incidence sign (a dot
 *    product), then, unless the sun is above the cell's highest horizon, the stored far-field horizon and
 *    the exact near-field ray;
 *  - the sums over sunlit samples come from prefix sums over the day's samples, one subtraction per run of
 *    sunlit samples. Sums that depend on the cell's elevation through the air mass are tabulated as
 *    quadratics in δ = p/p₀ − (p/p₀ of the tile centre), fitted through the tile's elevation range;
 *  - the diffuse and reflected sums of shaded samples are per-cell constants times Σ D_h.
 *
 * Units: irradiance W m⁻², irradiation Wh m⁻² day⁻¹, hours h, angles rad.
 *
 * Cost (mcn_10m, step 15 min): per cell and day about 7 groups of samples looked at (9 more skipped around
 * noon), 9 low-sun samples decided one by one, 3.6 of them by the exact test (2 traced over the near field),
 * and one run of prefix sums (26 quantities) — about 0.4 µs on the 2-core development machine. The exact
 * tests, the near-field traces and the combination of the sums dominate.
 * @see docs/solar-model.md §3–§7, Part A; dailyIrradiation.ts (the scalar form)
 */
import {
  beamTransmittance,
  diffuseCoefficients,
  diffuseHorizontal,
  MUNEER_LOW_SUN_ALTITUDE_RAD,
  muneerLowSunDenominator,
  muneerSunlitCoefficient,
  RAYLEIGH_BRANCH_AIR_MASS,
  seaLevelAirMass,
  type ClearSkyParams,
  type DiffuseCoefficients,
} from './clearSky.js';
import { HORIZON_ANGLE_UNIT_RAD, allocateNearFieldRay, nearFieldSteps, rayDirection, type NearFieldRay } from './horizon.js';
import { sampleHours } from './dailyIrradiation.js';
import { extraterrestrialIrradiance, solarDeclination, sunDirection } from './sunPosition.js';
import type { SurfaceTerms } from './surface.js';
import { quadrantOfSigns } from './nearFieldMaxima.js';
import type { TerrainModel } from './terrainModel.js';
import {
  farSectorsPerGroup,
  nearFieldMode,
  tracedSampleLimit,
  type CellBlock,
  type HorizonLayout,
  type NearFieldMode,
  type SectorMasks,
  type TileHorizons,
} from './tileHorizons.js';

/**
 * τ_b(m) tabulated on a fine grid of air mass for one Linke turbidity (linear interpolation error < 1e-6; within a
 * grid step of the Rayleigh thickness's change of formula, where τ_b jumps, the formula itself). The entries are
 * computed when first looked up (NaN until then): a run of few days needs a few hundred of the 24 002.
 */
export interface TransmittanceTable {
  readonly linkeTurbidity: number;
  readonly values: Float64Array;
  readonly stepAirMass: number;
  readonly maxAirMass: number;
}

/** The default range and step of air mass of a transmittance table. */
const TABLE_MAX_AIR_MASS = 48;
const TABLE_STEP_AIR_MASS = 0.002;

/** Entries of a transmittance table over air masses 0 … `maxAirMass` in steps of `stepAirMass`. */
export function transmittanceTableLength(maxAirMass = TABLE_MAX_AIR_MASS, stepAirMass = TABLE_STEP_AIR_MASS): number {
  return Math.ceil(maxAirMass / stepAirMass) + 2;
}

export function transmittanceTable(linkeTurbidity: number, maxAirMass = TABLE_MAX_AIR_MASS, stepAirMass = TABLE_STEP_AIR_MASS): TransmittanceTable {
  return { linkeTurbidity, values: new Float64Array(transmittanceTableLength(maxAirMass, stepAirMass)).fill(NaN), stepAirMass, maxAirMass };
}

/** Entry `i` of `table`: τ_b at air mass i · step, computed at its first look-up. */
function tableEntry(table: TransmittanceTable, i: number): number {
  const value = table.values[i]!;
  if (value === value) return value;
  return (table.values[i] = beamTransmittance(table.linkeTurbidity, i * table.stepAirMass));
}

/** Beam transmittance at air mass m from the table (exact formula beyond its range). */
export function lookupTransmittance(table: TransmittanceTable, airMass: number): number {
  if (airMass >= table.maxAirMass || Math.abs(airMass - RAYLEIGH_BRANCH_AIR_MASS) < table.stepAirMass) return beamTransmittance(table.linkeTurbidity, airMass);
  const position = airMass / table.stepAirMass;
  const i = position | 0;
  const v0 = tableEntry(table, i);
  return v0 + (position - i) * (tableEntry(table, i + 1) - v0);
}

export type { CellBlock, HorizonLayout } from './tileHorizons.js';

/** Where and how a tile sees the sun, and the range of its cells' pressure ratios. */
export interface TileGeometry {
  readonly latitudeRad: number;
  /** Grid bearing of true north [rad], clockwise from grid north: grid azimuth = true azimuth + this. */
  readonly convergenceRad: number;
  /** Cell size of the tile's rows [m] (for the near-field rays). */
  readonly cellSizeXM: number;
  readonly cellSizeYM: number;
  /** Centre and half-range of p/p₀ = exp(−z/8434.5) over the tile's valid cells. */
  readonly pressureRatioCentre: number;
  readonly pressureRatioHalfRange: number;
}

/** What the kernel needs for terrain shadows: the resident model (near-field rays) and the tile's horizons. */
export interface KernelTerrain {
  readonly model: TerrainModel;
  readonly layout: HorizonLayout;
  /** Horizon arrays of the tile being integrated (tile-local, see tileHorizons.ts). */
  readonly horizons: TileHorizons;
}

// Prefix-summed quantities. The first eight depend on τ and are stored as quadratic coefficients in δ.
const TAU_SUN_EAST = 0; // τ · sun_east
const TAU_SUN_NORTH = 1; // τ · sun_north
const TAU_SIN_ALTITUDE = 2; // τ · sin h (B_h / G₀)
const DIFFUSE_ONE_MINUS_TAU = 3; // D_h (1 − τ)
const DIFFUSE_N_ONE_MINUS_TAU = 4; // D_h N(τ) (1 − τ)
const CIRCUMSOLAR_EAST = 5; // D_h τ × (direction term of Muneer's circumsolar part), three components
const CIRCUMSOLAR_NORTH = 6;
const CIRCUMSOLAR_UP = 7;
const TAU_QUANTITIES = 8;
const DIFFUSE_LIT = TAU_QUANTITIES * 3; // D_h
const LIT_COUNT = DIFFUSE_LIT + 1; // 1
const PREFIX_QUANTITIES = LIT_COUNT + 1;

/** The sun samples of one day for one tile, with everything the cell loop needs. Reused across calls. */
export interface DaySamples {
  count: number;
  stepHours: number;
  extraterrestrialWM2: number;
  /** Σ D_h over all samples with the sun up [W m⁻²]. */
  sumDiffuseHorizontal: number;
  pressureRatioCentre: number;
  readonly capacity: number;
  readonly nearCapacity: number;
  readonly sinAltitude: Float64Array;
  /** Altitude in horizon units (HORIZON_ANGLE_UNIT_RAD). */
  readonly altitudeUnits: Float64Array;
  /** Horizontal components of the unit sun vector in the grid frame: cos h · sin(az_grid), cos h · cos(az_grid). */
  readonly sunEast: Float64Array;
  readonly sunNorth: Float64Array;
  /** Near sector of the sun azimuth. */
  readonly nearSector: Int32Array;
  /** Stored far-field directions around the sun azimuth, and the weight of the second. */
  readonly horizonDirection0: Int32Array;
  readonly horizonDirection1: Int32Array;
  readonly horizonWeight: Float64Array;
  /** Near-field ray cells of sample k: entries nearStart[k] … nearStart[k + 1] − 1. */
  readonly nearStart: Int32Array;
  readonly nearOffset: Int32Array;
  readonly nearCol: Int32Array;
  readonly nearRow: Int32Array;
  /** Height above the cell [m] a near-field cell must exceed to hide the sun: (tan h + curvature slope) · d. */
  readonly nearThreshold: Float64Array;
  /**
   * The smallest of the thresholds from entry j to the end of its ray, and the quadrant holding sample k's ray
   * (nearFieldMaxima.ts, −1: none): the compiled kernel ends a trace once the quadrant's highest terrain cannot
   * rise above what is left of the ray (the TypeScript kernel traces the whole ray; the decisions are the same).
   */
  readonly nearMinThreshold: Float64Array;
  readonly nearQuadrant: Int32Array;
  /** Largest |column| and |row| offset of any near-field ray cell (how far from the grid's edge a cell must be to skip bounds checks). */
  nearReachCols: number;
  nearReachRows: number;
  /** Prefix sums, sample-major: quantity q over samples [0, k) at prefix[k · PREFIX_QUANTITIES + q]. */
  readonly prefix: Float64Array;
  /** The sample with the highest sun (altitudes rise up to it and fall after it). */
  peak: number;
  /** Group of each sample. */
  readonly sampleGroup: Int32Array;
  /** Runs of consecutive samples whose sun lies in the same group sector (tileHorizons.ts), with their altitude range (units). */
  groupCount: number;
  readonly groupSector: Int32Array;
  readonly groupStart: Int32Array;
  readonly groupEnd: Int32Array;
  readonly groupMinAltitude: Float64Array;
  readonly groupMaxAltitude: Float64Array;
}

export function sampleCapacity(stepMinutes: number): number {
  return Math.ceil((24 * 60) / stepMinutes) + 2;
}

/** Buffers for up to `capacity` samples a day and `nearSteps` near-field cells per sample. */
export function allocateDaySamples(capacity: number, nearSteps: number): DaySamples {
  const f = (n = capacity) => new Float64Array(n);
  const nearCapacity = capacity * Math.max(1, nearSteps);
  return {
    count: 0,
    stepHours: 0,
    extraterrestrialWM2: 0,
    sumDiffuseHorizontal: 0,
    pressureRatioCentre: 1,
    capacity,
    nearCapacity,
    sinAltitude: f(),
    altitudeUnits: f(),
    sunEast: f(),
    sunNorth: f(),
    nearSector: new Int32Array(capacity),
    horizonDirection0: new Int32Array(capacity),
    horizonDirection1: new Int32Array(capacity),
    horizonWeight: f(),
    nearStart: new Int32Array(capacity + 1),
    nearOffset: new Int32Array(nearCapacity),
    nearCol: new Int32Array(nearCapacity),
    nearRow: new Int32Array(nearCapacity),
    nearThreshold: f(nearCapacity),
    nearMinThreshold: f(nearCapacity),
    nearQuadrant: new Int32Array(capacity),
    nearReachCols: 0,
    nearReachRows: 0,
    prefix: f(PREFIX_QUANTITIES * (capacity + 1)),
    peak: 0,
    sampleGroup: new Int32Array(capacity),
    groupCount: 0,
    groupSector: new Int32Array(capacity),
    groupStart: new Int32Array(capacity),
    groupEnd: new Int32Array(capacity),
    groupMinAltitude: f(),
    groupMaxAltitude: f(),
  };
}

/** Grid azimuth [rad, in [0, 2π)] of a sun direction with east and north components, grid north `convergenceRad` east of true north. */
function gridAzimuth(east: number, north: number, convergenceRad: number): number {
  let azimuth = Math.atan2(east, north) + convergenceRad;
  if (azimuth < 0) azimuth += 2 * Math.PI;
  if (azimuth >= 2 * Math.PI) azimuth -= 2 * Math.PI;
  return azimuth;
}

/** Index of the sector holding grid azimuth `azimuthRad` ∈ [0, 2π) among `sectors` equal sectors from grid north. */
function sectorOf(azimuthRad: number, sectors: number): number {
  return Math.min(Math.floor((azimuthRad / (2 * Math.PI)) * sectors), sectors - 1);
}

/** Fraction of a sector from its boundary within which a sample also marks the sector on the boundary's other side. */
export const SECTOR_BOUNDARY_SLACK = 1e-6;

/**
 * The far sectors (N, sector k between grid azimuths k·2π/N and (k + 1)·2π/N) in which the sun samples of
 * `days` stand for any of `tiles` (the kernel computes its samples' sectors the same way, from the same
 * tile geometry; a sample within rounding of a boundary marks both sides): 1 where a sample falls. The kernel reads horizons only there (tileHorizons.ts, `sectorMasks`). Over a year at 41° N
 * the sun never stands within about 58° of north; on one day it crosses between half and two thirds of the sky.
 */
export function sunSectors(days: readonly number[], tiles: readonly TileGeometry[], stepMinutes: number, directions: number): Uint8Array {
  const sectors = new Uint8Array(directions);
  const stepHours = stepMinutes / 60;
  for (const day of days) {
    const declination = solarDeclination(day);
    for (const tile of tiles) {
      for (const hour of sampleHours(tile.latitudeRad, declination, stepHours)) {
        const sun = sunDirection(tile.latitudeRad, declination, ((hour - 12) * Math.PI) / 12);
        if (sun.up <= 0) continue;
        const azimuth = gridAzimuth(sun.east, sun.north, tile.convergenceRad);
        const k = sectorOf(azimuth, directions);
        sectors[k] = 1;
        // a sample on a sector boundary (within rounding) also marks the sector beyond it: its near sector,
        // found among K = N·m sectors, may round to that side
        const within = (azimuth / (2 * Math.PI)) * directions - k;
        if (within < SECTOR_BOUNDARY_SLACK) sectors[(k + directions - 1) % directions] = 1;
        if (within > 1 - SECTOR_BOUNDARY_SLACK) sectors[(k + 1) % directions] = 1;
      }
    }
  }
  return sectors;
}

/**
 * The number of sun samples (sun above the horizontal) a cell of any of `tiles` takes over `days`: the most
 * over the tiles. It sizes the work of tracing every sample's near-field ray (`nearFieldMode` in tileHorizons.ts).
 * The count stops at the first tile that reaches `enough` (then at least `enough` is returned): a year's tile
 * passes the largest count `nearFieldMode` looks at within its first weeks.
 */
export function sunSampleCount(days: readonly number[], tiles: readonly TileGeometry[], stepMinutes: number, enough = Infinity): number {
  const stepHours = stepMinutes / 60;
  let most = 0;
  for (const tile of tiles) {
    let count = 0;
    for (const day of days) {
      if (count >= enough) return count;
      const declination = solarDeclination(day);
      for (const hour of sampleHours(tile.latitudeRad, declination, stepHours)) {
        if (sunDirection(tile.latitudeRad, declination, ((hour - 12) * Math.PI) / 12).up > 0) count++;
      }
    }
    most = Math.max(most, count);
  }
  return most;
}

/**
 * The cheaper near field (`nearFieldMode`) for cells of `tiles` over `days`, with the sectors of `masks`: their sun
 * samples counted only up to the count from which bounding is cheaper (`tracedSampleLimit`), which a year's tile
 * passes within weeks.
 */
export function nearFieldModeOfDays(
  layout: HorizonLayout,
  masks: SectorMasks | null,
  days: readonly number[],
  tiles: readonly TileGeometry[],
  stepMinutes: number,
): NearFieldMode {
  return nearFieldMode(layout, masks, sunSampleCount(days, tiles, stepMinutes, tracedSampleLimit(layout, masks)));
}

let rayScratch: NearFieldRay = allocateNearFieldRay(0);

/**
 * Writes sample `k`'s near-field ray (the first `cells` cells of `ray`, none without one) into `out` from entry
 * `first`, for a sun of tangent `tanAltitude` on a grid of rows `width` cells apart, with its quadrant and the
 * running minima of its thresholds, and widens `out`'s reach to it; returns the entry after the ray. (Its own
 * function so that the per-cell loops are optimised on their own, early: a run of few days calls
 * `sunSamplesForDay` a few times.)
 */
function appendNearFieldRay(out: DaySamples, k: number, first: number, ray: NearFieldRay | null, cells: number, width: number, tanAltitude: number): number {
  let near = first;
  // the offsets' signs (for the ray's quadrant): bit 0 a column offset < 0, 1 > 0, 2 a row offset < 0, 3 > 0
  let signs = 0;
  let reachCols = out.nearReachCols;
  let reachRows = out.nearReachRows;
  for (let j = 0; j < cells; j++) {
    const colOffset = ray!.colOffset[j]!;
    const rowOffset = ray!.rowOffset[j]!;
    out.nearOffset[near] = rowOffset * width + colOffset;
    out.nearCol[near] = colOffset;
    out.nearRow[near] = rowOffset;
    out.nearThreshold[near] = (tanAltitude + ray!.curvatureSlope[j]!) / ray!.inverseDistance[j]!;
    near++;
    signs |= (colOffset < 0 ? 1 : colOffset > 0 ? 2 : 0) | (rowOffset < 0 ? 4 : rowOffset > 0 ? 8 : 0);
    if (Math.abs(colOffset) > reachCols) reachCols = Math.abs(colOffset);
    if (Math.abs(rowOffset) > reachRows) reachRows = Math.abs(rowOffset);
  }
  out.nearReachCols = reachCols;
  out.nearReachRows = reachRows;
  out.nearQuadrant[k] = quadrantOfSigns(signs);
  for (let j = near - 1, least = Infinity; j >= first; j--) {
    const threshold = out.nearThreshold[j]!;
    if (threshold < least) least = threshold;
    out.nearMinThreshold[j] = least;
  }
  return near;
}

/** Room for a near-field ray of `steps` steps (one array set, reused). */
function nearFieldRay(steps: number): NearFieldRay {
  if (rayScratch.colOffset.length < steps) rayScratch = allocateNearFieldRay(steps);
  return rayScratch;
}

/**
 * Writes the near-field rays of a day's samples into `DaySamples` of its own (the compiled kernel's, in its memory):
 * what `sunSamplesForDay` writes per sample with `nearFieldSteps` and `appendNearFieldRay`, the same entries to the
 * bit (assembly/nearRays.ts; test/science/solar/nearRaysWasm.test.ts).
 */
export interface NearRayWriter {
  /** Room for the samples' inputs: cells per step along columns and north (`rayDirection`) and tan of the altitude of sample k at 3k, 3k + 1 and 3k + 2. */
  readonly rayInputs: Float64Array;
  /** Writes the rays of samples 0 … count − 1 of `out` (one of the writer's) from `rayInputs`: starts, entries, quadrants, reach. */
  writeNearRays(out: DaySamples, count: number, steps: number, cellSizeXM: number, cellSizeYM: number, width: number): void;
  /**
   * Writes what `sunSamplesForDay` writes into `out` (one of the writer's) before its near-field rays, with the rays'
   * inputs into `rayInputs`, the same values to the bit (assembly/sunSamples.ts; test/science/solar/sunSamplesWasm.test.ts),
   * and sets `out.count`, `peak`, `groupCount` and `sumDiffuseHorizontal`; false (nothing written) where it cannot.
   */
  writeSunSamples?(out: DaySamples, day: SunSampleDay, table: TransmittanceTable): boolean;
}

/** What `NearRayWriter.writeSunSamples` needs of a day and a tile, as `sunSamplesForDay` computes it (the turbidity: the table's). */
export interface SunSampleDay {
  readonly tile: TileGeometry;
  readonly declinationRad: number;
  readonly stepHours: number;
  readonly extraterrestrialWM2: number;
  readonly diffuse: DiffuseCoefficients;
  /** The pressure ratio's centre and half-range (at least 1e-6). */
  readonly pressureRatioCentre: number;
  readonly pressureRatioHalf: number;
  readonly layout: HorizonLayout;
}

/**
 * Fill `out` with the sun samples of `day` for a tile, on a grid `width` cells wide; `rays` (for `out` in its
 * memory) writes the near-field rays in place of `nearFieldSteps` and `appendNearFieldRay` here, and, where it has
 * `writeSunSamples` (the compiled kernel), the samples too: the same values, computed in WebAssembly, which a run
 * of few days gets at once where this function's TypeScript would run unoptimised.
 */
export function sunSamplesForDay(
  day: number,
  tile: TileGeometry,
  params: ClearSkyParams,
  table: TransmittanceTable,
  width: number,
  layout: HorizonLayout | null,
  out: DaySamples,
  rays: NearRayWriter | null = null,
): DaySamples {
  const directions = layout ? layout.directions : 0;
  const nearDirections = layout ? layout.nearSectors : 0;
  const nearSteps = layout ? layout.nearSteps : 0;
  const stepHours = params.stepMinutes / 60;
  const declination = solarDeclination(day);
  const g0 = extraterrestrialIrradiance(day, params.solarConstantWM2);
  const c = diffuseCoefficients(params.linkeTurbidity);
  const pzMid = tile.pressureRatioCentre;
  const pzHalf = Math.max(tile.pressureRatioHalfRange, 1e-6);
  // the near-field ray of each sample, into arrays reused from sample to sample (or, with `rays`, its inputs only)
  const compiledRays = nearSteps > 0 ? rays : null;
  // with the compiled rays, the compiled samples where the writer has them
  if (compiledRays?.writeSunSamples && layout) {
    const compiledDay = { tile, declinationRad: declination, stepHours, extraterrestrialWM2: g0, diffuse: c, pressureRatioCentre: pzMid, pressureRatioHalf: pzHalf, layout };
    if (compiledRays.writeSunSamples(out, compiledDay, table)) {
      compiledRays.writeNearRays(out, out.count, nearSteps, tile.cellSizeXM, tile.cellSizeYM, width);
      out.stepHours = stepHours;
      out.extraterrestrialWM2 = g0;
      out.pressureRatioCentre = pzMid;
      return out;
    }
  }
  const prefix = out.prefix;
  for (let q = 0; q < PREFIX_QUANTITIES; q++) prefix[q] = 0;
  const values = new Float64Array(TAU_QUANTITIES * 3);
  let count = 0;
  let sumDiffuse = 0;
  let near = 0;
  const rayInputs = compiledRays ? compiledRays.rayInputs : null;
  const ray = nearSteps > 0 && !compiledRays ? nearFieldRay(nearSteps) : null;
  out.nearReachCols = 0;
  out.nearReachRows = 0;
  const hours = sampleHours(tile.latitudeRad, declination, stepHours);
  for (let i = 0; i < hours.length; i++) {
    const hour = hours[i]!;
    const T = ((hour - 12) * Math.PI) / 12;
    const sun = sunDirection(tile.latitudeRad, declination, T);
    const sinh = sun.up;
    if (sinh <= 0) continue;
    const h = Math.asin(sinh);
    const azimuth = gridAzimuth(sun.east, sun.north, tile.convergenceRad);
    const cosh = Math.cos(h);
    const azimuthEast = Math.sin(azimuth);
    const azimuthNorth = Math.cos(azimuth);
    const diffuseH = diffuseHorizontal(g0, sinh, c);
    out.sinAltitude[count] = sinh;
    const tanh = Math.tan(h);
    out.altitudeUnits[count] = h / HORIZON_ANGLE_UNIT_RAD;
    out.sunEast[count] = cosh * azimuthEast;
    out.sunNorth[count] = cosh * azimuthNorth;
    if (nearDirections > 0) out.nearSector[count] = sectorOf(azimuth, nearDirections);
    if (directions > 0) {
      // the same sector `sunSectors` marks for this sample
      const k0 = sectorOf(azimuth, directions);
      const position = (azimuth / (2 * Math.PI)) * directions;
      out.horizonDirection0[count] = k0;
      out.horizonDirection1[count] = k0 + 1 === directions ? 0 : k0 + 1;
      out.horizonWeight[count] = position - k0;
    }
    if (rayInputs) {
      const { colPerStep, northPerStep } = rayDirection(tile.cellSizeXM, tile.cellSizeYM, azimuth);
      rayInputs[3 * count] = colPerStep;
      rayInputs[3 * count + 1] = northPerStep;
      rayInputs[3 * count + 2] = tanh;
    } else {
      out.nearStart[count] = near;
      const cells = ray ? nearFieldSteps(tile.cellSizeXM, tile.cellSizeYM, azimuth, nearSteps, ray) : 0;
      near = appendNearFieldRay(out, count, near, ray, cells, width, tanh);
    }
    // τ-dependent quantities at δ = −half, 0, +half, fitted as a + bδ + cδ²
    const m0 = seaLevelAirMass(h);
    const lowSunFactor = h < MUNEER_LOW_SUN_ALTITUDE_RAD ? 1 / muneerLowSunDenominator(h) : 0;
    for (let j = 0; j < 3; j++) {
      const t = lookupTransmittance(table, (pzMid + (j - 1) * pzHalf) * m0);
      const nFactor = muneerSunlitCoefficient(t);
      values[TAU_SUN_EAST * 3 + j] = t * cosh * azimuthEast;
      values[TAU_SUN_NORTH * 3 + j] = t * cosh * azimuthNorth;
      values[TAU_SIN_ALTITUDE * 3 + j] = t * sinh;
      values[DIFFUSE_ONE_MINUS_TAU * 3 + j] = diffuseH * (1 - t);
      values[DIFFUSE_N_ONE_MINUS_TAU * 3 + j] = diffuseH * nFactor * (1 - t);
      if (lowSunFactor === 0) {
        // τ s / sin h with s = n · sun: the direction term is sun / sin h
        values[CIRCUMSOLAR_EAST * 3 + j] = (diffuseH * t * cosh * azimuthEast) / sinh;
        values[CIRCUMSOLAR_NORTH * 3 + j] = (diffuseH * t * cosh * azimuthNorth) / sinh;
        values[CIRCUMSOLAR_UP * 3 + j] = diffuseH * t;
      } else {
        // τ sin β cos(A_LN) / (0.1 − 0.008 h) with sin β cos(A_LN) = n_horizontal · azimuth direction
        values[CIRCUMSOLAR_EAST * 3 + j] = diffuseH * t * azimuthEast * lowSunFactor;
        values[CIRCUMSOLAR_NORTH * 3 + j] = diffuseH * t * azimuthNorth * lowSunFactor;
        values[CIRCUMSOLAR_UP * 3 + j] = 0;
      }
    }
    const before = count * PREFIX_QUANTITIES;
    const after = before + PREFIX_QUANTITIES;
    for (let q = 0; q < TAU_QUANTITIES; q++) {
      const minus = values[q * 3]!;
      const centre = values[q * 3 + 1]!;
      const plus = values[q * 3 + 2]!;
      const at = q * 3;
      prefix[after + at] = prefix[before + at]! + centre;
      prefix[after + at + 1] = prefix[before + at + 1]! + (plus - minus) / (2 * pzHalf);
      prefix[after + at + 2] = prefix[before + at + 2]! + (plus - 2 * centre + minus) / (2 * pzHalf * pzHalf);
    }
    prefix[after + DIFFUSE_LIT] = prefix[before + DIFFUSE_LIT]! + diffuseH;
    prefix[after + LIT_COUNT] = count + 1;
    sumDiffuse += diffuseH;
    count++;
  }
  if (compiledRays) compiledRays.writeNearRays(out, count, nearSteps, tile.cellSizeXM, tile.cellSizeYM, width);
  else out.nearStart[count] = near;
  out.count = count;
  // group consecutive samples by group sector (about 32 around the horizon)
  const perGroup = directions > 0 ? farSectorsPerGroup(directions) : 1;
  let groups = 0;
  let peak = 0;
  for (let k = 0; k < count; k++) {
    if (out.altitudeUnits[k]! > out.altitudeUnits[peak]!) peak = k;
    const sector = directions > 0 ? Math.floor(out.horizonDirection0[k]! / perGroup) : 0;
    const altitude = out.altitudeUnits[k]!;
    if (groups > 0 && out.groupSector[groups - 1] === sector) {
      out.groupEnd[groups - 1] = k + 1;
      out.groupMinAltitude[groups - 1] = Math.min(out.groupMinAltitude[groups - 1]!, altitude);
      out.groupMaxAltitude[groups - 1] = Math.max(out.groupMaxAltitude[groups - 1]!, altitude);
    } else {
      out.groupSector[groups] = sector;
      out.groupStart[groups] = k;
      out.groupEnd[groups] = k + 1;
      out.groupMinAltitude[groups] = altitude;
      out.groupMaxAltitude[groups] = altitude;
      groups++;
    }
    out.sampleGroup[k] = groups - 1;
  }
  out.groupCount = groups;
  out.peak = peak;
  out.stepHours = stepHours;
  out.extraterrestrialWM2 = g0;
  out.sumDiffuseHorizontal = sumDiffuse;
  out.pressureRatioCentre = pzMid;
  return out;
}

/**
 * Daily global irradiation [Wh m⁻² day⁻¹] and sunshine hours [h] of the cells of `part` (a block inside
 * `tile`), written into `globalOut` and `hoursOut` (NaN for nodata cells). `surface`, the horizons in
 * `terrain` and the outputs are tile-local (index (row − tile.rowStart)·tileWidth + col − tile.colStart);
 * the near-field rays read the resident elevation around each cell. `terrain` null: no terrain shadows.
 * With `beamPartOut`, also the beam part of the global irradiation (see `integrateBlockDays`).
 */
export function integrateBlock(
  part: CellBlock,
  tile: CellBlock,
  samples: DaySamples,
  surface: SurfaceTerms,
  terrain: KernelTerrain | null,
  albedo: number,
  globalOut: Float32Array,
  hoursOut: Float32Array,
  beamPartOut?: Float32Array,
): void {
  integrateBlockDays(part, tile, [samples], surface, terrain, albedo, [globalOut], [hoursOut], beamPartOut ? [beamPartOut] : null);
}

/**
 * Days per call of `integrateBlockDays`: a cell's data stays in the fastest cache while its days are computed,
 * with the day samples (about 60 kB a day) in the next one. Measured with bench/kernel.bench.mjs (the compiled
 * kernel, eight cells at a time): 16 days about 10 % faster than 8, 24 and 32 no faster than 16.
 */
export const KERNEL_DAY_BATCH = 16;

/**
 * `integrateBlock` for several days at once: day d's samples in `days[d]`, its outputs in `globalOuts[d]`
 * and `hoursOuts[d]`. Cells outer, days inner, so that a cell's horizons and the terrain around it are
 * read from memory once for all the days (they are most of the memory traffic of the kernel).
 *
 * With `beamPartOuts` (EEMT's real-sky radiation), day d's beam part of the global irradiation goes to
 * `beamPartOuts[d]` [Wh m⁻² day⁻¹]: the beam on the surface and the ground reflection of the horizontal beam,
 * the share of the global that scales with the beam of the sky (the rest, global − beam part, scales with its
 * diffuse). The global irradiation is computed as without it.
 */
export function integrateBlockDays(
  part: CellBlock,
  tile: CellBlock,
  days: readonly DaySamples[],
  surface: SurfaceTerms,
  terrain: KernelTerrain | null,
  albedo: number,
  globalOuts: readonly Float32Array[],
  hoursOuts: readonly Float32Array[],
  beamPartOuts: readonly Float32Array[] | null = null,
): void {
  const dayCount = days.length;
  const width = terrain ? terrain.model.width : 0;
  const height = terrain ? terrain.model.height : 0;
  // cells at least this far from the grid's edges have every near-field ray cell inside it
  let marginCols = 0;
  let marginRows = 0;
  for (const samples of days) {
    marginCols = Math.max(marginCols, samples.nearReachCols);
    marginRows = Math.max(marginRows, samples.nearReachRows);
  }
  const tileWidth = tile.colEnd - tile.colStart;
  const sums = new Float64Array(PREFIX_QUANTITIES);
  const cellState: CellState = {
    row: 0,
    col: 0,
    cell: 0,
    inclined: false,
    normalEast: 0,
    normalNorth: 0,
    normalUp: 0,
    interior: false,
    gridCell: 0,
    z0: 0,
  };
  for (let row = part.rowStart; row < part.rowEnd; row++) {
    const rowInterior = row >= marginRows && row < height - marginRows;
    for (let col = part.colStart; col < part.colEnd; col++) {
      const cell = (row - tile.rowStart) * tileWidth + (col - tile.colStart);
      if (surface.valid[cell] === 0) {
        for (let d = 0; d < dayCount; d++) {
          globalOuts[d]![cell] = NaN;
          hoursOuts[d]![cell] = NaN;
          if (beamPartOuts) beamPartOuts[d]![cell] = NaN;
        }
        continue;
      }
      cellState.row = row;
      cellState.col = col;
      cellState.cell = cell;
      cellState.inclined = surface.inclined[cell] === 1;
      cellState.normalEast = surface.normalEast[cell]!;
      cellState.normalNorth = surface.normalNorth[cell]!;
      cellState.normalUp = surface.normalUp[cell]!;
      cellState.interior = rowInterior && col >= marginCols && col < width - marginCols;
      cellState.gridCell = row * width + col;
      cellState.z0 = terrain ? terrain.model.elevation[cellState.gridCell]! : 0;
      for (let d = 0; d < dayCount; d++) {
        const samples = days[d]!;
        const lit = terrain ? sunlitSums(samples, cellState, terrain, sums) : unshadedSums(samples, cellState, sums);
        const dailyWh = combineSums(samples, surface, cell, cellState, albedo, sums, lit);
        globalOuts[d]![cell] = dailyWh;
        hoursOuts[d]![cell] = (lit ? sums[LIT_COUNT]! : 0) * samples.stepHours;
        // (combineSums zeroed the sums of a day without sun)
        if (beamPartOuts) beamPartOuts[d]![cell] = beamPartOfSums(samples, surface, cell, cellState, albedo, sums);
      }
    }
  }
}

/** The cell being integrated, as `sunlitSums` and `combineSums` need it. */
interface CellState {
  row: number;
  col: number;
  /** Tile-local index. */
  cell: number;
  inclined: boolean;
  normalEast: number;
  normalNorth: number;
  normalUp: number;
  /** Every near-field ray cell lies inside the grid. */
  interior: boolean;
  /** Index in the resident grid. */
  gridCell: number;
  z0: number;
}

/**
 * Sums over the samples of one day at which the cell is sunlit into `sums`; false if there is none. Groups
 * of samples in one sector are decided at once where the cell's bounds allow; the samples above every lit
 * bound of the cell (one run around noon) are not looked at; the rest are tested one by one: in front of
 * the plane, above the interpolated far-field horizon, and above the near-field ray or its bounds.
 */
function sunlitSums(samples: DaySamples, state: CellState, terrain: KernelTerrain, sums: Float64Array): boolean {
  const { count, prefix, peak, sampleGroup, altitudeUnits, sinAltitude, sunEast, sunNorth } = samples;
  const { horizonDirection0, horizonDirection1, horizonWeight, nearSector } = samples;
  const { nearStart, nearOffset, nearCol, nearRow, nearThreshold } = samples;
  const { groupCount, groupSector, groupStart, groupEnd, groupMinAltitude, groupMaxAltitude } = samples;
  const { far, nearUpper, nearLower, nearStride, litBound, darkBound, litEverywhere } = terrain.horizons;
  const { directions } = terrain.layout;
  const { width, height, elevation } = terrain.model;
  const groupsPerCell = directions / farSectorsPerGroup(directions);
  const { row, col, cell, inclined, interior, gridCell, z0 } = state;
  // the sun is in front of the surface when its dot product with this normal is positive (horizontal: sin h > 0)
  const testEast = inclined ? state.normalEast : 0;
  const testNorth = inclined ? state.normalNorth : 0;
  const testUp = inclined ? state.normalUp : 1;
  const base = cell * directions;
  const nearBase = cell * nearStride;
  let runs = 0;
  let runStart = -1;
  // the groups strictly between `skipFrom` and `skipTo` have the sun above every lit bound of the cell
  let skipFrom = groupCount;
  let skipTo = groupCount;
  const everywhere = litEverywhere[cell]!;
  if (count > 0 && altitudeUnits[peak]! >= everywhere) {
    // altitudes rise up to the peak and fall after it: the samples at or above the bound are one run
    let lo = 0;
    let hi = peak;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (altitudeUnits[mid]! >= everywhere) hi = mid;
      else lo = mid + 1;
    }
    skipFrom = sampleGroup[lo]!;
    lo = peak;
    hi = count - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (altitudeUnits[mid]! >= everywhere) lo = mid;
      else hi = mid - 1;
    }
    skipTo = sampleGroup[lo]!;
  }
  for (let g = 0; g < groupCount; g++) {
    if (g === skipFrom + 1 && g < skipTo) {
      if (runStart < 0) runStart = groupStart[g]!;
      g = skipTo - 1;
      continue;
    }
    const first = groupStart[g]!;
    const last = groupEnd[g]!;
    const groupBase = cell * groupsPerCell + groupSector[g]!;
    if (groupMinAltitude[g]! >= litBound[groupBase]!) {
      // the whole group is above every horizon and in front of the plane
      if (runStart < 0) runStart = first;
      continue;
    }
    if (groupMaxAltitude[g]! < darkBound[groupBase]!) {
      // the whole group is below a horizon or behind the plane
      if (runStart >= 0) {
        addRun(sums, prefix, runStart, first, runs++ === 0);
        runStart = -1;
      }
      continue;
    }
    // the group's bounds also decide its samples one by one: only those between them need the exact test
    const groupLit = litBound[groupBase]!;
    const groupDark = darkBound[groupBase]!;
    for (let k = first; k < last; k++) {
      const altitude = altitudeUnits[k]!;
      let lit = altitude >= groupLit;
      if (!lit && altitude >= groupDark) {
        // every condition evaluated without branching (they are hard to predict); a branch only where the
        // near-field ray must be traced (rare)
        const a0 = far[base + horizonDirection0[k]!]!;
        const a1 = far[base + horizonDirection1[k]!]!;
        const near = nearBase + nearSector[k]!;
        // 1 where the sun is in front of the plane, above the far field and above the near field's lower bound
        const open =
          Number(testEast * sunEast[k]! + testNorth * sunNorth[k]! + testUp * sinAltitude[k]! > 0) &
          Number(altitude >= a0 + horizonWeight[k]! * (a1 - a0)) &
          Number(altitude >= nearLower[near]!);
        lit = (open & Number(altitude >= nearUpper[near]!)) === 1;
        if (open === 1 && !lit) {
          lit = true;
          for (let j = nearStart[k]!, end = nearStart[k + 1]!; j < end; j++) {
            if (!interior) {
              const r = row + nearRow[j]!;
              const c = col + nearCol[j]!;
              if (r < 0 || r >= height || c < 0 || c >= width) break;
            }
            if (elevation[gridCell + nearOffset[j]!]! - z0 > nearThreshold[j]!) {
              lit = false;
              break;
            }
          }
        }
      }
      if (lit !== runStart >= 0) {
        if (lit) runStart = k;
        else {
          addRun(sums, prefix, runStart, k, runs++ === 0);
          runStart = -1;
        }
      }
    }
  }
  if (runStart >= 0) addRun(sums, prefix, runStart, count, runs++ === 0);
  return runs > 0;
}

/** `sunlitSums` without terrain shadows: only the plane of the surface can hide the sun. */
function unshadedSums(samples: DaySamples, state: CellState, sums: Float64Array): boolean {
  const { count, prefix, sinAltitude, sunEast, sunNorth } = samples;
  const { inclined, normalEast: nE, normalNorth: nN, normalUp: nU } = state;
  let runs = 0;
  let runStart = -1;
  for (let k = 0; k < count; k++) {
    const lit = (inclined ? nE * sunEast[k]! + nN * sunNorth[k]! + nU * sinAltitude[k]! : sinAltitude[k]!) > 0;
    if (lit) {
      if (runStart < 0) runStart = k;
    } else if (runStart >= 0) {
      addRun(sums, prefix, runStart, k, runs++ === 0);
      runStart = -1;
    }
  }
  if (runStart >= 0) addRun(sums, prefix, runStart, count, runs++ === 0);
  return runs > 0;
}

/** Daily global irradiation [Wh m⁻² day⁻¹] of the cell from its sums over sunlit samples (none: `lit` false). */
function combineSums(samples: DaySamples, surface: SurfaceTerms, cell: number, state: CellState, albedo: number, sums: Float64Array, lit: boolean): number {
  if (!lit) sums.fill(0);
  const g0 = samples.extraterrestrialWM2;
  const sumDiffuse = samples.sumDiffuseHorizontal;
  const delta = surface.pressureRatio[cell]! - samples.pressureRatioCentre;
  const delta2 = delta * delta;
  const tauSinAltitude = quadratic(sums, TAU_SIN_ALTITUDE, delta, delta2);
  if (!state.inclined) return (g0 * tauSinAltitude + sumDiffuse) * samples.stepHours;
  const { normalEast: nE, normalNorth: nN, normalUp: nU } = state;
  const beam = g0 * (nE * quadratic(sums, TAU_SUN_EAST, delta, delta2) + nN * quadratic(sums, TAU_SUN_NORTH, delta, delta2) + nU * tauSinAltitude);
  const diffuse =
    surface.shadedDiffuseFactor[cell]! * (sumDiffuse - sums[DIFFUSE_LIT]!) +
    surface.skyView[cell]! * quadratic(sums, DIFFUSE_ONE_MINUS_TAU, delta, delta2) +
    surface.muneerSlope[cell]! * quadratic(sums, DIFFUSE_N_ONE_MINUS_TAU, delta, delta2) +
    nE * quadratic(sums, CIRCUMSOLAR_EAST, delta, delta2) +
    nN * quadratic(sums, CIRCUMSOLAR_NORTH, delta, delta2) +
    nU * quadratic(sums, CIRCUMSOLAR_UP, delta, delta2);
  const reflected = albedo * surface.groundView[cell]! * (g0 * tauSinAltitude + sumDiffuse);
  return (beam + diffuse + reflected) * samples.stepHours;
}

/**
 * The beam part [Wh m⁻² day⁻¹] of the cell's daily global irradiation from its sums over sunlit samples (zeroed on a
 * day without sun): the beam on the surface plus the ground reflection of the horizontal beam, as `combineSums`
 * computes them.
 */
function beamPartOfSums(samples: DaySamples, surface: SurfaceTerms, cell: number, state: CellState, albedo: number, sums: Float64Array): number {
  const g0 = samples.extraterrestrialWM2;
  const delta = surface.pressureRatio[cell]! - samples.pressureRatioCentre;
  const delta2 = delta * delta;
  const tauSinAltitude = quadratic(sums, TAU_SIN_ALTITUDE, delta, delta2);
  if (!state.inclined) return g0 * tauSinAltitude * samples.stepHours;
  const { normalEast: nE, normalNorth: nN, normalUp: nU } = state;
  const beam = g0 * (nE * quadratic(sums, TAU_SUN_EAST, delta, delta2) + nN * quadratic(sums, TAU_SUN_NORTH, delta, delta2) + nU * tauSinAltitude);
  const reflectedBeam = albedo * surface.groundView[cell]! * (g0 * tauSinAltitude);
  return (beam + reflectedBeam) * samples.stepHours;
}

/** Value at δ of a quantity summed as quadratic coefficients a + bδ + cδ². */
function quadratic(sums: Float64Array, quantity: number, delta: number, delta2: number): number {
  return sums[quantity * 3]! + delta * sums[quantity * 3 + 1]! + delta2 * sums[quantity * 3 + 2]!;
}

/** Adds the prefix-summed quantities of the sunlit run of samples [first, end) to `sums` (sets them for the first run). */
function addRun(sums: Float64Array, prefix: Float64Array, first: number, end: number, firstRun: boolean): void {
  const from = first * PREFIX_QUANTITIES;
  const to = end * PREFIX_QUANTITIES;
  if (firstRun) for (let q = 0; q < PREFIX_QUANTITIES; q++) sums[q] = prefix[to + q]! - prefix[from + q]!;
  else for (let q = 0; q < PREFIX_QUANTITIES; q++) sums[q]! += prefix[to + q]! - prefix[from + q]!;
}

/**
 * Daily global irradiation [Wh m⁻² day⁻¹] of a horizontal, unshaded surface at each cell of `part` (tile-local
 * outputs as in `integrateBlock`)
 * (r.sun without slope and without terrain shadow), for EEMT's S_flat; with `flatBeamOut`, also its beam part
 * (the clear-sky horizontal beam B_h of EEMT's real-sky coefficients).
 */
export function integrateBlockFlat(
  part: CellBlock,
  tile: CellBlock,
  samples: DaySamples,
  surface: SurfaceTerms,
  flatOut: Float32Array,
  flatBeamOut: Float32Array | null = null,
): void {
  const base = samples.count * PREFIX_QUANTITIES + TAU_SIN_ALTITUDE * 3;
  const a = samples.prefix[base]!;
  const b = samples.prefix[base + 1]!;
  const c = samples.prefix[base + 2]!;
  const g0 = samples.extraterrestrialWM2;
  const tileWidth = tile.colEnd - tile.colStart;
  for (let row = part.rowStart; row < part.rowEnd; row++) {
    const rowBase = (row - tile.rowStart) * tileWidth - tile.colStart;
    for (let cell = rowBase + part.colStart, end = rowBase + part.colEnd; cell < end; cell++) {
      if (surface.valid[cell] === 0) {
        flatOut[cell] = NaN;
        if (flatBeamOut) flatBeamOut[cell] = NaN;
        continue;
      }
      const delta = surface.pressureRatio[cell]! - samples.pressureRatioCentre;
      flatOut[cell] = (g0 * (a + delta * b + delta * delta * c) + samples.sumDiffuseHorizontal) * samples.stepHours;
      if (flatBeamOut) flatBeamOut[cell] = g0 * (a + delta * b + delta * delta * c) * samples.stepHours;
    }
  }
}
