/**
 * Reading the CSV of the Daymet single-pixel API (`GET /single-pixel/api/data?lat=…&lon=…&vars=…&years=…`).
 *
 * The format assumed (Daymet V4, as served by daymet.ornl.gov):
 *
 *     Latitude: 35.8143  Longitude: -106.6388
 *     X & Y on Lambert Conformal Conic: -576250.00 -687000.00
 *     Tile: 11013
 *     Elevation: 2590 meters
 *     All years; all variables; Daymet Software Version 4.0; Daymet Data Version 4.0.
 *     How to cite: Thornton, M.M., … https://doi.org/10.3334/ORNLDAAC/2129
 *     year,yday,prcp (mm/day),tmax (deg c),tmin (deg c),vp (Pa)
 *     2018,1,0.00,4.21,-11.03,262.15
 *     …
 *
 * Six preamble lines, then the column header and one row per day. Version 3 put a blank line
 * between the preamble and the header and wrote numbers as `1980.0`; both are accepted. With
 * `vars=` only the requested variables follow `year,yday` (in Daymet's own order: dayl, prcp, srad,
 * swe, tmax, tmin, vp); an unknown variable name makes the service silently return all of them.
 * Every year has 365 rows (yday 1..365; leap years drop 31 December); −9999 marks a missing value.
 *
 * Liberal in what is parsed: columns are found by name (the units in parentheses are recorded, not
 * required), extra columns are ignored, preamble lines are recognised by their label in any order,
 * blank lines and CRLF line ends are skipped, and `year`/`yday` may be anywhere in the header. Strict in what is accepted: the `Elevation` line,
 * `year`, `yday` and every required variable must be present (srad and dayl, the observed radiation of eemt's
 * real-sky maps, are read when present), every row must have one field per
 * column and numeric values in the required columns, and each year must have exactly the 365 days.
 * Any problem throws a `DaymetCsvFormatError` naming the source and the problem.
 */
import { DAYS_IN_YEAR } from '../science/calendar.js';
import {
  DAYMET_EEMT_VARIABLES,
  DAYMET_RADIATION_VARIABLES,
  type DaymetEemtVariable,
  type DaymetRadiationVariable,
} from '../science/climate/monthlyAggregation.js';

/** The variables the single-pixel API knows (any other name in `vars=` returns all of these). */
export const DAYMET_API_VARIABLES = ['dayl', 'prcp', 'srad', 'swe', 'tmax', 'tmin', 'vp'] as const;

/** A Daymet CSV that does not have the expected content. `source` names the point or file. */
export class DaymetCsvFormatError extends Error {
  constructor(readonly source: string, readonly problem: string) {
    super(`Daymet data for ${source} is not valid: ${problem}`);
    this.name = 'DaymetCsvFormatError';
  }
}

/** What the preamble says about the point. */
export interface DaymetCsvPreamble {
  /** Latitude and longitude the service echoes (those of the query) [degrees]. */
  readonly latitudeDeg: number | null;
  readonly longitudeDeg: number | null;
  /** The query position in Daymet's LCC projection [m], when the line is present. */
  readonly lccXM: number | null;
  readonly lccYM: number | null;
  readonly tile: number | null;
  /** Elevation of the Daymet 1 km cell [m] — the z_ref of the lapse-rate correction. */
  readonly elevationM: number;
  /** The software/data version line, verbatim. */
  readonly versionLine: string | null;
  /** The citation line, verbatim. */
  readonly citation: string | null;
}

/**
 * The daily series of one Daymet year (365 values per variable, index 0 = yday 1; −9999 kept as is): the required
 * variables, and srad and dayl when the CSV has them.
 */
export type DaymetDailySeries = Readonly<Record<DaymetEemtVariable, Float64Array>> & Readonly<Partial<Record<DaymetRadiationVariable, Float64Array>>>;

/** A parsed single-pixel CSV. */
export interface DaymetCsv {
  readonly preamble: DaymetCsvPreamble;
  /** Column names in file order (units stripped, lower case), e.g. `['year','yday','prcp',…]`. */
  readonly columns: readonly string[];
  /** Units per column as written in the header, e.g. `{ prcp: 'mm/day' }`. */
  readonly units: Readonly<Record<string, string>>;
  /** The years present, ascending. */
  readonly years: readonly number[];
  /** Daily series per year of the required variables. */
  readonly daily: ReadonlyMap<number, DaymetDailySeries>;
  /** Lines up to and including the column header, verbatim (for re-splitting by year). */
  readonly headLines: readonly string[];
  /** Data row lines per year, verbatim, in file order. */
  readonly rowLines: ReadonlyMap<number, readonly string[]>;
}

/** Options of `parseDaymetCsv`. */
export interface ParseDaymetCsvOptions {
  /** Named in error messages, e.g. `point 35.80N 106.62W` or a file path. */
  readonly source: string;
  /** Variables that must be present; default tmax, tmin, prcp, vp. */
  readonly requiredVariables?: readonly DaymetEemtVariable[];
  /** Variables read when their column is present (then held to the same rules); default srad, dayl. */
  readonly optionalVariables?: readonly DaymetRadiationVariable[];
  /** Years that must be present (others are kept too). */
  readonly expectedYears?: readonly number[];
}

const NUMBER = String.raw`[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?`;
const LATLON_RE = new RegExp(String.raw`^Latitude:\s*(${NUMBER})\s*,?\s*Longitude:\s*(${NUMBER})`, 'i');
const LCC_RE = new RegExp(String.raw`^X\s*&\s*Y\b[^:]*:\s*(${NUMBER})\s*[, ]\s*(${NUMBER})`, 'i');
const TILE_RE = /^Tile:\s*(\d+)/i;
const ELEVATION_RE = new RegExp(String.raw`^Elevation:\s*(${NUMBER})\s*(?:m|meters|metres)?\s*$`, 'i');

function parseNumberCell(cell: string): number {
  const t = cell.trim();
  if (t === '' || !/^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/.test(t)) return Number.NaN;
  return Number(t);
}

function splitColumnHeader(cell: string): { name: string; units: string } {
  const m = /^\s*([^(]*?)\s*(?:\(([^)]*)\))?\s*$/.exec(cell);
  return { name: (m?.[1] ?? cell).trim().toLowerCase(), units: (m?.[2] ?? '').trim() };
}

function isHeaderLine(line: string): boolean {
  if (!line.includes(',')) return false;
  const names = line.split(',').map((c) => splitColumnHeader(c).name);
  return names.includes('year') && names.includes('yday');
}

function parsePreamble(lines: readonly string[], fail: (problem: string) => never): DaymetCsvPreamble {
  let latitude: number | null = null, longitude: number | null = null;
  let lccX: number | null = null, lccY: number | null = null;
  let tile: number | null = null, elevation: number | null = null;
  let versionLine: string | null = null, citation: string | null = null;
  for (const raw of lines) {
    const line = raw.trim();
    if (line === '') continue;
    let m: RegExpExecArray | null;
    if ((m = LATLON_RE.exec(line))) {
      latitude = Number(m[1]);
      longitude = Number(m[2]);
    } else if ((m = LCC_RE.exec(line))) {
      lccX = Number(m[1]);
      lccY = Number(m[2]);
    } else if ((m = TILE_RE.exec(line))) {
      tile = Number(m[1]);
    } else if (/^Elevation:/i.test(line)) {
      m = ELEVATION_RE.exec(line);
      if (!m || !Number.isFinite(Number(m[1]))) fail(`the elevation line "${line}" has no number of metres`);
      elevation = Number(m[1]);
    } else if (/^How to cite/i.test(line)) {
      citation = line;
    } else if (/version/i.test(line)) {
      versionLine = line;
    }
  }
  if (elevation === null) {
    fail('the preamble has no "Elevation: N meters" line (the Daymet cell elevation is needed for the lapse-rate correction)');
  }
  return { latitudeDeg: latitude, longitudeDeg: longitude, lccXM: lccX, lccYM: lccY, tile, elevationM: elevation, versionLine, citation };
}

/** Parses a single-pixel API CSV (see the module doc for the format and the checks). */
export function parseDaymetCsv(text: string, options: ParseDaymetCsvOptions): DaymetCsv {
  const fail = (problem: string): never => {
    throw new DaymetCsvFormatError(options.source, problem);
  };
  const required = options.requiredVariables ?? DAYMET_EEMT_VARIABLES;
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const headerAt = lines.findIndex(isHeaderLine);
  if (headerAt < 0) {
    const first = lines.find((l) => l.trim() !== '')?.trim().slice(0, 120) ?? '';
    fail(`no "year,yday,…" column header found (the text starts with "${first}")`);
  }
  const preamble = parsePreamble(lines.slice(0, headerAt), fail);

  const headerCells = lines[headerAt]!.split(',').map(splitColumnHeader);
  const columns = headerCells.map((c) => c.name);
  const units: Record<string, string> = {};
  headerCells.forEach((c) => { if (c.units) units[c.name] = c.units; });
  const seen = new Set<string>();
  for (const name of columns) {
    if (seen.has(name)) fail(`column "${name}" appears twice in the header`);
    seen.add(name);
  }
  const missing = required.filter((v) => !seen.has(v));
  if (missing.length > 0) {
    fail(`required column${missing.length > 1 ? 's' : ''} ${missing.map((v) => `"${v}"`).join(', ')} missing (the header has ${columns.join(', ')})`);
  }
  // the optional variables the header has are read like the required ones
  const read: readonly (DaymetEemtVariable | DaymetRadiationVariable)[] = [
    ...required,
    ...(options.optionalVariables ?? DAYMET_RADIATION_VARIABLES).filter((v) => seen.has(v)),
  ];
  const readAt = read.map((v) => columns.indexOf(v));
  const yearAt = columns.indexOf('year');
  const ydayAt = columns.indexOf('yday');

  const daily = new Map<number, Record<string, Float64Array>>();
  const dayFilled = new Map<number, Uint8Array>();
  const rowLines = new Map<number, string[]>();
  for (let li = headerAt + 1; li < lines.length; li++) {
    const line = lines[li]!;
    if (line.trim() === '') continue;
    const where = `line ${li + 1}`;
    const cells = line.split(',');
    if (cells.length !== columns.length) fail(`${where} has ${cells.length} fields but the header has ${columns.length} columns`);
    const year = parseNumberCell(cells[yearAt]!);
    const yday = parseNumberCell(cells[ydayAt]!);
    if (!Number.isInteger(year)) fail(`${where}: year "${cells[yearAt]!.trim()}" is not a whole number`);
    if (!Number.isInteger(yday) || yday < 1 || yday > DAYS_IN_YEAR) {
      fail(`${where}: yday "${cells[ydayAt]!.trim()}" is not a day of the 365-day Daymet year (1..365)`);
    }
    let series = daily.get(year);
    let filled = dayFilled.get(year);
    if (!series || !filled) {
      series = Object.fromEntries(read.map((v) => [v, new Float64Array(DAYS_IN_YEAR)]));
      filled = new Uint8Array(DAYS_IN_YEAR);
      daily.set(year, series);
      dayFilled.set(year, filled);
      rowLines.set(year, []);
    }
    if (filled[yday - 1]) fail(`${where}: year ${year} has a second row for yday ${yday}`);
    filled[yday - 1] = 1;
    for (let k = 0; k < read.length; k++) {
      const cell = cells[readAt[k]!]!;
      const v = parseNumberCell(cell);
      if (Number.isNaN(v)) fail(`${where} (year ${year}, yday ${yday}): ${read[k]} value "${cell.trim()}" is not a number`);
      series[read[k]!]![yday - 1] = v;
    }
    rowLines.get(year)!.push(line);
  }
  if (daily.size === 0) fail('the CSV has a header but no data rows');
  for (const [year, filled] of dayFilled) {
    const count = filled.reduce((a, b) => a + b, 0);
    if (count !== DAYS_IN_YEAR) {
      const firstMissing = filled.indexOf(0) + 1;
      fail(`year ${year} has ${count} daily rows instead of 365 (yday ${firstMissing} is missing)`);
    }
  }
  const missingYears = (options.expectedYears ?? []).filter((y) => !daily.has(y));
  if (missingYears.length > 0) {
    fail(`no rows for year${missingYears.length > 1 ? 's' : ''} ${missingYears.join(', ')} (the data has ${[...daily.keys()].sort().join(', ')}; Daymet may not have published ${missingYears.length > 1 ? 'them' : 'it'} yet)`);
  }
  return {
    preamble,
    columns,
    units,
    years: [...daily.keys()].sort((a, b) => a - b),
    daily: daily as unknown as ReadonlyMap<number, DaymetDailySeries>,
    headLines: lines.slice(0, headerAt + 1),
    rowLines,
  };
}

/**
 * The CSV of one year of a parsed response: the same preamble and header lines, followed by that
 * year's rows — i.e. what the API returns for `years=<year>`. Ends with a newline.
 */
export function daymetCsvForYear(csv: DaymetCsv, year: number): string {
  const rows = csv.rowLines.get(year);
  if (!rows) throw new RangeError(`the parsed Daymet CSV has no year ${year}`);
  return [...csv.headLines, ...rows].join('\n') + '\n';
}
