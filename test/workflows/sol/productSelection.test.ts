/**
 * The `products` grammar (src/workflows/solarYear/productSelection.ts): items, unions, the normalised text, the
 * errors naming the bad item, and how it combines with the days a run computes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ALL_PRODUCTS_TEXT,
  daysToCompute,
  normalisedProducts,
  parseProductSelection,
  ProductSelectionError,
  selectionForDays,
} from '../../../src/workflows/solarYear/productSelection.js';
import { parseDaySpec } from '../../../src/workflows/solarYear/days.js';

test('products: the items and their union, normalised to one text', () => {
  const cases: [string, string][] = [
    ['monthly,daily,hours', ALL_PRODUCTS_TEXT],
    [' hours , daily,monthly ', ALL_PRODUCTS_TEXT],
    ['monthly', 'monthly'],
    ['daily:172,hours:172', 'daily:172,hours:172'],
    ['hours : 172 , daily: 170 - 175, daily:172', 'daily:170-175,hours:172'],
    ['daily:1-365', 'daily'],
    ['daily:1-100,daily:101-365,monthly', 'monthly,daily'],
    ['daily:5,daily:3,daily:4,hours:365', 'daily:3-5,hours:365'],
    ['daily,daily:5', 'daily'],
    ['monthly,monthly', 'monthly'],
  ];
  for (const [text, normalised] of cases) assert.equal(normalisedProducts(text), normalised, text);
  const selection = parseProductSelection('monthly,daily:3-5,hours:365');
  assert.deepEqual(selection, { monthly: true, dailyGlobal: [3, 4, 5], dailyHours: [365] });
  // the normalised text reads back as the same selection
  for (const [text] of cases) assert.deepEqual(parseProductSelection(normalisedProducts(text)), parseProductSelection(text), text);
});

test('products: a bad item is refused with a message naming it', () => {
  const cases: [string, RegExp][] = [
    ['', /^products names no product; it is a comma-separated list of monthly/],
    ['  ', /names no product/],
    ['monthly,,daily', /^products: item 2 of 3 is empty/],
    ['monthly,', /^products: item 2 of 2 is empty/],
    ['weekly', /^products: unknown item "weekly"; products is a comma-separated list/],
    ['monthly,Daily', /unknown item "Daily"/],
    ['daily:0', /^products: day 0 in "daily:0" is outside 1–365$/],
    ['hours:366', /^products: day 366 in "hours:366" is outside 1–365$/],
    ['daily:200-100', /^products: "daily:200-100" runs backwards; write 100-200$/],
    ['daily:', /^products: "daily:" does not name a day or a range of days/],
    ['daily:1.5', /"daily:1\.5" does not name a day/],
    ['daily:1-', /"daily:1-" does not name a day/],
    ['monthly:3', /^products: "monthly:3": monthly takes no days/],
    ['daily:abc', /"daily:abc" does not name a day/],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => parseProductSelection(text), (error: unknown) => error instanceof ProductSelectionError && message.test(error.message), JSON.stringify(text));
  }
  // a long item is cut in the message
  assert.throws(() => parseProductSelection(`x${'y'.repeat(500)}`), (error: Error) => error.message.length < 400);
});

test('products with the days a run computes: chosen maps must be among them; the default narrows to them', () => {
  const days = parseDaySpec('1-31');
  assert.deepEqual(daysToCompute(parseProductSelection('daily:5'), days), [5]);
  assert.deepEqual(daysToCompute(parseProductSelection('daily:5,hours:7-8'), days), [5, 7, 8]);
  // the monthly sums need every day of the months the days complete
  assert.deepEqual(daysToCompute(parseProductSelection('monthly'), undefined).length, 365);
  assert.deepEqual(daysToCompute(parseProductSelection('monthly'), parseDaySpec('1-40')), parseDaySpec('1-31'));
  assert.deepEqual(daysToCompute(parseProductSelection('monthly,daily:35'), parseDaySpec('1-40')), [...parseDaySpec('1-31'), 35]);
  // the default (every map) writes the maps of the days computed, as a run without the parameter
  assert.deepEqual(daysToCompute(parseProductSelection(ALL_PRODUCTS_TEXT), parseDaySpec('10-12,172')), [10, 11, 12, 172]);
  assert.deepEqual(selectionForDays(parseProductSelection('daily,hours:11'), parseDaySpec('10-12')), { monthly: false, dailyGlobal: [10, 11, 12], dailyHours: [11] });
  // a map of a day not computed, or nothing to write, is an error
  assert.throws(() => daysToCompute(parseProductSelection('daily:40'), days), /products: daily:40 selects day 40, which the run does not compute \(its days: 1-31\)$/);
  assert.throws(() => daysToCompute(parseProductSelection('hours:32-33'), days), /hours:32 selects day 32/);
  assert.throws(() => daysToCompute(parseProductSelection('monthly'), parseDaySpec('1-10')), /only the monthly sums, and the run's days \(1-10\) complete no month/);
});
