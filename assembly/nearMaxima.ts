/**
 * The highest terrain of each quadrant of the near field of a tile's cells, compiled (exported by
 * assembly/dailyKernel.ts): `nearQuadrantMaximum` of src/science/solar/nearFieldMaxima.ts for every cell of the
 * tile and quadrant (q = 2·south + east; nodata as −∞), with running maxima along the rows and then the columns
 * of the elevation window (blocks of reach + 1 cells: a window of that length spans at most two blocks,
 * `windowMaximum`). Equal to the definition
 * (test/science/solar/nearFieldMaxima.test.ts); the kernel ends its traces on them (assembly/sunlitLanes.ts).
 *
 * Memory: the window (f32, `winWidth` × `winRows`, row-major), the output (f32, 4 per tile-local cell), and
 * scratch of 2 · winRows · tileWidth + 2 · max(winRows, winWidth) f32 at `scratch`.
 */

/** Value i of a line (NaN, nodata in the window, as −∞). */
@inline function valueAt(line: usize, stride: i32, i: i32, fromWindow: bool): f32 {
  const z = load<f32>(line + (<usize>(i * stride) << 2));
  return fromWindow && z != z ? -Infinity : z;
}

/**
 * Maxima of one line of `length` values (stride `stride` elements from `line`) within blocks of `block` values:
 * from the block's start to each value (`prefix`) and from each value to the block's end (`suffix`).
 */
function blockMaxima(line: usize, stride: i32, length: i32, block: i32, prefix: usize, suffix: usize, fromWindow: bool): void {
  for (let start = 0; start < length; start += block) {
    const end = min(start + block, length);
    let highest: f32 = -Infinity;
    for (let i = start; i < end; i++) {
      highest = max(highest, valueAt(line, stride, i, fromWindow));
      store<f32>(prefix + (<usize>i << 2), highest);
    }
    highest = -Infinity;
    for (let i = end - 1; i >= start; i--) {
      highest = max(highest, valueAt(line, stride, i, fromWindow));
      store<f32>(suffix + (<usize>i << 2), highest);
    }
  }
}

/**
 * Maximum over [i, i + reach] (`ahead`) or [i − reach, i], cut to the line, of the line whose block maxima (blocks of
 * reach + 1) are in `prefix`/`suffix`: a block's suffix and the next block's prefix, or within one block (a window
 * cut at the line's start or end) the prefix from the block's start or the suffix to its end.
 */
@inline function windowMaximum(prefix: usize, suffix: usize, length: i32, i: i32, reach: i32, ahead: bool): f32 {
  const first = ahead ? i : max(0, i - reach);
  const last = ahead ? min(length - 1, i + reach) : i;
  const block = reach + 1;
  if (first / block == last / block) return first % block == 0 ? load<f32>(prefix + (<usize>last << 2)) : load<f32>(suffix + (<usize>first << 2));
  return max(load<f32>(suffix + (<usize>first << 2)), load<f32>(prefix + (<usize>last << 2)));
}

export function nearQuadrantMaxima(
  window: usize,
  winWidth: i32,
  winRows: i32,
  firstRow: i32,
  firstCol: i32,
  tileWidth: i32,
  tileRows: i32,
  reachRows: i32,
  reachCols: i32,
  out: usize,
  scratch: usize,
): void {
  const east = scratch;
  const west = east + (<usize>(winRows * tileWidth) << 2);
  const prefix = west + (<usize>(winRows * tileWidth) << 2);
  const suffix = prefix + (<usize>max(winRows, winWidth) << 2);
  // along each row of the window, at the tile's columns: the maxima over [col, col + reachCols] and [col − reachCols, col]
  for (let r = 0; r < winRows; r++) {
    blockMaxima(window + (<usize>(r * winWidth) << 2), 1, winWidth, reachCols + 1, prefix, suffix, true);
    for (let c = 0; c < tileWidth; c++) {
      const at = <usize>(r * tileWidth + c) << 2;
      store<f32>(east + at, windowMaximum(prefix, suffix, winWidth, firstCol + c, reachCols, true));
      store<f32>(west + at, windowMaximum(prefix, suffix, winWidth, firstCol + c, reachCols, false));
    }
  }
  // along each column, at the tile's rows: north (behind) and south (ahead) of the west and east maxima
  for (let c = 0; c < tileWidth; c++) {
    for (let eastward = 0; eastward < 2; eastward++) {
      blockMaxima((eastward == 1 ? east : west) + (<usize>c << 2), tileWidth, winRows, reachRows + 1, prefix, suffix, false);
      for (let r = 0; r < tileRows; r++) {
        const cell = out + (<usize>((r * tileWidth + c) * 4 + eastward) << 2);
        store<f32>(cell, windowMaximum(prefix, suffix, winRows, firstRow + r, reachRows, false));
        store<f32>(cell + 8, windowMaximum(prefix, suffix, winRows, firstRow + r, reachRows, true));
      }
    }
  }
}
