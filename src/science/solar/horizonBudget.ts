/**
 * The horizon error budget: how many far-field directions N and near-field steps n a DEM needs.
 *
 * The engine decides "is the sun behind the terrain" exactly like r.sun's ray for the near field (steps
 * 1 … n, traced at the sun azimuth) and from N stored far-field directions, interpolated, beyond. Only the
 * interpolation errs, and only where the far field sets the horizon:
 *  - ε_far, the far-field horizon error between two directions Δθ = 2π/N apart, is about S·Δθ/2 in tan H,
 *    S the lateral terrain slope at the horizon-defining point (independent of its distance); we use the
 *    DEM's median slope S̃.
 *  - p_far(n), the share of horizons that can hide the sun (tan H ≥ 0) and are set beyond the near field,
 *    falls as the near field grows; it is measured on the DEM itself by tracing exact rays from a lattice of
 *    cells (the same ray model, a few thousand rays).
 *  - A sample is misclassified when the sun's altitude falls between the interpolated and the exact horizon;
 *    a misclassified low-sun sample costs one time step of beam. On the fine-DEM oracles (mcn_10m and its
 *    2.5 m and 1 m resamples, winter and equinox days) the share of cell-days whose daily global is off by
 *    more than 0.5 % follows f ≈ 9 %/° · p_far(n) · ε_far(N) [°] (measured 0.1–13 % over n = 16–128,
 *    N = 32–512; the estimate is conservative by up to 1.6×).
 *  - The calibration's lowest sun stood 30.8° high at noon (35.8° N in December). Where the sun stays lower
 *    (high latitudes in winter) more of a day's samples pass close to the horizon and a misclassified sample is
 *    a larger part of a smaller day: on a 2 m DEM placed at 35.8°, 45°, 55° and 62° S (day 172, layouts
 *    64/16, 128/24, 256/32) f grew by up to 1.4× at 45°, 1.8× at 55° and 1.65× at 62°. The estimate is
 *    multiplied by the low-sun factor g = √(tan 30° / tan h_min), 1 ≤ g ≤ 3, h_min the lowest noon altitude of
 *    the sun above the DEM over the year (g = 1.7 at 55°; the cap wherever the sun stays below 4° at noon,
 *    and where polar night comes).
 * The daily p95 stays at the oracle's value as long as f < 5 %; we require f ≤ 2 % and pick, among the
 * (n, N) that meet it, the cheapest by a cost model of the horizon phase (far rays ∝ N, near-field bounds
 * ∝ n·K); when none meets it (very steep terrain at low sun), the layout with the smallest estimate.
 * See docs/solar-model.md, Part A, "Horizons".
 */
import { farHorizon } from './farHorizon.js';
import { compiledFarRays, type BudgetLatticeCounts } from './farHorizonWasm.js';
import { rayDirection } from './horizon.js';
import type { TerrainModel } from './terrainModel.js';
import type { HorizonLayout } from './tileHorizons.js';

/** Share of cell-days allowed off by more than 0.5 % (the p95 needs < 5 %). */
export const MISCLASSIFIED_SHARE_TARGET = 0.02;
/** f ≈ F_PER_DEGREE · p_far · ε_far[°] (calibrated on the fine-DEM oracles, see the module comment). */
const F_PER_DEGREE = 0.09;
const NEAR_STEP_CHOICES = [16, 24, 32, 48, 64] as const;
const DIRECTION_CHOICES = [32, 48, 64, 96, 128, 192, 256] as const;
/** Noon altitude of the calibration's lowest sun, rounded down [rad]: g = 1 at and above it. */
const REFERENCE_NOON_ALTITUDE_RAD = (30 * Math.PI) / 180;
/** Largest low-sun factor. */
const MAX_LOW_SUN_FACTOR = 3;
/** Largest |declination| of the sun over the year [rad] (the obliquity, 23.44°). */
const MAX_DECLINATION_RAD = (23.44 * Math.PI) / 180;
/** Near sectors: at least this many (bounds tight enough for the kernel), a multiple of N. */
const MIN_NEAR_SECTORS = 128;

/** What the budget measured on a DEM and what it chose. */
export interface HorizonBudget {
  readonly layout: HorizonLayout;
  /** Median terrain slope S̃ [-] of the sampled cells. */
  readonly medianSlope: number;
  /** p_far(n) for each candidate n. */
  readonly farShare: Readonly<Record<number, number>>;
  /** Low-sun factor g the estimates were multiplied by [-]. */
  readonly lowSunFactor: number;
  /** Estimated share of cell-days off by more than 0.5 % with the chosen layout. */
  readonly estimatedShare: number;
}

/** Where the DEM lies: what the budget needs to know about the sun over it. */
export interface BudgetSite {
  /** Largest |latitude| of the DEM's cells [rad]. */
  readonly largestAbsLatitudeRad: number;
}

/**
 * The low-sun factor g = √(tan 30° / tan h_min) in [1, 3]: h_min = π/2 − |φ|max − 23.44° is the lowest noon
 * altitude of the sun over the year at the DEM's largest |latitude| (≤ 0: polar night comes, g = 3).
 * Without a site (latitudes unknown), 1.
 */
export function lowSunFactor(site?: BudgetSite): number {
  if (!site) return 1;
  const lowestNoonAltitude = Math.PI / 2 - site.largestAbsLatitudeRad - MAX_DECLINATION_RAD;
  if (lowestNoonAltitude >= REFERENCE_NOON_ALTITUDE_RAD) return 1;
  if (lowestNoonAltitude <= 0) return MAX_LOW_SUN_FACTOR;
  return Math.min(MAX_LOW_SUN_FACTOR, Math.sqrt(Math.tan(REFERENCE_NOON_ALTITUDE_RAD) / Math.tan(lowestNoonAltitude)));
}

/**
 * Estimated share of cell-days off by more than 0.5 % for near steps with far share `pFar` and N directions,
 * with low-sun factor `sunFactor` (default 1: the calibration's sun).
 */
export function estimatedMisclassifiedShare(pFar: number, medianSlope: number, directions: number, sunFactor = 1): number {
  const farErrorDeg = ((medianSlope * Math.PI) / directions) * (180 / Math.PI);
  return F_PER_DEGREE * pFar * farErrorDeg * sunFactor;
}

/** Relative cost of a layout's horizon phase per cell (far rays, near-field bounds; measured ratios). */
function layoutCost(nearSteps: number, directions: number, nearSectors: number): number {
  return 1.6 * directions + 0.03 * nearSteps * nearSectors;
}

export function nearSectorsFor(directions: number): number {
  return directions * Math.max(1, Math.ceil(MIN_NEAR_SECTORS / directions));
}

/** Cells per side of the lattice the budget samples, and ray azimuths per cell. */
const LATTICE = 24;
const LATTICE_AZIMUTHS = 12;

/**
 * The budget of `model`: measures S̃ and p_far(n) on a lattice of cells and chooses (n, N); `site` (where the
 * DEM lies) sets the low-sun factor. The rays are `farHorizon`'s; on small DEMs the whole lattice is compiled
 * (farHorizonWasm.ts, `budgetLattice` of assembly/farRay.ts: the same counts and slopes to the bit); `tracer`
 * 'javascript' keeps it in JavaScript (`latticeCounts`).
 */
export function horizonBudget(model: TerrainModel, site?: BudgetSite, tracer: 'compiled' | 'javascript' = 'compiled'): HorizonBudget {
  const compiled = tracer === 'compiled' ? compiledFarRays(model) : null;
  const { rays, beyond, slopes } = compiled ? compiled.lattice(LATTICE, LATTICE_AZIMUTHS, NEAR_STEP_CHOICES) : latticeCounts(model);
  slopes.sort((a, b) => a - b);
  const medianSlope = slopes.length ? slopes[Math.floor(slopes.length / 2)]! : 0;
  const farShare: Record<number, number> = {};
  NEAR_STEP_CHOICES.forEach((n, k) => (farShare[n] = rays ? beyond[k]! / rays : 0));
  const sunFactor = lowSunFactor(site);
  // per n the fewest directions that meet the target (or the most there are); then the cheapest layout that
  // meets it, or, if none does, the one with the smallest estimate
  const candidates = NEAR_STEP_CHOICES.map((nearSteps) => {
    const share = (N: number) => estimatedMisclassifiedShare(farShare[nearSteps]!, medianSlope, N, sunFactor);
    const directions = DIRECTION_CHOICES.find((N) => share(N) <= MISCLASSIFIED_SHARE_TARGET) ?? DIRECTION_CHOICES.at(-1)!;
    const nearSectors = nearSectorsFor(directions);
    return { layout: { directions, nearSectors, nearSteps }, share: share(directions), cost: layoutCost(nearSteps, directions, nearSectors) };
  });
  const meeting = candidates.filter((c) => c.share <= MISCLASSIFIED_SHARE_TARGET);
  const chosen = meeting.length
    ? meeting.reduce((best, c) => (c.cost < best.cost ? c : best))
    : candidates.reduce((best, c) => (c.share < best.share || (c.share === best.share && c.cost < best.cost) ? c : best));
  return { layout: chosen.layout, medianSlope, farShare, lowSunFactor: sunFactor, estimatedShare: chosen.share };
}

/**
 * The budget's lattice of rays in JavaScript (default: the budget's own): on each of its `lattice` × `lattice` cells
 * with a valid elevation, the central slope and `azimuths` exact rays (`farHorizon` from step 1); the rays that can
 * hide a sun above the horizontal (tan H ≥ 0) and, per near-step choice, those set beyond it.
 */
export function latticeCounts(model: TerrainModel, lattice = LATTICE, azimuths = LATTICE_AZIMUTHS, nearSteps: readonly number[] = NEAR_STEP_CHOICES): BudgetLatticeCounts {
  const { width, height, elevation } = model;
  const slopes: number[] = [];
  let rays = 0;
  const beyond = nearSteps.map(() => 0);
  const out = { tangent: 0, step: 0 };
  for (let i = 0; i < lattice; i++) {
    const row = Math.min(height - 1, Math.floor(((i + 0.5) * height) / lattice));
    const dx = model.cellSizeX[row]!;
    const dy = model.cellSizeY[row]!;
    for (let j = 0; j < lattice; j++) {
      const col = Math.min(width - 1, Math.floor(((j + 0.5) * width) / lattice));
      const z = elevation[row * width + col]!;
      if (Number.isNaN(z)) continue;
      const slope = centralSlope(model, row, col, dx, dy);
      if (!Number.isNaN(slope)) slopes.push(slope);
      for (let a = 0; a < azimuths; a++) {
        const { colPerStep, northPerStep } = rayDirection(dx, dy, ((a + 0.5) * 2 * Math.PI) / azimuths);
        farHorizon(model, row, col, colPerStep, northPerStep, 1, out);
        if (!(out.tangent >= 0)) continue; // cannot hide a sun above the horizontal
        rays++;
        nearSteps.forEach((n, k) => {
          if (out.step > n) beyond[k]!++;
        });
      }
    }
  }
  return { rays, beyond, slopes };
}

/** The horizon layout the error budget chooses for `model` (at `site`, see `horizonBudget`). */
export function horizonLayoutFor(model: TerrainModel, site?: BudgetSite): HorizonLayout {
  return horizonBudget(model, site).layout;
}

/** |∇z| [-] at a cell from central differences (one-sided at the edge); NaN next to nodata. */
function centralSlope(model: TerrainModel, row: number, col: number, dx: number, dy: number): number {
  const { width, height, elevation } = model;
  const at = (r: number, c: number) => elevation[Math.max(0, Math.min(height - 1, r)) * width + Math.max(0, Math.min(width - 1, c))]!;
  const spanX = (Math.min(width - 1, col + 1) - Math.max(0, col - 1)) * dx;
  const spanY = (Math.min(height - 1, row + 1) - Math.max(0, row - 1)) * dy;
  const gx = spanX > 0 ? (at(row, col + 1) - at(row, col - 1)) / spanX : 0;
  const gy = spanY > 0 ? (at(row + 1, col) - at(row - 1, col)) / spanY : 0;
  return Math.hypot(gx, gy);
}
