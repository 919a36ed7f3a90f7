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
import { downscaleDaymetMonthToDem, type DaymetForDem } from '../../climate/index.js';
import { cellCentreLatitudes, readRaster, writeFloat32GeoTiff, type Dem } from '../../raster/index.js';
import { resampleNearestToDem } from '../../science/climate/downscale.js';
import {
  eemtTopoMonth,
  eemtTradMonth,
  meanAirTemperature,
  thornthwaiteHeatIndex,
  type EemtOptions,
  type TopoGridMonth,
  type TradGridMonth,
} from '../../science/eemt/index.js';
import { MONTH_NAMES, monthlyFlatGlobalPath, monthlyGlobalPath } from '../sol/products.js';
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
  type EemtModel,
} from './products.js';
import type { PhaseReporter } from './progress.js';
import type { TerrainInputs } from './terrainPhase.js';
import { EemtChecks, summarize, type EemtDiagnostics, type ValueSummary } from './diagnostics.js';

/** Latitudes are rounded to this step [deg] (≈ 1 m) so that runs of cells share one day-length computation. */
const LATITUDE_STEP_DEG = 1e-5;

export interface EnergyPhaseInputs {
  readonly dem: Dem;
  readonly daymet: DaymetForDem;
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
  const { dem, daymet, terrain, options, outDir, signal } = inputs;
  const { grid, elevation } = dem;
  const cells = elevation.length;
  const years = daymet.years;
  const files: string[] = [];
  const write = async (path: string, values: ArrayLike<number>, description: string, metadata: Record<string, string>) => {
    await writeFloat32GeoTiff(join(outDir, path), grid, values, { description, metadata: { ...inputs.metadata, ...metadata } });
    files.push(path);
  };

  const latitudeDeg = cellCentreLatitudes(grid).map((lat) => Math.round(lat / LATITUDE_STEP_DEG) * LATITUDE_STEP_DEG);
  const referenceElevationM = resampleNearestToDem(Float64Array.from(daymet.cells, (c) => c.zRef), daymet.nearestCellIndex, elevation);
  const lapse = { lapseRateTmax_K_per_km: options.lapseRateTmaxKPerKm, lapseRateTmin_K_per_km: options.lapseRateTminKPerKm };
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
    const heatIndex = options.petVariant === 'thornthwaite' ? thornthwaiteHeatIndexOfYear(daymet, year, elevation, lapse) : undefined;
    for (let month = 0; month < 12; month++) {
      signal?.throwIfAborted();
      const step = yearIndex * 12 + month;
      report(step / steps, `${MONTH_NAMES[month]} ${year} (${step + 1}/${steps} months)`);

      const climate = downscaleDaymetMonthToDem(daymet, year, month, elevation, lapse);
      for (const variable of CLIMATE_GRID_VARIABLES) {
        const info = CLIMATE_GRID_INFO[variable];
        await write(climateGridPath(variable, year, month), climate[variable], `Daymet ${variable}, ${MONTH_NAMES[month]} ${year}: ${info.quantity}`, {
          QUANTITY: info.quantity,
          UNITS: info.units,
          YEAR: String(year),
          MONTH: String(month + 1),
        });
      }
      // The kernels apply the lapse rate themselves, from the Daymet cell value and its elevation z_ref.
      const fields = daymet.monthly.find((y) => y.year === year)!.months[month]!;
      const tmaxC = resampleNearestToDem(fields.tmax, daymet.nearestCellIndex, elevation);
      const tminC = resampleNearestToDem(fields.tmin, daymet.nearestCellIndex, elevation);
      const common = { tmaxC, tminC, prcpMm: climate.prcp, elevationM: elevation, referenceElevationM };

      eemtTradMonth(month + 1, { ...common, latitudeDeg, ...(heatIndex ? { heatIndex } : {}) }, options, trad);
      const sTopo = (await readRaster(join(outDir, monthlyGlobalPath(month)))).values;
      const sFlat = (await readRaster(join(outDir, monthlyFlatGlobalPath(month)))).values;
      const topo: TopoGridMonth = eemtTopoMonth(
        month + 1,
        {
          ...common,
          vpPa: climate.vp,
          topographicRadiationWhPerM2: sTopo,
          flatRadiationWhPerM2: sFlat,
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

/** Thornthwaite heat index I of `year` per DEM cell, from the 12 lapse-adjusted monthly mean temperatures. */
function thornthwaiteHeatIndexOfYear(
  daymet: DaymetForDem,
  year: number,
  elevation: Float64Array,
  lapse: Parameters<typeof downscaleDaymetMonthToDem>[4],
): Float64Array {
  const index = new Float64Array(elevation.length);
  const one = new Float64Array(1);
  for (let month = 0; month < 12; month++) {
    const { tmax, tmin } = downscaleDaymetMonthToDem(daymet, year, month, elevation, lapse);
    for (let i = 0; i < index.length; i++) {
      one[0] = meanAirTemperature(tmax[i]!, tmin[i]!);
      index[i]! += thornthwaiteHeatIndex(one);
    }
  }
  return index;
}
