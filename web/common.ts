// Shared helpers of the web interface and the job monitor: API calls, DOM building, formatting.
// Every server-provided string reaches the page through textContent or attributes set by these helpers, never as HTML.

export type JobStatus = 'pending' | 'running' | 'completed' | 'failed';

/** A job as GET /api/jobs/{id} returns it. */
export interface Job {
  id: string;
  workflow_type: 'sol' | 'eemt';
  status: JobStatus;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  /** Numbers, and `products` (the solar products written, normalised) as text. */
  parameters: Record<string, number> & { products?: string };
  dem_filename: string;
  error_message: string | null;
  progress: number;
  progress_message: string | null;
  runtime: string | null;
  /** Estimated bytes of the outputs, made at submission (null for older jobs). */
  output_estimate_bytes?: number | null;
  [extension: string]: unknown;
}

/** A job as GET /api/jobs lists it. */
export type JobSummary = Pick<Job, 'id' | 'workflow_type' | 'status' | 'created_at' | 'dem_filename' | 'progress'>;

/** An error response of the API: `detail` is the server's message (the `{detail}` body), `status` the HTTP code. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(detail);
    this.name = 'ApiError';
  }
}

/** The `detail` of an error response body, or a fallback describing the status. */
export function detailOf(status: number, text: string): string {
  try {
    const body = JSON.parse(text) as { detail?: unknown; error?: unknown } | null;
    if (body && typeof body.detail === 'string') return body.detail;
    if (body && typeof body.error === 'string') return body.error;
  } catch {
    /* not JSON */
  }
  return status ? `The server answered ${status}` : 'The server could not be reached';
}

/** Calls the API and returns the parsed JSON body; throws ApiError with the server's detail on failure. */
export async function api<T = unknown>(path: string, { method = 'GET', signal }: { method?: string; signal?: AbortSignal } = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, { method, ...(signal ? { signal } : {}), headers: { Accept: 'application/json' }, cache: 'no-store' });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, 'The server could not be reached. Is the service running?');
  }
  const text = await response.text();
  if (!response.ok) throw new ApiError(response.status, detailOf(response.status, text));
  return (text ? JSON.parse(text) : null) as T;
}

/** The message of anything thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

type Props = Record<string, string | number | boolean | null | undefined | Record<string, string>>;
type Child = Node | string | number | null | undefined | false;

/**
 * Creates an element. `props`: `class`, `text` (textContent), `hidden`, `dataset` (object), any other key is an
 * attribute (skipped when null/undefined/false). Children are nodes or strings (added as text).
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'class') node.className = String(value);
    else if (key === 'text') node.textContent = String(value);
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key === 'hidden') node.hidden = Boolean(value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Creates an SVG element with attributes (and text, for `text` elements). */
export function svg<K extends keyof SVGElementTagNameMap>(tag: K, attributes: Record<string, string | number> = {}, ...children: (SVGElement | string)[]): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  for (const child of children) node.append(child);
  return node;
}

/** The element with this id (the pages' markup has them; a missing one is a programming error). */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`#${id} is missing`);
  return node as T;
}

/** Sets textContent only when it changed (avoids needless layout work in tables refreshed every few seconds). */
export function setText(node: Node, text: string | number): void {
  const value = String(text);
  if (node.textContent !== value) node.textContent = value;
}

export const STATUSES: readonly JobStatus[] = ['pending', 'running', 'completed', 'failed'];
export const ACTIVE: ReadonlySet<string> = new Set(['pending', 'running']);

/** A status badge. */
export function statusBadge(status: string): HTMLSpanElement {
  return h('span', { class: `badge status-${(STATUSES as readonly string[]).includes(status) ? status : 'unknown'}`, text: status });
}

export function shortId(id: string): string {
  return String(id).slice(0, 8);
}

const pad = (n: number) => String(n).padStart(2, '0');

/** Local date and time, `YYYY-MM-DD HH:MM:SS`; an em dash for a missing timestamp. */
export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** Local time of day, `HH:MM:SS`. */
export function formatTime(date: Date): string {
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** A duration in words: `45 s`, `3 min 05 s`, `2 h 07 min`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${pad(s % 60)} s`;
  return `${Math.floor(m / 60)} h ${pad(m % 60)} min`;
}

/** How long ago, in words: `just now`, `4 min ago`, `2 h ago`, `3 days ago`. */
export function formatAgo(iso: string, now = Date.now()): string {
  const t = new Date(iso).getTime();
  if (!Number.isFinite(t)) return '';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 45) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const hours = Math.round(m / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} days ago`;
}

/** Bytes in words: `812 B`, `4.6 KB`, `312.5 MB`, `1.02 GB`. */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n)) return '';
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 2 : 1)} ${units[i]}`;
}

/** URL of a job's results archive. */
export function resultsUrl(id: string): string {
  return `/api/jobs/${encodeURIComponent(id)}/results`;
}

/** Link to a job's details view in the monitor. */
export function detailsUrl(id: string): string {
  return `/monitor?job=${encodeURIComponent(id)}`;
}

/** Sets the text of a live region so assistive technology announces it. */
export function announce(region: HTMLElement, text: string): void {
  if (region.textContent === text) region.textContent = '';
  region.textContent = text;
}
