/**
 * Daily clear-sky irradiation of one cell: the readable, scalar form of the r.sun daily model (mode 2),
 * with r.sun's bugs fixed (docs/solar-model.md Part A). The fast kernel (`dailyKernel.ts`) is tested
 * against this function.
 *
 * Integration (r.sun §7): samples at the midpoints (k + ½)·step after midnight in local solar time, from
 * the first midpoint at or after the horizontal sunrise while the hour angle does not pass the horizontal
 * sunset; every sample weighs a full step; samples with the sun below the horizon add nothing.
 */
import {
  beamTransmittance,
  diffuseCoefficients,
  diffuseHorizontal,
  diffuseSlopeFactorShaded,
  diffuseSlopeFactorSunlit,
  groundReflected,
  relativeAirMass,
  type ClearSkyParams,
} from './clearSky.js';
import { extraterrestrialIrradiance, solarAzimuth, solarDeclination, sunDirection, sunsetHourAngle } from './sunPosition.js';

/** A surface element: where it is and how it is inclined. */
export interface SurfaceCell {
  /** Geodetic latitude φ [rad]. */
  readonly latitudeRad: number;
  /** Elevation above sea level [m]. */
  readonly elevationM: number;
  /** Slope β [rad]; 0 for a horizontal surface. */
  readonly slopeRad: number;
  /** Aspect: true compass azimuth of the downslope direction [rad], clockwise from north; ignored when flat. */
  readonly aspectRad: number;
}

/** Daily sums of one cell. */
export interface DailyIrradiation {
  /** Beam (direct) irradiation [Wh m⁻² day⁻¹]. */
  readonly beamWhM2: number;
  /** Diffuse irradiation [Wh m⁻² day⁻¹]. */
  readonly diffuseWhM2: number;
  /** Ground-reflected irradiation [Wh m⁻² day⁻¹]. */
  readonly reflectedWhM2: number;
  /** Of the ground-reflected irradiation, the part reflected from the horizontal beam [Wh m⁻² day⁻¹] (the rest: from the diffuse). */
  readonly reflectedBeamWhM2: number;
  /** Global = beam + diffuse + reflected [Wh m⁻² day⁻¹]. */
  readonly globalWhM2: number;
  /** Time the surface receives direct sun (sun up, not in terrain shadow, not behind the plane) [h]. */
  readonly sunshineHours: number;
}

/** Horizon of the cell [rad] toward a true azimuth [rad, clockwise from north]; −π/2 for an open horizon. */
export type HorizonFunction = (trueAzimuthRad: number) => number;

/** The local solar times [h] at which the daily integration samples the sun (r.sun's midpoint grid). */
export function sampleHours(latitudeRad: number, declinationRad: number, stepHours: number): number[] {
  const omega0 = sunsetHourAngle(latitudeRad, declinationRad);
  const sunriseHour = 12 - (omega0 * 12) / Math.PI;
  const sunsetHourAngleRad = omega0;
  const k0 = Math.floor(sunriseHour / stepHours);
  const firstHour = sunriseHour - k0 * stepHours > stepHours / 2 ? (k0 + 1.5) * stepHours : (k0 + 0.5) * stepHours;
  const hours: number[] = [];
  const stepAngle = (stepHours * Math.PI) / 12;
  // r.sun accumulates the hour angle; do the same so the last sample is decided identically
  let hourAngle = ((firstHour - 12) * Math.PI) / 12;
  for (let k = 0; ; k++) {
    hours.push(firstHour + k * stepHours);
    hourAngle += stepAngle;
    if (hourAngle > sunsetHourAngleRad) break;
  }
  return hours;
}

/**
 * Daily beam, diffuse, reflected and global irradiation [Wh m⁻² day⁻¹] and sunshine hours of one cell.
 * @param horizon terrain horizon toward the sun; omit for no terrain shadow
 * @see docs/solar-model.md §3–§7 and Part A
 */
export function dailyIrradiation(
  day: number,
  cell: SurfaceCell,
  params: ClearSkyParams,
  horizon?: HorizonFunction,
): DailyIrradiation {
  const stepHours = params.stepMinutes / 60;
  const declination = solarDeclination(day);
  const g0 = extraterrestrialIrradiance(day, params.solarConstantWM2);
  const coefficients = diffuseCoefficients(params.linkeTurbidity);
  const beta = cell.slopeRad;
  const inclined = beta !== 0;
  // unit normal of the surface in east-north-up
  const normal = {
    east: Math.sin(beta) * Math.sin(cell.aspectRad),
    north: Math.sin(beta) * Math.cos(cell.aspectRad),
    up: Math.cos(beta),
  };
  let beam = 0;
  let diffuse = 0;
  let reflected = 0;
  let reflectedBeam = 0;
  let sunshine = 0;
  for (const hour of sampleHours(cell.latitudeRad, declination, stepHours)) {
    const hourAngleRad = ((hour - 12) * Math.PI) / 12;
    const sun = sunDirection(cell.latitudeRad, declination, hourAngleRad);
    if (sun.up <= 0) continue;
    const altitude = Math.asin(sun.up);
    const azimuth = solarAzimuth(cell.latitudeRad, declination, hourAngleRad);
    const sinIncidence = inclined ? Math.max(0, normal.east * sun.east + normal.north * sun.north + normal.up * sun.up) : sun.up;
    const terrainShadow = horizon !== undefined && altitude < horizon(azimuth);
    const lit = !terrainShadow && sinIncidence > 0;
    const transmittance = beamTransmittance(params.linkeTurbidity, relativeAirMass(altitude, cell.elevationM));
    const beamH = lit ? g0 * sun.up * transmittance : 0;
    const diffuseH = diffuseHorizontal(g0, sun.up, coefficients);
    if (lit) {
      sunshine += stepHours;
      beam += stepHours * (inclined ? g0 * transmittance * sinIncidence : beamH);
    }
    if (inclined) {
      const factor = lit
        ? diffuseSlopeFactorSunlit(beta, transmittance, altitude, sinIncidence, azimuth - cell.aspectRad)
        : diffuseSlopeFactorShaded(beta);
      diffuse += stepHours * diffuseH * factor;
      reflected += stepHours * groundReflected(params.albedo, beamH, diffuseH, beta);
      reflectedBeam += stepHours * groundReflected(params.albedo, beamH, 0, beta);
    } else {
      diffuse += stepHours * diffuseH;
    }
  }
  return {
    beamWhM2: beam,
    diffuseWhM2: diffuse,
    reflectedWhM2: reflected,
    reflectedBeamWhM2: reflectedBeam,
    globalWhM2: beam + diffuse + reflected,
    sunshineHours: sunshine,
  };
}
