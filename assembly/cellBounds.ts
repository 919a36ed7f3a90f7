/**
 * The per-cell lit and dark bounds of a tile's horizons, compiled into the daily kernel's module
 * (assembly/dailyKernel.ts), whose memory already holds the tile's surface terms and horizons: the cell loop of
 * `tileNearHorizons` in src/science/solar/tileHorizons.ts — `sunlitBounds`, then `groupBounds` — statement for
 * statement, with the same IEEE operations on the same values, so the same bounds to the bit
 * (test/science/solar/cellBoundsWasm.test.ts). A tile's first cells ran there in JavaScript that V8 had not
 * optimised yet. The arctangents are AssemblyScript's `Math.atan2` (fdlibm's, as V8's) and, for the plane's
 * terms in whole units, assembly/horizonUnits.ts's `ceilUnits` and `floorUnits` (an approximation, fdlibm's
 * `Math.atan` near whole units: the units of `Math.atan` exactly);
 * `Math.hypot` is JavaScript's (imported), whose summation differs from AssemblyScript's.
 */

import { ceilUnits, floorUnits } from './horizonUnits';
import { jsHypot } from './javascriptMath';
import { f64at, fi } from './memoryAccess';


// fields of the i32 descriptor of `cellBounds` (laid out by src/science/solar/dailyKernelWasm.ts)
/** Number of fields. */
export const CELL_BOUNDS_FIELDS: i32 = 24;
const B_CELLS = 0;
const B_DIRECTIONS = 1;
const B_NEAR_SECTORS = 2;
const B_PER_GROUP = 3;
const B_MAX_UNITS = 4;
/** 1: the near field is traced (its bounds decide nothing and are not read; valid cells' lit bounds are +MAX). */
const B_TRACED = 5;
// the cells' surface terms (u8, u8, f64 × 3) and horizons (i16; the near-field ones absent when traced)
const B_VALID = 6;
const B_INCLINED = 7;
const B_NORMAL_EAST = 8;
const B_NORMAL_NORTH = 9;
const B_NORMAL_UP = 10;
const B_FAR = 11;
const B_NEAR_UPPER = 12;
const B_NEAR_LOWER = 13;
// the outputs (i16)
const B_LIT_BOUND = 14;
const B_DARK_BOUND = 15;
const B_LIT_EVERYWHERE = 16;
// the sectors: far sectors with the sun (u8 × N, 0: every one), near sectors with the sun (u8 × K, 0: every one),
// the groups with the sun (i32, ascending) and their count
const B_FAR_SECTORS = 17;
const B_NEAR_SECTORS_WITH_SUN = 18;
const B_SUN_GROUPS = 19;
const B_SUN_GROUP_COUNT = 20;
// each group's least far horizon: kept by the far sweep (i16, G per cell), or 0 and the lists of each group's
// directions (i32 start × (G + 1), i32 list)
const B_KEPT = 21;
const B_LIST_START = 22;
const B_LIST = 23;
// then, at fixed places after the fields: sin and cos of the N + 1 sector boundaries and of the G + 1 group
// boundaries (f64, laid out by the JavaScript side from Math.sin and Math.cos), and room for N lit bounds (i16)

/** The plane's self-shading tangent at boundary k (`planeTangent` of tileHorizons.ts), from the tables of sin and cos. */
@inline function planeTangent(nE: f64, nN: f64, nU: f64, sin: usize, cos: usize, k: i32): f64 {
  return -(nE * f64at(<i32>sin, k) + nN * f64at(<i32>cos, k)) / nU;
}

/** The sector of `sectors` holding `azimuthRad` (`sectorOfAzimuth` of tileHorizons.ts). */
@inline function sectorOfAzimuth(azimuthRad: f64, sectors: i32): i32 {
  const turn = azimuthRad < 0 ? azimuthRad + 2 * Math.PI : azimuthRad;
  return <i32>min(<f64>(sectors - 1), Math.floor((turn / (2 * Math.PI)) * <f64>sectors));
}

/**
 * The lit and dark bounds of the descriptor's cells (tile-local 0 … cells − 1 of the arrays it names), as
 * `tileNearHorizons` computes them per cell. `tables`: the boundaries' sin and cos (N + 1, N + 1, G + 1, G + 1
 * f64) followed by room for N i16.
 */
export function cellBounds(desc: usize, tables: usize): void {
  const cells = fi(desc, B_CELLS);
  const directions = fi(desc, B_DIRECTIONS);
  const nearSectors = fi(desc, B_NEAR_SECTORS);
  const r = fi(desc, B_PER_GROUP);
  const maxUnits = <f64>fi(desc, B_MAX_UNITS);
  const traced = fi(desc, B_TRACED) == 1;
  const valid = <usize>fi(desc, B_VALID);
  const inclinedCells = <usize>fi(desc, B_INCLINED);
  const normalEast = <usize>fi(desc, B_NORMAL_EAST);
  const normalNorth = <usize>fi(desc, B_NORMAL_NORTH);
  const normalUp = <usize>fi(desc, B_NORMAL_UP);
  const far = <usize>fi(desc, B_FAR);
  const nearUpper = <usize>fi(desc, B_NEAR_UPPER);
  const nearLower = <usize>fi(desc, B_NEAR_LOWER);
  const litBound = <usize>fi(desc, B_LIT_BOUND);
  const darkBound = <usize>fi(desc, B_DARK_BOUND);
  const litEverywhere = <usize>fi(desc, B_LIT_EVERYWHERE);
  const farSectors = <usize>fi(desc, B_FAR_SECTORS);
  const nearWithSun = <usize>fi(desc, B_NEAR_SECTORS_WITH_SUN);
  const sunGroups = <usize>fi(desc, B_SUN_GROUPS);
  const sunGroupCount = fi(desc, B_SUN_GROUP_COUNT);
  const kept = <usize>fi(desc, B_KEPT);
  const listStart = <usize>fi(desc, B_LIST_START);
  const list = <usize>fi(desc, B_LIST);
  const groups = directions / r;
  const sinFine = tables;
  const cosFine = sinFine + (<usize>(directions + 1) << 3);
  const sinGroup = cosFine + (<usize>(directions + 1) << 3);
  const cosGroup = sinGroup + (<usize>(groups + 1) << 3);
  const fine = cosGroup + (<usize>(groups + 1) << 3);
  const nearPerSector = nearSectors / directions;
  const nearPerGroup = nearPerSector * r;
  for (let cell = 0; cell < cells; cell++) {
    const isValid = load<u8>(valid + <usize>cell) == 1;
    const isInclined = load<u8>(inclinedCells + <usize>cell) == 1;
    const nE = load<f64>(normalEast + (<usize>cell << 3));
    const nN = load<f64>(normalNorth + (<usize>cell << 3));
    const nU = load<f64>(normalUp + (<usize>cell << 3));
    const base = <usize>(cell * directions);
    // sunlitBounds: each far sector's lit bound into `fine` (traced: valid cells' lit bounds are undecided, +MAX)
    const litUndecided = traced && isValid;
    if (!litUndecided) {
      if (!isValid) {
        for (let k = 0; k < directions; k++) store<i16>(fine + (<usize>k << 1), <i16>-maxUnits);
      } else {
        const sectorOfHighest = isInclined ? sectorOfAzimuth(Math.atan2(-nE, -nN), directions) : -1;
        const highestTangent = isInclined ? jsHypot(nE, nN) / nU : 0;
        for (let k = 0; k < directions; k++) {
          if (farSectors != 0 && load<u8>(farSectors + <usize>k) == 0) {
            store<i16>(fine + (<usize>k << 1), <i16>-maxUnits);
            continue;
          }
          const k1 = k + 1 == directions ? 0 : k + 1;
          let bound = max(<f64>load<i16>(far + ((base + <usize>k) << 1)), <f64>load<i16>(far + ((base + <usize>k1) << 1)));
          const near = nearUpper + (<usize>(cell * nearSectors + k * nearPerSector) << 1);
          for (let j = 0; j < nearPerSector; j++) bound = max(bound, <f64>load<i16>(near + (<usize>j << 1)));
          if (isInclined) {
            let worst = max(planeTangent(nE, nN, nU, sinFine, cosFine, k), planeTangent(nE, nN, nU, sinFine, cosFine, k + 1));
            if (k == sectorOfHighest) worst = max(worst, highestTangent);
            if (worst > 0) bound = max(bound, ceilUnits(worst) + 1);
          }
          store<i16>(fine + (<usize>k << 1), <i16>bound);
        }
      }
    }
    // groupBounds
    const inclined = isValid && isInclined;
    const sectorOfLowest = inclined && groups < 5 ? sectorOfAzimuth(Math.atan2(nE, nN), groups) : -1;
    const lowestTangent = sectorOfLowest >= 0 ? -(jsHypot(nE, nN) / nU) : 0;
    let everywhere = -maxUnits;
    for (let n = 0; n < sunGroupCount; n++) {
      const g = load<i32>(sunGroups + (<usize>n << 2));
      let lit = litUndecided ? maxUnits : -maxUnits;
      for (let k = g * r; !litUndecided && k < (g + 1) * r; k++) lit = max(lit, <f64>load<i16>(fine + (<usize>k << 1)));
      let farDark = maxUnits;
      if (kept != 0) farDark = <f64>load<i16>(kept + (<usize>(cell * groups + g) << 1));
      else {
        const end = load<i32>(listStart + (<usize>(g + 1) << 2));
        for (let i = load<i32>(listStart + (<usize>g << 2)); i < end; i++) {
          farDark = min(farDark, <f64>load<i16>(far + ((base + <usize>load<i32>(list + (<usize>i << 2))) << 1)));
        }
      }
      let nearDark = traced ? -maxUnits : maxUnits;
      for (let k = g * nearPerGroup; !traced && k < (g + 1) * nearPerGroup; k++) {
        if (nearWithSun == 0 || load<u8>(nearWithSun + <usize>k) == 1) {
          nearDark = min(nearDark, <f64>load<i16>(nearLower + (<usize>(cell * nearSectors + k) << 1)));
        }
      }
      let dark = max(farDark, nearDark);
      if (inclined) {
        let lowest = min(planeTangent(nE, nN, nU, sinGroup, cosGroup, g), planeTangent(nE, nN, nU, sinGroup, cosGroup, g + 1));
        if (g == sectorOfLowest) lowest = min(lowest, lowestTangent);
        if (lowest > 0) dark = max(dark, floorUnits(lowest) - 1);
      }
      store<i16>(litBound + (<usize>(cell * groups + g) << 1), <i16>lit);
      store<i16>(darkBound + (<usize>(cell * groups + g) << 1), <i16>dark);
      everywhere = max(everywhere, lit);
    }
    store<i16>(litEverywhere + (<usize>cell << 1), <i16>everywhere);
  }
}
