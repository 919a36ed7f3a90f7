/**
 * The Horn gradient of a tile's cells from the kernel's elevation window (assembly/dailyKernel.ts): `hornGradientOfBlock`
 * of src/science/terrain/slopeAspect.ts, statement for statement — the same neighbours, the same completion of a
 * missing one and the same IEEE operations, so the same gradients to the bit (test/science/solar/hornGradientWasm.test.ts).
 * A tile's first gradient ran in JavaScript that V8 had not optimised yet (about 2 µs a cell).
 */

/** Elevation of grid cell (r, c) from the window whose first cell is grid cell (row0, col0), `width` cells a row. */
@inline function at(window: usize, width: i32, row0: i32, col0: i32, r: i32, c: i32): f64 {
  return <f64>load<f32>(window + ((<usize>(r - row0) * <usize>width + <usize>(c - col0)) << 2));
}

// the 3 × 3 neighbourhood of a cell, 0 1 2 / 3 4 5 / 6 7 8, north at the top (`fillWindow`)
let w0: f64 = 0;
let w1: f64 = 0;
let w2: f64 = 0;
let w3: f64 = 0;
let w5: f64 = 0;
let w6: f64 = 0;
let w7: f64 = 0;
let w8: f64 = 0;

/**
 * Writes the gradient (fall east, fall north: f64) of cells colStart … colEnd − 1 of grid `row` to fallEast and
 * fallNorth from index `first` on, reading the elevations (f32, NaN = nodata) of the window at `window`: `width`
 * cells a row, its first cell grid cell (row0, col0); it holds the cells' neighbours inside the grid of
 * gridWidth × gridHeight cells. dx and dy: the row's cell size [m].
 */
export function hornGradientRow(
  window: usize,
  width: i32,
  row0: i32,
  col0: i32,
  gridWidth: i32,
  gridHeight: i32,
  row: i32,
  colStart: i32,
  colEnd: i32,
  dx: f64,
  dy: f64,
  fallEast: usize,
  fallNorth: usize,
  first: i32,
): void {
  for (let col = colStart; col < colEnd; col++) {
    const east = fallEast + (<usize>(first + col - colStart) << 3);
    const north = fallNorth + (<usize>(first + col - colStart) << 3);
    const zc = at(window, width, row0, col0, row, col);
    if (isNaN(zc)) {
      store<f64>(east, NaN);
      store<f64>(north, NaN);
      continue;
    }
    if (row > 0 && row < gridHeight - 1 && col > 0 && col < gridWidth - 1) {
      // inside the grid, read in place: a missing neighbour (NaN) makes a result NaN, and only then is the window
      // completed as below
      const nw = at(window, width, row0, col0, row - 1, col - 1);
      const n = at(window, width, row0, col0, row - 1, col);
      const ne = at(window, width, row0, col0, row - 1, col + 1);
      const we = at(window, width, row0, col0, row, col - 1);
      const ea = at(window, width, row0, col0, row, col + 1);
      const sw = at(window, width, row0, col0, row + 1, col - 1);
      const s = at(window, width, row0, col0, row + 1, col);
      const se = at(window, width, row0, col0, row + 1, col + 1);
      const fallE = hornFall(nw, we, sw, ne, ea, se, dx);
      const fallN = hornFall(sw, s, se, nw, n, ne, dy);
      if (fallE == fallE && fallN == fallN) {
        store<f64>(east, fallE);
        store<f64>(north, fallN);
        continue;
      }
    }
    fillWindow(window, width, row0, col0, gridWidth, gridHeight, row, col, zc);
    store<f64>(east, hornFall(w0, w3, w6, w2, w5, w8, dx));
    store<f64>(north, hornFall(w6, w7, w8, w0, w1, w2, dy));
  }
}

/** `hornFall` of slopeAspect.ts: (a1 + 2·a2 + a3 − (b1 + 2·b2 + b3)) / (8 · cellSizeM). */
@inline function hornFall(a1: f64, a2: f64, a3: f64, b1: f64, b2: f64, b3: f64, cellSizeM: f64): f64 {
  return (a1 + 2 * a2 + a3 - (b1 + 2 * b2 + b3)) / (8 * cellSizeM);
}

/** Neighbour (row + dr, col + dc), NaN outside the grid. */
@inline function neighbour(window: usize, width: i32, row0: i32, col0: i32, gridWidth: i32, gridHeight: i32, row: i32, col: i32, dr: i32, dc: i32): f64 {
  const r = row + dr;
  const c = col + dc;
  return r >= 0 && r < gridHeight && c >= 0 && c < gridWidth ? at(window, width, row0, col0, r, c) : NaN;
}

/** `fillWindow` of slopeAspect.ts into w0 … w8 (the centre zc). */
function fillWindow(window: usize, width: i32, row0: i32, col0: i32, gridWidth: i32, gridHeight: i32, row: i32, col: i32, zc: f64): void {
  w0 = neighbour(window, width, row0, col0, gridWidth, gridHeight, row, col, -1, -1);
  w1 = neighbour(window, width, row0, col0, gridWidth, gridHeight, row, col, -1, 0);
  w2 = neighbour(window, width, row0, col0, gridWidth, gridHeight, row, col, -1, 1);
  w3 = neighbour(window, width, row0, col0, gridWidth, gridHeight, row, col, 0, -1);
  w5 = neighbour(window, width, row0, col0, gridWidth, gridHeight, row, col, 0, 1);
  w6 = neighbour(window, width, row0, col0, gridWidth, gridHeight, row, col, 1, -1);
  w7 = neighbour(window, width, row0, col0, gridWidth, gridHeight, row, col, 1, 0);
  w8 = neighbour(window, width, row0, col0, gridWidth, gridHeight, row, col, 1, 1);
  // cardinal pairs (N, S) and (W, E) first: the mirror image of the opposite neighbour, else the centre
  // (`mirrorPair` with the centre for both missing)
  if (isNaN(w1) && isNaN(w7)) {
    w1 = zc;
    w7 = zc;
  } else if (isNaN(w1)) w1 = 2 * zc - w7;
  else if (isNaN(w7)) w7 = 2 * zc - w1;
  if (isNaN(w3) && isNaN(w5)) {
    w3 = zc;
    w5 = zc;
  } else if (isNaN(w3)) w3 = 2 * zc - w5;
  else if (isNaN(w5)) w5 = 2 * zc - w3;
  // diagonal pairs (NW, SE) and (NE, SW): the mirror image, or from the two cardinal neighbours
  if (isNaN(w0) && isNaN(w8)) {
    w0 = w1 + w3 - zc;
    w8 = w7 + w5 - zc;
  } else if (isNaN(w0)) w0 = 2 * zc - w8;
  else if (isNaN(w8)) w8 = 2 * zc - w0;
  if (isNaN(w2) && isNaN(w6)) {
    w2 = w1 + w5 - zc;
    w6 = w7 + w3 - zc;
  } else if (isNaN(w2)) w2 = 2 * zc - w6;
  else if (isNaN(w6)) w6 = 2 * zc - w2;
}
