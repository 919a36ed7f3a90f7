/**
 * GeoJSON geometries of Item Search's `intersects` (RFC 7946 §3.1, WGS 84 longitude/latitude): checked, with
 * their bounding box, and intersected with the Items' footprints (Turf's booleanIntersects, planar).
 */
import { booleanIntersects } from '@turf/boolean-intersects';
import type { Geometry } from 'geojson';
import { JobError } from '../types.js';

/** A checked query geometry and its bounding box [west, south, east, north]. */
export interface QueryGeometry {
  readonly geometry: Geometry;
  readonly bbox: [number, number, number, number];
}

/** Geometry collections nested deeper than this are refused (their checking recurses). */
const MAX_DEPTH = 4;

const bad = (detail: string): never => {
  throw new JobError(400, `intersects: ${detail}`);
};

/** `value` as a GeoJSON geometry (an object, or its JSON text from a query string), or a 400 naming what is wrong. */
export function parseGeometry(value: unknown): QueryGeometry {
  let geometry = value;
  if (typeof value === 'string') {
    try {
      geometry = JSON.parse(value);
    } catch {
      bad('not JSON (a GeoJSON geometry object is expected)');
    }
  }
  const positions: number[][] = [];
  checkGeometry(geometry, positions, 0);
  const lons = positions.map((p) => p[0]!);
  const lats = positions.map((p) => p[1]!);
  return { geometry: geometry as Geometry, bbox: [Math.min(...lons), Math.min(...lats), Math.max(...lons), Math.max(...lats)] };
}

function checkGeometry(value: unknown, positions: number[][], depth: number): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return bad('a GeoJSON geometry object is expected');
  const { type, coordinates, geometries } = value as { type?: unknown; coordinates?: unknown; geometries?: unknown };
  const list = (v: unknown, what: string, min = 0): unknown[] => (Array.isArray(v) && v.length >= min ? v : bad(`${type} needs ${what}`));
  const position = (p: unknown): void => {
    const ok = Array.isArray(p) && (p.length === 2 || p.length === 3) && p.every((n) => typeof n === 'number' && Number.isFinite(n));
    if (!ok) bad('a position is 2 or 3 numbers: longitude, latitude[, elevation]');
    const [lon, lat] = p as number[];
    if (lon! < -180 || lon! > 180 || lat! < -90 || lat! > 90) bad(`position ${lon},${lat} is outside longitude [-180, 180], latitude [-90, 90]`);
    positions.push(p as number[]);
  };
  const line = (v: unknown) => list(v, 'at least 2 positions per line', 2).forEach(position);
  const ring = (v: unknown) => {
    const points = list(v, 'rings of at least 4 positions', 4);
    points.forEach(position);
    const [first, last] = [points[0] as number[], points.at(-1) as number[]];
    if (first[0] !== last[0] || first[1] !== last[1]) bad('a ring must end where it starts');
  };
  switch (type) {
    case 'Point':
      return position(coordinates);
    case 'MultiPoint':
      return list(coordinates, 'a list of positions', 1).forEach(position);
    case 'LineString':
      return line(coordinates);
    case 'MultiLineString':
      return list(coordinates, 'a list of lines', 1).forEach(line);
    case 'Polygon':
      return list(coordinates, 'a list of rings', 1).forEach(ring);
    case 'MultiPolygon':
      return list(coordinates, 'a list of polygons', 1).forEach((polygon) => list(polygon, 'a list of rings', 1).forEach(ring));
    case 'GeometryCollection':
      if (depth >= MAX_DEPTH) bad(`geometry collections nest at most ${MAX_DEPTH} deep`);
      return list(geometries, 'a list of geometries', 1).forEach((g) => checkGeometry(g, positions, depth + 1));
    default:
      return bad(`unknown geometry type ${JSON.stringify(type)} (Point, MultiPoint, LineString, MultiLineString, Polygon, MultiPolygon, GeometryCollection)`);
  }
}

/** Whether two geometries (checked ones, as JSON text) share at least one point. */
export function geometriesIntersect(a: string, b: string): boolean {
  return booleanIntersects(parsed(a), parsed(b));
}

/** The last geometries parsed: a search compares one query geometry with each candidate footprint. */
const cache = new Map<string, Geometry>();
function parsed(text: string): Geometry {
  let geometry = cache.get(text);
  if (!geometry) {
    if (cache.size >= 64) cache.clear();
    geometry = JSON.parse(text) as Geometry;
    cache.set(text, geometry);
  }
  return geometry;
}
