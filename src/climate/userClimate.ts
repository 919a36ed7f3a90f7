/**
 * User climate grids (a ZIP, docs/climate-input.md) on the DEM grid: the archive is read within its bounds
 * (`climateArchive.ts`), its members classified (`climateLayout.ts`), each member parsed by the bounded
 * GeoTIFF reader (structure walk, cell limit, capped decoders), reprojected to the DEM (`gridReprojection.ts`),
 * checked to cover every valid DEM cell and to hold plausible values in the expected unit
 * (`plausibleValues.ts`), and converted to °C, mm month⁻¹ and Pa.
 *
 * `checkUserClimate` reads every grid a job needs (what the submission check runs, in its own process);
 * `openUserClimate` gives the job a `ClimateOnDem` that reads them month by month.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { cellCentreLatitudes } from '../raster/geo/geodesy.js';
import { readRasterFromBuffer } from '../raster/geotiff/readGeoTiff.js';
import { RasterFormatError, type Dem, type GridSpec } from '../raster/types.js';
import { SECONDS_PER_HOUR } from '../science/calendar.js';
import { monthGeometry, monthlyDiffuseWhM2, type MonthGeometry } from '../science/solar/realSky.js';
import type { ReadLimits } from '../raster/geotiff/readGeoTiff.js';
import { ClimateArchive, DEFAULT_ARCHIVE_LIMITS, type ArchiveLimits } from './climateArchive.js';
import {
  CLIMATE_VARIABLES,
  RADIATION_VARIABLE,
  detectClimateLayout,
  memberKey,
  radiationMembers,
  requiredMembers,
  type ClimateLayout,
  type MonthlyMember,
  type StoredUnit,
} from './climateLayout.js';
import type { ClimateFileRecord, ClimateMonthOnDem, ClimateOnDem, ClimateSource, ObservedRadiation, ObservedRadiationMonth } from './climateOnDem.js';
import { ClimateInputError } from './errors.js';
import { bilinearAtPositions, describeUncovered, sameGrid, sourcePixelPositions, uncoveredCells, type SourcePositions } from './gridReprojection.js';
import { checkPlausibleValues } from './plausibleValues.js';
import { echoed } from '../util/echoed.js';

export interface UserClimateOptions {
  readonly archiveLimits?: ArchiveLimits;
  /** Limits of each member GeoTIFF (the DEM's cell limit). */
  readonly readLimits?: ReadLimits;
  /** Name of the archive to record (default: the file's own name). */
  readonly archiveName?: string;
}

/** SHA-256 (hex) of a file, streamed. */
export async function sha256OfFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

const CONVERSION: Readonly<Record<StoredUnit, number>> = { degC: 1, mm: 1, Pa: 1, kPa: 1000, m: 1, 'W m-2': 1, 'kJ m-2 day-1': 1 };

/** Why a user climate has no observed radiation. */
export const USER_CLIMATE_WITHOUT_RADIATION =
  'the climate file has no srad grids (srad_{MM}.tif or srad_{YYYY}_{MM}.tif in W m-2, or WorldClim wc2.1_{res}_srad_{MM}.tif)';

/** Latitudes are rounded to this step [deg] (about 11 m) so that cells share one month geometry. */
const LATITUDE_STEP_DEG = 1e-4;

/** Reads members of one archive onto one DEM grid, caching the source positions per distinct source grid. */
class MemberReader {
  private readonly positions: Array<{ grid: GridSpec; positions: SourcePositions }> = [];
  readonly hashes = new Map<string, string>();

  constructor(
    private readonly archive: ClimateArchive,
    private readonly dem: Dem,
    private readonly readLimits: ReadLimits,
  ) {}

  /** The member at `path` on the DEM grid, converted from `unit` to °C / mm / Pa / m. */
  async read(path: string, unit: StoredUnit): Promise<Float32Array> {
    const { bytes, sha256 } = await this.archive.read(path);
    this.hashes.set(path, sha256);
    let raster;
    try {
      raster = await readRasterFromBuffer(bytes, { ...this.readLimits, precision: 'float32' });
    } catch (error) {
      if (error instanceof RasterFormatError) {
        const reason = error.message.replace(/\.$/, '');
        throw new ClimateInputError('NOT_GEOTIFF', `climate_file: ${echoed(path)} is not a usable GeoTIFF: ${reason}; each climate grid must be a single-band GeoTIFF (.tif)`);
      }
      throw error;
    }
    const sampled = bilinearAtPositions(raster.values, raster.grid.width, raster.grid.height, this.positionsFor(raster.grid));
    const uncovered = uncoveredCells(this.dem.grid, this.dem.elevation, sampled);
    if (uncovered.count > 0) {
      throw new ClimateInputError(
        'COVERAGE',
        `climate_file: ${path} does not cover the DEM: ${describeUncovered(uncovered)} lie outside the grid or on its nodata cells`,
      );
    }
    checkPlausibleValues(path, unit, sampled);
    const factor = CONVERSION[unit];
    if (factor !== 1) for (let i = 0; i < sampled.length; i++) sampled[i]! *= factor;
    return sampled;
  }

  private positionsFor(grid: GridSpec): SourcePositions {
    const known = this.positions.find((p) => sameGrid(p.grid, grid));
    if (known) return known.positions;
    const positions = sourcePixelPositions(this.dem.grid, grid, this.dem.elevation);
    this.positions.push({ grid, positions });
    return positions;
  }
}

/** A user climate opened for a DEM: `ClimateOnDem` plus `close()`. */
export interface UserClimateOnDem extends ClimateOnDem {
  readonly layout: ClimateLayout;
  close(): void;
}

/**
 * Opens the climate ZIP at `zipPath` for `dem` and the job's `years`: checks the archive's bounds, its layout
 * and that every grid the years need is present (ClimateInputError naming what is missing), and reads the
 * elevation grid. Months are read on demand (`monthAt`), each checked for coverage and units.
 */
export async function openUserClimate(zipPath: string, dem: Dem, years: readonly number[], options: UserClimateOptions = {}): Promise<UserClimateOnDem> {
  const archiveSha = await sha256OfFile(zipPath);
  const archive = await ClimateArchive.open(zipPath, options.archiveLimits ?? DEFAULT_ARCHIVE_LIMITS);
  try {
    const layout = detectClimateLayout(archive.entries);
    const needed = requiredMembers(layout, years);
    const reader = new MemberReader(archive, dem, options.readLimits ?? {});
    const referenceElevation = layout.elevationPath ? await reader.read(layout.elevationPath, 'm') : dem.elevation;
    const sradMembers = radiationMembers(layout, years);
    // the DEM cells' latitudes and, per month and latitude, the month's geometry: computed once, for every year
    let latitudes: Float64Array | null = null;
    const geometries = new Map<string, MonthGeometry>();
    const monthAt = async (year: number, month: number): Promise<ClimateMonthOnDem> => {
      const values = {} as Record<(typeof CLIMATE_VARIABLES)[number], Float32Array>;
      for (const variable of CLIMATE_VARIABLES) {
        const member = layout.members.get(memberKey(variable, layout.kind === 'time-series' ? year : null, month + 1))!;
        values[variable] = await reader.read(member.path, member.unit);
      }
      return values;
    };
    const source = (): ClimateSource => ({
      type: 'user',
      archive: { name: options.archiveName ?? basename(zipPath), sha256: archiveSha },
      layout: layout.kind,
      naming: layout.naming,
      files: [...needed.map((m) => m.path), ...sradMembers.map((m) => m.path), ...(layout.elevationPath ? [layout.elevationPath] : [])]
        .filter((path, i, all) => all.indexOf(path) === i)
        .map((path): ClimateFileRecord => ({ name: path, sha256: reader.hashes.get(path) ?? '' })),
      elevation: layout.elevationPath,
      radiation: sradMembers.length > 0,
    });
    const radiation: ObservedRadiation =
      sradMembers.length === 0
        ? { available: false, reason: USER_CLIMATE_WITHOUT_RADIATION }
        : {
            available: true,
            description: userRadiationDescription(sradMembers[0]!),
            radiationAt: (year, month) => {
              const member = layout.members.get(memberKey(RADIATION_VARIABLE, layout.kind === 'time-series' ? year : null, month + 1))!;
              return observedRadiationOnDem(reader, member, (latitudes ??= cellCentreLatitudes(dem.grid)), geometries, month);
            },
          };
    return {
      years,
      referenceElevationM: referenceElevation,
      lapseAdjusted: layout.elevationPath !== null,
      gridFolder: 'climate',
      layout,
      get source() {
        return source();
      },
      monthAt,
      radiation,
      close: () => archive.close(),
    };
  } catch (error) {
    archive.close();
    throw error;
  }
}

/**
 * Reads and checks every grid `years` need from the ZIP (the submission check): bounds, layout, missing
 * members, GeoTIFF rules, coverage of the DEM, units. Returns the climate source with every file's checksum.
 */
export async function checkUserClimate(zipPath: string, dem: Dem, years: readonly number[], options: UserClimateOptions = {}): Promise<ClimateSource> {
  const climate = await openUserClimate(zipPath, dem, years, options);
  try {
    const yearsToRead = climate.layout.kind === 'time-series' ? years : years.slice(0, 1);
    for (const year of yearsToRead) {
      for (let month = 0; month < 12; month++) {
        await climate.monthAt(year, month);
        if (climate.radiation.available) await climate.radiation.radiationAt(year, month);
      }
    }
    return climate.source;
  } finally {
    climate.close();
  }
}

/** How the observed radiation of a user climate is read (README.txt). */
function userRadiationDescription(member: MonthlyMember): string {
  const unit =
    member.unit === 'kJ m-2 day-1'
      ? 'WorldClim srad, the mean daily irradiation [kJ m-2 day-1] x the days of the month'
      : 'srad, the mean flux over the daylight period [W m-2] x the day lengths of the month (Duffie & Beckman 2013, Eq. 1.6.11)';
  return (
    `the climate file's ${unit}: H, the observed monthly global irradiation of a horizontal surface, split into beam and diffuse ` +
    "with the monthly-average correlation of Erbs et al. (1982) on the month's clearness index; bilinear on the DEM grid"
  );
}

/**
 * The observed radiation of one month on the DEM grid from the srad `member`: the monthly global irradiation H of
 * a horizontal surface from the member's flux (W m⁻² over the daylight period × the month's day lengths) or daily
 * irradiation (kJ m⁻² day⁻¹ × days), and its diffuse part by the monthly correlation, at each cell's latitude.
 */
async function observedRadiationOnDem(
  reader: MemberReader,
  member: MonthlyMember,
  latitudes: Float64Array,
  geometries: Map<string, MonthGeometry>,
  month: number,
): Promise<ObservedRadiationMonth> {
  const values = await reader.read(member.path, member.unit);
  const globalWhM2 = new Float32Array(values.length);
  const diffuseWhM2 = new Float32Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const value = values[i]!;
    if (Number.isNaN(value)) {
      globalWhM2[i] = NaN;
      diffuseWhM2[i] = NaN;
      continue;
    }
    const latitudeSteps = Math.round(latitudes[i]! / LATITUDE_STEP_DEG);
    const key = `${month}/${latitudeSteps}`;
    let geometry = geometries.get(key);
    if (!geometry) {
      geometry = monthGeometry((latitudeSteps * LATITUDE_STEP_DEG * Math.PI) / 180, month);
      geometries.set(key, geometry);
    }
    // J m⁻² / 3600 = Wh m⁻²: W m⁻² × h is Wh m⁻²; kJ m⁻² day⁻¹ × 1000 / 3600 is Wh m⁻² day⁻¹
    const h = member.unit === 'kJ m-2 day-1' ? ((value * 1000) / SECONDS_PER_HOUR) * geometry.days : value * geometry.daylightHours;
    globalWhM2[i] = h;
    diffuseWhM2[i] = monthlyDiffuseWhM2(h, geometry);
  }
  return { globalWhM2, diffuseWhM2 };
}
