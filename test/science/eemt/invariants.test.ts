// Hard invariants and monotonic checks of eemt-model.md §5.4 on randomized inputs (seeded, reproducible).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  eemtTopoMonth,
  eemtTopoMonthPixel,
  eemtTradMonth,
  eemtTradMonthPixel,
  meanAirTemperature,
  northness,
  thornthwaiteHeatIndex,
  type TopoGridInputs,
  type TradGridInputs,
} from '../../../src/science/eemt/index.js';
import { seededRandom as rng } from '../../helpers/syntheticDaymet.js';


const CELLS = 1500;

/** Random but physically possible monthly climate and terrain for CELLS cells and 12 months. */
function randomDomain(seed: number) {
  const r = rng(seed);
  const u = (lo: number, hi: number) => lo + (hi - lo) * r();
  const z = new Float64Array(CELLS);
  const zRef = new Float64Array(CELLS);
  const lat = new Float64Array(CELLS);
  const alpha = new Float64Array(CELLS);
  const north = new Float64Array(CELLS);
  for (let i = 0; i < CELLS; i++) {
    z[i] = u(0, 3800);
    zRef[i] = r() < 0.1 ? z[i]! : z[i]! + u(-400, 400);
    lat[i] = u(-60, 70);
    alpha[i] = r() < 0.05 ? 0 : u(0, 3.5);
    north[i] = northness(u(0, Math.PI / 2.2), u(0, 2 * Math.PI));
  }
  const months = Array.from({ length: 12 }, () => {
    const m = {
      tmaxC: new Float64Array(CELLS),
      tminC: new Float64Array(CELLS),
      prcpMm: new Float64Array(CELLS),
      vpPa: new Float64Array(CELLS),
      sTopo: new Float64Array(CELLS),
      sFlat: new Float64Array(CELLS),
    };
    for (let i = 0; i < CELLS; i++) {
      m.tmaxC[i] = u(-25, 42);
      m.tminC[i] = m.tmaxC[i]! - u(0, 22);
      m.prcpMm[i] = r() < 0.1 ? 0 : u(0, 400);
      m.vpPa[i] = u(50, 3500); // sometimes above saturation: VPD is then capped at 0
      m.sFlat[i] = r() < 0.03 ? 0 : u(0, 300000);
      m.sTopo[i] = m.sFlat[i]! * (r() < 0.05 ? u(0, 0.1) : u(0.1, 1.6));
    }
    return m;
  });
  return { z, zRef, lat, alpha, north, months };
}

const domain = randomDomain(20240611);

function tradInputs(month: number): TradGridInputs {
  const m = domain.months[month - 1]!;
  return {
    tmaxC: m.tmaxC,
    tminC: m.tminC,
    prcpMm: m.prcpMm,
    elevationM: domain.z,
    referenceElevationM: domain.zRef,
    latitudeDeg: domain.lat,
  };
}

function topoInputs(month: number): TopoGridInputs {
  const m = domain.months[month - 1]!;
  return {
    tmaxC: m.tmaxC,
    tminC: m.tminC,
    prcpMm: m.prcpMm,
    vpPa: m.vpPa,
    elevationM: domain.z,
    referenceElevationM: domain.zRef,
    topographicRadiationWhM2: m.sTopo,
    flatRadiationWhM2: m.sFlat,
    wetnessRatio: domain.alpha,
    northness: domain.north,
  };
}

for (const petMethod of ['hamon', 'hamon-linear', 'hamon-linear-saturation-average'] as const) {
  test(`TRAD invariants on random inputs (${petMethod})`, () => {
    const annualBio = new Float64Array(CELLS);
    for (let month = 1; month <= 12; month++) {
      const inputs = tradInputs(month);
      const k = eemtTradMonth(month, inputs, { petMethod });
      for (let i = 0; i < CELLS; i++) {
        const s = eemtTradMonthPixel(
          month,
          {
            tmaxC: inputs.tmaxC[i]!,
            tminC: inputs.tminC[i]!,
            prcpMm: inputs.prcpMm[i]!,
            elevationM: inputs.elevationM[i]!,
            referenceElevationM: inputs.referenceElevationM[i]!,
            latitudeDeg: inputs.latitudeDeg![i]!,
          },
          { petMethod },
        );
        assert.ok(Math.abs(k.eemtMJ[i]! - s.eemtMJ) <= 1e-12 * Math.max(1, Math.abs(s.eemtMJ)), 'kernel = scalar');
        assert.ok(s.ePptMJ >= 0 && s.eBioMJ >= 0, 'E_PPT, E_BIO >= 0');
        assert.ok(s.peffMm >= 0 && s.peffMm <= inputs.prcpMm[i]!, '0 <= Peff <= P');
        if (inputs.prcpMm[i]! <= s.petMm) {
          assert.equal(s.peffMm, 0);
          assert.equal(s.ePptMJ, 0);
          assert.equal(s.nppGPerM2, 0);
          assert.equal(s.eBioMJ, 0);
          assert.equal(s.eemtMJ, 0);
        }
        if (s.meanTemperatureC <= 0) assert.equal(s.eemtMJ, 0, 'frozen month contributes nothing');
        annualBio[i] = annualBio[i]! + s.eBioMJ;
      }
    }
    for (let i = 0; i < CELLS; i++) assert.ok(annualBio[i]! < 66, `E_BIO,TRAD,yr = ${annualBio[i]} < 66`);
  });
}

test('TRAD Thornthwaite variant: kernel = scalar, invariants', () => {
  // Heat index from the lapse-adjusted monthly means of each cell.
  const heatIndex = new Float64Array(CELLS);
  const temps = new Float64Array(12);
  for (let i = 0; i < CELLS; i++) {
    for (let m = 0; m < 12; m++) {
      const lapse = (6.49 * (domain.z[i]! - domain.zRef[i]!)) / 1000;
      temps[m] = meanAirTemperature(domain.months[m]!.tmaxC[i]! - lapse, domain.months[m]!.tminC[i]! - lapse);
    }
    heatIndex[i] = thornthwaiteHeatIndex(temps);
  }
  for (let month = 1; month <= 12; month++) {
    const inputs = { ...tradInputs(month), heatIndex };
    const k = eemtTradMonth(month, inputs, { petMethod: 'thornthwaite' });
    for (let i = 0; i < CELLS; i += 7) {
      const s = eemtTradMonthPixel(
        month,
        {
          tmaxC: inputs.tmaxC[i]!,
          tminC: inputs.tminC[i]!,
          prcpMm: inputs.prcpMm[i]!,
          elevationM: inputs.elevationM[i]!,
          referenceElevationM: inputs.referenceElevationM[i]!,
          latitudeDeg: inputs.latitudeDeg![i]!,
          heatIndex: heatIndex[i]!,
        },
        { petMethod: 'thornthwaite' },
      );
      assert.ok(Number.isFinite(s.eemtMJ) && s.eemtMJ >= 0);
      assert.ok(s.petMm >= 0);
      assert.equal(k.eemtMJ[i], s.eemtMJ);
    }
  }
  assert.throws(() => eemtTradMonth(1, tradInputs(1), { petMethod: 'thornthwaite' }), /heatIndex/);
});

test('TOPO invariants on random inputs', () => {
  const annual = new Float64Array(CELLS);
  let clampedSeen = 0;
  for (let month = 1; month <= 12; month++) {
    const inputs = topoInputs(month);
    const k = eemtTopoMonth(month, inputs);
    let clamped = 0;
    for (let i = 0; i < CELLS; i++) {
      const s = eemtTopoMonthPixel(month, {
        tmaxC: inputs.tmaxC[i]!,
        tminC: inputs.tminC[i]!,
        prcpMm: inputs.prcpMm[i]!,
        vpPa: inputs.vpPa[i]!,
        elevationM: inputs.elevationM[i]!,
        referenceElevationM: inputs.referenceElevationM[i]!,
        topographicRadiationWhM2: inputs.topographicRadiationWhM2[i]!,
        flatRadiationWhM2: inputs.flatRadiationWhM2[i]!,
        wetnessRatio: inputs.wetnessRatio[i]!,
        northness: inputs.northness[i]!,
      });
      if (s.solarRatioClamped) clamped++;
      assert.ok(Math.abs(k.eemtMJ[i]! - s.eemtMJ) <= 1e-12 * Math.max(1, Math.abs(s.eemtMJ)), 'kernel = scalar');
      const p = inputs.prcpMm[i]!;
      assert.ok(s.ePptMJ >= 0 && s.eBioMJ >= 0, 'E_PPT, E_BIO >= 0');
      assert.ok(s.petMm >= 0);
      assert.ok(s.aetMm >= 0 && s.aetMm <= Math.min(p, s.petMm), `0 <= AET <= min(P, PET): ${s.aetMm} ${p} ${s.petMm}`);
      assert.ok(s.peffMm >= 0 && s.peffMm <= p, '0 <= Peff <= P');
      assert.ok(s.solarRatio >= 0.1);
      annual[i] = annual[i]! + s.eemtMJ;
    }
    assert.equal(k.clampedSolarRatioCount, clamped);
    clampedSeen += clamped;
  }
  assert.ok(clampedSeen > 0, 'the random domain exercises the clamp');
  for (let i = 0; i < CELLS; i++) assert.ok(annual[i]! >= 2.2 - 1e-12, `EEMT_TOPO,yr = ${annual[i]} >= 2.2`);
});

test('S_i = 1 and T_topo = T_lapse when S_topo = S_flat; T\' = Daymet T when z = z_ref', () => {
  const r = rng(7);
  for (let j = 0; j < 500; j++) {
    const month = 1 + Math.floor(r() * 12);
    const s = 1000 + r() * 300000;
    const base = {
      tmaxC: -10 + 40 * r(),
      tminC: -20 + 20 * r(),
      prcpMm: 200 * r(),
      vpPa: 100 + 2000 * r(),
      elevationM: 3000 * r(),
      referenceElevationM: 3000 * r(),
      topographicRadiationWhM2: s,
      flatRadiationWhM2: s,
      wetnessRatio: 1,
      northness: 0,
    };
    const topo = eemtTopoMonthPixel(month, base);
    const trad = eemtTradMonthPixel(month, { ...base, latitudeDeg: 40, heatIndex: 40 });
    assert.equal(topo.solarRatio, 1);
    assert.equal(topo.tmaxC, trad.tmaxC);
    assert.equal(topo.tminC, trad.tminC);
    assert.equal(topo.meanTemperatureC, trad.meanTemperatureC);
    const same = { ...base, referenceElevationM: base.elevationM };
    const t0 = eemtTradMonthPixel(month, { ...same, latitudeDeg: 40, heatIndex: 40 }, { lapseRateTmaxKPerKm: 9.8, lapseRateTminKPerKm: 3 });
    assert.equal(t0.tmaxC, base.tmaxC);
    assert.equal(t0.tminC, base.tminC);
    const p0 = eemtTopoMonthPixel(month, same);
    assert.equal(p0.tmaxC, base.tmaxC);
    assert.equal(p0.tminC, base.tminC);
  }
});

test('monthly lapse rates select the month', () => {
  const lapse = Array.from({ length: 12 }, (_, m) => m + 1);
  for (let month = 1; month <= 12; month++) {
    const t = eemtTradMonthPixel(
      month,
      { tmaxC: 20, tminC: 10, prcpMm: 50, elevationM: 2000, referenceElevationM: 1000, latitudeDeg: 35, heatIndex: 40 },
      { lapseRateTmaxKPerKm: lapse, lapseRateTminKPerKm: 0 },
    );
    assert.equal(t.tmaxC, 20 - month);
    assert.equal(t.tminC, 10);
  }
  assert.throws(() => eemtTradMonthPixel(1, { tmaxC: 0, tminC: 0, prcpMm: 0, elevationM: 0, referenceElevationM: 0, latitudeDeg: 0 }, { lapseRateTmaxKPerKm: [1, 2] }), RangeError);
});

test('raising α raises E_PPT linearly', () => {
  const base = {
    tmaxC: 24, tminC: 11.5, prcpMm: 140, vpPa: 1300, elevationM: 2400, referenceElevationM: 2250,
    topographicRadiationWhM2: 230000, flatRadiationWhM2: 260000, northness: 0.34,
  };
  const e1 = eemtTopoMonthPixel(8, { ...base, wetnessRatio: 1 }).ePptMJ;
  const e2 = eemtTopoMonthPixel(8, { ...base, wetnessRatio: 2 }).ePptMJ;
  const e3 = eemtTopoMonthPixel(8, { ...base, wetnessRatio: 3 }).ePptMJ;
  assert.ok(e1 > 0);
  assert.ok(Math.abs(e2 - 2 * e1) < 1e-12 * e2 && Math.abs(e3 - 3 * e1) < 1e-12 * e3);
});

/**
 * Same climate, north- vs south-facing 20° slopes: annual EEMT_TOPO(north) >= EEMT_TOPO(south).
 * Monthly ratios S_topo/S_flat of 20° slopes at ~32° N (clear sky), from about 0.55/1.45 in December to
 * 0.93/1.02 in June; the climate is random but plausible (SCM-like ranges).
 */
test('monotonic: north-facing EEMT_TOPO >= south-facing with identical climate', () => {
  const r = rng(99);
  const flatDaily = [3600, 4700, 6000, 7300, 8100, 8400, 8000, 7400, 6500, 5200, 4000, 3400]; // Wh m-2 d-1
  const days = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  const nNorth = northness((20 * Math.PI) / 180, 0);
  const nSouth = northness((20 * Math.PI) / 180, Math.PI);
  for (let trial = 0; trial < 300; trial++) {
    const z = 800 + 2000 * r();
    const warm = 5 + 15 * r();
    const wet = 20 + 100 * r();
    const alpha = 0.4 + 2 * r();
    let north = 0;
    let south = 0;
    for (let m = 1; m <= 12; m++) {
      const season = Math.cos(((m - 6.5) * Math.PI) / 6); // -1 in Dec/Jan .. +1 in Jun/Jul
      const fNorth = 0.74 + 0.19 * season;
      const fSouth = 1.235 - 0.215 * season;
      const sFlat = flatDaily[m - 1]! * days[m - 1]!;
      const climate = {
        tmaxC: warm + 10 * season + 8,
        tminC: warm + 10 * season - 6 - 4 * r(),
        prcpMm: wet * (0.3 + 1.4 * r()),
        vpPa: 300 + 1200 * r(),
        elevationM: z,
        referenceElevationM: z + 200 * (r() - 0.5),
        flatRadiationWhM2: sFlat,
        wetnessRatio: alpha,
      };
      north += eemtTopoMonthPixel(m, { ...climate, topographicRadiationWhM2: fNorth * sFlat, northness: nNorth }).eemtMJ;
      south += eemtTopoMonthPixel(m, { ...climate, topographicRadiationWhM2: fSouth * sFlat, northness: nSouth }).eemtMJ;
    }
    assert.ok(north >= south, `trial ${trial}: north ${north} < south ${south}`);
  }
});

test('NaN in any input gives NaN out; month and length checks', () => {
  const n = 4;
  const full = (v: number) => new Float64Array(n).fill(v);
  const inputs = {
    tmaxC: full(20), tminC: full(10), prcpMm: full(80), vpPa: full(1000), elevationM: full(2000),
    referenceElevationM: full(2000), topographicRadiationWhM2: full(200000), flatRadiationWhM2: full(200000),
    wetnessRatio: full(1), northness: full(0),
  };
  for (const key of Object.keys(inputs) as (keyof typeof inputs)[]) {
    const withNaN = { ...inputs, [key]: Float64Array.of(20, NaN, 10, 1).map((v, i) => (i === 1 ? NaN : inputs[key][i]!)) };
    const out = eemtTopoMonth(7, withNaN);
    assert.ok(Number.isNaN(out.eemtMJ[1]!) && Number.isNaN(out.ePptMJ[1]!) && Number.isNaN(out.eBioMJ[1]!), key);
    assert.ok(Number.isFinite(out.eemtMJ[0]!), key);
  }
  const trad = { tmaxC: full(20), tminC: full(10), prcpMm: full(80), elevationM: full(2000), referenceElevationM: full(2000), latitudeDeg: full(35), heatIndex: full(40) };
  for (const key of Object.keys(trad) as (keyof typeof trad)[]) {
    const withNaN = { ...trad, [key]: trad[key].map((v, i) => (i === 2 ? NaN : v)) };
    const out = eemtTradMonth(7, withNaN);
    assert.ok(Number.isNaN(out.eemtMJ[2]!) && Number.isNaN(out.ePptMJ[2]!) && Number.isNaN(out.eBioMJ[2]!), key);
    assert.ok(Number.isFinite(out.eemtMJ[3]!), key);
  }
  assert.equal(eemtTopoMonth(7, inputs).nppElevationOutOfRangeCount, 0);
  const low = eemtTopoMonth(7, { ...inputs, elevationM: Float64Array.of(500, 2000, 3200, NaN) });
  assert.equal(low.nppElevationOutOfRangeCount, 2, 'NaN cells are not counted');
  assert.throws(() => eemtTopoMonth(13, inputs), RangeError);
  assert.throws(() => eemtTopoMonth(1, { ...inputs, vpPa: full(1).subarray(0, 3) }), RangeError);
  const f32 = eemtTradMonth(7, { ...trad, tmaxC: new Float32Array(n).fill(20) });
  assert.ok(Number.isFinite(f32.eemtMJ[0]!));
});

test('liethNppGate: frozen wet months count only without the temperature gate', () => {
  const frozen = { tmaxC: -2, tminC: -10, prcpMm: 60, elevationM: 2000, referenceElevationM: 2000, latitudeDeg: 40, heatIndex: 30 };
  for (const petMethod of ['thornthwaite', 'hamon', 'hamon-linear'] as const) {
    const on = eemtTradMonthPixel(1, frozen, { petMethod });
    const off = eemtTradMonthPixel(1, frozen, { petMethod, liethNppGate: 'none' });
    assert.equal(on.nppGPerM2, 0);
    assert.equal(on.petMm, 0);
    // Lieth (1975) at T = −6 °C: 3000/(1 + e^(1.315 + 0.714)) × 31/365
    assert.ok(Math.abs(off.nppGPerM2 - (3000 / (1 + Math.exp(1.315 + 0.119 * 6))) * (31 / 365)) < 1e-9);
    assert.equal(off.ePptMJ, 0, 'frozen water does no work');
  }
});
