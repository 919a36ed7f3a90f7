// Shared helpers of the web interface and the job monitor: API calls, DOM building, formatting.
// Every server-provided string reaches the page through textContent or attributes set by these helpers, never as HTML.

/** An error response of the API: `detail` is the server's message (the `{detail}` body), `status` the HTTP code. */
export class ApiError extends Error {
  constructor(status, detail) {
    super(detail);
    this.name = 'ApiError';
    this.status = status;
    this.detail = detail;
  }
}

/** The `detail` of an error response body, or a fallback describing the status. */
export function detailOf(status, text) {
  try {
    const body = JSON.parse(text);
    if (body && typeof body.detail === 'string') return body.detail;
    if (body && typeof body.error === 'string') return body.error;
  } catch {
    /* not JSON */
  }
  return status ? `The server answered ${status}` : 'The server could not be reached';
}

/** Calls the API and returns the parsed JSON body; throws ApiError with the server's detail on failure. */
export async function api(path, { method = 'GET', signal } = {}) {
  let response;
  try {
    response = await fetch(path, { method, signal, headers: { Accept: 'application/json' }, cache: 'no-store' });
  } catch (error) {
    if (error && error.name === 'AbortError') throw error;
    throw new ApiError(0, 'The server could not be reached. Is the service running?');
  }
  const text = await response.text();
  if (!response.ok) throw new ApiError(response.status, detailOf(response.status, text));
  return text ? JSON.parse(text) : null;
}

/**
 * Creates an element. `props`: `class`, `text` (textContent), `hidden`, `dataset` (object), any other key is an
 * attribute (skipped when null/undefined/false). Children are nodes or strings (added as text).
 */
export function h(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'class') node.className = value;
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

/** Sets textContent only when it changed (avoids needless layout work in tables refreshed every few seconds). */
export function setText(node, text) {
  const value = String(text);
  if (node.textContent !== value) node.textContent = value;
}

export const STATUSES = ['pending', 'running', 'completed', 'failed'];
export const ACTIVE = new Set(['pending', 'running']);

/** A status badge. */
export function statusBadge(status) {
  return h('span', { class: `badge status-${STATUSES.includes(status) ? status : 'unknown'}`, text: status });
}

export function shortId(id) {
  return String(id).slice(0, 8);
}

const pad = (n) => String(n).padStart(2, '0');

/** Local date and time, `YYYY-MM-DD HH:MM:SS`; an em dash for a missing timestamp. */
export function formatDateTime(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** Local time of day, `HH:MM:SS`. */
export function formatTime(date) {
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** A duration in words: `45 s`, `3 min 05 s`, `2 h 07 min`. */
export function formatDuration(ms) {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${pad(s % 60)} s`;
  return `${Math.floor(m / 60)} h ${pad(m % 60)} min`;
}

/** How long ago, in words: `just now`, `4 min ago`, `2 h ago`, `3 days ago`. */
export function formatAgo(iso, now = Date.now()) {
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
export function formatBytes(n) {
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
export function resultsUrl(id) {
  return `/api/jobs/${encodeURIComponent(id)}/results`;
}

/** Link to a job's details view in the monitor. */
export function detailsUrl(id) {
  return `/monitor?job=${encodeURIComponent(id)}`;
}

/** Sets the text of a live region so assistive technology announces it. */
export function announce(region, text) {
  if (region.textContent === text) region.textContent = '';
  region.textContent = text;
}
