/**
 * The DEM check at submission, outside the service's event loop and heap: each upload is judged by a
 * separate Node.js process (`demCheckChild.ts`, the rules of `demRules.ts`) with hard limits —
 *
 * - memory: `prlimit --data` (RLIMIT_DATA: heap, array buffers, everything) sized from the cell limit and
 *   the file, plus a V8 heap cap;
 * - work: `prlimit --cpu`, a budget of processor time (`cpuSeconds`), which a busy machine does not use up as it
 *   uses up wall-clock time, so an honest file is not refused because other work slows the check down; and a
 *   generous wall-clock watchdog (`timeoutMs`) for a check that hangs without working;
 * - declared size: the cell limit (`EEMT_MAX_DEM_CELLS`) and the structural bounds of the TIFF walk, applied
 *   before any pixel is decoded;
 * - at most `concurrency` checks at once; further uploads wait their turn.
 *
 * A file that breaks a limit is refused with a message saying which.
 */
import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { resourceLimitPrefix } from '../../util/processLimits.js';
import { nodeArgsFor, siblingModuleUrl } from '../../util/modules.js';
import type { ClimateVerdict } from './climateRules.js';
import { demCellLimitProblem, largestDemCellLimit, type DemCellLimits } from '../../workflows/demLimits.js';
import type { WorkflowType } from '../../workflows/types.js';
import type { DemRuleLimits, DemVerdict } from './demRules.js';

export type { DemVerdict } from './demRules.js';
export type { ClimateVerdict } from './climateRules.js';

/** Files up to this size are decoded completely at submission [bytes]; larger ones get the header rules. */
export const FULL_CHECK_MAX_BYTES = 256 * 1024 * 1024;
/** Processor time a DEM check may use before it is stopped and the file refused [s]. */
const DEM_CHECK_CPU_SECONDS = 60;
/** Processor time of a climate ZIP check, which reads every grid of the years [s]. */
const CLIMATE_CHECK_CPU_SECONDS = 120;
/**
 * Wall-clock time after which a check is stopped whatever it did [ms]: for a check that hangs (waits without
 * using its processor time), far beyond what the processor-time budgets allow on a busy machine.
 */
const CHECK_WATCHDOG_MS = 15 * 60_000;
/** Checks running at once. */
const DEM_CHECKS_AT_ONCE = 2;
/** V8 heap of the check process [MiB] (pixel arrays live outside it, under the data limit). */
const DEM_CHECK_HEAP_MB = 256;
/** Memory of the check process that does not depend on the file (Node.js, code, heap) [bytes]. */
const CHECK_BASE_BYTES = 256 * 1024 ** 2;
/** Per cell, at most: the decoded samples (≤ 8 bytes), geotiff.js's block copies (≤ 8) and the Float64 values (8). */
const CHECK_BYTES_PER_CELL = 24;
/** Largest climate grid member [bytes] and its decoded cells' share of the check's memory. */
const CLIMATE_MEMBER_BYTES = 256 * 1024 ** 2;
/** Per DEM cell in the climate check: elevations (8), source positions (16), a sampled month (4 × 4) and spare. */
const CLIMATE_BYTES_PER_DEM_CELL = 64;
/** The verdict line is small; more output than this is not a verdict. */
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

export interface DemCheckOptions {
  /**
   * Largest DEM accepted [cells] (`EEMT_MAX_DEM_CELLS`): one number for every workflow, or one per workflow
   * (the file is walked against the largest, then held to its job's workflow).
   */
  readonly maxCells: number | DemCellLimits;
  readonly fullCheckMaxBytes?: number;
  /** Processor time of a DEM check [s]; default `DEM_CHECK_CPU_SECONDS`. */
  readonly cpuSeconds?: number;
  /** Processor time of a climate-file check [s]; default `CLIMATE_CHECK_CPU_SECONDS`. */
  readonly climateCpuSeconds?: number;
  /** Wall-clock watchdog of every check [ms]; default `CHECK_WATCHDOG_MS`. */
  readonly timeoutMs?: number;
  readonly concurrency?: number;
  /** Data memory of the check process [bytes]; default from the cell limit and the file size. */
  readonly memoryBytes?: number;
  /** Where the check process's error output goes (for the operator; never to the client). */
  readonly log?: (line: string) => void;
}

/**
 * Memory the check of a `fileBytes` file may use: the process itself, the file twice (its bytes and
 * geotiff.js's block slices) when it is decoded, and the per-cell arrays of the largest accepted DEM.
 */
export function demCheckMemoryBytes(maxCells: number, fileBytes: number, fullCheckMaxBytes = FULL_CHECK_MAX_BYTES): number {
  const decoded = fileBytes <= fullCheckMaxBytes ? 2 * fileBytes : 0;
  return CHECK_BASE_BYTES + decoded + CHECK_BYTES_PER_CELL * maxCells;
}

function mib(bytes: number): string {
  return `${Math.round(bytes / 1024 ** 2)} MB`;
}

function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

/**
 * Memory the climate check may use: the process, one member's bytes twice, its decoded cells (at most the cell
 * limit) and the DEM-sized arrays of the reprojection.
 */
function climateCheckMemoryBytes(maxCells: number): number {
  return CHECK_BASE_BYTES + 2 * CLIMATE_MEMBER_BYTES + CHECK_BYTES_PER_CELL * maxCells + CLIMATE_BYTES_PER_DEM_CELL * maxCells;
}

/** Runs DEM checks (and climate-file checks) in limited child processes, at most `concurrency` at a time. */
export class DemChecker {
  private readonly limits: DemRuleLimits;
  private readonly cellLimits: DemCellLimits | null;
  /** Climate grids are checked for eemt jobs: their limit. */
  private readonly climateMaxCells: number;
  private readonly timeoutMs: number;
  private readonly cpuSeconds: number;
  private readonly climateCpuSeconds: number;
  private readonly concurrency: number;
  private readonly memoryBytes: number | undefined;
  private readonly log: (line: string) => void;
  private readonly entry = siblingModuleUrl(import.meta.url, 'demCheckChild');
  private readonly climateEntry = siblingModuleUrl(import.meta.url, 'climateCheckChild');
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(options: DemCheckOptions) {
    const { maxCells } = options;
    this.cellLimits = typeof maxCells === 'number' ? null : maxCells;
    this.limits = { maxCells: typeof maxCells === 'number' ? maxCells : largestDemCellLimit(maxCells), fullCheckMaxBytes: options.fullCheckMaxBytes ?? FULL_CHECK_MAX_BYTES };
    this.climateMaxCells = typeof maxCells === 'number' ? maxCells : maxCells.eemt;
    this.timeoutMs = options.timeoutMs ?? CHECK_WATCHDOG_MS;
    this.cpuSeconds = options.cpuSeconds ?? DEM_CHECK_CPU_SECONDS;
    this.climateCpuSeconds = options.climateCpuSeconds ?? CLIMATE_CHECK_CPU_SECONDS;
    this.concurrency = Math.max(1, options.concurrency ?? DEM_CHECKS_AT_ONCE);
    this.memoryBytes = options.memoryBytes;
    this.log = options.log ?? (() => undefined);
  }

  /**
   * The verdict on the file at `path`: acceptable (with its grid), or the problem, said for the client. With
   * `workflow`, a DEM over that workflow's own cell limit is refused too.
   */
  async check(path: string, workflow?: WorkflowType): Promise<DemVerdict> {
    await this.acquire();
    let verdict: DemVerdict;
    try {
      const { size } = await stat(path);
      const memory = this.memoryBytes ?? demCheckMemoryBytes(this.limits.maxCells, size, this.limits.fullCheckMaxBytes);
      verdict = await this.runChild<DemVerdict>(this.entry, [path, JSON.stringify(this.limits)], memory, this.cpuSeconds, `DEM check of ${path}`);
    } finally {
      this.release();
    }
    if (verdict.ok && workflow && this.cellLimits) {
      const problem = demCellLimitProblem(verdict.grid.width, verdict.grid.height, workflow, this.cellLimits);
      if (problem) return { ok: false, problem };
    }
    return verdict;
  }

  /**
   * The verdict on a climate ZIP for an accepted DEM and the job's years (`climateRules.ts`): bounded archive,
   * layout, every grid present, GeoTIFF rules, coverage of the DEM, units. Same process limits as the DEM check.
   */
  async checkClimate(zipPath: string, demPath: string, years: readonly number[]): Promise<ClimateVerdict> {
    await this.acquire();
    try {
      const memory = this.memoryBytes ?? climateCheckMemoryBytes(this.climateMaxCells);
      const args = [zipPath, demPath, JSON.stringify({ maxCells: this.climateMaxCells, years })];
      return await this.runChild<ClimateVerdict>(this.climateEntry, args, memory, this.climateCpuSeconds, `climate check of ${zipPath}`);
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.running < this.concurrency) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }

  /** Runs `entry` with `args` under the memory and processor-time limits; its last stdout line is the verdict. */
  private async runChild<V extends { ok: boolean }>(entry: URL, args: string[], memory: number, cpuSeconds: number, label: string): Promise<V | { ok: false; problem: string }> {
    const limits = await resourceLimitPrefix({ dataBytes: memory, cpuSeconds });
    const command = [...limits, process.execPath, `--max-old-space-size=${DEM_CHECK_HEAP_MB}`, ...nodeArgsFor(entry), ...args];
    const timeoutMs = this.timeoutMs;
    type Verdict = V | { ok: false; problem: string; outOfMemory?: true };
    return new Promise<Verdict>((resolve) => {
      const child = spawn(command[0]!, command.slice(1), {
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' },
      });
      let stdout = '';
      let stderr = '';
      let timedOut = false;
      child.stdout.on('data', (chunk: Buffer) => {
        if (stdout.length < MAX_OUTPUT_BYTES) stdout += chunk.toString();
      });
      child.stderr.on('data', (chunk: Buffer) => {
        stderr = (stderr + chunk.toString()).slice(-16_384);
      });
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill('SIGKILL');
      }, timeoutMs);
      const finish = (verdict: Verdict) => {
        clearTimeout(timer);
        resolve(verdict);
      };
      child.once('error', (error) => finish({ ok: false, problem: `the file could not be checked (${error.message})` }));
      child.once('close', (code, signal) => {
        if (timedOut) {
          finish({ ok: false, problem: `checking the file took longer than the limit of ${duration(timeoutMs)}` });
          return;
        }
        if (signal === 'SIGXCPU') {
          finish({ ok: false, problem: `checking the file needed more than the limit of ${cpuSeconds} s of processor time` });
          return;
        }
        const memoryProblem = `checking the file needed more than the ${mib(memory)} of memory the check may use`;
        const line = stdout.trim().split('\n').at(-1) ?? '';
        if (code === 0 && line.startsWith('{')) {
          try {
            const verdict = JSON.parse(line) as Verdict;
            const outOfMemory = !verdict.ok && 'outOfMemory' in verdict && verdict.outOfMemory;
            if (outOfMemory) this.log(`${label} ran out of memory: ${(verdict as { problem: string }).problem}`);
            finish(outOfMemory ? { ok: false, problem: memoryProblem } : verdict);
            return;
          } catch {
            /* not a verdict: reported below */
          }
        }
        if (stderr.trim()) this.log(`${label} failed (code ${code}, signal ${signal}): ${stderr.trim()}`);
        const outOfMemory = /heap limit|allocation failed|out of memory|ENOMEM|Cannot allocate/i.test(stderr) || signal === 'SIGABRT' || signal === 'SIGTRAP' || signal === 'SIGSEGV';
        finish({
          ok: false,
          problem: outOfMemory
            ? memoryProblem
            : `the file could not be checked (the check stopped with ${signal ? `signal ${signal}` : `code ${code}`})`,
        });
      });
    });
  }
}
