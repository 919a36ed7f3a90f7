// The real-sky building blocks against numbers printed in Duffie & Beckman (2013), Solar Engineering of Thermal
// Processes, 4th ed.: the extraterrestrial irradiation of Table 1.10.1 and Example 2.19.1, and Example 2.19.1's
// monthly irradiation on a tilted surface, which the textbook computes from its printed H̄ with the monthly
// diffuse-fraction correlation of Erbs et al. (1982) and the isotropic-diffuse transposition of Liu & Jordan.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AVERAGE_DAY_OF_MONTH,
  clearnessIndex,
  cooperDeclination,
  dailyExtraterrestrialHorizontalWhM2,
  dayLengthHours,
  erbsDailyDiffuseFraction,
  erbsMonthlyDiffuseFraction,
  horizontalSunsetHourAngle,
  monthlyMeanExtraterrestrialHorizontalWhM2,
  realSkyCoefficient,
  realSkyIrradiation,
} from '../../../src/science/solar/realSky.js';

const rad = (deg: number) => (deg * Math.PI) / 180;
/** Wh m⁻² → MJ m⁻². */
const mj = (wh: number) => (wh * 3600) / 1e6;

function printed(actual: number, value: number, halfUnit: number, what: string, slack = 0): void {
  assert.ok(Math.abs(actual - value) <= halfUnit + slack + 1e-12, `${what}: got ${actual}, printed ${value} (± ${halfUnit + slack})`);
}

test('Duffie & Beckman Table 1.10.1: monthly mean daily H̄₀ at 45° N and 45° S [MJ m⁻²]', () => {
  const rows: Record<number, number[]> = {
    45: [12.2, 17.4, 25.1, 33.2, 39.2, 41.7, 40.4, 35.3, 27.8, 19.6, 13.3, 10.7],
    [-45]: [42.8, 37.1, 28.6, 19.6, 12.9, 10.0, 11.3, 16.6, 24.9, 34.0, 41.2, 44.5],
  };
  for (const [latitude, row] of Object.entries(rows)) {
    row.forEach((value, m) => printed(mj(monthlyMeanExtraterrestrialHorizontalWhM2(rad(Number(latitude)), m)), value, 0.05, `${latitude}°, month ${m + 1}`));
  }
});

// Example 2.19.1: Madison (43° N), a surface tilted 60° toward the equator; per month the printed H̄₀ and H̄
// [MJ m⁻²], the ground reflectance and the resulting H̄_T [MJ m⁻²].
const EXAMPLE_2_19_1 = {
  h0: [13.37, 18.81, 26.03, 33.78, 39.42, 41.78, 40.56, 35.92, 28.8, 20.9, 14.62, 11.91],
  h: [6.44, 9.89, 12.86, 16.05, 21.36, 23.04, 22.58, 20.33, 14.59, 10.48, 6.37, 5.74],
  reflectance: [0.7, 0.7, 0.4, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.4],
  tilted: [13.7, 17.2, 15.8, 14.7, 16.6, 16.5, 16.8, 17.5, 15.6, 15.2, 11.4, 12.7],
};

test('Duffie & Beckman Example 2.19.1: H̄₀ at 43° N on the average days', () => {
  // printed to 0.01; 0.01 of slack for the rounding of the printed declinations
  AVERAGE_DAY_OF_MONTH.forEach((day, m) => printed(mj(dailyExtraterrestrialHorizontalWhM2(rad(43), day)), EXAMPLE_2_19_1.h0[m]!, 0.005, `month ${m + 1}`, 0.01));
});

test('Duffie & Beckman Example 2.19.1: the monthly Erbs diffuse fraction gives the printed H̄_T of every month', () => {
  // The textbook's method (its Eqs. 2.19.1–2.19.3, written out here): H̄_T = H̄ (1 − H̄_d/H̄) R̄_b + H̄_d (1 + cos β)/2
  // + H̄ ρ_g (1 − cos β)/2, R̄_b for a surface facing the equator from ω'_s = min(ω_s, arccos(−tan(φ − β) tan δ)).
  // H̄_T is printed to 0.1 MJ; a diffuse fraction off by 0.005 moves January's by 0.07.
  const latitude = rad(43);
  const tilt = rad(60);
  AVERAGE_DAY_OF_MONTH.forEach((day, m) => {
    const delta = cooperDeclination(day);
    const omega = horizontalSunsetHourAngle(latitude, delta);
    const omegaTilted = Math.min(omega, Math.acos(-Math.tan(latitude - tilt) * Math.tan(delta)));
    const beamRatio =
      (Math.cos(latitude - tilt) * Math.cos(delta) * Math.sin(omegaTilted) + omegaTilted * Math.sin(latitude - tilt) * Math.sin(delta)) /
      (Math.cos(latitude) * Math.cos(delta) * Math.sin(omega) + omega * Math.sin(latitude) * Math.sin(delta));
    const h = EXAMPLE_2_19_1.h[m]!;
    const fraction = erbsMonthlyDiffuseFraction(clearnessIndex(h, EXAMPLE_2_19_1.h0[m]!), omega);
    const tilted = h * (1 - fraction) * beamRatio + h * fraction * ((1 + Math.cos(tilt)) / 2) + h * EXAMPLE_2_19_1.reflectance[m]! * ((1 - Math.cos(tilt)) / 2);
    printed(tilted, EXAMPLE_2_19_1.tilted[m]!, 0.05, `H̄_T month ${m + 1}`);
  });
});

test('the monthly Erbs correlation holds K̄_T to its fitted range 0.3–0.8', () => {
  const winter = rad(70);
  const summer = rad(100);
  assert.equal(erbsMonthlyDiffuseFraction(0.1, winter), erbsMonthlyDiffuseFraction(0.3, winter));
  assert.equal(erbsMonthlyDiffuseFraction(0.95, summer), erbsMonthlyDiffuseFraction(0.8, summer));
  assert.notEqual(erbsMonthlyDiffuseFraction(0.5, winter), erbsMonthlyDiffuseFraction(0.5, summer));
});

test('the daily Erbs correlation: all diffuse under a black sky, its winter branch meets the clear-sky constant, fractions fall as the sky clears', () => {
  const winter = rad(70);
  const summer = rad(100);
  assert.equal(erbsDailyDiffuseFraction(0, winter), 1);
  assert.equal(erbsDailyDiffuseFraction(0, summer), 1);
  // the winter polynomial reaches the constant 0.143 at K_T = 0.715 (Duffie & Beckman Fig. 2.11.2 is continuous there)
  assert.ok(Math.abs(erbsDailyDiffuseFraction(0.715 - 1e-9, winter) - 0.143) < 0.002);
  assert.equal(erbsDailyDiffuseFraction(0.8, winter), 0.143);
  assert.equal(erbsDailyDiffuseFraction(0.8, summer), 0.175);
  for (const omega of [winter, summer]) {
    let previous = Infinity;
    for (let k = 0; k <= 0.7; k += 0.05) {
      const f = erbsDailyDiffuseFraction(k, omega);
      assert.ok(f <= previous + 1e-12 && f > 0 && f <= 1, `K_T ${k.toFixed(2)}: ${f}`);
      previous = f;
    }
  }
});

test('day length: 12 h at the equinox anywhere, 24 h and 0 h in polar day and night', () => {
  // Cooper's declination is 0 on day 81
  assert.ok(Math.abs(cooperDeclination(81)) < 1e-12);
  for (const latitude of [-60, -20, 0, 35, 60]) assert.ok(Math.abs(dayLengthHours(rad(latitude), 81) - 12) < 1e-9);
  assert.equal(dayLengthHours(rad(80), 172), 24);
  assert.equal(dayLengthHours(rad(80), 355), 0);
  assert.equal(dailyExtraterrestrialHorizontalWhM2(rad(80), 355), 0);
});

test('real-sky coefficients and irradiation: observed over clear sky, not bounded by 1, and 0 without a clear sky', () => {
  assert.equal(realSkyCoefficient(300, 600), 0.5);
  assert.equal(realSkyCoefficient(900, 600), 1.5);
  assert.equal(realSkyCoefficient(5, 0), 0);
  // on a horizontal unshaded surface the clear-sky parts are B_clear,h and D_clear,h: the sum is the observed H
  const beamClear = 5000;
  const diffuseClear = 900;
  const observedBeam = 2600;
  const observedDiffuse = 1400;
  const cb = realSkyCoefficient(observedBeam, beamClear);
  const cd = realSkyCoefficient(observedDiffuse, diffuseClear);
  assert.ok(Math.abs(realSkyIrradiation(beamClear, diffuseClear, cb, cd) - (observedBeam + observedDiffuse)) < 1e-9);
});
