/**
 * The `eemt` command line (see main.ts for the entry point):
 *   eemt sol <dem.tif> --out <dir> [--step 15] [--linke 3] [--albedo 0.2] [--threads N]
 * Parameter ranges are those of the service (step 3–60 min, linke 1–8, albedo 0–1, threads 1–32); a value
 * outside its range is an error, not a clamp.
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { RasterFormatError } from '../raster/types.js';
import { ParameterRangeError, DEFAULT_PARAMS } from '../workflows/params.js';
import { runSolWorkflow } from '../workflows/sol/index.js';
import type { WorkflowParams } from '../workflows/types.js';
import { progressDisplay } from './progress.js';

function number(value: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed)) throw new InvalidArgumentError(`"${value}" is not a number`);
  return parsed;
}

function solParams(options: { step: number; linke: number; albedo: number; threads: number }): WorkflowParams {
  return { step: options.step, linke_value: options.linke, albedo_value: options.albedo, num_threads: options.threads };
}

export function buildProgram(): Command {
  const program = new Command('eemt')
    .description('Terrain solar radiation (r.sun model, bugs fixed) and EEMT maps from a DEM GeoTIFF')
    .showHelpAfterError();
  program
    .command('sol')
    .description('365 daily global-irradiation and sunshine-hour maps plus 12 monthly sums')
    .argument('<dem>', 'DEM GeoTIFF (single band, elevations in metres, projected or geographic CRS)')
    .requiredOption('-o, --out <dir>', 'output folder')
    .option('--step <minutes>', 'time step of the daily integration, 3–60 minutes', number, DEFAULT_PARAMS.step)
    .option('--linke <value>', 'Linke turbidity, 1–8', number, DEFAULT_PARAMS.linke_value)
    .option('--albedo <value>', 'ground albedo, 0–1', number, DEFAULT_PARAMS.albedo_value)
    .option('--threads <n>', 'worker threads, 1–32 (capped at the CPU count)', number, Math.min(availableParallelism(), 32))
    .action(async (dem: string, options) => {
      const display = progressDisplay();
      try {
        const result = await runSolWorkflow({
          demPath: resolve(dem),
          outDir: resolve(options.out),
          params: solParams(options),
          onProgress: display.listener,
        });
        display.stop();
        const cellDays = result.validCells * result.days;
        process.stdout.write(
          `sol: ${result.files.length} GeoTIFFs in ${options.out} — ${result.validCells} cells × ${result.days} days ` +
            `in ${result.seconds.toFixed(1)} s (${(cellDays / result.seconds / 1e6).toFixed(2)} M cell-days/s)\n`,
        );
      } catch (error) {
        display.stop();
        throw error;
      }
    });
  return program;
}

/** User errors print one line and exit 2; anything else is a fault (exit 1). */
export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof ParameterRangeError || error instanceof RasterFormatError) {
      process.stderr.write(`eemt: ${error.message}\n`);
      return 2;
    }
    if (error instanceof Error && 'code' in error && error.code === 'ENOENT') {
      process.stderr.write(`eemt: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(`eemt: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

