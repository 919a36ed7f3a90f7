/**
 * Test inputs for user climate grids, made with GDAL's command-line tools in a temporary folder:
 *
 * - `europeDem`: a window of test/fixtures/mcn_10m.tif (Jemez Mountains) re-georeferenced into the western
 *   Alps (WGS 84 / UTM zone 32N, about 45.9° N 7.7° E): real terrain, far outside Daymet's coverage;
 * - `writeGrids`: GeoTIFFs in any CRS from value functions of the cell centre, written by GDAL (Python bindings);
 * - `zipOf`: a ZIP of files with yazl.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import yazl from 'yazl';

const root = new URL('../../', import.meta.url).pathname;

/** UTM 32N box of the re-georeferenced DEM: 10 m cells from (400000, 5090000) eastwards and southwards. */
export const EUROPE_DEM_EPSG = 32632;
export const EUROPE_DEM_ORIGIN = [400_000, 5_090_000] as const;

/** A `width` × `height` window (from column/row 100) of mcn_10m, placed in the Alps; returns its path. */
export function europeDem(dir: string, width = 20, height = 16, name = 'alps.tif'): string {
  const path = join(dir, name);
  const [x0, y0] = EUROPE_DEM_ORIGIN;
  execFileSync('gdal_translate', [
    '-q', '-srcwin', '100', '100', String(width), String(height),
    '-a_srs', `EPSG:${EUROPE_DEM_EPSG}`, '-a_ullr', String(x0), String(y0), String(x0 + 10 * width), String(y0 - 10 * height),
    join(root, 'test/fixtures/mcn_10m.tif'), path,
  ]);
  return path;
}

export interface GridSpecForTest {
  /** EPSG code of the grid. */
  readonly epsg: number;
  /** West, north edge and cell size in the CRS's units. */
  readonly west: number;
  readonly north: number;
  readonly cell: number;
  readonly cols: number;
  readonly rows: number;
  readonly nodata?: number;
}

/** A box in EPSG:4326 around the Europe DEM (≈ 45.93–45.97° N, 7.71–7.73° E) with 0.01° cells. */
export const ALPS_LONLAT_GRID: GridSpecForTest = { epsg: 4326, west: 7.6, north: 46.05, cell: 0.01, cols: 25, rows: 20 };

/** Values of a grid, row by row from the north-west cell: `value(x, y)` of each cell centre. */
function gridValues(grid: GridSpecForTest, value: (x: number, y: number) => number): number[] {
  const values: number[] = [];
  for (let r = 0; r < grid.rows; r++) {
    const y = grid.north - (r + 0.5) * grid.cell;
    for (let c = 0; c < grid.cols; c++) values.push(value(grid.west + (c + 0.5) * grid.cell, y));
  }
  return values;
}

/**
 * Writes Float32 GeoTIFFs (DEFLATE) with GDAL's Python bindings, one process for all of them (a GDAL command
 * per file costs about 150 ms): each file's cell (centre x, y) holds `value(x, y)`.
 */
export function writeGrids(files: ReadonlyArray<{ path: string; grid: GridSpecForTest; value: (x: number, y: number) => number }>): void {
  const spec = files.map(({ path, grid, value }) => ({ path, grid, values: gridValues(grid, value) }));
  const script = [
    'import json, sys',
    'from osgeo import gdal, osr',
    'gdal.UseExceptions()',
    'for f in json.load(sys.stdin):',
    '    g = f["grid"]',
    '    ds = gdal.GetDriverByName("GTiff").Create(f["path"], g["cols"], g["rows"], 1, gdal.GDT_Float32, ["COMPRESS=DEFLATE"])',
    '    ds.SetGeoTransform([g["west"], g["cell"], 0, g["north"], 0, -g["cell"]])',
    '    srs = osr.SpatialReference(); srs.ImportFromEPSG(g["epsg"]); ds.SetProjection(srs.ExportToWkt())',
    '    band = ds.GetRasterBand(1); band.SetNoDataValue(g.get("nodata", -9999))',
    '    import struct',
    '    band.WriteRaster(0, 0, g["cols"], g["rows"], struct.pack("<%df" % len(f["values"]), *f["values"]))',
    '    ds = None',
  ].join('\n');
  execFileSync('/usr/bin/python3', ['-c', script], { input: JSON.stringify(spec) });
}

/** Writes one Float32 GeoTIFF whose cell (centre x, y) holds `value(x, y)`; returns its path. */
export function writeGrid(path: string, grid: GridSpecForTest, value: (x: number, y: number) => number): string {
  writeGrids([{ path, grid, value }]);
  return path;
}

/** A ZIP at `path` holding `files` (name in the ZIP → file on disk, or bytes). */
export async function zipOf(path: string, files: Record<string, string | Buffer>): Promise<string> {
  const zip = new yazl.ZipFile();
  for (const [name, source] of Object.entries(files)) {
    zip.addBuffer(typeof source === 'string' ? readFileSync(source) : source, name);
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  writeFileSync(path, Buffer.concat(chunks));
  return path;
}

/** Monthly values of a mild Alpine climate (month 1–12): °C, °C, mm, Pa. */
export function alpineMonth(month: number): { tmin: number; tmax: number; prcp: number; vp: number } {
  const season = -Math.cos(((month - 0.5) / 12) * 2 * Math.PI); // −1 in winter, +1 in summer
  return { tmin: -4 + 8 * season, tmax: 6 + 10 * season, prcp: 90 + 30 * season, vp: 700 + 500 * season };
}

/**
 * Monthly observed shortwave radiation of the same Alpine climate (month 1–12): the flux averaged over the daylight
 * period [W m⁻²], as Daymet's srad (about 0.5 of the extraterrestrial irradiation at 46° N), and the daily
 * irradiation [kJ m⁻² day⁻¹], as WorldClim's srad.
 */
export function alpineRadiation(month: number): { flux: number; daily: number } {
  const season = -Math.cos(((month - 0.5) / 12) * 2 * Math.PI);
  return { flux: 250 + 120 * season, daily: 13_000 + 10_000 * season };
}

/**
 * The grids of a climate layout in `dir`, returning ZIP name → file path. `kind`: a time series of `years`,
 * a plain climatology, or WorldClim names (vapr in kPa) with an elevation grid. `tweak` may change a value
 * function per variable (e.g. kelvin temperatures). `srad`: also the observed radiation of the months listed
 * (`srad_…` in W m⁻², WorldClim's in kJ m⁻² day⁻¹; `alpineRadiation`), all months with `true`.
 */
export function climateFiles(
  dir: string,
  kind: 'time-series' | 'climatology' | 'worldclim',
  options: {
    years?: readonly number[];
    grid?: GridSpecForTest;
    elevation?: number;
    tweak?: (variable: string, month: number, v: number) => number;
    srad?: boolean | readonly number[];
  } = {},
): Record<string, string> {
  const grid = options.grid ?? ALPS_LONLAT_GRID;
  const files: Record<string, string> = {};
  const tweak = options.tweak ?? ((_v: string, _m: number, v: number) => v);
  const wcName = { tmin: 'tmin', tmax: 'tmax', prcp: 'prec', vp: 'vapr' } as const;
  const years = kind === 'time-series' ? (options.years ?? [2020]) : [null];
  const batch: Array<{ path: string; grid: GridSpecForTest; value: (x: number, y: number) => number }> = [];
  for (const year of years) {
    for (let month = 1; month <= 12; month++) {
      const mm = String(month).padStart(2, '0');
      const values = alpineMonth(month);
      for (const variable of ['tmin', 'tmax', 'prcp', 'vp'] as const) {
        let v = values[variable] + (year === null ? 0 : (year - 2020) * 0.5);
        let name = year === null ? `${variable}_${mm}.tif` : `${variable}_${year}_${mm}.tif`;
        if (kind === 'worldclim') {
          name = `wc2.1_10m_${wcName[variable]}_${mm}.tif`;
          if (variable === 'vp') v /= 1000;
        }
        v = tweak(variable, month, v);
        // a gentle west–east gradient, so that the reprojection is visible in the values
        files[name] = join(dir, name);
        batch.push({ path: join(dir, name), grid, value: (x) => v * (1 + 0.01 * (x - grid.west) / (grid.cell * grid.cols)) });
      }
      const srad = options.srad === true || (Array.isArray(options.srad) && options.srad.includes(month));
      if (srad) {
        const radiation = alpineRadiation(month);
        const v = tweak('srad', month, kind === 'worldclim' ? radiation.daily : radiation.flux);
        const name = kind === 'worldclim' ? `wc2.1_10m_srad_${mm}.tif` : year === null ? `srad_${mm}.tif` : `srad_${year}_${mm}.tif`;
        files[name] = join(dir, name);
        batch.push({ path: join(dir, name), grid, value: (x) => v * (1 + 0.01 * (x - grid.west) / (grid.cell * grid.cols)) });
      }
    }
  }
  if (options.elevation !== undefined) {
    const name = kind === 'worldclim' ? 'wc2.1_10m_elev.tif' : 'elevation.tif';
    files[name] = join(dir, name);
    batch.push({ path: join(dir, name), grid, value: () => options.elevation! });
  }
  writeGrids(batch);
  return files;
}
