/**
 * Which solar products a run writes: the `products` parameter. Its grammar is a comma-separated list of items, each
 *
 *   monthly          the 12 monthly sums of global irradiation (global/monthly/total_sun_{mon}_sum.tif)
 *   daily            the daily global maps of every day        (global/daily/total_sun_day_{day}.tif)
 *   hours            the daily sunshine-hour maps of every day (insol/daily/hours_sun_day_{day}.tif)
 *   daily:<days>     the daily global maps of some days
 *   hours:<days>     the daily sunshine-hour maps of some days
 *
 * where <days> is a day of year (`172`) or an inclusive range (`152-243`), in 1–365. Items combine by union, in any
 * order and with repeats; white space around items, the colon and the dash is ignored. The default (the parameter
 * absent) is every product, `monthly,daily,hours`. The normalised text (`productsText`) lists `monthly` first, then
 * the daily global days, then the sunshine-hour days, each as `daily`/`hours` for the whole year or as ascending
 * `daily:<a-b>` items of the runs of days — the same selection always has the same text.
 *
 * The run still computes every day it needs (the monthly sums need all of theirs); only the files are chosen.
 */
import { completeMonths, DAYS_PER_YEAR, monthOfDay } from './products.js';

/** The solar products a run writes: the monthly sums or not, and the days of the daily maps of each kind. */
export interface ProductSelection {
  readonly monthly: boolean;
  /** Days of year (ascending, no repeats) whose daily global map is written. */
  readonly dailyGlobal: readonly number[];
  /** Days of year (ascending, no repeats) whose daily sunshine-hour map is written. */
  readonly dailyHours: readonly number[];
}

/** A `products` text that does not follow the grammar; the message names the item. */
export class ProductSelectionError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = 'ProductSelectionError';
  }
}

/** The grammar in one line, for help texts and error messages. */
export const PRODUCTS_GRAMMAR =
  'a comma-separated list of monthly (the 12 monthly sums), daily (daily global maps), hours (daily sunshine-hour maps), ' +
  `daily:<days> or hours:<days> (<days> a day of year or a range a-b in 1–${DAYS_PER_YEAR}), e.g. monthly,daily:172,hours:152-243`;

const EVERY_DAY: readonly number[] = Array.from({ length: DAYS_PER_YEAR }, (_, i) => i + 1);

/** Every solar product: the default selection. */
export const ALL_PRODUCTS: ProductSelection = { monthly: true, dailyGlobal: EVERY_DAY, dailyHours: EVERY_DAY };

/** The monthly sums alone. */
export const MONTHLY_ONLY: ProductSelection = { monthly: true, dailyGlobal: [], dailyHours: [] };

/** The normalised text of the default selection. */
export const ALL_PRODUCTS_TEXT = 'monthly,daily,hours';

/** Longest part of a refused item repeated in its message. */
const ECHOED_ITEM_CHARS = 40;

const echoedItem = (item: string) => JSON.stringify(item.length > ECHOED_ITEM_CHARS ? `${item.slice(0, ECHOED_ITEM_CHARS)}…` : item);

/** The days of a `<days>` part of `item`: one day or an inclusive range. */
function daysOf(spec: string, item: string): number[] {
  const match = /^(\d{1,4})(?:\s*-\s*(\d{1,4}))?$/.exec(spec);
  if (!match) throw new ProductSelectionError(`products: ${echoedItem(item)} does not name a day or a range of days (e.g. daily:172 or hours:152-243)`);
  const first = Number(match[1]);
  const last = match[2] === undefined ? first : Number(match[2]);
  for (const day of [first, last]) {
    if (day < 1 || day > DAYS_PER_YEAR) throw new ProductSelectionError(`products: day ${day} in ${echoedItem(item)} is outside 1–${DAYS_PER_YEAR}`);
  }
  if (last < first) throw new ProductSelectionError(`products: ${echoedItem(item)} runs backwards; write ${last}-${first}`);
  return Array.from({ length: last - first + 1 }, (_, i) => first + i);
}

/** Parses a `products` text (see the module comment); ProductSelectionError naming the first bad item. */
export function parseProductSelection(text: string): ProductSelection {
  if (text.trim() === '') throw new ProductSelectionError(`products names no product; it is ${PRODUCTS_GRAMMAR}`);
  let monthly = false;
  const global = new Set<number>();
  const hours = new Set<number>();
  const items = text.split(',');
  items.forEach((raw, k) => {
    const item = raw.trim();
    if (item === '') throw new ProductSelectionError(`products: item ${k + 1} of ${items.length} is empty (a comma too many?)`);
    const match = /^([a-z]+)(?:\s*:\s*(.*))?$/.exec(item);
    const kind = match?.[1];
    const days = match?.[2];
    if (kind === 'monthly' && days === undefined) monthly = true;
    else if (kind === 'monthly') throw new ProductSelectionError(`products: ${echoedItem(item)}: monthly takes no days (it is the 12 monthly sums)`);
    else if (kind === 'daily' || kind === 'hours') {
      const target = kind === 'daily' ? global : hours;
      for (const day of days === undefined ? EVERY_DAY : daysOf(days, item)) target.add(day);
    } else throw new ProductSelectionError(`products: unknown item ${echoedItem(item)}; products is ${PRODUCTS_GRAMMAR}`);
  });
  const ascending = (days: Set<number>) => [...days].sort((a, b) => a - b);
  return { monthly, dailyGlobal: ascending(global), dailyHours: ascending(hours) };
}

/** Days as runs: `1-31,172` (ascending days, no repeats). */
export function dayRangesText(days: readonly number[]): string {
  const runs: string[] = [];
  for (let k = 0; k < days.length; ) {
    let end = k;
    while (end + 1 < days.length && days[end + 1] === days[end]! + 1) end++;
    runs.push(days[k] === days[end] ? `${days[k]}` : `${days[k]}-${days[end]}`);
    k = end + 1;
  }
  return runs.join(',');
}

/** The items of one kind of daily map: `daily` for every day, else one `daily:a-b` (or `daily:a`) per run of days. */
function dayItems(kind: 'daily' | 'hours', days: readonly number[]): string[] {
  if (days.length === DAYS_PER_YEAR) return [kind];
  return days.length === 0 ? [] : dayRangesText(days).split(',').map((run) => `${kind}:${run}`);
}

/** The normalised text of a selection (see the module comment). */
export function productsText(selection: ProductSelection): string {
  return [...(selection.monthly ? ['monthly'] : []), ...dayItems('daily', selection.dailyGlobal), ...dayItems('hours', selection.dailyHours)].join(',');
}

/** The normalised text of a `products` text; ProductSelectionError for a bad one. */
export function normalisedProducts(text: string): string {
  return productsText(parseProductSelection(text));
}

/** The selection of a run's `products` parameter (every product when absent). */
export function selectionOf(products: string | undefined): ProductSelection {
  return products === undefined ? ALL_PRODUCTS : parseProductSelection(products);
}

/** Whether a selection is every product (the default: its files and metadata are those of a run without the parameter). */
export function isAllProducts(selection: ProductSelection): boolean {
  return productsText(selection) === ALL_PRODUCTS_TEXT;
}

/**
 * The metadata item recording `products` in the solar GeoTIFFs, when it is not every product: a run without the
 * parameter (or with every product) writes the files it always wrote, byte for byte.
 */
export function productsMetadata(products: string | undefined): Record<string, string> {
  const selection = selectionOf(products);
  return isAllProducts(selection) ? {} : { PRODUCTS: productsText(selection) };
}

/** The days of the daily maps of a selection: every day whose global or sunshine-hour map it writes, ascending. */
export function dailyMapDays(selection: ProductSelection): number[] {
  return [...new Set([...selection.dailyGlobal, ...selection.dailyHours])].sort((a, b) => a - b);
}

/**
 * The selection of a run that computes only `days` (the CLI's --days; all 365 when absent): a daily map of a day
 * the run does not compute is refused (ProductSelectionError naming the day); a selection of every day's maps is
 * narrowed to the days computed, so `--days 1-31` with the default writes the maps of days 1–31, as before.
 */
export function selectionForDays(selection: ProductSelection, days: readonly number[] | undefined): ProductSelection {
  if (days === undefined) return selection;
  const computed = new Set(days);
  const narrowed = (kind: 'daily' | 'hours', chosen: readonly number[]): number[] => {
    if (chosen.length === DAYS_PER_YEAR) return chosen.filter((day) => computed.has(day));
    const missing = chosen.find((day) => !computed.has(day));
    if (missing !== undefined) {
      throw new ProductSelectionError(`products: ${kind}:${missing} selects day ${missing}, which the run does not compute (its days: ${dayRangesText([...computed].sort((a, b) => a - b))})`);
    }
    return [...chosen];
  };
  return { monthly: selection.monthly, dailyGlobal: narrowed('daily', selection.dailyGlobal), dailyHours: narrowed('hours', selection.dailyHours) };
}

/**
 * The days a run must compute to write `selection` from `days` (all 365 when absent): the days of the daily maps
 * chosen and, for the monthly sums, every day of the months `days` complete. Fails when the run would write nothing
 * (no daily map, and no month complete or no monthly sums).
 */
export function daysToCompute(selection: ProductSelection, days: readonly number[] | undefined): number[] {
  const all = days ? [...new Set(days)].sort((a, b) => a - b) : [...EVERY_DAY];
  const narrowed = selectionForDays(selection, days);
  const maps = new Set(dailyMapDays(narrowed));
  const summed = new Set(narrowed.monthly ? completeMonths(all) : []);
  const needed = all.filter((day) => maps.has(day) || summed.has(monthOfDay(day)));
  if (needed.length === 0) {
    throw new ProductSelectionError(
      narrowed.monthly
        ? `products selects only the monthly sums, and the run's days (${dayRangesText(all)}) complete no month`
        : 'products selects no file of the days the run computes',
    );
  }
  return needed;
}
