/**
 * Slope and aspect by Horn's (1981) 3×3 method, with the conventions of GRASS `r.slope.aspect`.
 *
 * Grids are row-major, row 0 at the north edge (index = row · width + col), NaN = nodata.
 * Unlike r.slope.aspect (which leaves the one-cell border and the neighbours of nodata cells NULL), every
 * valid cell gets a value: a missing neighbour (outside the grid or nodata) is replaced by the mirror
 * image of its opposite neighbour through the centre (2·z_c − z_opposite); a missing diagonal pair is
 * completed from the cardinal neighbours (NE = N + E − z_c); a missing cardinal pair takes z_c. On a plane
 * this reproduces the interior gradient exactly, corners included.
 *
 * @see Horn 1981, "Hill shading and the reflectance map", Proc. IEEE 69(1); docs/solar-model.md §1.1
 */

/** Downslope gradient of every cell: the components of −∇z [m m⁻¹]. */
export interface HornGradient {
  /** −∂z/∂x: > 0 where the surface faces east (falls toward the east). NaN at nodata. */
  readonly fallEast: Float64Array;
  /** −∂z/∂y: > 0 where the surface faces north. NaN at nodata. */
  readonly fallNorth: Float64Array;
}

/** Cell size along x [m], one number for the whole grid or one per row (geographic grids). */
export type CellSizeByRow = number | Float64Array;

/** Elevations [m] of a grid, row-major, NaN = nodata. */
export type ElevationGrid = Float32Array | Float64Array;

/**
 * Horn gradient of `elevation` (width × height cells) with ground cell sizes `cellSizeXM` (east-west) and
 * `cellSizeYM` (north-south) in metres.
 */
export function hornGradient(
  elevation: ElevationGrid,
  width: number,
  height: number,
  cellSizeXM: CellSizeByRow,
  cellSizeYM: CellSizeByRow,
): HornGradient {
  const gradient = { fallEast: new Float64Array(width * height), fallNorth: new Float64Array(width * height) };
  hornGradientOfBlock(elevation, width, height, { rowStart: 0, rowEnd: height, colStart: 0, colEnd: width }, cellSizeXM, cellSizeYM, gradient);
  return gradient;
}

/** A block of cells [rowStart, rowEnd) × [colStart, colEnd) of a grid. */
export interface GridBlock {
  readonly rowStart: number;
  readonly rowEnd: number;
  readonly colStart: number;
  readonly colEnd: number;
}

/**
 * Horn gradient of the cells of `block` only, written block-local into `out` (index (row − rowStart) ·
 * blockWidth + (col − colStart)); neighbours are read from the whole grid, so the result of every cell is
 * the same as in `hornGradient`.
 */
export function hornGradientOfBlock(
  elevation: ElevationGrid,
  width: number,
  height: number,
  block: GridBlock,
  cellSizeXM: CellSizeByRow,
  cellSizeYM: CellSizeByRow,
  out: HornGradient,
): void {
  const { fallEast, fallNorth } = out;
  const blockWidth = block.colEnd - block.colStart;
  const window = new Float64Array(9);
  for (let row = block.rowStart; row < block.rowEnd; row++) {
    const dx = typeof cellSizeXM === 'number' ? cellSizeXM : cellSizeXM[row]!;
    const dy = typeof cellSizeYM === 'number' ? cellSizeYM : cellSizeYM[row]!;
    for (let col = block.colStart; col < block.colEnd; col++) {
      const index = (row - block.rowStart) * blockWidth + (col - block.colStart);
      const zc = elevation[row * width + col]!;
      if (Number.isNaN(zc)) {
        fallEast[index] = NaN;
        fallNorth[index] = NaN;
        continue;
      }
      if (row > 0 && row < height - 1 && col > 0 && col < width - 1) {
        // inside the grid, read in place: a missing neighbour (NaN) makes a result NaN, and only then is the window
        // completed as below (the same values and operations where none is missing)
        const above = (row - 1) * width + col;
        const here = row * width + col;
        const below = (row + 1) * width + col;
        const east = hornFall(elevation[above - 1]!, elevation[here - 1]!, elevation[below - 1]!, elevation[above + 1]!, elevation[here + 1]!, elevation[below + 1]!, dx);
        const north = hornFall(elevation[below - 1]!, elevation[below]!, elevation[below + 1]!, elevation[above - 1]!, elevation[above]!, elevation[above + 1]!, dy);
        if (east === east && north === north) {
          fallEast[index] = east;
          fallNorth[index] = north;
          continue;
        }
      }
      fillWindow(elevation, width, height, row, col, window);
      // window: 0 1 2 / 3 4 5 / 6 7 8, north at the top (c1…c9 of r.slope.aspect)
      const w = window;
      fallEast[index] = hornFall(w[0]!, w[3]!, w[6]!, w[2]!, w[5]!, w[8]!, dx);
      fallNorth[index] = hornFall(w[6]!, w[7]!, w[8]!, w[0]!, w[1]!, w[2]!, dy);
    }
  }
}

/**
 * Horn's weighted difference across a cell [m m⁻¹]: the row of three neighbours a1 a2 a3 on the side the surface falls
 * toward, against b1 b2 b3 on the other side, the middle ones weighted 2, over 8 cell sizes (`cellSizeM`, the distance
 * between the two rows is 2 cells): −∂z/∂x with the west column against the east one, −∂z/∂y with the south row against
 * the north one.
 */
function hornFall(a1: number, a2: number, a3: number, b1: number, b2: number, b3: number, cellSizeM: number): number {
  return (a1 + 2 * a2 + a3 - (b1 + 2 * b2 + b3)) / (8 * cellSizeM);
}

/** The 3×3 neighbourhood of (row, col) with missing neighbours replaced as described in the module doc. */
function fillWindow(z: ElevationGrid, width: number, height: number, row: number, col: number, out: Float64Array): void {
  const zc = z[row * width + col]!;
  for (let k = 0; k < 9; k++) {
    const r = row + Math.floor(k / 3) - 1;
    const c = col + (k % 3) - 1;
    out[k] = r >= 0 && r < height && c >= 0 && c < width ? z[r * width + c]! : NaN;
  }
  // cardinal pairs (N, S) and (W, E) first: the mirror image of the opposite neighbour, else the centre
  mirrorPair(out, 1, 7, zc);
  mirrorPair(out, 3, 5, zc);
  // diagonal pairs (NW, SE) and (NE, SW): the mirror image, or from the two cardinal neighbours, which
  // is exact on a plane (NE = N + E − centre)
  if (!mirrorPair(out, 0, 8, NaN)) {
    out[0] = out[1]! + out[3]! - zc;
    out[8] = out[7]! + out[5]! - zc;
  }
  if (!mirrorPair(out, 2, 6, NaN)) {
    out[2] = out[1]! + out[5]! - zc;
    out[6] = out[7]! + out[3]! - zc;
  }
}

/**
 * Fills a missing neighbour of the pair (a, b) opposite through the centre with the mirror image of the
 * other; when both are missing, sets both to `bothMissing` and returns false (true otherwise).
 */
function mirrorPair(window: Float64Array, a: number, b: number, bothMissing: number): boolean {
  const za = window[a]!;
  const zb = window[b]!;
  const zc = window[4]!;
  if (Number.isNaN(za) && Number.isNaN(zb)) {
    window[a] = bothMissing;
    window[b] = bothMissing;
    return false;
  }
  if (Number.isNaN(za)) window[a] = 2 * zc - zb;
  else if (Number.isNaN(zb)) window[b] = 2 * zc - za;
  return true;
}

/** Slope angle β [rad] from the downslope gradient: atan(|∇z|). */
export function slopeRad(fallEast: number, fallNorth: number): number {
  return Math.atan(Math.hypot(fallEast, fallNorth));
}

/**
 * Aspect as a compass azimuth of the downslope direction [rad], clockwise from (grid) north in [0, 2π);
 * NaN for a flat cell (zero gradient), where aspect is undefined.
 */
export function aspectCompassRad(fallEast: number, fallNorth: number): number {
  if (fallEast === 0 && fallNorth === 0) return NaN;
  const a = Math.atan2(fallEast, fallNorth);
  return a < 0 ? a + 2 * Math.PI : a;
}

/**
 * Aspect in GRASS `r.slope.aspect` convention [deg]: counter-clockwise from east, (0, 360], 360 = east,
 * 90 = north, 0 = flat.
 */
export function aspectGrassDeg(fallEast: number, fallNorth: number): number {
  if (fallEast === 0 && fallNorth === 0) return 0;
  const a = (Math.atan2(fallNorth, fallEast) * 180) / Math.PI;
  return a <= 0 ? a + 360 : a;
}

/** Slope [deg] and GRASS-convention aspect [deg] grids (NaN at nodata), e.g. for the `topo/` products. */
export function slopeAspectGrids(gradient: HornGradient): { slopeDeg: Float64Array; aspectDeg: Float64Array } {
  const n = gradient.fallEast.length;
  const slopeDeg = new Float64Array(n);
  const aspectDeg = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const e = gradient.fallEast[i]!;
    const north = gradient.fallNorth[i]!;
    if (Number.isNaN(e)) {
      slopeDeg[i] = NaN;
      aspectDeg[i] = NaN;
      continue;
    }
    slopeDeg[i] = (slopeRad(e, north) * 180) / Math.PI;
    aspectDeg[i] = aspectGrassDeg(e, north);
  }
  return { slopeDeg, aspectDeg };
}
