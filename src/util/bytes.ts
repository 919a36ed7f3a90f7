/** Sizes for people, in units of 1024 as everywhere in the service (the cleanup's `*_mb`, the pages). */

const UNITS = ['KB', 'MB', 'GB', 'TB', 'PB'] as const;

/** `812 B`, `4.6 KB`, `12.0 MB`, `1.5 GB`: one decimal from a kilobyte up. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return `${bytes} B`;
  if (Math.abs(bytes) < 1024) return `${Math.round(bytes)} B`;
  let value = bytes / 1024;
  let unit = 0;
  // rounded first, so that 1023.96 KB is written 1.0 MB, not 1024.0 KB
  while (Math.abs(Number(value.toFixed(1))) >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${UNITS[unit]}`;
}
