/**
 * Entry of the job child process: runs one workflow and reports to the service as JSON lines on stdout
 * (see `protocol.ts`). Usage: `node jobChild.js <job.json>`.
 *
 * Everything else — console output of the workflow, warnings — goes to stderr, which the service appends to
 * the job's log file. SIGTERM aborts the workflow; the process exits 0 on success and 1 on failure.
 */
import { readFileSync } from 'node:fs';
import { format } from 'node:util';
import { diskFullCodeOf, explainedByMessage, runWorkflow } from '../workflows/index.js';
import { adoptJobTempDir, encodeMessage, PARENT_PID_VARIABLE, type ChildJobSpec, type ChildMessage } from './protocol.js';

const writeProtocol = process.stdout.write.bind(process.stdout);
function send(message: ChildMessage): void {
  writeProtocol(encodeMessage(message));
}

// Keep stdout for protocol messages only.
for (const method of ['log', 'info', 'debug', 'warn', 'error'] as const) {
  console[method] = (...args: unknown[]) => {
    process.stderr.write(format(...args) + '\n');
  };
}

/**
 * A message for the job's `error_message`: the error's own text, without a stack; with its code, which for a full
 * disk is named even when the error came from a worker thread with its message only (the service acts on it).
 */
function describe(error: unknown): { message: string; code?: string } {
  if (error instanceof Error) {
    const own = (error as { code?: unknown }).code;
    const code = diskFullCodeOf(error) ?? (typeof own === 'string' ? own : null);
    return { message: error.message || error.name, ...(code !== null ? { code } : {}) };
  }
  return { message: String(error) };
}

async function main(): Promise<number> {
  adoptJobTempDir();
  const specPath = process.argv[2];
  if (!specPath) {
    send({ type: 'error', message: 'job child started without a job description' });
    return 2;
  }
  const spec = JSON.parse(readFileSync(specPath, 'utf8')) as ChildJobSpec;
  const controller = new AbortController();
  process.once('SIGTERM', () => controller.abort(new Error('Cancelled')));
  process.once('SIGINT', () => controller.abort(new Error('Cancelled')));

  // Stop if the service goes away without telling us (a sandbox is killed with it; a plain process is not). The
  // plain-process runtime names its pid, so a parent that died before this line is noticed too; a child whose
  // work does not end on the abort exits a few seconds later all the same.
  const parent = Number(process.env[PARENT_PID_VARIABLE]) || process.ppid;
  const watchdog = setInterval(() => {
    if (process.ppid === parent) return;
    controller.abort(new Error('service went away'));
    setTimeout(() => process.exit(1), 5000).unref();
  }, 2000);
  watchdog.unref();

  send({ type: 'started', pid: process.pid });
  console.error(`[job ${spec.jobId}] ${spec.workflowType} workflow on ${spec.demPath} with ${JSON.stringify(spec.params)}`);
  const started = Date.now();
  let lastFraction = 0;
  try {
    const result = await runWorkflow(spec.workflowType, {
      demPath: spec.demPath,
      ...(spec.climatePath ? { climateFile: spec.climatePath, ...(spec.climateFileName ? { climateFileName: spec.climateFileName } : {}) } : {}),
      outDir: spec.outDir,
      params: spec.params,
      ...(spec.maxDemCells !== undefined ? { maxDemCells: spec.maxDemCells } : {}),
      ...(spec.mode ? { mode: spec.mode } : {}),
      signal: controller.signal,
      onProgress: (update) => {
        lastFraction = Math.max(lastFraction, Math.min(1, Math.max(0, update.fraction)));
        send({ type: 'progress', fraction: lastFraction, message: update.message });
      },
    });
    send({ type: 'done', files: result.files, seconds: (Date.now() - started) / 1000 });
    console.error(`[job ${spec.jobId}] done: ${result.files.length} files in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return 0;
  } catch (error) {
    const { message, code } = describe(error);
    // Bad input or a failed download is one line in the job log (the service writes the message); faults get a stack.
    if (error instanceof Error && error.stack && !explainedByMessage(error, controller.signal.aborted)) console.error(error.stack);
    send({ type: 'error', message: controller.signal.aborted ? 'Cancelled' : message, ...(code ? { code } : {}) });
    return 1;
  }
}

/** Longest wait for the service to read the last messages before the child exits anyway [ms]. */
const FLUSH_TIMEOUT_MS = 60_000;

/**
 * Resolves once everything written to stdout and stderr has been handed to the pipes (or after FLUSH_TIMEOUT_MS): the
 * last message (`done` lists every file, tens of KB) can still be queued when the service is slow to read, and an
 * exit before then loses it — the job would fail as "exited with code 0 without finishing".
 */
function flushed(): Promise<void> {
  const written = (stream: NodeJS.WriteStream) => new Promise<void>((resolve) => stream.write('', () => resolve()));
  const timeout = new Promise<void>((resolve) => setTimeout(resolve, FLUSH_TIMEOUT_MS).unref());
  return Promise.race([Promise.all([written(process.stdout), written(process.stderr)]).then(() => undefined), timeout]);
}

main().then(
  async (code) => {
    process.exitCode = code;
    await flushed();
    // Worker threads or open handles of a failed workflow must not keep the job alive.
    setTimeout(() => process.exit(code), 200).unref();
  },
  async (error: unknown) => {
    send({ type: 'error', message: describe(error).message });
    await flushed();
    process.exit(1);
  },
);
