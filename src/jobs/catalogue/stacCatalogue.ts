/**
 * The STAC API catalogue of completed jobs (STAC API v1.0.0: Core, Collections, Features, Item Search): a
 * landing page, one Collection per workflow type (`sol`, `eemt`), and the jobs' Items (src/jobs/catalogue/stac.ts) in
 * pages. Which Items a page holds is an SQL query on the store's index of the Items' boxes and times, which
 * is brought up to date (for jobs completed since) before each answer; only the Items of a page are built.
 */
import { monthlyGlobalPath } from '../../workflows/solarYear/products.js';
import { WORKFLOW_TYPES, type WorkflowType } from '../../workflows/index.js';
import type { ListedFile } from '../store/files.js';
import type { JobPaths } from '../store/paths.js';
import { resultEntries } from './results.js';
import {
  apiPlaces,
  isStacPath,
  itemOf,
  itemTimes,
  ITEM_KINDS,
  jobStac,
  JSON_MEDIA_TYPE,
  productGrid,
  STAC_ITEM_MEDIA_TYPE,
  STAC_VERSION,
  stacItemId,
  ZIP_PLACES,
  type CatalogueUrls,
  type JobStac,
  type StacItem,
  type StacLink,
} from './stac.js';
import { pageToken, type StacSearch } from './stacSearch.js';
import type { JobStore, StacItemRow } from '../store/store.js';
import type { JobRecord } from '../types.js';

/** Conformance classes of the catalogue (STAC API v1.0.0 and the OGC API – Features parts it builds on). */
const CONFORMANCE = [
  'https://api.stacspec.org/v1.0.0/core',
  'https://api.stacspec.org/v1.0.0/collections',
  'https://api.stacspec.org/v1.0.0/ogcapi-features',
  'https://api.stacspec.org/v1.0.0/item-search',
  'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core',
  'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30',
  'http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson',
] as const;

const CATALOGUE_ID = 'eemt-service';
const OPENAPI_MEDIA_TYPE = 'application/vnd.oai.openapi+json;version=3.0';

const COLLECTION_TEXTS: Readonly<Record<WorkflowType, { title: string; description: string; keywords: string[] }>> = {
  sol: {
    title: 'Terrain solar radiation (sol jobs)',
    description:
      'Completed sol jobs: clear-sky solar irradiation over a DEM (the r.sun model with its bugs fixed). Each job is an Item with the ' +
      'monthly global irradiation maps (Cloud Optimized GeoTIFFs), related to two Items of daily maps (global irradiation and ' +
      'sunshine hours, days 1–365).',
    keywords: ['solar radiation', 'insolation', 'r.sun', 'terrain', 'DEM'],
  },
  eemt: {
    title: 'Effective Energy and Mass Transfer (eemt jobs)',
    description:
      'Completed eemt jobs: Effective Energy and Mass Transfer maps from a DEM, terrain solar radiation and climate. Each job is an ' +
      'Item with the EEMT, topographic, climate and monthly radiation maps (Cloud Optimized GeoTIFFs), related to two Items of ' +
      'daily maps; start_datetime/end_datetime are the climate years.',
    keywords: ['EEMT', 'critical zone', 'solar radiation', 'terrain', 'DEM'],
  },
};

/** Where the catalogue's documents point besides itself: the API description and its documentation. */
export interface ServiceUrls {
  readonly description: string;
  readonly documentation: string;
}

/** How a page of Items was asked for, for its links: its own URL, and GET (query) or POST (body) paging. */
export interface PageRequest {
  readonly self: string;
  readonly method: 'GET' | 'POST';
  /** Links of the page besides self, root and next (e.g. its collection). */
  readonly links?: readonly StacLink[];
}

export interface ItemCollection {
  readonly type: 'FeatureCollection';
  readonly features: StacItem[];
  readonly links: StacLink[];
  readonly numberMatched: number;
  readonly numberReturned: number;
}

export class StacCatalogue {
  private indexing: Promise<void> | null = null;

  constructor(
    private readonly store: JobStore,
    private readonly paths: JobPaths,
  ) {}

  /** Output files of completed `job` (none once its data are deleted), without the archive's STAC entries. */
  async jobFiles(job: JobRecord): Promise<ListedFile[]> {
    if (job.data_deleted_at) return [];
    return (await resultEntries(this.paths.outputDir(job.id))).filter((f) => !isStacPath(f.rel));
  }

  /** The STAC Items of completed `job` in the catalogue at `urls`, or null when it has no GeoTIFF products. */
  async jobStac(job: JobRecord, urls: CatalogueUrls, files?: readonly ListedFile[]): Promise<JobStac | null> {
    const rels = (files ?? (await this.jobFiles(job))).map((f) => f.rel);
    const grid = await productGrid(this.paths.outputDir(job.id), rels);
    if (!grid) return null;
    const hasPreview = Array.from({ length: 12 }, (_, m) => monthlyGlobalPath(m)).every((rel) => rels.includes(rel));
    return jobStac(job, grid, rels, apiPlaces(urls, job, hasPreview));
  }

  /** Indexes the Items of jobs completed since the last call; concurrent callers share one run. */
  refreshIndex(): Promise<void> {
    this.indexing ??= this.indexNewJobs().finally(() => {
      this.indexing = null;
    });
    return this.indexing;
  }

  private async indexNewJobs(): Promise<void> {
    for (const job of this.store.unindexedStacJobs()) {
      let items: StacItemRow[];
      try {
        items = await this.indexRows(job);
      } catch {
        continue; // unreadable now (e.g. being deleted): tried again at the next request
      }
      this.store.indexStacItems(job.id, items);
    }
  }

  private async indexRows(job: JobRecord): Promise<StacItemRow[]> {
    const rels = (await this.jobFiles(job)).map((f) => f.rel);
    const grid = await productGrid(this.paths.outputDir(job.id), rels);
    if (!grid) return [];
    const stac = jobStac(job, grid, rels, ZIP_PLACES);
    const times = itemTimes(job);
    const ms = (t: string | undefined) => (t === undefined ? null : Date.parse(t));
    return ITEM_KINDS.flatMap((kind, rank) => {
      const item = itemOf(stac, kind);
      if (!item) return [];
      const [west, south, east, north] = item.bbox as [number, number, number, number];
      return [
        {
          item_id: stacItemId(job.id, kind),
          rank,
          bbox: [west, south, east, north] as const,
          geometry: JSON.stringify(item.geometry),
          datetime_ms: Date.parse(times.datetime),
          start_ms: ms(times.start_datetime),
          end_ms: ms(times.end_datetime),
        },
      ];
    });
  }

  /** The landing page: a Catalog with the conformance classes and the links a STAC API client follows. */
  landingPage(urls: CatalogueUrls, service: ServiceUrls) {
    return {
      type: 'Catalog',
      stac_version: STAC_VERSION,
      id: CATALOGUE_ID,
      title: 'EEMT service jobs',
      description: 'STAC API catalogue of the completed jobs of this service: one Collection per workflow type (sol, eemt).',
      conformsTo: [...CONFORMANCE],
      links: [
        { rel: 'self', href: urls.root, type: JSON_MEDIA_TYPE, title: 'This catalogue' },
        { rel: 'root', href: urls.root, type: JSON_MEDIA_TYPE, title: 'This catalogue' },
        { rel: 'data', href: urls.collections, type: JSON_MEDIA_TYPE, title: 'The collections' },
        { rel: 'conformance', href: urls.conformance, type: JSON_MEDIA_TYPE, title: 'Conformance classes' },
        { rel: 'search', href: urls.search, type: STAC_ITEM_MEDIA_TYPE, method: 'GET', title: 'Item search' },
        { rel: 'search', href: urls.search, type: STAC_ITEM_MEDIA_TYPE, method: 'POST', title: 'Item search' },
        { rel: 'service-desc', href: service.description, type: OPENAPI_MEDIA_TYPE, title: 'OpenAPI description of the service' },
        { rel: 'service-doc', href: service.documentation, type: 'text/html', title: 'API documentation' },
        ...WORKFLOW_TYPES.map((id) => ({ rel: 'child', href: urls.collection(id), type: JSON_MEDIA_TYPE, title: COLLECTION_TEXTS[id].title })),
      ],
    };
  }

  conformance() {
    return { conformsTo: [...CONFORMANCE] };
  }

  async collections(urls: CatalogueUrls) {
    await this.refreshIndex();
    const extents = this.store.stacExtents();
    return {
      collections: WORKFLOW_TYPES.map((id) => this.collectionDocument(id, urls, extents)),
      links: [
        { rel: 'self', href: urls.collections, type: JSON_MEDIA_TYPE },
        { rel: 'root', href: urls.root, type: JSON_MEDIA_TYPE },
        { rel: 'parent', href: urls.root, type: JSON_MEDIA_TYPE },
      ],
    };
  }

  /** The Collection `id`, or null when there is none. */
  async collection(id: string, urls: CatalogueUrls) {
    if (!isCollectionId(id)) return null;
    await this.refreshIndex();
    return this.collectionDocument(id, urls, this.store.stacExtents());
  }

  private collectionDocument(id: WorkflowType, urls: CatalogueUrls, extents: ReturnType<JobStore['stacExtents']>) {
    const extent = extents.find((e) => e.collection === id);
    const iso = (ms: number) => new Date(ms).toISOString();
    return {
      type: 'Collection',
      stac_version: STAC_VERSION,
      id,
      ...COLLECTION_TEXTS[id],
      // Each job's products carry the terms of the DEM (and climate data) it was made from.
      license: 'various',
      providers: [{ name: 'eemt-service', description: 'This service, which computed the maps', roles: ['processor', 'host'] }],
      extent: {
        spatial: { bbox: [extent ? extent.bbox : [-180, -90, 180, 90]] },
        temporal: { interval: [extent ? [iso(extent.from_ms), iso(extent.to_ms)] : [null, null]] },
      },
      links: [
        { rel: 'self', href: urls.collection(id), type: JSON_MEDIA_TYPE },
        { rel: 'root', href: urls.root, type: JSON_MEDIA_TYPE },
        { rel: 'parent', href: urls.root, type: JSON_MEDIA_TYPE },
        { rel: 'items', href: urls.items(id), type: STAC_ITEM_MEDIA_TYPE, title: 'The jobs’ Items' },
      ],
    };
  }

  /** A page of the Items `search` selects, with numberMatched/numberReturned and a next link when more match. */
  async itemPage(search: StacSearch, urls: CatalogueUrls, request: PageRequest): Promise<ItemCollection> {
    await this.refreshIndex();
    const { limit } = search.query;
    // one more than the page: whether a next page exists
    const { matches, matched } = this.store.stacItems({ ...search.query, limit: limit + 1 });
    const page = matches.slice(0, limit);
    const stacs = new Map<string, JobStac | null>();
    const features: StacItem[] = [];
    for (const { job, rank } of page) {
      if (!stacs.has(job.id)) stacs.set(job.id, await this.jobStac(job, urls).catch(() => null));
      const stac = stacs.get(job.id);
      const item = stac && itemOf(stac, ITEM_KINDS[rank]!);
      if (item) features.push(item); // a job whose files went since it was indexed is left out
    }
    const last = page.at(-1);
    const more = matches.length > limit && last !== undefined;
    const links: StacLink[] = [
      { rel: 'self', href: request.self, type: STAC_ITEM_MEDIA_TYPE },
      { rel: 'root', href: urls.root, type: JSON_MEDIA_TYPE },
      ...(request.links ?? []),
    ];
    if (more) {
      const token = pageToken({ seq: last.seq, rank: last.rank });
      if (request.method === 'GET') {
        const next = new URL(request.self);
        next.searchParams.set('token', token);
        links.push({ rel: 'next', href: next.toString(), type: STAC_ITEM_MEDIA_TYPE, method: 'GET' });
      } else {
        links.push({ rel: 'next', href: request.self, type: STAC_ITEM_MEDIA_TYPE, method: 'POST', body: { ...search.body, token } });
      }
    }
    return { type: 'FeatureCollection', features, links, numberMatched: matched, numberReturned: features.length };
  }

  /** The Item `itemId` of Collection `collectionId`, or null when there is none. */
  async item(collectionId: string, itemId: string, urls: CatalogueUrls): Promise<StacItem | null> {
    if (!isCollectionId(collectionId)) return null;
    await this.refreshIndex();
    const [match] = this.store.stacItems({ collections: [collectionId], ids: [itemId], limit: 1 }).matches;
    if (!match) return null;
    const stac = await this.jobStac(match.job, urls);
    return (stac && itemOf(stac, ITEM_KINDS[match.rank]!)) ?? null;
  }
}

function isCollectionId(id: string): id is WorkflowType {
  return (WORKFLOW_TYPES as readonly string[]).includes(id);
}
