// Validation against numbers printed in the sources (not computed by this project): FAO-56's worked examples,
// the Budyko (1974) curve that Zhang et al. (2004) fitted Fu's ω to, the design point of Thornthwaite's (1948)
// nomogram, Haith & Shoemaker's (1987) units. Each test names its source; the expected values are the printed ones,
// compared within the rounding of the print.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  atmosphericPressure,
  daylightHours,
  fuBudykoActualEvapotranspiration,
  hamonDailyPotentialEvapotranspiration,
  liethNetPrimaryProductivity,
  longwaveCloudinessFactor,
  meanSaturationVapourPressure,
  monthlyNetRadiation,
  netLongwaveRadiation,
  penmanOpenWaterPotentialEvapotranspiration,
  psychrometricConstant,
  saturationVapourPressure,
  saturationVapourPressureSlope,
  solarDeclination,
  sunsetHourAngle,
  thornthwaiteExponent,
  thornthwaiteHeatIndex,
  thornthwaitePotentialEvapotranspiration,
  thornthwaiteUnadjustedPotentialEvapotranspiration,
} from '../../../src/science/eemt/index.js';
import { extraterrestrialIrradiance, sinSolarAltitude, solarDeclination as engineDeclination } from '../../../src/science/solar/sunPosition.js';

/** |actual − printed| within half a unit of the last printed digit (`halfUnit`), plus `slack` for model differences. */
function printed(actual: number, value: number, halfUnit: number, what: string, slack = 0): void {
  assert.ok(Math.abs(actual - value) <= halfUnit + slack + 1e-12, `${what}: got ${actual}, printed ${value} (± ${halfUnit + slack})`);
}

const rad = (deg: number) => (deg * Math.PI) / 180;

// Allen, R.G., Pereira, L.S., Raes, D., Smith, M. (1998) Crop evapotranspiration. FAO Irrigation and Drainage
// Paper 56 ("FAO-56"), Chapter 3, Examples 1–12, and Chapter 4, Examples 17–18.

test('FAO-56 Example 1: atmospheric pressure and psychrometric constant at 1800 m', () => {
  // printed: P = 81.8 kPa, γ = 0.054 kPa °C⁻¹
  const p = atmosphericPressure(1800);
  printed(p, 81.8, 0.05, 'P');
  printed(psychrometricConstant(p), 0.054, 0.0005, 'gamma');
});

test('FAO-56 Example 3: mean saturation vapour pressure from Tmax 24.5 °C, Tmin 15 °C', () => {
  // printed: e°(24.5) = 3.075 kPa, e°(15) = 1.705 kPa, e_s = 2.39 kPa
  printed(saturationVapourPressure(24.5), 3.075, 0.0005, 'e°(Tmax)');
  printed(saturationVapourPressure(15), 1.705, 0.0005, 'e°(Tmin)');
  printed(meanSaturationVapourPressure(24.5, 15), 2.39, 0.005, 'e_s');
});

test('FAO-56 Examples 8 and 9: declination, sunset hour angle and daylight hours on 3 September at 20° S', () => {
  // printed: J = 246, δ = 0.120 rad, ω_s = 1.527 rad, N = 11.7 h
  const delta = solarDeclination(246);
  printed(delta, 0.12, 0.0005, 'delta');
  printed(sunsetHourAngle(rad(-20), delta), 1.527, 0.0005, 'omega_s');
  printed(daylightHours(-20, 246), 11.7, 0.05, 'N');
});

test('FAO-56 Example 8: extraterrestrial radiation 32.2 MJ m⁻² day⁻¹ from the solar engine’s sun (3 September, 20° S)', () => {
  // The engine's earth–sun distance (G₀ with I₀ = 1367 W m⁻²; FAO-56: 0.0820 MJ m⁻² min⁻¹ = 1366.7 W m⁻², d_r = 0.985) and
  // sun altitude, integrated over the day at the example's printed declination δ = 0.120 rad: FAO-56 Eq. 21 in numbers.
  // (The engine's own declination for day 246, Gruter's formula, is 0.133 rad, nearer the almanac's 7.6°; with it
  // R_a is 31.9.) Slack 0.05 MJ for G₀'s eccentricity term.
  const day = 246;
  const latitude = rad(-20);
  const delta = 0.12;
  assert.ok(Math.abs(engineDeclination(day) - 0.133) < 0.001);
  const g0 = extraterrestrialIrradiance(day);
  const steps = 24 * 60;
  let joules = 0;
  for (let k = 0; k < steps; k++) {
    const hourAngle = ((k + 0.5) / steps) * 2 * Math.PI - Math.PI;
    joules += Math.max(0, sinSolarAltitude(latitude, delta, hourAngle)) * g0 * 60;
  }
  printed(joules / 1e6, 32.2, 0.05, 'Ra', 0.05);
});

test('FAO-56 Example 11: net longwave radiation 3.5 MJ m⁻² day⁻¹ (Rio de Janeiro, May)', () => {
  // printed inputs: Tmax 25.1 °C, Tmin 19.1 °C, e_a 2.1 kPa, R_s 14.5, R_so 18.8 MJ m⁻² day⁻¹;
  // printed: σT⁴ 38.8 and 35.8, (0.34 − 0.14√e_a) = 0.137, 1.35 R_s/R_so − 0.35 = 0.69, R_nl = 3.5
  const cloudiness = longwaveCloudinessFactor(14.5 / 18.8);
  printed(cloudiness, 0.69, 0.005, 'cloudiness factor');
  printed(netLongwaveRadiation(25.1, 19.1, 0, 1) / 0.34, (38.8 + 35.8) / 2, 0.05, 'σ(Tx⁴ + Tn⁴)/2');
  printed(netLongwaveRadiation(25.1, 19.1, 2.1, 1) / netLongwaveRadiation(25.1, 19.1, 0, 1) * 0.34, 0.137, 0.0005, 'humidity term');
  printed(netLongwaveRadiation(25.1, 19.1, 2.1, cloudiness), 3.5, 0.05, 'R_nl');
});

test('FAO-56 Example 12: net radiation 7.6 MJ m⁻² day⁻¹ (R_ns = 11.1)', () => {
  // The project's monthly net radiation for a "month" of one day: R_s in Wh m⁻² (14.5 MJ = 14.5e6/3600 Wh), albedo 0.23
  const rs = 14.5e6 / 3600;
  const rn = monthlyNetRadiation(rs, 25.1, 19.1, 2.1, 1, 0.23, 'net', longwaveCloudinessFactor(14.5 / 18.8)) / 1e6;
  printed((1 - 0.23) * 14.5, 11.1, 0.05, 'R_ns', 0.02);
  printed(rn, 7.6, 0.05, 'R_n');
});

test('FAO-56 Example 17: Penman–Monteith ET₀ 5.72 mm day⁻¹ with monthly data (Bangkok, April)', () => {
  // printed inputs: Tmax 34.8, Tmin 25.6 °C, e_a 2.85 kPa, u₂ 2 m s⁻¹, z 2 m, R_n 14.33 and G 0.14 MJ m⁻² day⁻¹;
  // printed: Δ 0.246 kPa °C⁻¹, γ 0.0674 kPa °C⁻¹, e_s 4.42 kPa, ET₀ 5.72 mm day⁻¹.
  // ET₀ is FAO-56 Eq. 3 with the grass reference r_s = 70 s m⁻¹ and r_a = 208/u₂ (Eq. 4): the project's Penman–Monteith
  // with those resistances (EEMT-TOPO uses r_s = 0). FAO-56's Eq. 6 rounds ρ_a c_p/r_a: slack 0.02 mm.
  printed(saturationVapourPressureSlope(30.2), 0.246, 0.0005, 'Delta');
  printed(psychrometricConstant(101.3), 0.0674, 0.00005, 'gamma');
  printed(meanSaturationVapourPressure(34.8, 25.6), 4.42, 0.005, 'e_s');
  const et0 = penmanOpenWaterPotentialEvapotranspiration(34.8, 25.6, 2850, 2, (14.33 - 0.14) * 1e6, 1, 208 / 2, 70);
  printed(et0, 5.72, 0.005, 'ET0', 0.02);
});

test('FAO-56 Example 18: Penman–Monteith ET₀ 3.9 mm day⁻¹ with daily data (Brussels, 6 July)', () => {
  // printed inputs: Tmax 21.5, Tmin 12.3 °C, z 100 m, e_a 1.409 kPa, u₂ 2.078 m s⁻¹, R_n 13.28 MJ m⁻² day⁻¹, G 0;
  // printed: Δ 0.122, γ 0.0666, e_s 1.997, ET₀ 3.9 mm day⁻¹
  printed(saturationVapourPressureSlope(16.9), 0.122, 0.0005, 'Delta');
  printed(psychrometricConstant(atmosphericPressure(100)), 0.0666, 0.00005, 'gamma');
  printed(meanSaturationVapourPressure(21.5, 12.3), 1.997, 0.0005, 'e_s');
  const et0 = penmanOpenWaterPotentialEvapotranspiration(21.5, 12.3, 1409, 100, 13.28e6, 1, 208 / 2.078, 70);
  printed(et0, 3.9, 0.05, 'ET0');
});

test('Fu’s curve with ω = 2.63 follows Budyko’s (1974) curve, as Zhang et al. (2004) fitted it', () => {
  // Zhang, L., Hickel, K., Dawes, W.R., Chiew, F.H.S., Western, A.W., Potter, N.R. (2004) A rational function approach
  // for estimating mean annual evapotranspiration. Water Resour. Res. 40, W02502: Fu's equation with ω ≈ 2.6 reproduces
  // Budyko's curve E/P = [φ tanh(1/φ) (1 − e^(−φ))]^½. Budyko's curve is computed here from its own formula.
  const budyko = (phi: number) => Math.sqrt(phi * Math.tanh(1 / phi) * (1 - Math.exp(-phi)));
  let largest = 0;
  for (let k = 1; k <= 100; k++) {
    const phi = 0.1 * k;
    largest = Math.max(largest, Math.abs(fuBudykoActualEvapotranspiration(100, 100 * phi) / 100 - budyko(phi)));
  }
  assert.ok(largest < 0.025, `largest |Fu − Budyko| over φ = 0.1…10: ${largest}`);
  // the limits of every Budyko-type curve: E → PET when PET ≪ P (energy limit), E → P when PET ≫ P (water limit)
  assert.ok(Math.abs(fuBudykoActualEvapotranspiration(100, 1) - 1) < 1e-3);
  assert.ok(Math.abs(fuBudykoActualEvapotranspiration(100, 1e5) - 100) < 1e-3);
});

test('Thornthwaite (1948): every heat index gives about 13.5 cm at 26.5 °C, where the hot-month rule takes over', () => {
  // The nomogram of Thornthwaite's Appendix: the lines of all heat indices meet at 26.5 °C and 13.5 cm per 30 days of
  // 12 h; above it PE depends on temperature alone (Willmott et al. 1985 fit: −415.85 + 32.24T − 0.43T² mm).
  for (const heatIndex of [25, 50, 75, 100, 125]) {
    printed(thornthwaiteUnadjustedPotentialEvapotranspiration(26.49999, heatIndex), 135, 0.5, `I = ${heatIndex}`, 1.5);
  }
  printed(thornthwaiteUnadjustedPotentialEvapotranspiration(26.5, 50), 136.5, 0.05, 'hot branch at 26.5 °C');
  // T ≤ 0 °C: no PE; the heat index sums (T/5)^1.514 over months above 0 °C only
  assert.equal(thornthwaiteUnadjustedPotentialEvapotranspiration(-3, 40), 0);
  assert.equal(thornthwaiteHeatIndex([-5, 5, 10]), 1 + Math.pow(2, 1.514));
  // the correction for the day length D and the days n: × (D/12)(n/30)
  const i = 60;
  assert.ok(Math.abs(thornthwaitePotentialEvapotranspiration(15, 14.4, 31, i) - thornthwaiteUnadjustedPotentialEvapotranspiration(15, i) * 1.2 * (31 / 30)) < 1e-9);
  assert.ok(Math.abs(thornthwaiteExponent(0) - 0.49239) < 1e-12);
});

test('Haith & Shoemaker (1987): E = 0.021 H² e_s/(T + 273) cm day⁻¹ with e_s in mb, returned in mm day⁻¹', () => {
  // T = 25 °C, H = 14 h: e_s = 31.67 mb (FAO-56 Annex 2, Table 2.3: e°(25) = 3.168 kPa)
  printed(saturationVapourPressure(25) * 10, 31.68, 0.005, 'e_s [mb]');
  const cmPerDay = (0.021 * 14 * 14 * 31.68) / 298;
  printed(hamonDailyPotentialEvapotranspiration(25, 14), cmPerDay * 10, 0.005, 'E [mm/day]');
  assert.equal(hamonDailyPotentialEvapotranspiration(0, 14), 0, 'E = 0 at T ≤ 0 °C');
});

test('Lieth (1975) Miami model: the formula as printed by Rasmussen et al. 2005 Eq. 3 and Zapata-Rios et al. 2016 Eq. 6', () => {
  // 3000/(1 + e^(1.315 − 0.119 T)) g m⁻² yr⁻¹: half of the 3000 g asymptote at T = 1.315/0.119 = 11.05 °C
  printed(liethNetPrimaryProductivity(1.315 / 0.119), 1500, 1e-9, 'half point');
  // at 0 °C: 3000/(1 + e^1.315) = 3000/4.7249 = 634.95
  printed(liethNetPrimaryProductivity(0), 634.95, 0.005, 'NPP(0 °C)');
  assert.ok(liethNetPrimaryProductivity(80) > 2999 && liethNetPrimaryProductivity(80) < 3000, 'asymptote 3000 g m⁻² yr⁻¹');
});
