/**
 * A day's sun samples for a tile, compiled: `sunSamplesForDay` of src/science/solar/dailyKernel.ts for the compiled
 * kernel's own day samples (its memory, named by a day descriptor: assembly/kernelLayout.ts) — the sample hours
 * (`sampleHours`, dailyIrradiation.ts), the sun's direction (`sunDirection`, sunPosition.ts), its grid azimuth,
 * sectors and far-field directions, the near-field rays' inputs (`rayDirection`, horizon.ts; assembly/nearRays.ts
 * writes the rays), the clear-sky quantities (clearSky.ts) and their prefix sums, and the samples' groups.
 *
 * Statement for statement the TypeScript, on the same values: the transcendental functions are JavaScript's
 * `Math` functions, imported (V8 calls its own implementations for them), and everything else is IEEE arithmetic
 * in the same order, so every value is the same to the bit (test/science/solar/sunSamplesWasm.test.ts). What the
 * TypeScript recomputes per sample from the day alone (the sines and cosines of the latitude and the
 * declination) is computed once: the same function of the same value.
 */

import { f64at, fi, i32at } from './memoryAccess';
import {
  PREFIX_QUANTITIES,
  TAU_QUANTITIES,
  TAU_SUN_EAST,
  TAU_SUN_NORTH,
  TAU_SIN_ALTITUDE,
  DIFFUSE_ONE_MINUS_TAU,
  DIFFUSE_N_ONE_MINUS_TAU,
  CIRCUMSOLAR_EAST,
  CIRCUMSOLAR_NORTH,
  CIRCUMSOLAR_UP,
  DIFFUSE_LIT,
  LIT_COUNT,
  Y_ALTITUDE,
  Y_SIN_ALTITUDE,
  Y_SUN_EAST,
  Y_SUN_NORTH,
  Y_NEAR_SECTOR,
  Y_HD0,
  Y_HD1,
  Y_HW,
  Y_PREFIX,
  Y_SAMPLE_GROUP,
  Y_GROUP_SECTOR,
  Y_GROUP_START,
  Y_GROUP_END,
  Y_GROUP_MIN,
  Y_GROUP_MAX,
} from './kernelLayout';

import { jsAcos, jsAsin, jsAtan2, jsCos, jsExp, jsPow, jsSin, jsTan } from './javascriptMath';

// the inputs (f64 each, at `inputs`), from the TypeScript side (src/science/solar/dailyKernelWasm.ts)
const S_LATITUDE: i32 = 0; // the sun tile's latitude [rad]
const S_DECLINATION: i32 = 1; // the day's solar declination [rad]
const S_STEP_HOURS: i32 = 2;
const S_EXTRATERRESTRIAL: i32 = 3; // G₀ [W m⁻²]
const S_TN: i32 = 4; // the diffuse coefficients (clearSky.ts, `diffuseCoefficients`)
const S_A1: i32 = 5;
const S_A2: i32 = 6;
const S_A3: i32 = 7;
const S_PRESSURE_CENTRE: i32 = 8;
const S_PRESSURE_HALF: i32 = 9; // (at least 1e-6)
const S_CONVERGENCE: i32 = 10; // [rad]
const S_CELL_X: i32 = 11; // [m]
const S_CELL_Y: i32 = 12;
const S_LINKE: i32 = 13;
const S_DIRECTIONS: i32 = 14; // far directions N
const S_NEAR_SECTORS: i32 = 15;
const S_PER_GROUP: i32 = 16; // far sectors per group sector
const S_CAPACITY: i32 = 17; // samples the day's arrays hold
const S_HORIZON_UNIT: i32 = 18; // HORIZON_ANGLE_UNIT_RAD (horizon.ts)
const S_MUNEER_LOW_SUN: i32 = 19; // MUNEER_LOW_SUN_ALTITUDE_RAD (clearSky.ts)
const S_RAYLEIGH_BRANCH: i32 = 20; // RAYLEIGH_BRANCH_AIR_MASS (clearSky.ts)
const S_TABLE_STEP: i32 = 21; // the transmittance table's air-mass step and range (dailyKernel.ts)
const S_TABLE_MAX: i32 = 22;
// the results: the samples, the one with the highest sun, the groups and Σ D_h
const S_COUNT: i32 = 23;
const S_PEAK: i32 = 24;
const S_GROUP_COUNT: i32 = 25;
const S_SUM_DIFFUSE: i32 = 26;
const SUN_SAMPLE_FIELDS: i32 = 27;
/** Bytes at `inputs`: the fields, then scratch for one sample's τ-dependent quantities at three pressures. */
export const SUN_SAMPLE_BYTES: i32 = (SUN_SAMPLE_FIELDS + TAU_QUANTITIES * 3) * 8;

@inline function input(inputs: usize, field: i32): f64 {
  return load<f64>(inputs + (<usize>field << 3));
}

/** Index of the sector holding grid azimuth `azimuthRad` ∈ [0, 2π) among `sectors` (dailyKernel.ts, `sectorOf`). */
@inline export function sectorOf(azimuthRad: f64, sectors: i32): i32 {
  return <i32>min(Math.floor((azimuthRad / (2 * Math.PI)) * <f64>sectors), <f64>(sectors - 1));
}

/** The sun's grid azimuth in [0, 2π) from its east and north components (dailyKernel.ts, `gridAzimuth`). */
@inline export function gridAzimuth(east: f64, north: f64, convergence: f64): f64 {
  let azimuth = jsAtan2(east, north) + convergence;
  if (azimuth < 0) azimuth += 2 * Math.PI;
  if (azimuth >= 2 * Math.PI) azimuth -= 2 * Math.PI;
  return azimuth;
}

/** The sunset hour angle ω₀ [rad] (sunPosition.ts, `sunsetHourAngle`). */
@inline export function sunsetHourAngle(latitude: f64, declination: f64): f64 {
  const x = -jsTan(latitude) * jsTan(declination);
  return x <= -1 ? Math.PI : x >= 1 ? 0.0 : jsAcos(x);
}

/** The hour of a day's first sample, given its sunset hour angle `omega0` (dailyIrradiation.ts, `sampleHours`). */
@inline export function firstSampleHour(omega0: f64, stepHours: f64): f64 {
  const sunriseHour = 12 - (omega0 * 12) / Math.PI;
  const k0 = Math.floor(sunriseHour / stepHours);
  return sunriseHour - k0 * stepHours > stepHours / 2 ? (k0 + 1.5) * stepHours : (k0 + 0.5) * stepHours;
}

/** Rayleigh optical thickness δ_R(m) (clearSky.ts, `rayleighOpticalThickness`). */
function rayleighOpticalThickness(m: f64, branch: f64): f64 {
  if (m <= branch) return 1 / (6.6296 + m * (1.7513 + m * (-0.1202 + m * (0.0065 - m * 0.00013))));
  return 1 / (10.4 + 0.718 * m);
}

/** τ_b = exp(−0.8662 T_L m δ_R(m)) (clearSky.ts, `beamTransmittance`). */
function beamTransmittance(linke: f64, m: f64, branch: f64): f64 {
  return jsExp(-0.8662 * linke * m * rayleighOpticalThickness(m, branch));
}

/** Entry `i` of the table at `table`: τ_b at air mass i · step, computed at its first look-up (NaN until then). */
@inline function tableEntry(table: usize, i: i32, linke: f64, step: f64, branch: f64): f64 {
  const at = table + (<usize>i << 3);
  const value = load<f64>(at);
  if (value == value) return value;
  const computed = beamTransmittance(linke, <f64>i * step, branch);
  store<f64>(at, computed);
  return computed;
}

/** τ_b at air mass `m` from the table (dailyKernel.ts, `lookupTransmittance`). */
function lookupTransmittance(table: usize, m: f64, linke: f64, step: f64, maxAirMass: f64, branch: f64): f64 {
  if (m >= maxAirMass || Math.abs(m - branch) < step) return beamTransmittance(linke, m, branch);
  const position = m / step;
  const i = <i32>position;
  const v0 = tableEntry(table, i, linke, step, branch);
  return v0 + (position - <f64>i) * (tableEntry(table, i + 1, linke, step, branch) - v0);
}

/** Relative optical air mass at sea level of the refracted altitude (clearSky.ts, `seaLevelAirMass`, `refractionCorrection`). */
function seaLevelAirMass(h: f64): f64 {
  const refraction = (0.061359 * (0.1594 + h * (1.123 + 0.065656 * h))) / (1 + h * (28.9344 + 277.3971 * h));
  const hr = h + refraction;
  return 1 / (jsSin(hr) + 0.50572 * jsPow(hr * (180 / Math.PI) + 6.07995, -1.6364));
}

/**
 * Fills the day samples named by the day descriptor at `day` from the inputs at `inputs` (SUN_SAMPLE_BYTES; the
 * results go to the last four fields), the near-field rays' inputs of each sample (three f64: columns and rows north
 * per step, tan h) at `rayInputs` and the transmittance table at `table` (NaN where not yet computed).
 */
export function sunSamples(day: usize, inputs: usize, rayInputs: usize, table: usize): void {
  const latitude = input(inputs, S_LATITUDE);
  const declination = input(inputs, S_DECLINATION);
  const stepHours = input(inputs, S_STEP_HOURS);
  const g0 = input(inputs, S_EXTRATERRESTRIAL);
  const tn = input(inputs, S_TN);
  const a1 = input(inputs, S_A1);
  const a2 = input(inputs, S_A2);
  const a3 = input(inputs, S_A3);
  const pzMid = input(inputs, S_PRESSURE_CENTRE);
  const pzHalf = input(inputs, S_PRESSURE_HALF);
  const convergence = input(inputs, S_CONVERGENCE);
  const cellX = input(inputs, S_CELL_X);
  const cellY = input(inputs, S_CELL_Y);
  const linke = input(inputs, S_LINKE);
  const directions = <i32>input(inputs, S_DIRECTIONS);
  const nearSectors = <i32>input(inputs, S_NEAR_SECTORS);
  const perGroup = <i32>input(inputs, S_PER_GROUP);
  const capacity = <i32>input(inputs, S_CAPACITY);
  const horizonUnit = input(inputs, S_HORIZON_UNIT);
  const lowSunAltitude = input(inputs, S_MUNEER_LOW_SUN);
  const branch = input(inputs, S_RAYLEIGH_BRANCH);
  const tableStep = input(inputs, S_TABLE_STEP);
  const tableMax = input(inputs, S_TABLE_MAX);
  const altitudeUnits = fi(day, Y_ALTITUDE);
  const sinAltitude = fi(day, Y_SIN_ALTITUDE);
  const sunEastOut = fi(day, Y_SUN_EAST);
  const sunNorthOut = fi(day, Y_SUN_NORTH);
  const nearSector = fi(day, Y_NEAR_SECTOR);
  const hd0 = fi(day, Y_HD0);
  const hd1 = fi(day, Y_HD1);
  const hw = fi(day, Y_HW);
  const prefix = <usize>fi(day, Y_PREFIX);
  for (let q = 0; q < PREFIX_QUANTITIES; q++) store<f64>(prefix + (<usize>q << 3), 0);
  // the sample hours (dailyIrradiation.ts, `sampleHours`)
  const omega0 = sunsetHourAngle(latitude, declination);
  const firstHour = firstSampleHour(omega0, stepHours);
  const stepAngle = (stepHours * Math.PI) / 12;
  let hourAngle = ((firstHour - 12) * Math.PI) / 12;
  // the day's terms of the sun's direction (sunPosition.ts, `sunDirection`)
  const cosDec = jsCos(declination);
  const sinDec = jsSin(declination);
  const cosLat = jsCos(latitude);
  const sinLat = jsSin(latitude);
  const values = inputs + (<usize>SUN_SAMPLE_FIELDS << 3);
  let count = 0;
  let sumDiffuse = 0.0;
  for (let k = 0; ; k++) {
    const hour = firstHour + <f64>k * stepHours;
    const T = ((hour - 12) * Math.PI) / 12;
    const cosT = jsCos(T);
    const east = -cosDec * jsSin(T);
    const north = cosLat * sinDec - sinLat * cosDec * cosT;
    const sinh = cosLat * cosDec * cosT + sinLat * sinDec;
    if (sinh > 0 && count < capacity) {
      const h = jsAsin(sinh);
      const azimuth = gridAzimuth(east, north, convergence);
      const cosh = jsCos(h);
      const azimuthEast = jsSin(azimuth);
      const azimuthNorth = jsCos(azimuth);
      // D_h (clearSky.ts, `diffuseHorizontal`)
      const diffuseH = g0 * tn * (a1 + sinh * (a2 + a3 * sinh));
      store<f64>(<usize>sinAltitude + (<usize>count << 3), sinh);
      const tanh = jsTan(h);
      store<f64>(<usize>altitudeUnits + (<usize>count << 3), h / horizonUnit);
      store<f64>(<usize>sunEastOut + (<usize>count << 3), cosh * azimuthEast);
      store<f64>(<usize>sunNorthOut + (<usize>count << 3), cosh * azimuthNorth);
      if (nearSectors > 0) store<i32>(<usize>nearSector + (<usize>count << 2), sectorOf(azimuth, nearSectors));
      if (directions > 0) {
        const first = sectorOf(azimuth, directions);
        const position = (azimuth / (2 * Math.PI)) * <f64>directions;
        store<i32>(<usize>hd0 + (<usize>count << 2), first);
        store<i32>(<usize>hd1 + (<usize>count << 2), first + 1 == directions ? 0 : first + 1);
        store<f64>(<usize>hw + (<usize>count << 3), position - <f64>first);
      }
      // the near-field ray's inputs (horizon.ts, `rayDirection`)
      const stepM = 0.5 * (cellX + cellY);
      const ray = rayInputs + (<usize>(3 * count) << 3);
      store<f64>(ray, (stepM * azimuthEast) / cellX);
      store<f64>(ray + 8, (stepM * azimuthNorth) / cellY);
      store<f64>(ray + 16, tanh);
      // τ-dependent quantities at δ = −half, 0, +half, fitted as a + bδ + cδ²
      const m0 = seaLevelAirMass(h);
      const lowSunFactor = h < lowSunAltitude ? 1 / (lowSunAltitude - 0.008 * h) : 0.0;
      for (let j = 0; j < 3; j++) {
        const t = lookupTransmittance(table, (pzMid + <f64>(j - 1) * pzHalf) * m0, linke, tableStep, tableMax, branch);
        // Muneer's N (clearSky.ts, `muneerSunlitCoefficient`)
        const nFactor = 0.00263 - t * (0.712 + 0.6883 * t);
        store<f64>(values + (<usize>(TAU_SUN_EAST * 3 + j) << 3), t * cosh * azimuthEast);
        store<f64>(values + (<usize>(TAU_SUN_NORTH * 3 + j) << 3), t * cosh * azimuthNorth);
        store<f64>(values + (<usize>(TAU_SIN_ALTITUDE * 3 + j) << 3), t * sinh);
        store<f64>(values + (<usize>(DIFFUSE_ONE_MINUS_TAU * 3 + j) << 3), diffuseH * (1 - t));
        store<f64>(values + (<usize>(DIFFUSE_N_ONE_MINUS_TAU * 3 + j) << 3), diffuseH * nFactor * (1 - t));
        if (lowSunFactor == 0) {
          store<f64>(values + (<usize>(CIRCUMSOLAR_EAST * 3 + j) << 3), (diffuseH * t * cosh * azimuthEast) / sinh);
          store<f64>(values + (<usize>(CIRCUMSOLAR_NORTH * 3 + j) << 3), (diffuseH * t * cosh * azimuthNorth) / sinh);
          store<f64>(values + (<usize>(CIRCUMSOLAR_UP * 3 + j) << 3), diffuseH * t);
        } else {
          store<f64>(values + (<usize>(CIRCUMSOLAR_EAST * 3 + j) << 3), diffuseH * t * azimuthEast * lowSunFactor);
          store<f64>(values + (<usize>(CIRCUMSOLAR_NORTH * 3 + j) << 3), diffuseH * t * azimuthNorth * lowSunFactor);
          store<f64>(values + (<usize>(CIRCUMSOLAR_UP * 3 + j) << 3), 0);
        }
      }
      const before = prefix + (<usize>(count * PREFIX_QUANTITIES) << 3);
      const after = before + (<usize>PREFIX_QUANTITIES << 3);
      for (let q = 0; q < TAU_QUANTITIES; q++) {
        const minus = load<f64>(values + (<usize>(q * 3) << 3));
        const centre = load<f64>(values + (<usize>(q * 3 + 1) << 3));
        const plus = load<f64>(values + (<usize>(q * 3 + 2) << 3));
        const at = <usize>(q * 3) << 3;
        store<f64>(after + at, load<f64>(before + at) + centre);
        store<f64>(after + at + 8, load<f64>(before + at + 8) + (plus - minus) / (2 * pzHalf));
        store<f64>(after + at + 16, load<f64>(before + at + 16) + (plus - 2 * centre + minus) / (2 * pzHalf * pzHalf));
      }
      store<f64>(after + (<usize>DIFFUSE_LIT << 3), load<f64>(before + (<usize>DIFFUSE_LIT << 3)) + diffuseH);
      store<f64>(after + (<usize>LIT_COUNT << 3), <f64>(count + 1));
      sumDiffuse += diffuseH;
      count++;
    }
    hourAngle += stepAngle;
    if (hourAngle > omega0) break;
  }
  // group consecutive samples by group sector (dailyKernel.ts)
  const sampleGroup = fi(day, Y_SAMPLE_GROUP);
  const groupSector = fi(day, Y_GROUP_SECTOR);
  const groupStart = fi(day, Y_GROUP_START);
  const groupEnd = fi(day, Y_GROUP_END);
  const groupMin = fi(day, Y_GROUP_MIN);
  const groupMax = fi(day, Y_GROUP_MAX);
  let groups = 0;
  let peak = 0;
  for (let k = 0; k < count; k++) {
    const altitude = f64at(altitudeUnits, k);
    if (altitude > f64at(altitudeUnits, peak)) peak = k;
    const sector = directions > 0 ? i32at(hd0, k) / perGroup : 0;
    if (groups > 0 && i32at(groupSector, groups - 1) == sector) {
      store<i32>(<usize>groupEnd + (<usize>(groups - 1) << 2), k + 1);
      store<f64>(<usize>groupMin + (<usize>(groups - 1) << 3), min(f64at(groupMin, groups - 1), altitude));
      store<f64>(<usize>groupMax + (<usize>(groups - 1) << 3), max(f64at(groupMax, groups - 1), altitude));
    } else {
      store<i32>(<usize>groupSector + (<usize>groups << 2), sector);
      store<i32>(<usize>groupStart + (<usize>groups << 2), k);
      store<i32>(<usize>groupEnd + (<usize>groups << 2), k + 1);
      store<f64>(<usize>groupMin + (<usize>groups << 3), altitude);
      store<f64>(<usize>groupMax + (<usize>groups << 3), altitude);
      groups++;
    }
    store<i32>(<usize>sampleGroup + (<usize>k << 2), groups - 1);
  }
  store<f64>(inputs + (<usize>S_COUNT << 3), <f64>count);
  store<f64>(inputs + (<usize>S_PEAK << 3), <f64>peak);
  store<f64>(inputs + (<usize>S_GROUP_COUNT << 3), <f64>groups);
  store<f64>(inputs + (<usize>S_SUM_DIFFUSE << 3), sumDiffuse);
}
