/**
 * Energy phase of the `eemt` workflow: for every year and month, the climate grids on the DEM grid
 * (written to `daymet/`), EEMT-TRAD and EEMT-TOPO (written to `eemt/`), the annual sums and the mean of
 * the annual sums over the years.
 *
 * Memory: one month is processed at a time. Alive at once are the DEM-wide constants (elevation,
 * latitude, z_ref, α, northness), the month's two radiation sums (read back from the `sol` GeoTIFFs),
 * its climate grids and kernel outputs (reused from month to month), and four accumulators (annual and
 * multi-year sums of both models): about 30 × 8 bytes per DEM cell, whatever the number of years.
 */
import { join } from 'node:path';
import type { ClimateMonthOnDem, ClimateOnDem } from '../../climate/climateOnDem.js';
import { cellCentreLatitudes } from '../../raster/geo/geodesy.js';
import { readRaster } from '../../raster/geotiff/readGeoTiff.js';
import { writeFloat32GeoTiff } from '../../raster/geotiff/writeGeoTiff.js';
import type { Dem } from '../../raster/types.js';
import { lapseRateAdjustedTemperature, monthlyLapseRatesKPerKm } from '../../science/climate/lapseRate.js';
import type { EemtOptions } from '../../science/eemt/constants.js';
import { eemtTopoMonth, eemtTradMonth, type TopoGridMonth, type TradGridMonth } from '../../science/eemt/kernels.js';
import { meanAirTemperature, thornthwaiteHeatIndex } from '../../science/eemt/trad.js';
import { MONTH_NAMES } from '../solarYear/products.js';
import {
  CLIMATE_GRID_INFO,
  CLIMATE_GRID_VARIABLES,
  EEMT_ANNUAL_UNITS,
  EEMT_MODEL_NAMES,
  EEMT_MONTHLY_UNITS,
  climateGridPath,
  eemtAnnualPath,
  eemtMeanPath,
  eemtMonthlyPath,
  solarRatioGridPaths,
  type EemtModel,
} from './products.js';
import type { PhaseReporter } from './progress.js';
import type { TerrainInputs } from './terrainPhase.js';
import { EemtChecks, summarize, type EemtDiagnostics, type ValueSummary } from './diagnostics.js';

/** Latitudes are rounded to this step [deg] (≈ 1 m) so that runs of cells share one day-length computation. */
const LATITUDE_STEP_DEG = 1e-5;

export interface EnergyPhaseInputs {
  readonly dem: Dem;
  /** Monthly climate on the DEM grid (Daymet or the user's grids). */
  readonly climate: ClimateOnDem;
  readonly terrain: TerrainInputs;
  readonly options: EemtOptions;
  readonly outDir: string;
  /** Metadata items written into every GeoTIFF of this phase (parameters of the run). */
  readonly metadata: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

export interface EnergyPhaseResult {
  readonly files: string[];
  readonly diagnostics: EemtDiagnostics;
}

/** Per-model annual statistics of one year, for the report and README. */
export interface AnnualSummary {
  readonly year: number;
  readonly topo: ValueSummary;
  readonly trad: ValueSummary;
}

/** Computes and writes every climate grid and EEMT map (see the module doc). */
export async function computeEnergy(inputs: EnergyPhaseInputs, report: PhaseReporter): Promise<EnergyPhaseResult> {
  const { dem, climate: source, terrain, options, outDir, signal } = inputs;
  const { grid, elevation } = dem;
  const cells = elevation.length;
  const years = source.years;
  const files: string[] = [];
  const write = async (path: string, values: ArrayLike<number>, description: string, metadata: Record<string, string>) => {
    await writeFloat32GeoTiff(join(outDir, path), grid, values, { description, metadata: { ...inputs.metadata, ...metadata } });
    files.push(path);
  };

  const latitudeDeg = cellCentreLatitudes(grid).map((lat) => Math.round(lat / LATITUDE_STEP_DEG) * LATITUDE_STEP_DEG);
  const referenceElevationM = source.referenceElevationM;
  const lapse = { tmax: monthlyLapseRatesKPerKm(options.lapseRateTmaxKPerKm), tmin: monthlyLapseRatesKPerKm(options.lapseRateTminKPerKm) };
  const trad: TradGridMonth = { ePptMJ: new Float64Array(cells), eBioMJ: new Float64Array(cells), eemtMJ: new Float64Array(cells), petMm: new Float64Array(cells) };
  const topoOut = { ePptMJ: new Float64Array(cells), eBioMJ: new Float64Array(cells), eemtMJ: new Float64Array(cells), petMm: new Float64Array(cells), aetMm: new Float64Array(cells) };
  const annual: Record<EemtModel, Float64Array> = { Topo: new Float64Array(cells), Trad: new Float64Array(cells) };
  const multiYear: Record<EemtModel, Float64Array> = { Topo: new Float64Array(cells), Trad: new Float64Array(cells) };
  const checks = new EemtChecks(terrain.wetnessRatio, terrain.meanWetnessIndex);
  const annualSummaries: AnnualSummary[] = [];
  const steps = years.length * 12;

  for (const [yearIndex, year] of years.entries()) {
    annual.Topo.fill(0);
    annual.Trad.fill(0);
    const heatIndex = options.petMethod === 'thornthwaite' ? await thornthwaiteHeatIndexOfYear(source, year, elevation, lapse) : undefined;
    for (let month = 0; month < 12; month++) {
      signal?.throwIfAborted();
      const step = yearIndex * 12 + month;
      report(step / steps, `${MONTH_NAMES[month]} ${year} (${step + 1}/${steps} months)`);

      const atReference = await source.monthAt(year, month);
      const climate = lapseAdjusted(atReference, elevation, referenceElevationM, lapse, month);
      for (const variable of CLIMATE_GRID_VARIABLES) {
        const info = CLIMATE_GRID_INFO[variable];
        const origin = source.gridFolder === 'daymet' ? 'Daymet' : 'user grid';
        await write(climateGridPath(variable, year, month, source.gridFolder), climate[variable], `${origin} ${variable}, ${MONTH_NAMES[month]} ${year}: ${info.quantity}`, {
          QUANTITY: info.quantity,
          UNITS: info.units,
          YEAR: String(year),
          MONTH: String(month + 1),
        });
      }
      // The kernels apply the lapse rate themselves, from the value at the reference elevation z_ref.
      const { tmax: tmaxC, tmin: tminC } = atReference;
      const common = { tmaxC, tminC, prcpMm: climate.prcp, elevationM: elevation, referenceElevationM };

      eemtTradMonth(month + 1, { ...common, latitudeDeg, ...(heatIndex ? { heatIndex } : {}) }, options, trad);
      const ratioGrids = solarRatioGridPaths(options.topoRadiation, month);
      const sTopo = (await readRaster(join(outDir, ratioGrids.topographic))).values;
      const sFlat = (await readRaster(join(outDir, ratioGrids.flat))).values;
      const topo: TopoGridMonth = eemtTopoMonth(
        month + 1,
        {
          ...common,
          vpPa: climate.vp,
          topographicRadiationWhM2: sTopo,
          flatRadiationWhM2: sFlat,
          wetnessRatio: terrain.wetnessRatio,
          northness: terrain.northness,
        },
        options,
        topoOut,
      );
      checks.addMonth({ prcpMm: climate.prcp, sTopo, sFlat, trad, topo });

      for (const [model, maps] of [['Topo', topo], ['Trad', trad]] as const) {
        await write(eemtMonthlyPath(model, year, month), maps.eemtMJ, `${EEMT_MODEL_NAMES[model]}, ${MONTH_NAMES[month]} ${year} [${EEMT_MONTHLY_UNITS}]`, {
          QUANTITY: `EEMT_${model.toUpperCase()} monthly`,
          UNITS: EEMT_MONTHLY_UNITS,
          YEAR: String(year),
          MONTH: String(month + 1),
        });
        const sum = annual[model];
        for (let i = 0; i < cells; i++) sum[i]! += maps.eemtMJ[i]!;
      }
    }
    for (const model of ['Topo', 'Trad'] as const) {
      await write(eemtAnnualPath(model, year), annual[model], `${EEMT_MODEL_NAMES[model]}, annual sum ${year} [${EEMT_ANNUAL_UNITS}]`, {
        QUANTITY: `EEMT_${model.toUpperCase()} annual (sum of 12 months)`,
        UNITS: EEMT_ANNUAL_UNITS,
        YEAR: String(year),
      });
      const sum = multiYear[model];
      for (let i = 0; i < cells; i++) sum[i]! += annual[model][i]!;
    }
    annualSummaries.push({ year, topo: summarize(annual.Topo), trad: summarize(annual.Trad) });
  }

  const [start, end] = [years[0]!, years[years.length - 1]!];
  for (const model of ['Topo', 'Trad'] as const) {
    const mean = multiYear[model].map((v) => v / years.length);
    await write(eemtMeanPath(model, start, end), mean, `${EEMT_MODEL_NAMES[model]}, mean of the annual sums ${start}-${end} [${EEMT_ANNUAL_UNITS}]`, {
      QUANTITY: `EEMT_${model.toUpperCase()} mean annual (mean of ${years.length} annual sums)`,
      UNITS: EEMT_ANNUAL_UNITS,
      YEARS: `${start}-${end}`,
    });
  }
  report(1, `${files.length} maps written`);
  return { files, diagnostics: checks.result(annualSummaries) };
}

type MonthlyLapseRates = { readonly tmax: Float64Array; readonly tmin: Float64Array };

/**
 * The month's climate with temperatures moved from the reference elevation to the DEM elevation
 * (T' = T − Γ (z − z_ref) / 1000, eemt-model.md §3.2 step 3); precipitation and vapour pressure unchanged.
 */
function lapseAdjusted(
  month: ClimateMonthOnDem,
  elevation: ArrayLike<number>,
  referenceElevation: ArrayLike<number>,
  lapse: MonthlyLapseRates,
  monthIndex: number,
): ClimateMonthOnDem {
  const adjust = (values: Float32Array, lapseRateKPerKm: number) => {
    const out = new Float32Array(values.length);
    for (let i = 0; i < out.length; i++) out[i] = lapseRateAdjustedTemperature(values[i]!, elevation[i]!, referenceElevation[i]!, lapseRateKPerKm);
    return out;
  };
  return { ...month, tmax: adjust(month.tmax, lapse.tmax[monthIndex]!), tmin: adjust(month.tmin, lapse.tmin[monthIndex]!) };
}

/** Thornthwaite heat index I of `year` per DEM cell, from the 12 lapse-adjusted monthly mean temperatures. */
async function thornthwaiteHeatIndexOfYear(
  source: ClimateOnDem,
  year: number,
  elevation: Float64Array,
  lapse: MonthlyLapseRates,
): Promise<Float64Array> {
  const index = new Float64Array(elevation.length);
  const one = new Float64Array(1);
  for (let month = 0; month < 12; month++) {
    const { tmax, tmin } = lapseAdjusted(await source.monthAt(year, month), elevation, source.referenceElevationM, lapse, month);
    for (let i = 0; i < index.length; i++) {
      one[0] = meanAirTemperature(tmax[i]!, tmin[i]!);
      index[i]! += thornthwaiteHeatIndex(one);
    }
  }
  return index;
}
