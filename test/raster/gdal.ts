/**
 * Test helpers around the GDAL command-line tools: temp folders, gdal_translate variants, gdalinfo JSON,
 * and raw ENVI read-back of what GDAL itself decodes.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const FIXTURE_DEM = new URL('../fixtures/mcn_10m.tif', import.meta.url).pathname;

/** A fresh temp folder and a function that removes it. */
export function tempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Runs a GDAL tool quietly; throws with its stderr on failure. */
export function gdal(tool: string, args: readonly string[], input?: string): string {
  return execFileSync(tool, [...args], {
    encoding: 'utf8',
    input,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, GDAL_PAM_ENABLED: 'NO' },
  });
}

const execFileAsync = promisify(execFile);

/** Asynchronous gdal_translate -q `args` from `src` to `dst` (to prepare several variants at once). */
export async function translateAsync(src: string, dst: string, args: readonly string[]): Promise<string> {
  await execFileAsync('gdal_translate', ['-q', ...args, src, dst], { env: { ...process.env, GDAL_PAM_ENABLED: 'NO' } });
  return dst;
}

/** gdal_translate -q `args` from `src` to `dst`. */
export function translate(src: string, dst: string, args: readonly string[]): string {
  gdal('gdal_translate', ['-q', ...args, src, dst]);
  return dst;
}

export interface GdalInfo {
  size: [number, number];
  geoTransform: number[];
  coordinateSystem?: { wkt: string };
  metadata: Record<string, Record<string, string>>;
  bands: { type: string; noDataValue?: number | string; description?: string; block: [number, number]; overviews?: { size: [number, number] }[] }[];
}

export function gdalinfo(path: string): GdalInfo {
  return JSON.parse(gdal('gdalinfo', ['-json', path])) as GdalInfo;
}

export async function gdalinfoAsync(path: string): Promise<GdalInfo> {
  const { stdout } = await execFileAsync('gdalinfo', ['-json', path], { env: { ...process.env, GDAL_PAM_ENABLED: 'NO' } });
  return JSON.parse(stdout) as GdalInfo;
}

/** Band 1 as GDAL decodes it, converted by GDAL to `type` and dumped raw (ENVI, little-endian). */
export function gdalRead(path: string, dir: string, type: 'Float32' | 'Float64'): Float32Array | Float64Array {
  const out = join(dir, `readback-${Math.random().toString(36).slice(2)}.bin`);
  translate(path, out, ['-of', 'ENVI', '-ot', type, '-b', '1']);
  return readRaw(out, type);
}

/** Asynchronous `gdalRead`. */
export async function gdalReadAsync(path: string, dir: string, type: 'Float32' | 'Float64'): Promise<Float32Array | Float64Array> {
  const out = join(dir, `readback-${Math.random().toString(36).slice(2)}.bin`);
  await translateAsync(path, out, ['-of', 'ENVI', '-ot', type, '-b', '1']);
  return readRaw(out, type);
}

function readRaw(path: string, type: 'Float32' | 'Float64'): Float32Array | Float64Array {
  const bytes = readFileSync(path);
  const copy = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  return type === 'Float32' ? new Float32Array(copy) : new Float64Array(copy);
}

/** gdaltransform of (x, y) pairs from `from` to `to`; returns [x, y] per pair. */
export function gdaltransform(from: string, to: string, points: readonly (readonly [number, number])[]): [number, number][] {
  const text = gdal('gdaltransform', ['-s_srs', from, '-t_srs', to, '-output_xy'], points.map((p) => `${p[0]} ${p[1]}`).join('\n') + '\n');
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [x, y] = line.trim().split(/\s+/).map(Number);
      return [x!, y!];
    });
}

/** Debian's python3 (with python3-gdal) when it exists, else the python3 on PATH. */
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

/**
 * GDAL's Cloud Optimized GeoTIFF validator (`osgeo_utils.samples.validate_cloud_optimized_geotiff`, Debian
 * python3-gdal) with the full check of tile leaders and trailers: its report and whether it found the file valid.
 */
export async function validateCog(path: string): Promise<{ valid: boolean; report: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(PYTHON, ['-m', 'osgeo_utils.samples.validate_cloud_optimized_geotiff', '--full-check=yes', path]);
    return { valid: stdout.includes('is a valid cloud optimized GeoTIFF'), report: stdout + stderr };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    return { valid: false, report: `${e.stdout ?? ''}${e.stderr ?? ''}${e.message}` };
  }
}
