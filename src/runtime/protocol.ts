/**
 * Messages the job child sends to the service: one JSON object per line on the child's stdout.
 * Anything else the child prints (or writes to stderr) is log output and goes to the job's log file.
 */
import type { RunMode, WorkflowParams, WorkflowType } from '../workflows/types.js';

/** The workflow has started (the DEM is about to be read). */
export interface StartedMessage {
  readonly type: 'started';
  readonly pid: number;
}

/** Workflow progress: `fraction` of the workflow done, 0–1. */
export interface ProgressMessage {
  readonly type: 'progress';
  readonly fraction: number;
  readonly message: string;
}

/** The workflow finished; `files` are the outputs relative to the output folder. */
export interface DoneMessage {
  readonly type: 'done';
  readonly files: readonly string[];
  readonly seconds: number;
}

/**
 * The workflow failed; `message` is meant for the user (it becomes the job's `error_message`), except for a full disk:
 * `code` ENOSPC or EDQUOT, for which the service names its own folder that filled up.
 */
export interface ErrorMessage {
  readonly type: 'error';
  readonly message: string;
  /** The error's code (an errno code such as ENOSPC), when it has one. */
  readonly code?: string;
}

export type ChildMessage = StartedMessage | ProgressMessage | DoneMessage | ErrorMessage;

/**
 * What the job child is asked to do. Written as `job.json` into the job folder (`part-<name>.json` for a part of a split
 * job, with its mode); paths as the child sees them.
 */
export interface ChildJobSpec {
  readonly jobId: string;
  readonly workflowType: WorkflowType;
  readonly demPath: string;
  /** eemt: the climate ZIP and its client-side name, when the job brings its own climate grids. */
  readonly climatePath?: string;
  readonly climateFileName?: string;
  readonly outDir: string;
  readonly params: WorkflowParams;
  /** Largest DEM the job may read [cells]; no limit when absent. */
  readonly maxDemCells?: number;
  /** What the run computes (a part of a split job); absent for a whole job. */
  readonly mode?: RunMode;
}

/** Environment variable with the pid of the process that started a plain-process job child (its watchdog's parent). */
export const PARENT_PID_VARIABLE = 'JOB_PARENT_PID';

/** Environment variable with the job's scratch folder, for a child started with another TMPDIR (`adoptJobTempDir`). */
export const JOB_TEMP_VARIABLE = 'JOB_TEMP_DIR';

/**
 * Makes the job's scratch folder the child's TMPDIR where its runtime started it with another one (a plain-process
 * child run from the TypeScript sources starts with its service's, where tsx keeps the modules it has compiled);
 * the child calls it before its workflow runs anything.
 */
export function adoptJobTempDir(env: NodeJS.ProcessEnv = process.env): void {
  const own = env[JOB_TEMP_VARIABLE];
  if (!own) return;
  env.TMPDIR = own;
  delete env[JOB_TEMP_VARIABLE];
}

export function encodeMessage(message: ChildMessage): string {
  return JSON.stringify(message) + '\n';
}

/** Parses one stdout line; returns null when the line is not a protocol message (it is then log output). */
export function parseMessage(line: string): ChildMessage | null {
  const text = line.trim();
  if (!text.startsWith('{')) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const m = value as Record<string, unknown>;
  switch (m.type) {
    case 'started':
      return typeof m.pid === 'number' ? { type: 'started', pid: m.pid } : null;
    case 'progress':
      return typeof m.fraction === 'number' && Number.isFinite(m.fraction)
        ? { type: 'progress', fraction: Math.min(1, Math.max(0, m.fraction)), message: String(m.message ?? '') }
        : null;
    case 'done':
      return Array.isArray(m.files)
        ? { type: 'done', files: m.files.map(String), seconds: Number(m.seconds) || 0 }
        : null;
    case 'error':
      return typeof m.message === 'string'
        ? { type: 'error', message: m.message, ...(typeof m.code === 'string' ? { code: m.code } : {}) }
        : null;
    default:
      return null;
  }
}

/** Splits a byte stream into lines, calling `onLine` for each complete line (and the rest at `flush`). */
export function lineSplitter(onLine: (line: string) => void): { push(chunk: Buffer | string): void; flush(): void } {
  let pending = '';
  return {
    push(chunk) {
      pending += chunk.toString();
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl).replace(/\r$/, '');
        pending = pending.slice(nl + 1);
        onLine(line);
      }
    },
    flush() {
      if (pending.length > 0) onLine(pending);
      pending = '';
    },
  };
}
