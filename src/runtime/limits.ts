/** Parsing the resource limits of the configuration (`CONTAINER_CPU_LIMIT`, `CONTAINER_MEMORY_LIMIT`). */

const UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/**
 * Memory size in Docker's notation (`8G`, `512m`, `1.5g`, `1073741824`; binary units, optional trailing `b`)
 * to bytes. Throws on anything else.
 */
export function parseMemorySize(text: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([bkmgt]?)b?\s*$/i.exec(text);
  if (!m) throw new Error(`invalid memory size "${text}" (expected e.g. 8G, 512M, 1073741824)`);
  const bytes = Math.floor(Number(m[1]) * UNITS[m[2]!.toLowerCase()]!);
  if (!(bytes >= 64 * 1024 ** 2)) throw new Error(`memory size "${text}" is below the 64M minimum`);
  return bytes;
}

/** CPU limit (a positive number, may be fractional as in Docker's `--cpus`). */
export function parseCpuLimit(text: string): number {
  const cpus = Number(text);
  if (!Number.isFinite(cpus) || cpus <= 0 || cpus > 1024) throw new Error(`invalid CPU limit "${text}"`);
  return cpus;
}

/** Worker threads a job may use: its requested count capped by the CPU limit (at least 1). */
export function threadsFor(requested: number, cpus: number): number {
  return Math.max(1, Math.min(Math.floor(requested), Math.floor(cpus) || 1));
}

/** V8 old-space size for a job's main isolate [MiB]: three quarters of the memory limit, the rest is for buffers. */
export function heapMegabytesFor(memoryBytes: number): number {
  return Math.max(64, Math.floor((memoryBytes * 0.75) / 1024 ** 2));
}

/** Whether `line` (the child's stderr) is V8's fatal error for a heap that reached `--max-old-space-size`. */
export function isHeapLimitMessage(line: string): boolean {
  return /FATAL ERROR:.*JavaScript heap out of memory/.test(line);
}
