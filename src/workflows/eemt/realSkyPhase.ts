/**
 * Real-sky phase of the `eemt` workflow: the monthly real-sky global irradiation of the sloped, shaded surface
 * (`global/monthly_realsky/total_sun_{mon}_sum.tif`) and of a horizontal, unshaded one (`flat_total_sun_…`), from
 * the solar phase's clear-sky monthly sums and their beam parts and the climate's observed radiation (eemt-model.md
 * §8, science/solar/realSky.ts):
 *
 *   c_b = (H − H_d) / B_clear,h        c_d = H_d / D_clear,h          (per cell and month)
 *   G_real = c_b · P_b + c_d · (G_clear − P_b)
 *
 * with H, H_d the observed horizontal global irradiation and its diffuse part (the mean of the run's years), B_clear,h
 * and D_clear,h the engine's clear-sky beam and diffuse on a horizontal unshaded surface, G_clear the clear-sky global
 * of the surface and P_b its beam part (the beam on the surface and the ground reflection of the horizontal beam).
 * The coefficients are not clamped: on a horizontal unshaded surface G_real is then the observed H, which a clamp at 1
 * would break in every month whose observed diffuse exceeds the clear sky's (any cloudy month).
 *
 * Memory: one month at a time, about 70 bytes per DEM cell (the month's sums, the observed radiation, the two maps and
 * the annual sums).
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ClimateOnDem, ObservedRadiation } from '../../climate/climateOnDem.js';
import { readRaster } from '../../raster/geotiff/readGeoTiff.js';
import { writeFloat32GeoTiff } from '../../raster/geotiff/writeGeoTiff.js';
import type { Dem } from '../../raster/types.js';
import { realSkyCoefficient, realSkyIrradiation } from '../../science/solar/realSky.js';
import { BEAM_PARTS_FOLDER, MONTH_NAMES, monthlyBeamPartPath, monthlyFlatBeamPath, monthlyFlatGlobalPath, monthlyGlobalPath } from '../solarYear/products.js';
import { summarize, type ValueSummary } from './diagnostics.js';
import { monthlyRealSkyFlatGlobalPath, monthlyRealSkyGlobalPath } from './products.js';
import type { PhaseReporter } from './progress.js';

/** Units of the real-sky maps (metadata item UNITS). */
const REAL_SKY_UNITS = 'Wh m-2 month-1';

export interface RealSkyInputs {
  readonly dem: Dem;
  readonly climate: ClimateOnDem;
  readonly outDir: string;
  /** Metadata items written into every map (parameters of the run). */
  readonly metadata: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

/** What the real-sky phase made, or why it made nothing. */
export type RealSkyResult =
  | {
      readonly made: true;
      readonly files: string[];
      /** Where the observed radiation came from (README.txt). */
      readonly source: string;
      /** The coefficients over the valid cell-months, and how many exceed 1 (observed above the clear sky). */
      readonly beamCoefficient: ValueSummary & { readonly aboveOne: number };
      readonly diffuseCoefficient: ValueSummary & { readonly aboveOne: number };
      /** Annual sums of the two maps over the valid cells [Wh m⁻² yr⁻¹]. */
      readonly annualSloped: ValueSummary;
      readonly annualFlat: ValueSummary;
    }
  | { readonly made: false; readonly reason: string };

/** The message of a run or job that asks for `topo_radiation=realsky` with a climate that has no observed radiation. */
export function realSkyNeedsRadiation(reason: string): string {
  return (
    `topo_radiation=realsky needs the climate's observed shortwave radiation, but ${reason}; ` +
    'add it, or choose topo_radiation unshaded or shaded'
  );
}

/** Mean, range and the count above 1 of a coefficient over the cell-months, accumulated one value at a time. */
class CoefficientSummary {
  private sum = 0;
  private min = Infinity;
  private max = -Infinity;
  private count = 0;
  private aboveOne = 0;

  add(value: number): void {
    this.sum += value;
    if (value < this.min) this.min = value;
    if (value > this.max) this.max = value;
    if (value > 1) this.aboveOne++;
    this.count++;
  }

  result(): ValueSummary & { readonly aboveOne: number } {
    if (this.count === 0) return { mean: NaN, min: NaN, max: NaN, validCells: 0, aboveOne: 0 };
    return { mean: this.sum / this.count, min: this.min, max: this.max, validCells: this.count, aboveOne: this.aboveOne };
  }
}

/**
 * Computes and writes the real-sky maps when the climate has observed radiation (else returns why not), from the
 * solar phase's sums in `outDir` (see the module doc).
 */
export async function computeRealSky(inputs: RealSkyInputs, report: PhaseReporter): Promise<RealSkyResult> {
  const { dem, climate, outDir, signal } = inputs;
  const radiation: ObservedRadiation = climate.radiation;
  if (!radiation.available) {
    report(1, `skipped: ${radiation.reason}`);
    return { made: false, reason: radiation.reason };
  }
  const cells = dem.elevation.length;
  const years = climate.years;
  const files: string[] = [];
  const observedGlobal = new Float64Array(cells);
  const observedDiffuse = new Float64Array(cells);
  const sloped = new Float32Array(cells);
  const flat = new Float32Array(cells);
  const annualSloped = new Float64Array(cells);
  const annualFlat = new Float64Array(cells);
  const beamCoefficients = new CoefficientSummary();
  const diffuseCoefficients = new CoefficientSummary();
  const years_ = `${years[0]}-${years[years.length - 1]}`;
  for (let month = 0; month < 12; month++) {
    signal?.throwIfAborted();
    report(month / 12, `${MONTH_NAMES[month]} (${month + 1}/12)`);
    observedGlobal.fill(0);
    observedDiffuse.fill(0);
    for (const year of years) {
      const observed = await radiation.radiationAt(year, month);
      for (let i = 0; i < cells; i++) {
        observedGlobal[i]! += observed.globalWhM2[i]! / years.length;
        observedDiffuse[i]! += observed.diffuseWhM2[i]! / years.length;
      }
    }
    const read = async (path: string) => (await readRaster(join(outDir, path), { precision: 'float32' })).values;
    const global = await read(monthlyGlobalPath(month));
    const beamPart = await read(monthlyBeamPartPath(month));
    const flatGlobal = await read(monthlyFlatGlobalPath(month));
    const flatBeam = await read(monthlyFlatBeamPath(month));
    for (let i = 0; i < cells; i++) {
      const h = observedGlobal[i]!;
      const hd = observedDiffuse[i]!;
      if (Number.isNaN(dem.elevation[i]!) || Number.isNaN(h) || Number.isNaN(hd) || Number.isNaN(global[i]!) || Number.isNaN(flatGlobal[i]!)) {
        sloped[i] = NaN;
        flat[i] = NaN;
        annualSloped[i] = NaN;
        annualFlat[i] = NaN;
        continue;
      }
      const clearBeam = flatBeam[i]!;
      const clearDiffuse = flatGlobal[i]! - clearBeam;
      const cb = realSkyCoefficient(h - hd, clearBeam);
      const cd = realSkyCoefficient(hd, clearDiffuse);
      sloped[i] = realSkyIrradiation(beamPart[i]!, global[i]! - beamPart[i]!, cb, cd);
      flat[i] = realSkyIrradiation(clearBeam, clearDiffuse, cb, cd);
      annualSloped[i]! += sloped[i]!;
      annualFlat[i]! += flat[i]!;
      beamCoefficients.add(cb);
      diffuseCoefficients.add(cd);
    }
    const meta = (quantity: string) => ({ ...inputs.metadata, QUANTITY: quantity, UNITS: REAL_SKY_UNITS, MONTH: String(month + 1), YEARS: years_, OBSERVED_RADIATION: radiation.description });
    const write = async (path: string, values: Float32Array, description: string, quantity: string) => {
      await writeFloat32GeoTiff(join(outDir, path), dem.grid, values, { description, metadata: meta(quantity) });
      files.push(path);
    };
    await write(
      monthlyRealSkyGlobalPath(month),
      sloped,
      `Monthly real-sky global irradiation, month ${month + 1} (mean of ${years_})`,
      'monthly real-sky global irradiation of the sloped surface with terrain shadows (clear-sky beam and diffuse parts scaled by the observed radiation)',
    );
    await write(
      monthlyRealSkyFlatGlobalPath(month),
      flat,
      `Monthly real-sky global irradiation on a horizontal unshaded surface, month ${month + 1} (mean of ${years_})`,
      'monthly real-sky global irradiation of a horizontal surface without terrain shadows (the observed horizontal irradiation)',
    );
  }
  report(1, `${files.length} maps written`);
  return {
    made: true,
    files,
    source: radiation.description,
    beamCoefficient: beamCoefficients.result(),
    diffuseCoefficient: diffuseCoefficients.result(),
    annualSloped: summarize(annualSloped),
    annualFlat: summarize(annualFlat),
  };
}

/** Removes the beam parts of the monthly sums (not products) once the real-sky maps no longer need them. */
export async function removeBeamParts(outDir: string): Promise<void> {
  await rm(join(outDir, BEAM_PARTS_FOLDER), { recursive: true, force: true });
}
