/** Which days of the year a `sol` run computes. */
import { DAYS_PER_YEAR } from './products.js';

/** A day list that cannot be used; the message says what is wrong with which part. */
export class DaySpecError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = 'DaySpecError';
  }
}

/**
 * Parses a day list such as `1-31,172,355`: comma-separated days of year and inclusive ranges, each day
 * in 1–365. Returns the days ascending, without repeats.
 */
export function parseDaySpec(spec: string): number[] {
  const days = new Set<number>();
  const parts = spec.split(',').map((p) => p.trim());
  if (spec.trim() === '') throw new DaySpecError('no days given (e.g. 1-31,172,355)');
  for (const part of parts) {
    const match = /^(\d+)(?:\s*-\s*(\d+))?$/.exec(part);
    if (!match) throw new DaySpecError(`"${part}" is not a day or a range of days (e.g. 1-31,172,355)`);
    const first = Number(match[1]);
    const last = match[2] === undefined ? first : Number(match[2]);
    for (const day of [first, last]) {
      if (day < 1 || day > DAYS_PER_YEAR) throw new DaySpecError(`day ${day} in "${part}" is outside 1–${DAYS_PER_YEAR}`);
    }
    if (last < first) throw new DaySpecError(`"${part}" runs backwards; write ${last}-${first}`);
    for (let day = first; day <= last; day++) days.add(day);
  }
  return [...days].sort((a, b) => a - b);
}

/** The days to compute, ascending and without repeats (default all 365); each must be an integer in 1–365. */
export function checkedDays(days: readonly number[] | undefined): number[] {
  const list = days ? [...new Set(days)].sort((a, b) => a - b) : Array.from({ length: DAYS_PER_YEAR }, (_, i) => i + 1);
  for (const day of list) {
    if (!Number.isInteger(day) || day < 1 || day > DAYS_PER_YEAR) throw new DaySpecError(`day of year ${day} is outside 1–${DAYS_PER_YEAR}`);
  }
  if (list.length === 0) throw new DaySpecError('no day to compute');
  return list;
}
