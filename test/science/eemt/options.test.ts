// The model choices: the grid kernels equal the scalar functions for every combination, each choice changes what
// it should and nothing else, and resolveEemtOptions refuses values outside the lists.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  LIETH_NPP_GATES,
  PET_METHODS,
  TOPO_NPP_MODELS,
  eemtTopoMonth,
  eemtTopoMonthPixel,
  eemtTradMonth,
  eemtTradMonthPixel,
  liethNetPrimaryProductivity,
  resolveEemtOptions,
  thornthwaiteHeatIndex,
  type EemtOptionsInput,
} from '../../../src/science/eemt/index.js';
import { seededRandom as rng } from '../../helpers/syntheticDaymet.js';


const CELLS = 400;
const r = rng(2718);
const cell = Array.from({ length: CELLS }, () => {
  const warm = -8 + 30 * r();
  return {
    months: Array.from({ length: 12 }, (_, m) => {
      const season = -Math.cos(((m + 0.5) / 12) * 2 * Math.PI);
      const tmin = warm + 10 * season - 5 - 5 * r();
      return { tmax: tmin + 6 + 12 * r(), tmin, prcp: 150 * r(), vp: 200 + 1500 * r(), sFlat: 60000 + 200000 * r(), ratio: 0.05 + 1.6 * r() };
    }),
    z: 500 + 3000 * r(),
    zRef: 500 + 3000 * r(),
    latitude: -60 + 120 * r(),
    alpha: 0.3 + 2.5 * r(),
    north: -1 + 2 * r(),
  };
});
const heatIndex = Float64Array.from(cell, (c) =>
  thornthwaiteHeatIndex(c.months.map((m) => (m.tmax + m.tmin) / 2 - (6.49 * (c.z - c.zRef)) / 1000)),
);
const column = (f: (c: (typeof cell)[number]) => number) => Float64Array.from(cell, f);

function combinations(): EemtOptionsInput[] {
  const out: EemtOptionsInput[] = [];
  for (const petMethod of [...PET_METHODS, 'hamon-linear-saturation-average'] as const) {
    for (const liethNppGate of LIETH_NPP_GATES) {
      for (const topoNppModel of TOPO_NPP_MODELS) out.push({ petMethod, liethNppGate, topoNppModel });
    }
  }
  return out;
}

test('kernel = scalar for every combination of pet_method, lieth_npp_gate and topo_npp, month by month', () => {
  const options = combinations();
  assert.equal(options.length, 16);
  for (const option of options) {
    for (let month = 1; month <= 12; month++) {
      const m = month - 1;
      const common = {
        tmaxC: column((c) => c.months[m]!.tmax),
        tminC: column((c) => c.months[m]!.tmin),
        prcpMm: column((c) => c.months[m]!.prcp),
        elevationM: column((c) => c.z),
        referenceElevationM: column((c) => c.zRef),
      };
      const trad = eemtTradMonth(month, { ...common, latitudeDeg: column((c) => c.latitude), heatIndex }, option);
      const topo = eemtTopoMonth(
        month,
        {
          ...common,
          vpPa: column((c) => c.months[m]!.vp),
          topographicRadiationWhM2: column((c) => c.months[m]!.sFlat * c.months[m]!.ratio),
          flatRadiationWhM2: column((c) => c.months[m]!.sFlat),
          wetnessRatio: column((c) => c.alpha),
          northness: column((c) => c.north),
        },
        option,
      );
      for (let i = 0; i < CELLS; i += 3) {
        const c = cell[i]!;
        const mm = c.months[m]!;
        const base = { tmaxC: mm.tmax, tminC: mm.tmin, prcpMm: mm.prcp, elevationM: c.z, referenceElevationM: c.zRef };
        const s = eemtTradMonthPixel(month, { ...base, latitudeDeg: c.latitude, heatIndex: heatIndex[i]! }, option);
        const p = eemtTopoMonthPixel(
          month,
          { ...base, vpPa: mm.vp, topographicRadiationWhM2: mm.sFlat * mm.ratio, flatRadiationWhM2: mm.sFlat, wetnessRatio: c.alpha, northness: c.north },
          option,
        );
        const what = `${JSON.stringify(option)} month ${month} cell ${i}`;
        assert.equal(trad.eemtMJ[i], s.eemtMJ, `TRAD ${what}`);
        assert.equal(trad.petMm[i], s.petMm, `TRAD PET ${what}`);
        assert.equal(topo.eemtMJ[i], p.eemtMJ, `TOPO ${what}`);
        assert.equal(topo.eBioMJ[i], p.eBioMJ, `TOPO E_BIO ${what}`);
        assert.ok(s.eemtMJ >= 0 && p.eemtMJ >= 0 && Number.isFinite(s.eemtMJ) && Number.isFinite(p.eemtMJ), what);
      }
    }
  }
});

test('topo_npp=lieth: Lieth at the topographic mean temperature × n/365, frozen months only without the gate', () => {
  const inputs = {
    tmaxC: 14, tminC: 2, prcpMm: 60, vpPa: 700, elevationM: 2500, referenceElevationM: 2400,
    topographicRadiationWhM2: 150000, flatRadiationWhM2: 180000, wetnessRatio: 1.2, northness: 0.3,
  };
  const lieth = eemtTopoMonthPixel(4, inputs, { topoNppModel: 'lieth' });
  assert.ok(Math.abs(lieth.nppGPerM2 - (liethNetPrimaryProductivity(lieth.meanTemperatureC) * 30) / 365) < 1e-9);
  const regression = eemtTopoMonthPixel(4, inputs);
  assert.ok(Math.abs(regression.nppGPerM2 - ((0.39 * 2500 + 346 * 0.3 - 187) * 30) / 365) < 1e-9);
  // everything but NPP is the same
  assert.equal(lieth.ePptMJ, regression.ePptMJ);
  const frozen = { ...inputs, tmaxC: -2, tminC: -12 };
  assert.equal(eemtTopoMonthPixel(1, frozen, { topoNppModel: 'lieth' }).nppGPerM2, 0);
  assert.ok(eemtTopoMonthPixel(1, frozen, { topoNppModel: 'lieth', liethNppGate: 'none' }).nppGPerM2 > 0);
  // the gate does not touch the regression
  assert.equal(eemtTopoMonthPixel(1, frozen, { liethNppGate: 'none' }).nppGPerM2, eemtTopoMonthPixel(1, frozen).nppGPerM2);
});

test('resolveEemtOptions: the defaults, and a value outside a list is a RangeError naming the allowed values', () => {
  const d = resolveEemtOptions();
  assert.deepEqual([d.petMethod, d.topoNppModel, d.topoRadiation, d.liethNppGate], ['thornthwaite', 'regression', 'unshaded', 'temperature']);
  assert.equal(d.albedo, 0.23);
  assert.equal(d.windSpeedMPerS, 2);
  assert.throws(() => resolveEemtOptions({ petMethod: 'penman' as never }), /petMethod must be one of thornthwaite, hamon, hamon-linear/);
  assert.throws(() => resolveEemtOptions({ topoNppModel: 'miami' as never }), /topoNppModel must be one of regression, lieth/);
  assert.throws(() => resolveEemtOptions({ topoRadiation: 'cloudy' as never }), /topoRadiation must be one of unshaded, shaded, realsky/);
  assert.throws(() => resolveEemtOptions({ liethNppGate: 'snow' as never }), /liethNppGate must be one of temperature, none/);
});
