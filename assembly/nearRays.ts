/**
 * The near-field rays of a day's sun samples, written into the day's arrays in the kernel's memory: what
 * `sunSamplesForDay` of src/science/solar/dailyKernel.ts writes per sample with `nearFieldSteps`
 * (src/science/solar/horizon.ts) and `appendNearFieldRay`, with the same IEEE operations in the same order, so the
 * entries are equal to the bit (test/science/solar/nearRaysWasm.test.ts). A day of few samples is mostly this
 * loop, about a thousand operations per sample, which the JavaScript ran before V8 had optimised it.
 */

import { fi } from './memoryAccess';
import { Y_NEAR_START, Y_NEAR_OFFSET, Y_NEAR_COL, Y_NEAR_ROW, Y_NEAR_THRESHOLD, Y_NEAR_QUADRANT, Y_NEAR_MIN_THRESHOLD } from './kernelLayout';

/** Inputs per sample at `inputs` (f64): cells per step along columns and north (`rayDirection`), tan of the altitude. */
export const NEAR_RAY_INPUTS: i32 = 3;

/** `curvatureOverDistance` of horizon.ts: the Earth's curvature drop over a distance, divided by it (radius `earthRadiusM`). */
@inline function curvatureOverDistance(distanceM: f64, earthRadiusM: f64): f64 {
  const x = distanceM / earthRadiusM;
  const x2 = x * x;
  return (distanceM / (2 * earthRadiusM)) * (1 - x2 / 12 + (x2 * x2) / 360);
}

/**
 * Writes the near-field rays of samples 0 … count − 1 of the day at `day` (a day descriptor, kernelLayout.ts): ray k
 * steps `steps` times along inputs[3k] columns and inputs[3k + 1] rows north per step on a grid of cells
 * `cellSizeXM` × `cellSizeYM` whose rows lie `width` cells apart, its thresholds for a sun of tangent inputs[3k + 2].
 * Writes each sample's start and quadrant, and each entry's offset, column, row, threshold and least threshold to
 * the ray's end. `earthRadiusM`: horizon.ts's EARTH_RADIUS_M, passed in. Returns the rays' reach: the largest
 * |column offset| · 65536 + the largest |row offset|.
 */
export function nearFieldRays(day: usize, inputs: usize, count: i32, steps: i32, cellSizeXM: f64, cellSizeYM: f64, width: i32, earthRadiusM: f64): i32 {
  const start = <usize>fi(day, Y_NEAR_START);
  const offsets = <usize>fi(day, Y_NEAR_OFFSET);
  const cols = <usize>fi(day, Y_NEAR_COL);
  const rows = <usize>fi(day, Y_NEAR_ROW);
  const thresholds = <usize>fi(day, Y_NEAR_THRESHOLD);
  const quadrants = <usize>fi(day, Y_NEAR_QUADRANT);
  const least = <usize>fi(day, Y_NEAR_MIN_THRESHOLD);
  let near: i32 = 0;
  let reachCols: i32 = 0;
  let reachRows: i32 = 0;
  for (let k: i32 = 0; k < count; k++) {
    const input = inputs + ((<usize>k * <usize>NEAR_RAY_INPUTS) << 3);
    const colPerStep = load<f64>(input);
    const northPerStep = load<f64>(input, 8);
    const tanAltitude = load<f64>(input, 16);
    store<i32>(start + (<usize>k << 2), near);
    const first = near;
    // the offsets' signs (the ray's quadrant): bit 0 a column offset < 0, 1 > 0, 2 a row offset < 0, 3 > 0
    let signs: i32 = 0;
    let lastCol: f64 = 0;
    let lastRow: f64 = 0;
    for (let j: i32 = 1; j <= steps; j++) {
      const colOffset = Math.floor(<f64>j * colPerStep + 0.5);
      const rowOffset = 0 - Math.floor(<f64>j * northPerStep + 0.5);
      if (colOffset == lastCol && rowOffset == lastRow) continue;
      lastCol = colOffset;
      lastRow = rowOffset;
      const x = colOffset * cellSizeXM;
      const y = rowOffset * cellSizeYM;
      const d = Math.sqrt(x * x + y * y);
      const inverseDistance = 1 / d;
      const col = <i32>colOffset;
      const row = <i32>rowOffset;
      store<i32>(offsets + (<usize>near << 2), row * width + col);
      store<i32>(cols + (<usize>near << 2), col);
      store<i32>(rows + (<usize>near << 2), row);
      store<f64>(thresholds + (<usize>near << 3), (tanAltitude + curvatureOverDistance(d, earthRadiusM)) / inverseDistance);
      near++;
      signs |= (col < 0 ? 1 : col > 0 ? 2 : 0) | (row < 0 ? 4 : row > 0 ? 8 : 0);
      const absCol = col < 0 ? -col : col;
      const absRow = row < 0 ? -row : row;
      if (absCol > reachCols) reachCols = absCol;
      if (absRow > reachRows) reachRows = absRow;
    }
    // `quadrantOfSigns` of src/science/solar/nearFieldMaxima.ts: −1 when the ray's offsets change sign
    const quadrant = (signs & 3) == 3 || (signs & 12) == 12 ? -1 : (signs & 8 ? 2 : 0) + (signs & 2 ? 1 : 0);
    store<i32>(quadrants + (<usize>k << 2), quadrant);
    let smallest: f64 = Infinity;
    for (let j = near - 1; j >= first; j--) {
      const threshold = load<f64>(thresholds + (<usize>j << 3));
      if (threshold < smallest) smallest = threshold;
      store<f64>(least + (<usize>j << 3), smallest);
    }
  }
  store<i32>(start + (<usize>count << 2), near);
  return (reachCols << 16) | reachRows;
}
