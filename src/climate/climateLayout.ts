/**
 * Which monthly grid of a user climate ZIP is which: the two layouts of docs/climate-input.md, recognised by
 * the members' file names (folders inside the ZIP are ignored, so `wc2.1_10m/wc2.1_10m_tmin_01.tif` works).
 *
 * - time series: `{tmin,tmax,prcp,vp}_{YYYY}_{MM}.tif` for every month of the job's years
 *   (°C, °C, mm month⁻¹, Pa);
 * - climatology: 12 months applied to every year, named `{tmin,tmax,prcp,vp}_{MM}.tif` (same units) or as
 *   WorldClim 2.1 ships them, `wc2.1_{res}_{tmin,tmax,prec,vapr}_{MM}.tif` (°C, °C, mm month⁻¹, **kPa**);
 * - optionally the observed shortwave radiation of eemt's real-sky maps, in the same layout: `srad_{YYYY}_{MM}.tif`
 *   or `srad_{MM}.tif` (monthly mean of the daily flux averaged over the daylight period, W m⁻², as Daymet's srad),
 *   or WorldClim's `wc2.1_{res}_srad_{MM}.tif` (daily irradiation, kJ m⁻² day⁻¹); all months or none;
 * - optionally `elevation.tif` (or WorldClim's `wc2.1_{res}_elev.tif`): the grids' reference elevation [m].
 *
 * Other WorldClim variables (tavg, wind, bio) are ignored; any other member is refused, as are two
 * layouts in one ZIP and a member present twice.
 */
import type { ArchiveEntry } from './climateArchive.js';
import { ClimateInputError } from './errors.js';
import { echoed } from '../util/echoed.js';

/** The monthly variables the EEMT models need. */
export const CLIMATE_VARIABLES = ['tmin', 'tmax', 'prcp', 'vp'] as const;
export type ClimateVariable = (typeof CLIMATE_VARIABLES)[number];

/** The optional variable of the observed radiation (eemt's real-sky maps). */
export const RADIATION_VARIABLE = 'srad';
export type RadiationVariable = typeof RADIATION_VARIABLE;
/** Every variable a monthly member may hold. */
export type MemberVariable = ClimateVariable | RadiationVariable;

/**
 * Units a member's values are stored in (converted on reading to °C, mm month⁻¹ and Pa; the radiation is kept in
 * its unit: a flux averaged over the daylight period, W m⁻², or a daily irradiation, kJ m⁻² day⁻¹).
 */
export type StoredUnit = 'degC' | 'mm' | 'Pa' | 'kPa' | 'm' | 'W m-2' | 'kJ m-2 day-1';

/** One monthly grid of the archive. */
export interface MonthlyMember {
  readonly path: string;
  readonly variable: MemberVariable;
  /** Calendar year for a time series, null for a climatology. */
  readonly year: number | null;
  /** 1–12. */
  readonly month: number;
  readonly unit: StoredUnit;
}

export interface ClimateLayout {
  readonly kind: 'time-series' | 'climatology';
  /** `worldclim` when the members carry WorldClim 2.1 names. */
  readonly naming: 'plain' | 'worldclim';
  /** Every monthly member found, by key `variable/year/month` (year `clim` for a climatology). */
  readonly members: ReadonlyMap<string, MonthlyMember>;
  /** Path of the reference-elevation grid, or null. */
  readonly elevationPath: string | null;
  /** Members left out (other WorldClim variables). */
  readonly ignored: readonly string[];
}

const TIME_SERIES = /^(tmin|tmax|prcp|vp|srad)_(\d{4})_(\d{2})\.tiff?$/i;
const CLIMATOLOGY = /^(tmin|tmax|prcp|vp|srad)_(\d{2})\.tiff?$/i;
const WORLDCLIM = /^wc2\.1_([0-9.]+[ms])_(tmin|tmax|prec|vapr|srad)_(\d{2})\.tiff?$/i;
const WORLDCLIM_IGNORED = /^wc2\.1_([0-9.]+[ms])_(tavg|wind|bio)_\d{1,2}\.tiff?$/i;
const ELEVATION = /^(elevation|wc2\.1_[0-9.]+[ms]_elev)\.tiff?$/i;
const WORLDCLIM_VARIABLE: Readonly<Record<string, MemberVariable>> = { tmin: 'tmin', tmax: 'tmax', prec: 'prcp', vapr: 'vp', srad: 'srad' };
const PLAIN_UNIT: Readonly<Record<MemberVariable, StoredUnit>> = { tmin: 'degC', tmax: 'degC', prcp: 'mm', vp: 'Pa', srad: 'W m-2' };
const WORLDCLIM_UNIT: Readonly<Record<MemberVariable, StoredUnit>> = { tmin: 'degC', tmax: 'degC', prcp: 'mm', vp: 'kPa', srad: 'kJ m-2 day-1' };

/** Key of a member in `ClimateLayout.members`. */
export function memberKey(variable: MemberVariable, year: number | null, month: number): string {
  return `${variable}/${year ?? 'clim'}/${month}`;
}

const EXPECTED_NAMES =
  'expected {tmin,tmax,prcp,vp}_{YYYY}_{MM}.tif (time series), {tmin,tmax,prcp,vp}_{MM}.tif or ' +
  'wc2.1_{res}_{tmin,tmax,prec,vapr}_{MM}.tif (12-month climatology), and optionally srad grids in the same layout and elevation.tif';

function month(text: string, path: string): number {
  const m = Number(text);
  if (m < 1 || m > 12) throw new ClimateInputError('LAYOUT', `climate_file: ${echoed(path)} names month ${text}; months are 01–12`);
  return m;
}

/** Classifies the archive's members (ClimateInputError `LAYOUT` for unknown or mixed members). */
export function detectClimateLayout(entries: readonly ArchiveEntry[]): ClimateLayout {
  const members = new Map<string, MonthlyMember>();
  const kinds = new Set<string>();
  const ignored: string[] = [];
  let elevationPath: string | null = null;
  const names = new Map<string, string>();
  for (const entry of entries) {
    if (entry.isDirectory || entry.path.startsWith('__MACOSX/')) continue;
    const name = entry.name;
    const previous = names.get(name.toLowerCase());
    if (previous) throw new ClimateInputError('LAYOUT', `climate_file holds ${echoed(name)} twice (${echoed(previous)} and ${echoed(entry.path)})`);
    names.set(name.toLowerCase(), entry.path);
    let match: RegExpMatchArray | null;
    let member: MonthlyMember;
    if ((match = name.match(TIME_SERIES))) {
      const variable = match[1]!.toLowerCase() as MemberVariable;
      member = { path: entry.path, variable, year: Number(match[2]), month: month(match[3]!, entry.path), unit: PLAIN_UNIT[variable] };
      kinds.add('time series');
    } else if ((match = name.match(CLIMATOLOGY))) {
      const variable = match[1]!.toLowerCase() as MemberVariable;
      member = { path: entry.path, variable, year: null, month: month(match[2]!, entry.path), unit: PLAIN_UNIT[variable] };
      kinds.add('climatology');
    } else if ((match = name.match(WORLDCLIM))) {
      const variable = WORLDCLIM_VARIABLE[match[2]!.toLowerCase()]!;
      member = { path: entry.path, variable, year: null, month: month(match[3]!, entry.path), unit: WORLDCLIM_UNIT[variable] };
      kinds.add('WorldClim climatology');
    } else if (ELEVATION.test(name)) {
      if (elevationPath) throw new ClimateInputError('LAYOUT', `climate_file holds two elevation grids (${echoed(elevationPath)} and ${echoed(entry.path)})`);
      elevationPath = entry.path;
      continue;
    } else if (WORLDCLIM_IGNORED.test(name)) {
      ignored.push(entry.path);
      continue;
    } else {
      throw new ClimateInputError('LAYOUT', `climate_file holds an unexpected file ${echoed(entry.path)}: ${EXPECTED_NAMES}`);
    }
    const key = memberKey(member.variable, member.year, member.month);
    const twin = members.get(key);
    if (twin) throw new ClimateInputError('LAYOUT', `climate_file holds the same grid twice: ${echoed(twin.path)} and ${echoed(entry.path)}`);
    members.set(key, member);
  }
  if (kinds.size > 1) throw new ClimateInputError('LAYOUT', `climate_file mixes layouts (${[...kinds].join(' and ')}); use one: ${EXPECTED_NAMES}`);
  if ([...members.values()].every((m) => m.variable === RADIATION_VARIABLE)) {
    throw new ClimateInputError('LAYOUT', `climate_file holds no monthly climate grids: ${EXPECTED_NAMES}`);
  }
  const kind = kinds.has('time series') ? 'time-series' : 'climatology';
  return { kind, naming: kinds.has('WorldClim climatology') ? 'worldclim' : 'plain', members, elevationPath, ignored };
}

/** Expected file name of a missing member, in the layout's own naming. */
function expectedName(layout: ClimateLayout, variable: MemberVariable, year: number | null, m: number): string {
  const mm = String(m).padStart(2, '0');
  if (layout.kind === 'time-series') return `${variable}_${year}_${mm}.tif`;
  if (layout.naming === 'worldclim') {
    const res = [...layout.members.values()][0]!.path.match(/wc2\.1_([0-9.]+[ms])_/i)?.[1] ?? '{res}';
    const wc = { tmin: 'tmin', tmax: 'tmax', prcp: 'prec', vp: 'vapr', srad: 'srad' }[variable];
    return `wc2.1_${res}_${wc}_${mm}.tif`;
  }
  return `${variable}_${mm}.tif`;
}

/**
 * The members a job of `years` reads, in order (year, month, variable); ClimateInputError `MISSING` naming the
 * missing files (the first ten and the count) when the layout does not have them all.
 */
export function requiredMembers(layout: ClimateLayout, years: readonly number[]): MonthlyMember[] {
  const needed: MonthlyMember[] = [];
  const missing: string[] = [];
  const yearKeys = layout.kind === 'time-series' ? years : [null];
  for (const year of yearKeys) {
    for (let m = 1; m <= 12; m++) {
      for (const variable of CLIMATE_VARIABLES) {
        const member = layout.members.get(memberKey(variable, year, m));
        if (member) needed.push(member);
        else missing.push(expectedName(layout, variable, year, m));
      }
    }
  }
  if (missing.length > 0) {
    const span = layout.kind === 'time-series' ? `the years ${years[0]}–${years[years.length - 1]}` : 'a 12-month climatology';
    const shown = missing.slice(0, 10).join(', ') + (missing.length > 10 ? `, … (${missing.length} in all)` : '');
    throw new ClimateInputError('MISSING', `climate_file lacks ${missing.length} grid${missing.length === 1 ? '' : 's'} needed for ${span}: ${shown}`);
  }
  return needed;
}

/**
 * The observed-radiation members a job of `years` reads, month by month (year, month): none when the layout has no
 * srad grid at all; otherwise every month must have one (ClimateInputError `MISSING` naming the missing files).
 */
export function radiationMembers(layout: ClimateLayout, years: readonly number[]): MonthlyMember[] {
  if (![...layout.members.values()].some((m) => m.variable === RADIATION_VARIABLE)) return [];
  const needed: MonthlyMember[] = [];
  const missing: string[] = [];
  for (const year of layout.kind === 'time-series' ? years : [null]) {
    for (let m = 1; m <= 12; m++) {
      const member = layout.members.get(memberKey(RADIATION_VARIABLE, year, m));
      if (member) needed.push(member);
      else missing.push(expectedName(layout, RADIATION_VARIABLE, year, m));
    }
  }
  if (missing.length > 0) {
    const shown = missing.slice(0, 10).join(', ') + (missing.length > 10 ? `, … (${missing.length} in all)` : '');
    throw new ClimateInputError(
      'MISSING',
      `climate_file has srad grids for some months but lacks ${missing.length}: ${shown} (the observed radiation is used for every month or not at all)`,
    );
  }
  return needed;
}
