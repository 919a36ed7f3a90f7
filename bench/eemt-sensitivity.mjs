// `npm run bench -- --eemt-sensitivity` (or `node --import tsx bench/eemt-sensitivity.mjs`): how each EEMT model
// choice moves EEMT-Trad and EEMT-Topo on test/fixtures/mcn_10m.tif with one stated climate, the upper-Jemez
// climatology of test/fixtures/climate/upper-jemez-zr16.json (built from Zapata-Rios et al. 2016; the file states its
// sources). The solar year (step 15 min, Linke 3, albedo 0.2) is computed once; every configuration then runs the
// workflow's later phases on it (mode `solar-written`, the solar products hard-linked). Prints one JSON report:
// per configuration the map means of the mean-annual EEMT-Trad and EEMT-Topo [MJ m⁻² yr⁻¹], their change against the
// defaults [%], and EEMT-Topo's contrasts north − south (northness > 0 vs < 0) and water-gaining − water-losing
// (α = λ/λ̄ > 1 vs < 1), as in Rasmussen et al. 2015 Table 2; the contrasts also over the steeper cells (slope ≥ 20°).
//
//   --threads N   worker threads of the solar year (default 2)
//   --keep DIR    keep the runs in DIR (default: a temporary folder, removed)
import { link, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { readRaster } from '../src/raster/index.js';
import { runEemtWorkflow } from '../src/workflows/eemt/index.js';
import { upperJemezClimateZip } from '../test/helpers/jemezClimate.js';

const { values: args } = parseArgs({ options: { threads: { type: 'string', default: '2' }, keep: { type: 'string' } } });
const dem = fileURLToPath(new URL('../test/fixtures/mcn_10m.tif', import.meta.url));
const params = { step: 15, linke_value: 3, albedo_value: 0.2, num_threads: Number(args.threads), start_year: 2020, end_year: 2020 };

/** The configurations: parameters (model choices) and library options beyond them. */
const CONFIGURATIONS = [
  { name: 'defaults', choices: {} },
  { name: 'pet_method=hamon', choices: { pet_method: 'hamon' } },
  { name: 'pet_method=hamon-linear', choices: { pet_method: 'hamon-linear' } },
  { name: 'lieth_npp_gate=none', choices: { lieth_npp_gate: 'none' } },
  { name: 'topo_npp=lieth', choices: { topo_npp: 'lieth' } },
  { name: 'topo_radiation=shaded', choices: { topo_radiation: 'shaded' } },
  { name: 'Penman albedo 0.08 (open water)', choices: {}, options: { albedo: 0.08 } },
  { name: 'Penman wind u2 = 5 m/s', choices: {}, options: { windSpeedMPerS: 5 } },
  { name: 'Rasmussen et al. 2015 (hamon, regression, unshaded)', choices: { pet_method: 'hamon', topo_npp: 'regression', topo_radiation: 'unshaded' } },
  { name: 'first version (hamon-linear, regression, shaded)', choices: { pet_method: 'hamon-linear', topo_npp: 'regression', topo_radiation: 'shaded' } },
  { name: 'defaults, climate with the summer rain in July-September (ZR16 Sect. 2.1)', choices: {}, climate: 'monsoon' },
];

/** The climatology with the May–September share of the precipitation in July–September only (ZR16 Sect. 2.1: the monsoon). */
function monsoon(normals) {
  const summer = normals.filter((n) => n.month >= 5 && n.month <= 9).reduce((s, n) => s + n.prcp, 0);
  const days = { 7: 31, 8: 31, 9: 30 };
  return normals.map((n) => (n.month >= 5 && n.month <= 9 ? { ...n, prcp: n.month >= 7 ? (summer * days[n.month]) / 92 : 0 } : n));
}

async function linkTree(from, to) {
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) {
      await mkdir(target, { recursive: true });
      await linkTree(source, target);
    } else await link(source, target);
  }
}

function summary(values, mask) {
  let sum = 0;
  let n = 0;
  for (let i = 0; i < values.length; i++) {
    if (Number.isNaN(values[i]) || (mask && !mask(i))) continue;
    sum += values[i];
    n++;
  }
  return n > 0 ? sum / n : NaN;
}

async function measure(out) {
  const read = async (path) => (await readRaster(join(out, path))).values;
  const [trad, topo, slope, aspect, twi] = await Promise.all(
    ['eemt/EEMT_Trad_mean_2020-2020.tif', 'eemt/EEMT_Topo_mean_2020-2020.tif', 'topo/slope.tif', 'topo/aspect.tif', 'topo/twi.tif'].map(read),
  );
  const meanTwi = summary(twi);
  const northness = (i) => (Number.isNaN(aspect[i]) ? 0 : Math.cos((aspect[i] * Math.PI) / 180) * Math.sin((slope[i] * Math.PI) / 180));
  const contrasts = (steep) => {
    const keep = (i) => !Number.isNaN(twi[i]) && (!steep || slope[i] >= 20);
    return {
      northMinusSouth: summary(topo, (i) => keep(i) && northness(i) > 0) - summary(topo, (i) => keep(i) && northness(i) < 0),
      gainingMinusLosing: summary(topo, (i) => keep(i) && twi[i] / meanTwi > 1) - summary(topo, (i) => keep(i) && twi[i] / meanTwi < 1),
      meanNorthnessNorth: summary(topo.map((_, i) => northness(i)), (i) => keep(i) && northness(i) > 0),
      meanNorthnessSouth: summary(topo.map((_, i) => northness(i)), (i) => keep(i) && northness(i) < 0),
    };
  };
  return { eemtTrad: summary(trad), eemtTopo: summary(topo), topoContrasts: contrasts(false), topoContrastsSlope20: contrasts(true) };
}

const round = (v, digits = 2) => Math.round(v * 10 ** digits) / 10 ** digits;
const work = args.keep ?? (await mkdtemp(join(tmpdir(), 'eemt-sensitivity-')));
await mkdir(work, { recursive: true });
const started = performance.now();
try {
  const zips = {
    zr16: await upperJemezClimateZip(await mkdtemp(join(work, 'climate-'))),
    monsoon: await upperJemezClimateZip(await mkdtemp(join(work, 'climate-monsoon-')), 'upper-jemez-monsoon.zip', monsoon),
  };
  const results = [];
  let solarDir = null;
  for (const config of CONFIGURATIONS) {
    const out = join(work, config.name.replace(/[^A-Za-z0-9=.-]+/g, '_'));
    const t0 = performance.now();
    if (solarDir) {
      await mkdir(out, { recursive: true });
      for (const folder of ['global/daily', 'global/monthly', 'insol/daily']) {
        await mkdir(join(out, folder), { recursive: true });
        await linkTree(join(solarDir, folder), join(out, folder));
      }
    }
    await runEemtWorkflow({
      demPath: dem,
      outDir: out,
      params: { ...params, ...config.choices },
      ...(config.options ? { eemtOptions: config.options } : {}),
      climateFile: zips[config.climate ?? 'zr16'],
      daymetBaseUrl: 'http://127.0.0.1:9',
      ...(solarDir ? { mode: { kind: 'solar-written' } } : {}),
    });
    solarDir ??= out;
    results.push({ name: config.name, seconds: round((performance.now() - t0) / 1000, 1), ...(await measure(out)) });
  }
  const base = results[0];
  const report = results.map((r) => ({
    configuration: r.name,
    eemtTradMean: round(r.eemtTrad),
    eemtTradChangePercent: round((100 * (r.eemtTrad - base.eemtTrad)) / base.eemtTrad, 1),
    eemtTopoMean: round(r.eemtTopo),
    eemtTopoChangePercent: round((100 * (r.eemtTopo - base.eemtTopo)) / base.eemtTopo, 1),
    topoNorthMinusSouth: round(r.topoContrasts.northMinusSouth),
    topoGainingMinusLosing: round(r.topoContrasts.gainingMinusLosing),
    topoNorthMinusSouthSlope20: round(r.topoContrastsSlope20.northMinusSouth),
    topoGainingMinusLosingSlope20: round(r.topoContrastsSlope20.gainingMinusLosing),
    meanNorthness: { north: round(r.topoContrasts.meanNorthnessNorth, 3), south: round(r.topoContrasts.meanNorthnessSouth, 3) },
    meanNorthnessSlope20: { north: round(r.topoContrastsSlope20.meanNorthnessNorth, 3), south: round(r.topoContrastsSlope20.meanNorthnessSouth, 3) },
    seconds: r.seconds,
  }));
  process.stdout.write(
    JSON.stringify(
      {
        benchmark: 'eemt-sensitivity',
        dem: 'test/fixtures/mcn_10m.tif',
        climate: 'test/fixtures/climate/upper-jemez-zr16.json (Zapata-Rios et al. 2016 basin statistics)',
        solar: { step: params.step, linke: params.linke_value, albedo: params.albedo_value },
        units: 'MJ m-2 yr-1 (map means of the mean annual maps)',
        seconds: round((performance.now() - started) / 1000, 1),
        results: report,
      },
      null,
      2,
    ) + '\n',
  );
} finally {
  if (!args.keep) await rm(work, { recursive: true, force: true });
}

