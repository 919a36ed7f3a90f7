import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  beamHorizontal,
  diffuseCoefficients,
  diffuseHorizontal,
  refractionCorrection,
  relativeAirMass,
  rayleighOpticalThickness,
} from '../../../src/science/solar/clearSky.js';
import { dailyIrradiation, sampleHours } from '../../../src/science/solar/dailyIrradiation.js';
import {
  extraterrestrialIrradiance,
  solarAzimuth,
  solarDeclination,
  sinSolarAltitude,
} from '../../../src/science/solar/sunPosition.js';

const DEG = Math.PI / 180;

function assertClose(actual: number, expected: number, relative: number, label: string): void {
  const tolerance = Math.abs(expected) * relative + 1e-12;
  assert.ok(Math.abs(actual - expected) <= tolerance, `${label}: ${actual} vs ${expected} (tolerance ${tolerance})`);
}

// Worked numbers of docs/solar-model.md §10: cell row 136, col 164 of mcn_10m, checked against GRASS r.sun 8.2.1.
const workedCell = {
  latitudeRad: 35.800231823 * DEG,
  elevationM: 2561.387939,
  slopeRad: 25.03532 * DEG,
  aspectRad: (450 - 270.8367) * DEG, // GRASS aspect 270.8367° (CCW from east) = compass 179.1633°
};

test('declination and extraterrestrial irradiance match the check values of r.sun (§2.1)', () => {
  assertClose(solarDeclination(1), -0.401581215, 1e-8, 'δ day 1');
  assertClose(solarDeclination(172), 0.409114526, 1e-8, 'δ day 172');
  assertClose(solarDeclination(355), -0.409078447, 1e-8, 'δ day 355');
  assertClose(extraterrestrialIrradiance(1), 1412.689562, 1e-9, 'G0 day 1');
  assertClose(extraterrestrialIrradiance(172), 1322.508495, 1e-9, 'G0 day 172');
  assertClose(extraterrestrialIrradiance(355), 1411.558278, 1e-9, 'G0 day 355');
});

test('diffuse coefficients match the check values, including the A1 adjustment above T_L 5.82 (§4)', () => {
  const c3 = diffuseCoefficients(3);
  assertClose(c3.tn, 0.0792033, 1e-6, 'Tn');
  assertClose(c3.a1, 0.1081542, 1e-6, 'A1');
  assertClose(c3.a2, 1.996586, 1e-6, 'A2');
  assertClose(c3.a3, -1.1082359, 1e-6, 'A3');
  assertClose(diffuseCoefficients(7).a1, 0.0101587, 1e-5, 'A1 at T_L 7');
});

test('per-sample sun position and clear-sky terms match the worked example (§10)', () => {
  const decl = solarDeclination(172);
  const g0 = extraterrestrialIrradiance(172);
  const c = diffuseCoefficients(3);
  const rows = [
    { T: -0.719948316, h: 0.914340583, az: 1.703683211, dh: 0.00029361, m: 0.930778983, dR: 0.122538779, Bh: 778.918809, Dh: 104.153379 },
    { T: 0.065449847, h: 1.347757829, az: 3.416316052, dh: 0.000202192, m: 0.756527358, dR: 0.126767075, Bh: 1005.249037, Dh: 104.880164 },
  ];
  // the worked example uses the SW-corner latitude of r.sun; the numbers only test the formulas
  for (const r of rows) {
    const sinh = sinSolarAltitude(workedCell.latitudeRad, decl, r.T);
    assertClose(Math.asin(sinh), r.h, 1e-8, 'h');
    assertClose(solarAzimuth(workedCell.latitudeRad, decl, r.T), r.az, 1e-8, 'azimuth');
    assertClose(refractionCorrection(r.h), r.dh, 1e-5, 'Δh');
    const m = relativeAirMass(r.h, workedCell.elevationM);
    assertClose(m, r.m, 1e-8, 'air mass');
    assertClose(rayleighOpticalThickness(m), r.dR, 1e-8, 'δR');
    assertClose(beamHorizontal(g0, r.h, workedCell.elevationM, 3), r.Bh, 1e-7, 'Bh');
    assertClose(diffuseHorizontal(g0, sinh, c), r.Dh, 1e-7, 'Dh');
  }
});

test('the daily sample grid is r.sun\'s midpoints from the first one after sunrise (§7 example)', () => {
  const hours = sampleHours(35.8 * DEG, solarDeclination(172), 0.5);
  assert.equal(hours.length, 28);
  assertClose(hours[0]!, 5.25, 1e-12, 'first sample');
  assertClose(hours.at(-1)!, 18.75, 1e-12, 'last sample');
});

test('daily sums of the worked cell equal r.sun 8.2.1 without shadows (§10)', () => {
  const params = { stepMinutes: 30, linkeTurbidity: 3, albedo: 0.2 };
  const sloped = dailyIrradiation(172, workedCell, params);
  assertClose(sloped.beamWhM2, 7602.661, 2e-6, 'beam');
  assertClose(sloped.diffuseWhM2, 1136.517, 2e-6, 'diffuse');
  assertClose(sloped.reflectedWhM2, 89.331, 2e-5, 'reflected');
  assertClose(sloped.globalWhM2, 8828.51, 2e-6, 'global');
  assert.equal(sloped.sunshineHours, 13);
  const flat = dailyIrradiation(172, { ...workedCell, slopeRad: 0 }, params);
  assertClose(flat.globalWhM2, 9540.934, 2e-6, 'flat global');
  assert.equal(flat.sunshineHours, 14);
  assert.equal(flat.reflectedWhM2, 0);
});

test('a horizon above the sun removes the beam and keeps the diffuse sky', () => {
  const params = { stepMinutes: 15, linkeTurbidity: 3, albedo: 0.2 };
  const open = dailyIrradiation(172, workedCell, params, () => -Math.PI / 2);
  const none = dailyIrradiation(172, workedCell, params);
  assert.deepEqual(open, none);
  const walled = dailyIrradiation(172, workedCell, params, () => Math.PI / 2);
  assert.equal(walled.beamWhM2, 0);
  assert.equal(walled.sunshineHours, 0);
  assert.ok(walled.diffuseWhM2 > 0.5 * none.diffuseWhM2 && walled.diffuseWhM2 < none.diffuseWhM2);
  // a 30° wall to the east only: morning beam goes, afternoon stays
  const eastWall = dailyIrradiation(172, workedCell, params, (az) => (az < Math.PI ? 30 * DEG : -Math.PI / 2));
  assert.ok(eastWall.beamWhM2 < none.beamWhM2 && eastWall.beamWhM2 > 0.3 * none.beamWhM2);
});
