/**
 * The fast daily kernel: daily global irradiation and sunshine hours of every cell of a block of cells
 * ("sun tile") that shares one sun geometry. It computes exactly what `dailyIrradiation` computes per
 * cell (a test holds them equal), reorganised for speed:
 *  - per day and tile, the sun is sampled once (altitude, azimuth, air mass, horizontal diffuse, horizon
 *    lookup position), at the tile's centre latitude and meridian convergence;
 *  - per cell and sample only a dot product (incidence), a horizon interpolation and, when lit, a table
 *    lookup of the beam transmittance τ_b(m) are needed — no trigonometry, no exp;
 *  - the diffuse and reflected sums of shaded samples are per-cell constants times Σ D_h.
 *
 * Units: irradiance W m⁻², irradiation Wh m⁻² day⁻¹, hours h, angles rad.
 * @see docs/solar-model.md §3–§7, Part A; dailyIrradiation.ts (the scalar form)
 */
import { beamTransmittance, diffuseCoefficients, seaLevelAirMass } from './clearSky.js';
import { HORIZON_ANGLE_UNIT_RAD } from './horizon.js';
import { sampleHours } from './dailyIrradiation.js';
import { extraterrestrialIrradiance, solarDeclination } from './sunPosition.js';
import type { SurfaceTerms } from './surface.js';

/** τ_b(m) tabulated on a fine grid of air mass for one Linke turbidity (linear interpolation error < 1e-6). */
export interface TransmittanceTable {
  readonly linkeTurbidity: number;
  readonly values: Float64Array;
  readonly stepAirMass: number;
  readonly maxAirMass: number;
}

export function transmittanceTable(linkeTurbidity: number, maxAirMass = 48, stepAirMass = 0.002): TransmittanceTable {
  const n = Math.ceil(maxAirMass / stepAirMass) + 2;
  const values = new Float64Array(n);
  for (let i = 0; i < n; i++) values[i] = beamTransmittance(linkeTurbidity, i * stepAirMass);
  return { linkeTurbidity, values, stepAirMass, maxAirMass };
}

/** Beam transmittance at air mass m from the table (exact formula beyond its range). */
export function lookupTransmittance(table: TransmittanceTable, airMass: number): number {
  if (airMass >= table.maxAirMass) return beamTransmittance(table.linkeTurbidity, airMass);
  const position = airMass / table.stepAirMass;
  const i = position | 0;
  const v0 = table.values[i]!;
  return v0 + (position - i) * (table.values[i + 1]! - v0);
}

/** Run parameters of the kernel. */
export interface KernelParams {
  readonly stepMinutes: number;
  readonly linkeTurbidity: number;
  readonly albedo: number;
  readonly solarConstantWM2?: number;
}

/** The sun samples of one day at one latitude (only those with the sun above the horizon). */
export interface DaySamples {
  count: number;
  stepHours: number;
  extraterrestrialWM2: number;
  /** Σ D_h over the samples [W m⁻²]. */
  sumDiffuseHorizontal: number;
  readonly sinAltitude: Float64Array;
  readonly inverseSinAltitude: Float64Array;
  /** Altitude in horizon units (HORIZON_ANGLE_UNIT_RAD), for the shadow test against stored horizons. */
  readonly altitudeUnits: Float64Array;
  readonly seaLevelAirMass: Float64Array;
  readonly diffuseHorizontal: Float64Array;
  /** Horizontal components of the unit sun vector in the grid frame: cos h · sin(az_grid), cos h · cos(az_grid). */
  readonly sunEast: Float64Array;
  readonly sunNorth: Float64Array;
  /** Unit horizontal direction of the sun in the grid frame, for Muneer's low-sun term. */
  readonly azimuthEast: Float64Array;
  readonly azimuthNorth: Float64Array;
  /** 1/(0.1 − 0.008 h) where h < 0.1 rad (Muneer's low-sun branch), else 0. */
  readonly lowSunFactor: Float64Array;
  /** Stored horizon directions around the sun azimuth, and the interpolation weight of the second. */
  readonly horizonDirection0: Int32Array;
  readonly horizonDirection1: Int32Array;
  readonly horizonWeight: Float64Array;
}

/** Buffers for up to `capacity` samples a day (24 h / step + 2 is always enough). */
export function allocateDaySamples(capacity: number): DaySamples {
  const f = () => new Float64Array(capacity);
  return {
    count: 0,
    stepHours: 0,
    extraterrestrialWM2: 0,
    sumDiffuseHorizontal: 0,
    sinAltitude: f(),
    inverseSinAltitude: f(),
    altitudeUnits: f(),
    seaLevelAirMass: f(),
    diffuseHorizontal: f(),
    sunEast: f(),
    sunNorth: f(),
    azimuthEast: f(),
    azimuthNorth: f(),
    lowSunFactor: f(),
    horizonDirection0: new Int32Array(capacity),
    horizonDirection1: new Int32Array(capacity),
    horizonWeight: f(),
  };
}

export function sampleCapacity(stepMinutes: number): number {
  return Math.ceil((24 * 60) / stepMinutes) + 2;
}

/**
 * Fill `out` with the sun samples of `day` at latitude φ, for a tile whose grid north lies
 * `convergenceRad` counter-clockwise of true north (grid azimuth = true azimuth + convergence).
 * @param directions number of stored horizon directions (0 when there are no horizons)
 */
export function sunSamplesForDay(
  day: number,
  latitudeRad: number,
  convergenceRad: number,
  params: KernelParams,
  directions: number,
  out: DaySamples,
): DaySamples {
  const stepHours = params.stepMinutes / 60;
  const declination = solarDeclination(day);
  const g0 = extraterrestrialIrradiance(day, params.solarConstantWM2 ?? 1367);
  const c = diffuseCoefficients(params.linkeTurbidity);
  const sinLat = Math.sin(latitudeRad);
  const cosLat = Math.cos(latitudeRad);
  const sinDec = Math.sin(declination);
  const cosDec = Math.cos(declination);
  let count = 0;
  let sumDiffuse = 0;
  for (const hour of sampleHours(latitudeRad, declination, stepHours)) {
    const T = ((hour - 12) * Math.PI) / 12;
    const sinh = cosLat * cosDec * Math.cos(T) + sinLat * sinDec;
    if (sinh <= 0) continue;
    const h = Math.asin(sinh);
    const east = -cosDec * Math.sin(T);
    const north = cosLat * sinDec - sinLat * cosDec * Math.cos(T);
    let azimuth = Math.atan2(east, north) + convergenceRad;
    if (azimuth < 0) azimuth += 2 * Math.PI;
    if (azimuth >= 2 * Math.PI) azimuth -= 2 * Math.PI;
    const cosh = Math.cos(h);
    const diffuseH = g0 * c.tn * (c.a1 + sinh * (c.a2 + c.a3 * sinh));
    out.sinAltitude[count] = sinh;
    out.inverseSinAltitude[count] = 1 / sinh;
    out.altitudeUnits[count] = h / HORIZON_ANGLE_UNIT_RAD;
    out.seaLevelAirMass[count] = seaLevelAirMass(h);
    out.diffuseHorizontal[count] = diffuseH;
    out.azimuthEast[count] = Math.sin(azimuth);
    out.azimuthNorth[count] = Math.cos(azimuth);
    out.sunEast[count] = cosh * Math.sin(azimuth);
    out.sunNorth[count] = cosh * Math.cos(azimuth);
    out.lowSunFactor[count] = h < 0.1 ? 1 / (0.1 - 0.008 * h) : 0;
    if (directions > 0) {
      const position = (azimuth / (2 * Math.PI)) * directions;
      const k0 = Math.min(Math.floor(position), directions - 1);
      out.horizonDirection0[count] = k0;
      out.horizonDirection1[count] = k0 + 1 === directions ? 0 : k0 + 1;
      out.horizonWeight[count] = position - k0;
    }
    sumDiffuse += diffuseH;
    count++;
  }
  out.count = count;
  out.stepHours = stepHours;
  out.extraterrestrialWM2 = g0;
  out.sumDiffuseHorizontal = sumDiffuse;
  return out;
}

/** A rectangular block of cells [rowStart, rowEnd) × [colStart, colEnd). */
export interface CellBlock {
  readonly rowStart: number;
  readonly rowEnd: number;
  readonly colStart: number;
  readonly colEnd: number;
}

/** Stored horizons (see horizon.ts), or null for no terrain shadowing. */
export interface HorizonAngles {
  readonly angles: Int16Array;
  readonly directions: number;
}

/**
 * Daily global irradiation [Wh m⁻² day⁻¹] and sunshine hours [h] of the cells of `block` (grid `width`
 * wide), written into `globalOut` and `hoursOut` (NaN for nodata cells).
 */
export function integrateBlock(
  block: CellBlock,
  width: number,
  samples: DaySamples,
  surface: SurfaceTerms,
  horizon: HorizonAngles | null,
  table: TransmittanceTable,
  albedo: number,
  globalOut: Float32Array,
  hoursOut: Float32Array,
): void {
  const count = samples.count;
  const g0 = samples.extraterrestrialWM2;
  const stepHours = samples.stepHours;
  const sumDiffuse = samples.sumDiffuseHorizontal;
  const { sinAltitude, inverseSinAltitude, altitudeUnits, seaLevelAirMass: m0, diffuseHorizontal: dh } = samples;
  const { sunEast, sunNorth, azimuthEast, azimuthNorth, lowSunFactor } = samples;
  const { horizonDirection0, horizonDirection1, horizonWeight } = samples;
  const tau = table.values;
  const tauStep = 1 / table.stepAirMass;
  const tauMax = table.maxAirMass;
  const angles = horizon ? horizon.angles : null;
  const directions = horizon ? horizon.directions : 0;
  for (let row = block.rowStart; row < block.rowEnd; row++) {
    for (let cell = row * width + block.colStart, end = row * width + block.colEnd; cell < end; cell++) {
      if (surface.valid[cell] === 0) {
        globalOut[cell] = NaN;
        hoursOut[cell] = NaN;
        continue;
      }
      const pz = surface.pressureRatio[cell]!;
      const nE = surface.normalEast[cell]!;
      const nN = surface.normalNorth[cell]!;
      const nU = surface.normalUp[cell]!;
      const inclined = surface.inclined[cell] === 1;
      const horizonBase = cell * directions;
      let sumTauIncidence = 0; // Σ τ s over lit samples → beam / G₀
      let sumTauSinh = 0; // Σ τ sin h over lit samples → B_h / G₀
      let sumLitDiffuseExcess = 0; // Σ D_h (F_x,lit − F_x,shaded) over lit samples
      let litSamples = 0;
      const rsky = surface.skyView[cell]!;
      const fg = surface.muneerSlope[cell]!;
      const shadedFactor = surface.shadedDiffuseFactor[cell]!;
      for (let k = 0; k < count; k++) {
        const sinh = sinAltitude[k]!;
        const s = inclined ? nE * sunEast[k]! + nN * sunNorth[k]! + nU * sinh : sinh;
        if (s <= 0) continue;
        if (angles !== null) {
          const a0 = angles[horizonBase + horizonDirection0[k]!]!;
          const a1 = angles[horizonBase + horizonDirection1[k]!]!;
          if (a0 + horizonWeight[k]! * (a1 - a0) > altitudeUnits[k]!) continue;
        }
        const m = pz * m0[k]!;
        let t: number;
        if (m < tauMax) {
          const position = m * tauStep;
          const i = position | 0;
          const v0 = tau[i]!;
          t = v0 + (position - i) * (tau[i + 1]! - v0);
        } else {
          t = beamTransmittance(table.linkeTurbidity, m);
        }
        litSamples++;
        sumTauSinh += t * sinh;
        if (inclined) {
          sumTauIncidence += t * s;
          const isotropic = (rsky + (0.00263 - t * (0.712 + 0.6883 * t)) * fg) * (1 - t);
          const low = lowSunFactor[k]!;
          const circumsolar =
            low === 0 ? t * s * inverseSinAltitude[k]! : t * (nE * azimuthEast[k]! + nN * azimuthNorth[k]!) * low;
          sumLitDiffuseExcess += dh[k]! * (isotropic + circumsolar - shadedFactor);
        }
      }
      let dailyWh: number;
      if (inclined) {
        const beam = g0 * sumTauIncidence;
        const diffuse = shadedFactor * sumDiffuse + sumLitDiffuseExcess;
        const reflected = albedo * surface.groundView[cell]! * (g0 * sumTauSinh + sumDiffuse);
        dailyWh = (beam + diffuse + reflected) * stepHours;
      } else {
        dailyWh = (g0 * sumTauSinh + sumDiffuse) * stepHours;
      }
      globalOut[cell] = dailyWh;
      hoursOut[cell] = litSamples * stepHours;
    }
  }
}

/**
 * Daily global irradiation [Wh m⁻² day⁻¹] of a horizontal, unshaded surface at each cell of `block`
 * (r.sun without slope and without terrain shadow), for EEMT's S_flat.
 */
export function integrateBlockFlat(
  block: CellBlock,
  width: number,
  samples: DaySamples,
  surface: SurfaceTerms,
  table: TransmittanceTable,
  flatOut: Float32Array,
): void {
  const count = samples.count;
  const g0 = samples.extraterrestrialWM2;
  for (let row = block.rowStart; row < block.rowEnd; row++) {
    for (let cell = row * width + block.colStart, end = row * width + block.colEnd; cell < end; cell++) {
      if (surface.valid[cell] === 0) {
        flatOut[cell] = NaN;
        continue;
      }
      const pz = surface.pressureRatio[cell]!;
      let sumTauSinh = 0;
      for (let k = 0; k < count; k++) {
        sumTauSinh += lookupTransmittance(table, pz * samples.seaLevelAirMass[k]!) * samples.sinAltitude[k]!;
      }
      flatOut[cell] = (g0 * sumTauSinh + samples.sumDiffuseHorizontal) * samples.stepHours;
    }
  }
}
