// Needs: gdal
/**
 * Published EEMT on the test DEM's own basin. mcn_10m (Jemez River Basin, 2299–2613 m) with the upper-Jemez
 * climatology built from Zapata-Rios et al. (2016) (test/fixtures/climate/upper-jemez-zr16.json states every source):
 *
 * - the default configuration's EEMT-Trad lies within the published range of that basin: 4.4–13.6 MJ m⁻² yr⁻¹,
 *   spanning ZR16's modelled 6.82 ± 2.38 (PRISM, Thornthwaite, Lieth) and empirical 11.83 ± 1.74 (Sect. 4.1);
 * - the configuration of Rasmussen et al. (2015, Vadose Zone J.) — Hamon PET (Haith & Shoemaker), the NPP
 *   regression, radiation without terrain shadows — reproduces that paper's EEMT-Topo contrasts within the spread of
 *   its Table 2: north- minus south-facing (northness > 0 vs < 0) 4.61–5.67, water-gaining minus water-losing (MCWI
 *   > 1 vs < 1) 0.64–1.91 MJ m⁻² yr⁻¹ over its five aridity classes. The north–south contrast grows with the
 *   northness of the slopes (Eq. 11: 346 g m⁻² yr⁻¹ per unit). The Santa Catalinas are steep; mcn_10m is not (mean
 *   slope 18°): on its cells of 20° and more (mean northness ±0.31) both contrasts fall in the paper's spread, and over
 *   all its cells (±0.20) the contrast per unit of northness is the same (docs/eemt-model.md §5.5);
 * - the run records its model: README.txt, the GeoTIFFs' GDAL metadata.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runEemtWorkflow, type EemtWorkflowResult } from '../../../src/workflows/eemt/index.js';
import type { WorkflowParams } from '../../../src/workflows/types.js';
import { upperJemezClimateZip } from '../../helpers/jemezClimate.js';
import { FIXTURE_DEM, readValues, stats } from './helpers.js';

let work = '';
let zip = '';
const runs: Record<'defaults' | 'vzj15', { out: string; result: EemtWorkflowResult }> = {} as never;

const base: WorkflowParams = { step: 15, linke_value: 3, albedo_value: 0.2, num_threads: 2, start_year: 2020, end_year: 2020 };

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'eemt-published-'));
  zip = await upperJemezClimateZip(mkdtempSync(join(work, 'climate-')));
  for (const [name, choices] of [
    ['defaults', {}],
    ['vzj15', { pet_method: 'hamon', topo_npp: 'regression', topo_radiation: 'unshaded' }],
  ] as const) {
    const out = join(work, name);
    const result = await runEemtWorkflow({ demPath: FIXTURE_DEM, outDir: out, params: { ...base, ...choices }, climateFile: zip, daymetBaseUrl: 'http://127.0.0.1:9' });
    runs[name] = { out, result };
  }
});
after(() => rmSync(work, { recursive: true, force: true }));

test('defaults: EEMT-Trad on mcn_10m within the published upper-Jemez range 4.4–13.6 MJ m⁻² yr⁻¹ (Zapata-Rios et al. 2016)', async () => {
  const trad = stats(await readValues(runs.defaults.out, 'eemt/EEMT_Trad_mean_2020-2020.tif'));
  assert.ok(trad.mean >= 4.4 && trad.mean <= 13.6, `EEMT-Trad mean ${trad.mean}`);
  const topo = stats(await readValues(runs.defaults.out, 'eemt/EEMT_Topo_mean_2020-2020.tif'));
  console.log(`defaults on mcn_10m: EEMT-Trad mean ${trad.mean.toFixed(2)}, EEMT-Topo mean ${topo.mean.toFixed(2)} MJ m-2 yr-1`);
});

/**
 * Mean EEMT-Topo of north- and south-facing, water-gaining and water-losing cells (of those with a slope of at least
 * `minimumSlopeDeg`), and the mean northness of the north- and south-facing ones.
 */
async function contrasts(out: string, minimumSlopeDeg = 0) {
  const topo = await readValues(out, 'eemt/EEMT_Topo_mean_2020-2020.tif');
  const slope = await readValues(out, 'topo/slope.tif');
  const aspect = await readValues(out, 'topo/aspect.tif');
  const twi = await readValues(out, 'topo/twi.tif');
  const valid = (i: number) => !Number.isNaN(topo[i]!) && !Number.isNaN(twi[i]!);
  let twiSum = 0;
  let twiCount = 0;
  for (let i = 0; i < twi.length; i++) if (valid(i)) ((twiSum += twi[i]!), twiCount++);
  const meanTwi = twiSum / twiCount; // α = λ/λ̄ over every valid cell, as the workflow normalises it
  const groups = { north: [0, 0, 0], south: [0, 0, 0], gaining: [0, 0, 0], losing: [0, 0, 0] };
  const add = (g: number[], v: number, n: number) => ((g[0]! += v), (g[1]! += 1), (g[2]! += n));
  for (let i = 0; i < topo.length; i++) {
    if (!valid(i) || !(slope[i]! >= minimumSlopeDeg)) continue;
    const n = Number.isNaN(aspect[i]!) ? 0 : Math.cos((aspect[i]! * Math.PI) / 180) * Math.sin((slope[i]! * Math.PI) / 180);
    if (n > 0) add(groups.north, topo[i]!, n);
    if (n < 0) add(groups.south, topo[i]!, n);
    if (twi[i]! / meanTwi > 1) add(groups.gaining, topo[i]!, n);
    if (twi[i]! / meanTwi < 1) add(groups.losing, topo[i]!, n);
  }
  const mean = (g: number[]) => g[0]! / g[1]!;
  return {
    northMinusSouth: mean(groups.north) - mean(groups.south),
    gainingMinusLosing: mean(groups.gaining) - mean(groups.losing),
    northnessSpread: groups.north[2]! / groups.north[1]! - groups.south[2]! / groups.south[1]!,
  };
}

test('Rasmussen et al. 2015 configuration: north − south and gaining − losing EEMT-Topo within the spread of its Table 2', async () => {
  const steep = await contrasts(runs.vzj15.out, 20);
  const all = await contrasts(runs.vzj15.out);
  console.log(
    `VZJ15 configuration on mcn_10m: slopes >= 20 deg: north - south ${steep.northMinusSouth.toFixed(2)}, gaining - losing ` +
      `${steep.gainingMinusLosing.toFixed(2)} (northness spread ${steep.northnessSpread.toFixed(3)}); all cells: ` +
      `${all.northMinusSouth.toFixed(2)}, ${all.gainingMinusLosing.toFixed(2)} (${all.northnessSpread.toFixed(3)}) MJ m-2 yr-1`,
  );
  // Table 2, five aridity classes: north − south 4.61 (arid) … 5.67 (arid transition); gaining − losing 0.64 … 1.91
  assert.ok(steep.northMinusSouth >= 4.61 && steep.northMinusSouth <= 5.67, `north − south (slopes ≥ 20°) ${steep.northMinusSouth}`);
  assert.ok(steep.gainingMinusLosing >= 0.64 && steep.gainingMinusLosing <= 1.91, `gaining − losing (slopes ≥ 20°) ${steep.gainingMinusLosing}`);
  assert.ok(all.gainingMinusLosing >= 0.64 && all.gainingMinusLosing <= 1.91, `gaining − losing (all cells) ${all.gainingMinusLosing}`);
  // over all cells the slopes are gentler; the contrast per unit of northness spread stays that of the steep cells
  const perNorthness = [steep, all].map((c) => c.northMinusSouth / c.northnessSpread);
  assert.ok(Math.abs(perNorthness[1]! / perNorthness[0]! - 1) < 0.1, `per unit northness: ${perNorthness.join(' vs ')}`);
  assert.ok(all.northnessSpread < steep.northnessSpread);
});

test('the run records its model: README.txt and the GDAL metadata of the EEMT GeoTIFFs', () => {
  const readme = readFileSync(join(runs.vzj15.out, 'README.txt'), 'utf8');
  assert.match(readme, /pet_method = hamon: Hamon \(1961\) in the form of Haith & Shoemaker \(1987/);
  assert.match(readme, /topo_npp = regression: max\(0\.39 z \+ 346 n - 187, 100\)/);
  assert.match(readme, /topo_radiation = unshaded: S_topo = clear-sky global radiation on the sloped surface WITHOUT terrain shadows/);
  assert.match(readme, /lieth_npp_gate = temperature: /);
  assert.match(readme, /global\/monthly_unshaded\/total_sun_\{mon\}_sum\.tif/);
  assert.match(readFileSync(join(runs.defaults.out, 'README.txt'), 'utf8'), /pet_method = thornthwaite: Thornthwaite \(1948/);
  for (const path of ['eemt/EEMT_Trad_annual_2020.tif', 'eemt/EEMT_Topo_jul_2020.tif', 'eemt/EEMT_Topo_mean_2020-2020.tif']) {
    const metadata = JSON.parse(execFileSync('gdalinfo', ['-json', join(runs.vzj15.out, path)], { encoding: 'utf8' })).metadata[''];
    assert.equal(metadata.EEMT_PET_METHOD, 'hamon', path);
    assert.equal(metadata.EEMT_TOPO_NPP, 'regression', path);
    assert.equal(metadata.EEMT_TOPO_RADIATION, 'unshaded', path);
    assert.equal(metadata.EEMT_LIETH_NPP_GATE, 'temperature', path);
    assert.match(metadata.EEMT_PET_METHOD_SOURCE, /Haith & Shoemaker/);
    assert.equal(metadata.EEMT_PENMAN_ALBEDO, '0.23');
    assert.equal(metadata.EEMT_PENMAN_WIND_M_PER_S, '2');
  }
  const unshaded = JSON.parse(execFileSync('gdalinfo', ['-json', join(runs.vzj15.out, 'global/monthly_unshaded/total_sun_jul_sum.tif')], { encoding: 'utf8' }));
  assert.equal(unshaded.metadata[''].HORIZON_DIRECTIONS, '0');
  assert.ok(runs.vzj15.result.files.includes('global/monthly_unshaded/total_sun_dec_sum.tif'));
});
