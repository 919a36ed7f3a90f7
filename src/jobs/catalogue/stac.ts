/**
 * STAC metadata of a completed job (STAC 1.0.0 Items with the projection v1.1.0 and raster v1.1.0 extensions;
 * raster v1.1.0 is the first whose `nodata` may be "nan"): one Item for the job with an asset per summary
 * product (monthly maps; for eemt jobs also the EEMT, topographic and climate maps), and one Item per group of
 * daily maps (the 365 daily global maps, the 365 sunshine-hour maps), linked both ways, rather than 742 assets
 * in one Item. Only the files a job has are assets, and a group without files has no Item (a job's `products`
 * parameter may leave out any of them; the group's title names its days).
 *
 * Footprint: the grid's outline (its edges densified) in WGS 84 longitude/latitude; datetime: when the run
 * completed; eemt jobs also carry the climate years as start_datetime/end_datetime. In the results ZIP the
 * Items are `stac.json` (root) and `stac/daily-global.json`, `stac/daily-hours.json`, with relative hrefs;
 * over HTTP they are the Items of the STAC API catalogue (src/jobs/catalogue/stacCatalogue.ts): in the collection of
 * their workflow, with absolute links to the catalogue and to the API (files, archive, previews).
 */
import { join } from 'node:path';
import proj4 from '../../raster/geo/proj4.js';
import { RasterLevels } from '../../raster/cog/rasterLevels.js';
import type { GridSpec } from '../../raster/types.js';
import { productInfo, type ProductGroup } from '../../workflows/productCatalogue.js';
import { modelChoiceProperties, realSkyProperties } from '../../workflows/eemt/modelChoices.js';
import { dayRangesText } from '../../workflows/solarYear/productSelection.js';
import { openRegularFile } from '../store/files.js';
import type { JobRecord } from '../types.js';

export const STAC_VERSION = '1.0.0';
const STAC_EXTENSIONS = [
  'https://stac-extensions.github.io/projection/v1.1.0/schema.json',
  'https://stac-extensions.github.io/raster/v1.1.0/schema.json',
] as const;
export const COG_MEDIA_TYPE = 'image/tiff; application=geotiff; profile=cloud-optimized';
export const STAC_ITEM_MEDIA_TYPE = 'application/geo+json';
export const JSON_MEDIA_TYPE = 'application/json';

/** The Items' places in the results ZIP. */
const STAC_ZIP_PATHS: Readonly<Record<'job' | DailyGroup, string>> = {
  job: 'stac.json',
  'daily-global': 'stac/daily-global.json',
  'daily-hours': 'stac/daily-hours.json',
};
export type DailyGroup = Exclude<ProductGroup, 'summary'>;
export const DAILY_GROUPS: readonly DailyGroup[] = ['daily-global', 'daily-hours'];
/** The Items of a job, in their order: the job's own, then one per daily group. */
export type ItemKind = 'job' | DailyGroup;
export const ITEM_KINDS: readonly ItemKind[] = ['job', ...DAILY_GROUPS];

/** Id of the Item `kind` of job `jobId`. */
export function stacItemId(jobId: string, kind: ItemKind): string {
  return kind === 'job' ? jobId : `${jobId}-${kind}`;
}

const GROUP_TITLES: Readonly<Record<DailyGroup, string>> = {
  'daily-global': 'Daily global irradiation',
  'daily-hours': 'Daily sunshine hours',
};

/** The title of a daily group's Item, with the days its files are of (`Daily global irradiation, days 1–365`; fewer with `products`). */
function groupTitle(group: DailyGroup, files: readonly string[]): string {
  const days = files
    .filter((rel) => productInfo(rel)?.group === group)
    .map((rel) => Number(/_(\d+)\.tif$/.exec(rel)?.[1]))
    .filter((day) => Number.isInteger(day))
    .sort((a, b) => a - b);
  const ranges = dayRangesText(days).replace(/-/g, '–');
  return `${GROUP_TITLES[group]}, ${days.length === 1 ? 'day' : 'days'} ${ranges.replace(/,/g, ', ')}`;
}

/** Where the Items and files are: hrefs relative to the ZIP, or absolute URLs of the API and its catalogue. */
export interface StacPlaces {
  /** Href of output file `rel` as seen from the Item of `from`. */
  file(rel: string, from: ItemKind): string;
  /** Href of the Item `target` as seen from the Item of `from`. */
  item(target: ItemKind, from: ItemKind): string;
  /** Extra assets of the job's Item (e.g. the archive and a thumbnail over HTTP). */
  readonly extraAssets?: Record<string, StacAsset>;
  /** Over HTTP: the catalogue's root and the job's Collection (the Items get `collection` and their links). */
  readonly catalogue?: { readonly root: string; readonly collection: string };
}

export interface StacAsset {
  readonly href: string;
  readonly type?: string;
  readonly title?: string;
  readonly roles?: readonly string[];
  readonly 'raster:bands'?: readonly { data_type: string; nodata: string; unit?: string }[];
}

export interface StacLink {
  readonly rel: string;
  readonly href: string;
  readonly type?: string;
  readonly title?: string;
  readonly method?: 'GET' | 'POST';
  readonly body?: Record<string, unknown>;
}

export interface StacItem {
  readonly type: 'Feature';
  readonly stac_version: string;
  readonly stac_extensions: readonly string[];
  readonly id: string;
  readonly collection?: string;
  readonly geometry: { type: 'Polygon'; coordinates: number[][][] };
  readonly bbox: number[];
  readonly properties: Record<string, unknown>;
  readonly links: StacLink[];
  readonly assets: Record<string, StacAsset>;
}

/** The STAC Items of a job: its own and one per daily group that has files. */
export interface JobStac {
  readonly job: StacItem;
  readonly groups: Partial<Record<DailyGroup, StacItem>>;
}

/** Places of the Items and files inside the results ZIP (relative hrefs). */
export const ZIP_PLACES: StacPlaces = {
  file: (rel, from) => (from === 'job' ? `./${rel}` : `../${rel}`),
  item: (target, from) => {
    if (from === 'job') return `./${STAC_ZIP_PATHS[target]}`;
    return target === 'job' ? '../stac.json' : `./${target}.json`;
  },
};

/**
 * URLs of the API served under `apiBase` (e.g. http://host:5000/api): the STAC catalogue at {apiBase}/stac,
 * the jobs' files at {apiBase}/jobs/{id}/….
 */
export function catalogueUrls(apiBase: string) {
  const root = `${apiBase}/stac`;
  const collection = (id: string) => `${root}/collections/${encodeURIComponent(id)}`;
  const job = (id: string) => `${apiBase}/jobs/${id}`;
  return {
    root,
    conformance: `${root}/conformance`,
    collections: `${root}/collections`,
    search: `${root}/search`,
    collection,
    items: (collectionId: string) => `${collection(collectionId)}/items`,
    item: (collectionId: string, itemId: string) => `${collection(collectionId)}/items/${encodeURIComponent(itemId)}`,
    file: (jobId: string, rel: string) => `${job(jobId)}/files/${rel}`,
    results: (jobId: string) => `${job(jobId)}/results`,
    preview: (jobId: string) => `${job(jobId)}/preview/annual.png`,
  };
}
export type CatalogueUrls = ReturnType<typeof catalogueUrls>;

/** Places of the Items of `job` in the catalogue at `urls`, its files in the API; a thumbnail when it has a preview. */
export function apiPlaces(urls: CatalogueUrls, job: JobRecord, hasPreview: boolean): StacPlaces {
  const collection = job.workflow_type;
  return {
    catalogue: { root: urls.root, collection: urls.collection(collection) },
    file: (rel) => urls.file(job.id, rel),
    item: (target) => urls.item(collection, stacItemId(job.id, target)),
    extraAssets: {
      archive: { href: urls.results(job.id), type: 'application/zip', title: 'All products (ZIP)', roles: ['archive'] },
      ...(hasPreview ? { thumbnail: { href: urls.preview(job.id), type: 'image/png', title: 'Preview', roles: ['thumbnail', 'overview'] } } : {}),
    },
  };
}

/** The grid of a job's products, from the first GeoTIFF among `files` (opened without following links). */
export async function productGrid(outputDir: string, files: readonly string[]): Promise<GridSpec | null> {
  const first = files.find((rel) => rel.endsWith('.tif') && productInfo(rel) !== null);
  if (!first) return null;
  const { handle } = await openRegularFile(join(outputDir, first));
  try {
    return (await RasterLevels.open(handle)).grid;
  } finally {
    await handle.close();
  }
}

/** The STAC Items of completed `job`, whose products (relative paths `files`) share `grid`. */
export function jobStac(job: JobRecord, grid: GridSpec, files: readonly string[], places: StacPlaces): JobStac {
  const { geometry, bbox } = footprint(grid);
  const properties = { ...itemProperties(job, grid), ...realSkyProperties(files.some((rel) => rel.startsWith('global/monthly_realsky/'))) };
  const byGroup = new Map<ProductGroup, Record<string, StacAsset>>();
  for (const rel of files) {
    const info = productInfo(rel);
    if (!info) continue;
    const from: ItemKind = info.group === 'summary' ? 'job' : info.group;
    const assets = byGroup.get(info.group) ?? {};
    byGroup.set(info.group, assets);
    assets[rel.replace(/\.[a-z]+$/i, '')] =
      info.unit === null
        ? { href: places.file(rel, from), type: 'text/plain', title: info.title, roles: ['metadata'] }
        : {
            href: places.file(rel, from),
            type: COG_MEDIA_TYPE,
            title: info.title,
            roles: ['data'],
            'raster:bands': [{ data_type: 'float32', nodata: 'nan', unit: info.unit }],
          };
  }
  const base = { type: 'Feature' as const, stac_version: STAC_VERSION, stac_extensions: [...STAC_EXTENSIONS] };
  const { catalogue } = places;
  /** The Item `kind`'s collection and its catalogue links (self, parent, collection, root), over HTTP only. */
  const membership = (kind: ItemKind) =>
    catalogue
      ? {
          collection: job.workflow_type,
          links: [
            { rel: 'self', href: places.item(kind, kind), type: STAC_ITEM_MEDIA_TYPE },
            { rel: 'parent', href: catalogue.collection, type: JSON_MEDIA_TYPE },
            { rel: 'collection', href: catalogue.collection, type: JSON_MEDIA_TYPE },
            { rel: 'root', href: catalogue.root, type: JSON_MEDIA_TYPE },
          ],
        }
      : { links: [] };
  const groups: Partial<Record<DailyGroup, StacItem>> = {};
  for (const group of DAILY_GROUPS) {
    const assets = byGroup.get(group);
    if (!assets) continue;
    const { links, ...collection } = membership(group);
    groups[group] = {
      ...base,
      id: stacItemId(job.id, group),
      ...collection,
      geometry,
      bbox,
      properties: { ...properties, title: groupTitle(group, files) },
      links: [...links, { rel: 'related', href: places.item('job', group), type: STAC_ITEM_MEDIA_TYPE, title: `${job.workflow_type} job ${job.id}` }],
      assets,
    };
  }
  const { links, ...collection } = membership('job');
  const job_: StacItem = {
    ...base,
    id: job.id,
    ...collection,
    geometry,
    bbox,
    properties: { ...properties, title: `${job.workflow_type} job ${job.id}` },
    links: [
      ...links,
      ...DAILY_GROUPS.filter((g) => groups[g]).map((g) => ({ rel: 'related', href: places.item(g, 'job'), type: STAC_ITEM_MEDIA_TYPE, title: groupTitle(g, files) })),
    ],
    assets: { ...(byGroup.get('summary') ?? {}), ...(places.extraAssets ?? {}) },
  };
  return { job: job_, groups };
}

/** The Item `kind` of a job's STAC, if the job has it. */
export function itemOf(stac: JobStac, kind: ItemKind): StacItem | undefined {
  return kind === 'job' ? stac.job : stac.groups[kind];
}

/** The Items' times: `datetime` when the run completed; for eemt jobs the climate years as a range. */
export function itemTimes(job: JobRecord): { datetime: string; start_datetime?: string; end_datetime?: string } {
  const { start_year: start, end_year: end } = job.parameters;
  return {
    datetime: job.completed_at ?? job.created_at,
    ...(job.workflow_type === 'eemt' && start !== undefined && end !== undefined
      ? { start_datetime: `${start}-01-01T00:00:00Z`, end_datetime: `${end}-12-31T23:59:59Z` }
      : {}),
  };
}

function itemProperties(job: JobRecord, grid: GridSpec): Record<string, unknown> {
  const [x0, dx, rx, y0, ry, dy] = grid.geoTransform;
  const { datetime, ...range } = itemTimes(job);
  return {
    datetime,
    created: job.created_at,
    ...range,
    'proj:epsg': grid.crs.epsg,
    'proj:shape': [grid.height, grid.width],
    'proj:transform': [dx, rx, x0, ry, dy, y0],
    'eemt:workflow': job.workflow_type,
    'eemt:parameters': job.parameters,
    // the solar products written (normalised; absent for jobs from before it was recorded: every product)
    ...(job.parameters.products !== undefined ? { 'eemt:products': job.parameters.products } : {}),
    ...(job.workflow_type === 'eemt' ? modelChoiceProperties(job.parameters) : {}),
  };
}

/** Edge segments per side of the footprint (curved edges in WGS 84 stay close to the grid's outline). */
const SEGMENTS_PER_EDGE = 16;

/** The grid's outline in WGS 84 (counter-clockwise ring, edges densified) and its bounding box. */
export function footprint(grid: GridSpec): { geometry: { type: 'Polygon'; coordinates: number[][][] }; bbox: number[] } {
  const [x0, dx, rx, y0, ry, dy] = grid.geoTransform;
  const toWgs84 = proj4(grid.crs.proj4, 'WGS84');
  const at = (col: number, row: number): number[] => {
    const [lon, lat] = toWgs84.forward([x0 + col * dx + row * rx, y0 + col * ry + row * dy]) as [number, number];
    return [round(lon), round(lat)];
  };
  const { width: w, height: h } = grid;
  const ring: number[][] = [];
  const n = SEGMENTS_PER_EDGE;
  // north-west → south-west → south-east → north-east → north-west: counter-clockwise on a north-up grid
  for (let k = 0; k < n; k++) ring.push(at(0, (h * k) / n));
  for (let k = 0; k < n; k++) ring.push(at((w * k) / n, h));
  for (let k = 0; k < n; k++) ring.push(at(w, h - (h * k) / n));
  for (let k = 0; k < n; k++) ring.push(at(w - (w * k) / n, 0));
  ring.push(ring[0]!);
  const lons = ring.map((p) => p[0]!);
  const lats = ring.map((p) => p[1]!);
  return {
    geometry: { type: 'Polygon', coordinates: [ring] },
    bbox: [Math.min(...lons), Math.min(...lats), Math.max(...lons), Math.max(...lats)],
  };
}

/** Degrees to 1e-9 (0.1 mm). */
function round(deg: number): number {
  return Math.round(deg * 1e9) / 1e9;
}

/** Output files that the archive's STAC Items would collide with (a job cannot plant its own). */
export function isStacPath(rel: string): boolean {
  return rel === STAC_ZIP_PATHS.job || rel.startsWith('stac/');
}

/** The STAC Items as entries of the results ZIP (none when the job has no GeoTIFF products). */
export async function stacZipEntries(job: JobRecord, outputDir: string, files: readonly string[]): Promise<{ name: string; bytes: Buffer }[]> {
  const grid = await productGrid(outputDir, files);
  if (!grid) return [];
  const stac = jobStac(job, grid, files, ZIP_PLACES);
  const json = (item: StacItem) => Buffer.from(`${JSON.stringify(item, null, 2)}\n`);
  return [
    { name: STAC_ZIP_PATHS.job, bytes: json(stac.job) },
    ...DAILY_GROUPS.flatMap((g) => (stac.groups[g] ? [{ name: STAC_ZIP_PATHS[g], bytes: json(stac.groups[g]!) }] : [])),
  ];
}
