/**
 * The memory layout the daily kernel (assembly/dailyKernel.ts, assembly/sunlitLanes.ts) shares with its
 * JavaScript side (src/science/solar/dailyKernelWasm.ts): the prefix-summed quantities, the fields of the call
 * descriptor (D_*) and of each day's descriptor (Y_*). Every field is an i32; pointers are byte offsets.
 */

export const PREFIX_QUANTITIES: i32 = 26;
/** The first quantities depend on τ: three prefix sums each (the coefficients of a quadratic in the pressure ratio). */
export const TAU_QUANTITIES: i32 = 8;
export const TAU_SUN_EAST: i32 = 0;
export const TAU_SUN_NORTH: i32 = 1;
export const TAU_SIN_ALTITUDE: i32 = 2;
export const DIFFUSE_ONE_MINUS_TAU: i32 = 3;
export const DIFFUSE_N_ONE_MINUS_TAU: i32 = 4;
export const CIRCUMSOLAR_EAST: i32 = 5;
export const CIRCUMSOLAR_NORTH: i32 = 6;
export const CIRCUMSOLAR_UP: i32 = 7;
export const DIFFUSE_LIT: i32 = 24;
export const LIT_COUNT: i32 = 25;

// descriptor fields
export const D_PART_ROW_START = 0;
export const D_PART_ROW_END = 1;
export const D_PART_COL_START = 2;
export const D_PART_COL_END = 3;
export const D_TILE_ROW_START = 4;
export const D_TILE_COL_START = 5;
export const D_TILE_WIDTH = 6;
export const D_GRID_WIDTH = 7;
export const D_GRID_HEIGHT = 8;
export const D_MARGIN_ROWS = 9;
export const D_WIN_ROW0 = 10;
export const D_WIN_COL0 = 11;
export const D_WIN_WIDTH = 12;
export const D_ELEVATION = 13; // f32 window of the grid: rows from D_WIN_ROW0, columns from D_WIN_COL0, D_WIN_WIDTH wide
export const D_DIRECTIONS = 14;
export const D_NEAR_STRIDE = 15; // near-field bounds per cell: K, or 0 (every cell reads one shared row)
export const D_GROUPS_PER_CELL = 16;
export const D_FAR = 17;
export const D_NEAR_UPPER = 18;
export const D_NEAR_LOWER = 19;
export const D_LIT_BOUND = 20;
export const D_DARK_BOUND = 21;
export const D_LIT_EVERYWHERE = 22;
export const D_VALID = 23;
export const D_INCLINED = 24;
export const D_NORMAL_EAST = 25;
export const D_NORMAL_NORTH = 26;
export const D_NORMAL_UP = 27;
export const D_PRESSURE_RATIO = 28;
export const D_SHADED_DIFFUSE = 29;
export const D_SKY_VIEW = 30;
export const D_MUNEER_SLOPE = 31;
export const D_GROUND_VIEW = 32;
export const D_DAY_COUNT = 33;
export const D_DAYS = 34;
export const D_ALBEDO = 35; // pointer to an f64: the ground albedo
export const D_SUMS = 36; // scratch of PREFIX_QUANTITIES f64, 16-byte aligned
export const D_TERRAIN = 37; // 1: terrain shadows
export const D_MARGIN_COLS = 38;
export const D_NEAR_MAXIMA = 39; // f32 per tile-local cell and quadrant: the highest terrain of its near field's quadrants
export const DESCRIPTOR_FIELDS: i32 = 40;

// day descriptor fields
export const Y_COUNT = 0;
export const Y_PEAK = 1;
export const Y_GROUP_COUNT = 2;
export const Y_ALTITUDE = 3;
export const Y_SIN_ALTITUDE = 4;
export const Y_SUN_EAST = 5;
export const Y_SUN_NORTH = 6;
export const Y_NEAR_SECTOR = 7;
export const Y_HD0 = 8;
export const Y_HD1 = 9;
export const Y_HW = 10;
export const Y_NEAR_START = 11;
export const Y_NEAR_OFFSET = 12;
export const Y_NEAR_COL = 13;
export const Y_NEAR_ROW = 14;
export const Y_NEAR_THRESHOLD = 15;
export const Y_PREFIX = 16;
export const Y_SAMPLE_GROUP = 17;
export const Y_GROUP_SECTOR = 18;
export const Y_GROUP_START = 19;
export const Y_GROUP_END = 20;
export const Y_GROUP_MIN = 21;
export const Y_GROUP_MAX = 22;
export const Y_GLOBAL_OUT = 23;
export const Y_HOURS_OUT = 24;
export const Y_SCALARS = 25; // f64: stepHours, g0, sumDiffuse, pzCentre
export const Y_BEAM_PART_OUT = 26; // f32 output of the beam part of the global irradiation, or 0: none
export const Y_NEAR_QUADRANT = 27; // i32 per sample: the quadrant of its near-field ray (−1: none)
export const Y_NEAR_MIN_THRESHOLD = 28; // f64 per near-field entry: the smallest threshold from it to its ray's end
// i32 per sample and per group: ⌊Y_ALTITUDE⌋, ⌊Y_GROUP_MIN⌋ and ⌊Y_GROUP_MAX⌋, which the kernel fills (`floorAltitudes`)
export const Y_ALTITUDE_FLOOR = 29;
export const Y_GROUP_MIN_FLOOR = 30;
export const Y_GROUP_MAX_FLOOR = 31;
export const DAY_FIELDS: i32 = 32;

