// The job monitor (/monitor): counts by status, the free space of the data folders, a table of all jobs refreshed every
// 5 seconds and updated in place,
// actions (details, download, cancel, delete) and a details view with every field of a job, the tail of its log,
// live progress while it runs (its events, or polling), and its maps and monthly chart once it has completed.
import {
  ACTIVE,
  ApiError,
  announce,
  api,
  formatBytes,
  formatDateTime,
  formatDuration,
  formatTime,
  h,
  resultsUrl,
  setText,
  shortId,
  STATUSES,
  statusBadge,
  messageOf,
  type Job,
  type JobSummary,
} from './common.js';
import { followJob, type JobFeed } from './jobFeed.js';
import { resultsView } from './results.js';

const REFRESH_MS = 5000;
const LOG_LINES = 200;
/** The API's largest page: the monitor shows every job up to this many. */
const MAX_JOBS = 10000;

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;
const tbody = $<HTMLTableSectionElement>('jobs');
const autoRefresh = $<HTMLInputElement>('auto-refresh');
const message = $('message');
const dialog = $<HTMLDialogElement>('details');
const detailsBody = $('details-body');

interface Row {
  tr: HTMLTableRowElement;
  badgeCell: HTMLTableCellElement;
  progress: HTMLProgressElement;
  pct: HTMLSpanElement;
  actions: HTMLTableCellElement;
  status: string;
  progressValue: number;
  search: string;
}

/** Row of each job id: its elements and what they show, so a refresh touches only what changed. */
const rows = new Map<string, Row>();
/** The last list of jobs, newest first. */
let jobs: JobSummary[] = [];
let timer = 0;
let inFlight: Promise<void> | null = null;

// ------------------------------------------------------------------ messages

function say(text: string, isError = false) {
  message.classList.toggle('is-error', isError);
  announce(message, text);
}

const describe = (job: Pick<JobSummary, 'id' | 'dem_filename'>) => `job ${shortId(job.id)} (${job.dem_filename})`;

// ------------------------------------------------------------------ actions (table and details view)

function actionButtons(job: { id: string; status: string }, { withDetails }: { withDetails: boolean }): HTMLElement[] {
  const label = `job ${shortId(job.id)}`;
  const out: HTMLElement[] = [];
  if (withDetails) {
    out.push(h('button', { type: 'button', class: 'small', dataset: { action: 'details', id: job.id }, 'aria-label': `Details of ${label}` }, 'Details'));
  }
  if (job.status === 'completed') {
    out.push(
      h('a', { class: 'button small', href: resultsUrl(job.id), download: `eemt_results_${job.id}.zip`, 'aria-label': `Download the results of ${label}`, dataset: { key: 'download' } }, 'Download'),
    );
  }
  if (ACTIVE.has(job.status)) {
    out.push(h('button', { type: 'button', class: 'small danger', dataset: { action: 'cancel', id: job.id, key: 'cancel' }, 'aria-label': `Cancel ${label}` }, 'Cancel'));
  } else {
    out.push(h('button', { type: 'button', class: 'small danger', dataset: { action: 'delete', id: job.id, key: 'delete' }, 'aria-label': `Delete ${label}` }, 'Delete'));
  }
  return out;
}

function jobById(id: string): { id: string; dem_filename: string; status: string } {
  return jobs.find((job) => job.id === id) ?? detailsJob ?? { id, dem_filename: '', status: '' };
}

async function cancelJob(id: string) {
  const job = jobById(id);
  if (!confirm(`Cancel ${describe(job)}? It stops now and is marked as failed.`)) return;
  try {
    await api(`/api/jobs/${encodeURIComponent(id)}/cancel`, { method: 'POST' });
    say(`Cancelled ${describe(job)}.`);
  } catch (error) {
    say(`Could not cancel ${describe(job)}: ${messageOf(error)}`, true);
  }
  await refresh();
}

async function deleteJob(id: string) {
  const job = jobById(id);
  if (!confirm(`Delete ${describe(job)} and all its files? This cannot be undone.`)) return;
  try {
    await api(`/api/jobs/${encodeURIComponent(id)}`, { method: 'DELETE' });
    say(`Deleted ${describe(job)}.`);
    if (detailsId === id) dialog.close();
    // The row and its button go away: keep the keyboard focus in the table.
    $('jobs-region').focus();
  } catch (error) {
    say(`Could not delete ${describe(job)}: ${messageOf(error)}`, true);
  }
  await refresh();
}

function onAction(event: Event) {
  const button = (event.target as Element).closest<HTMLButtonElement>('button[data-action]');
  if (!button) return;
  const { action, id = '' } = button.dataset;
  if (action === 'details') void openDetails(id);
  else if (action === 'cancel') void cancelJob(id);
  else if (action === 'delete') void deleteJob(id);
  else if (action === 'reload-details') void loadDetails();
}
tbody.addEventListener('click', onAction);
detailsBody.addEventListener('click', onAction);

// ------------------------------------------------------------------ table

function createRow(job: JobSummary): Row {
  const badgeCell = h('td', {}, statusBadge(job.status));
  const progress = h('progress', { max: '100', value: String(job.progress), 'aria-label': `Progress of job ${shortId(job.id)}` });
  const pct = h('span', {}, `${job.progress} %`);
  const actions = h('td', { class: 'col-actions' }, ...actionButtons(job, { withDetails: true }));
  const tr = h(
    'tr',
    { dataset: { id: job.id, status: job.status } },
    h('td', { class: 'col-id' }, h('code', { title: job.id }, shortId(job.id))),
    h('td', {}, h('span', { class: 'badge type-badge' }, job.workflow_type)),
    h('td', { class: 'col-file', title: job.dem_filename }, job.dem_filename),
    badgeCell,
    h('td', { class: 'col-progress' }, h('div', { class: 'cell-progress' }, progress, pct)),
    h('td', { class: 'col-created' }, h('time', { datetime: job.created_at }, formatDateTime(job.created_at))),
    actions,
  );
  return { tr, badgeCell, progress, pct, actions, status: job.status, progressValue: job.progress, search: `${job.id} ${job.dem_filename}`.toLowerCase() };
}

function updateRow(row: Row, job: JobSummary) {
  if (row.status !== job.status) {
    const hadFocus = row.actions.contains(document.activeElement);
    row.badgeCell.replaceChildren(statusBadge(job.status));
    row.actions.replaceChildren(...actionButtons(job, { withDetails: true }));
    row.tr.dataset.status = job.status;
    if (hadFocus) row.actions.querySelector<HTMLElement>('button, a')?.focus();
    announce($('announcer'), `Job ${shortId(job.id)} (${job.dem_filename}) is now ${job.status}.`);
    row.status = job.status;
  }
  if (row.progressValue !== job.progress) {
    row.progress.value = job.progress;
    row.pct.textContent = `${job.progress} %`;
    row.progressValue = job.progress;
  }
}

function matchesFilter(row: Row) {
  const status = $<HTMLSelectElement>('filter-status').value;
  const text = $<HTMLInputElement>('filter-text').value.trim().toLowerCase();
  return (!status || row.status === status) && (!text || row.search.includes(text));
}

function applyFilter() {
  let shown = 0;
  for (const row of rows.values()) {
    const visible = matchesFilter(row);
    if (row.tr.hidden === visible) row.tr.hidden = !visible;
    if (visible) shown++;
  }
  const filtered = $<HTMLSelectElement>('filter-status').value !== '' || $<HTMLInputElement>('filter-text').value.trim() !== '';
  setText($('shown'), filtered ? `Showing ${shown} of ${rows.size} jobs` : '');
  const empty = $('table-empty');
  empty.hidden = shown > 0;
  if (rows.size === 0) {
    empty.replaceChildren('No jobs yet. ', h('a', { href: '/' }, 'Submit a job'), '.');
  } else if (shown === 0) {
    empty.replaceChildren('No job matches the filter.');
  }
}

/** Brings the table in line with `list` (newest first): rows are created, updated, moved or removed in place. */
function renderTable(list: JobSummary[]) {
  const seen = new Set<string>();
  const fresh = document.createDocumentFragment();
  let cursor = tbody.firstChild;
  for (const job of list) {
    seen.add(job.id);
    let row = rows.get(job.id);
    if (!row) {
      row = createRow(job);
      rows.set(job.id, row);
    } else {
      updateRow(row, job);
    }
    if (row.tr === cursor) {
      cursor = cursor.nextSibling;
    } else if (!row.tr.parentNode && cursor === null) {
      fresh.append(row.tr); // first render and new rows at the end: appended in one go
    } else {
      if (fresh.firstChild) tbody.append(fresh);
      tbody.insertBefore(row.tr, cursor);
    }
  }
  if (fresh.firstChild) tbody.append(fresh);
  for (const [id, row] of rows) {
    if (!seen.has(id)) {
      row.tr.remove();
      rows.delete(id);
    }
  }
  applyFilter();
}

function renderCounts(list: JobSummary[]) {
  const counts: Record<string, number> = Object.fromEntries(STATUSES.map((s) => [s, 0]));
  for (const job of list) if (job.status in counts) counts[job.status]!++;
  for (const status of STATUSES) setText($(`count-${status}`), counts[status] ?? 0);
  setText($('count-total'), list.length);
}

// ------------------------------------------------------------------ disk space

/** A data folder as GET /api/system/status lists it under `storage`. */
interface StorageFolder {
  name: string;
  path: string;
  free_bytes: number | null;
  total_bytes: number | null;
  error?: string;
}

/** Share of a file system in use from which its folder is shown as nearly full. */
const NEARLY_FULL = 0.9;
let storageInFlight = false;

function storageItem(folder: StorageFolder): HTMLLIElement {
  const { name, path, free_bytes: free, total_bytes: total } = folder;
  const head = h('span', { class: 'storage-head' }, h('span', { class: 'storage-name' }, name), h('code', { class: 'storage-path', title: path }, path));
  if (free === null || total === null || !(total > 0)) {
    const reason = `Cannot be read${folder.error ? `: ${folder.error}` : ''}`;
    return h('li', { class: 'storage-folder storage-unknown', dataset: { folder: name } }, head, h('span', { class: 'storage-free' }, reason));
  }
  const used = Math.min(1, Math.max(0, 1 - free / total));
  return h(
    'li',
    { class: `storage-folder${used >= NEARLY_FULL ? ' nearly-full' : ''}`, dataset: { folder: name } },
    head,
    h('meter', { min: '0', max: '1', low: '0.75', high: String(NEARLY_FULL), optimum: '0', value: used.toFixed(3), 'aria-label': `${name}: ${Math.round(used * 100)} % used` }),
    h('span', { class: 'storage-free' }, `${formatBytes(free)} free of ${formatBytes(total)}`),
  );
}

/** Reloads the free space of the data folders (beside the job list; a failure shows there, not as the page's error). */
async function refreshStorage(): Promise<void> {
  if (storageInFlight) return;
  storageInFlight = true;
  try {
    const status = await api<{ storage?: StorageFolder[] }>('/api/system/status');
    $('storage').replaceChildren(...(status.storage ?? []).map(storageItem));
  } catch (error) {
    $('storage').replaceChildren(h('li', { class: 'storage-folder storage-unknown' }, `Disk space unknown: ${messageOf(error)}`));
  } finally {
    storageInFlight = false;
  }
}

// ------------------------------------------------------------------ refresh

function schedule() {
  window.clearTimeout(timer);
  if (autoRefresh.checked) timer = window.setTimeout(tick, REFRESH_MS);
}

function tick() {
  // A hidden tab does not poll; it refreshes when it is shown again.
  if (document.hidden) schedule();
  else void refresh();
}

/** Reloads the job list (and the open details); concurrent calls share one request. */
function refresh(): Promise<void> {
  if (inFlight) return inFlight;
  window.clearTimeout(timer);
  void refreshStorage();
  inFlight = (async () => {
    try {
      const list = await api<JobSummary[]>(`/api/jobs?limit=${MAX_JOBS}`);
      jobs = list;
      renderCounts(list);
      renderTable(list);
      const now = new Date();
      const time = $<HTMLTimeElement>('last-updated');
      time.dateTime = now.toISOString();
      setText(time, formatTime(now));
      $('updated').classList.remove('stale');
      if (message.classList.contains('is-error') && message.textContent.startsWith('Refresh failed')) say('');
      if (list.length >= MAX_JOBS) say(`Showing the newest ${MAX_JOBS} jobs.`);
      // An active job in the details view follows its own live events (detailsFeed).
      if (detailsId && dialog.open && !detailsFeed && (detailsJob === null || changed(detailsJob, list))) {
        await loadDetails();
      }
    } catch (error) {
      $('updated').classList.add('stale');
      say(`Refresh failed: ${messageOf(error)}${autoRefresh.checked ? ' Retrying in 5 s.' : ''}`, true);
    } finally {
      inFlight = null;
      schedule();
    }
  })();
  return inFlight;
}

/** Whether the job shown in the details view changed in `list` (status or progress), or disappeared. */
function changed(job: Job, list: JobSummary[]) {
  const now = list.find((j) => j.id === job.id);
  return !now || now.status !== job.status || now.progress !== job.progress;
}

autoRefresh.addEventListener('change', () => {
  if (autoRefresh.checked) {
    say('Auto-refresh is on.');
    void refresh();
  } else {
    window.clearTimeout(timer);
    say('Auto-refresh is off. Use "Refresh now" to update.');
  }
});
$('refresh-now').addEventListener('click', () => void refresh());
$('filter-status').addEventListener('change', applyFilter);
$('filter-text').addEventListener('input', applyFilter);
document.addEventListener('visibilitychange', () => {
  if (!document.hidden && autoRefresh.checked) void refresh();
});

// ------------------------------------------------------------------ details view

let detailsId: string | null = null;
let detailsJob: Job | null = null;
/** Live events of the job in the details view while it is active. */
let detailsFeed: JobFeed | null = null;
/** The results view of the job in the details view (kept across re-renders, so its controls keep their state). */
let detailsResults: { id: string; view: HTMLElement } | null = null;

/** The job's `climate_source` parameter: Daymet cells, or the user's climate ZIP. */
interface ClimateSourceView {
  readonly type: 'daymet' | 'user';
  readonly cells?: readonly unknown[];
  readonly archive?: { readonly name: string };
  readonly layout?: string;
  readonly files?: readonly unknown[];
  readonly elevation?: unknown;
}

function climateSourceText(v: ClimateSourceView): string {
  if (v.type === 'daymet') return `Daymet, ${v.cells?.length ?? 0} cells of 1 km`;
  return `${v.archive?.name ?? 'climate file'} (${v.layout}, ${v.files?.length ?? 0} grids${v.elevation ? '' : ', no elevation grid'})`;
}

const PARAMETER_LABELS: Record<string, [string, (v: number) => string]> = {
  step: ['Time step', (v) => `${v} min`],
  linke_value: ['Linke turbidity', String],
  albedo_value: ['Albedo', String],
  num_threads: ['CPU threads', String],
  start_year: ['Start year', String],
  end_year: ['End year', String],
  products: ['Solar products written', String],
  climate_source: [
    'Climate',
    (v) => climateSourceText(v as unknown as ClimateSourceView),
  ],
};
const JOB_FIELDS = [
  'id',
  'workflow_type',
  'status',
  'progress',
  'progress_message',
  'dem_filename',
  'runtime',
  'output_estimate_bytes',
  'error_message',
  'created_at',
  'started_at',
  'completed_at',
  'parameters',
];

type Fact = [Node | string, Node | string, Record<string, string | Record<string, string>>?];

function facts(pairs: Fact[]) {
  return h('dl', { class: 'facts' }, ...pairs.flatMap(([term, value, props = {}]) => [h('dt', {}, term), h('dd', props, value)]));
}

function timestamp(iso: string | null) {
  return iso ? h('time', { datetime: iso, title: iso }, formatDateTime(iso)) : 'not yet';
}

function renderDetails(job: Job, logLines: string[], logError: string | null) {
  setText($('details-title'), `Job details: ${job.dem_filename}`);
  const progress = h(
    'div',
    { class: 'cell-progress' },
    h('progress', { max: '100', value: String(job.progress), 'aria-label': 'Progress' }),
    h('span', {}, `${job.progress} %`),
  );
  const jobFacts: Fact[] = [
    ['Job id', job.id, { class: 'mono' }],
    ['Workflow type', job.workflow_type],
    ['Status', statusBadge(job.status)],
    ['Progress', progress],
    ['Progress message', job.progress_message ?? '—', { dataset: { field: 'progress_message' } }],
    ['DEM file', job.dem_filename],
    ['Runtime', job.runtime ?? '—'],
    ['Output size (estimated)', typeof job.output_estimate_bytes === 'number' ? formatBytes(job.output_estimate_bytes) : '—', { dataset: { field: 'output_estimate_bytes' } }],
    ['Error message', job.error_message ?? 'none', job.error_message ? { class: 'error', dataset: { field: 'error_message' } } : { dataset: { field: 'error_message' } }],
  ];
  // Fields a newer service may add are shown too, as they come.
  for (const key of Object.keys(job)) {
    if (!JOB_FIELDS.includes(key)) jobFacts.push([key, typeof job[key] === 'object' ? JSON.stringify(job[key]) : String(job[key] ?? '—')]);
  }
  const params = job.parameters ?? {};
  const paramFacts = Object.keys(params).map((key): Fact => {
    const [label, format] = PARAMETER_LABELS[key] ?? [key, String];
    return [h('span', {}, label, ' ', h('code', {}, key)), format(params[key])];
  });
  const created = new Date(job.created_at).getTime();
  const started = job.started_at ? new Date(job.started_at).getTime() : NaN;
  const ended = job.completed_at ? new Date(job.completed_at).getTime() : Date.now();
  const timeFacts: Fact[] = [
    ['Created', timestamp(job.created_at)],
    ['Started', timestamp(job.started_at)],
    ['Completed', timestamp(job.completed_at)],
    ['Waited in queue', job.started_at ? formatDuration(started - created) : job.status === 'pending' ? formatDuration(Date.now() - created) + ' so far' : '—'],
    ['Run time', job.started_at ? formatDuration(ended - started) + (job.completed_at ? '' : ' so far') : '—'],
  ];
  const log = h('pre', { class: 'log', id: 'details-log', tabindex: '0', 'aria-label': 'Log' }, logError ?? (logLines.length ? logLines.join('\n') : '(the log is empty)'));
  let results: Node | null = null;
  if (job.status === 'completed') {
    if (detailsResults?.id !== job.id) detailsResults = { id: job.id, view: resultsView(job) };
    results = h('section', { class: 'details-results', 'aria-labelledby': 'details-results' }, h('h3', { id: 'details-results' }, 'Results'), detailsResults.view);
  }

  detailsBody.replaceChildren(
    // A completed job's maps and chart come first: they are what it was run for.
    ...(results ? [results] : []),
    h(
      'div',
      { class: 'details-grid' },
      h('section', { 'aria-labelledby': 'details-job' }, h('h3', { id: 'details-job' }, 'Job'), facts(jobFacts)),
      h(
        'section',
        { 'aria-labelledby': 'details-params' },
        h('h3', { id: 'details-params' }, 'Parameters'),
        facts(paramFacts),
        h('h3', { id: 'details-times' }, 'Timestamps'),
        facts(timeFacts),
      ),
    ),
    h('div', { class: 'actions' }, ...actionButtons(job, { withDetails: false })),
    h(
      'div',
      { class: 'log-head' },
      h('h3', {}, `Log (last ${LOG_LINES} lines)`),
      h('button', { type: 'button', class: 'small', dataset: { action: 'reload-details', key: 'reload' } }, 'Reload'),
    ),
    log,
  );
  return log;
}

/** Loads the job and its log tail into the open details view, keeping scroll positions and focus. */
async function loadDetails() {
  const id = detailsId;
  if (!id) return;
  let job: Job;
  try {
    job = await api<Job>(`/api/jobs/${encodeURIComponent(id)}`);
  } catch (error) {
    if (id !== detailsId) return;
    detailsJob = null;
    const text = error instanceof ApiError && error.status === 404 ? 'This job no longer exists: it was deleted.' : `Could not load the job: ${messageOf(error)}`;
    detailsBody.replaceChildren(h('p', { class: 'error' }, text));
    return;
  }
  let lines: string[] = [];
  let logError: string | null = null;
  try {
    lines = (await api<{ lines: string[] }>(`/api/jobs/${encodeURIComponent(id)}/logs?tail=${LOG_LINES}`)).lines;
  } catch (error) {
    logError = `The log could not be loaded: ${messageOf(error)}`;
  }
  if (id !== detailsId) return;
  const oldLog = $('details-log');
  const stick = !oldLog || oldLog.scrollTop + oldLog.clientHeight >= oldLog.scrollHeight - 4;
  const oldLogTop = oldLog?.scrollTop ?? 0;
  const dialogTop = dialog.scrollTop;
  const active = document.activeElement as HTMLElement | null;
  const focusKey = active && detailsBody.contains(active) ? (active.dataset.key ?? active.id) : null;
  detailsJob = job;
  const log = renderDetails(job, lines, logError);
  log.scrollTop = stick ? log.scrollHeight : oldLogTop;
  dialog.scrollTop = dialogTop;
  if (focusKey) (detailsBody.querySelector<HTMLElement>(`[data-key="${focusKey}"]`) ?? document.getElementById(focusKey) ?? $('details-close')).focus();
  watchDetails(job);
}

/**
 * While the job in the details view is pending or running, its live events update the view: progress in place,
 * the whole view (with the log) when its status changes. The feed polls when the events are not available.
 */
function watchDetails(job: Job) {
  if (!ACTIVE.has(job.status) || detailsFeed) return;
  const id = job.id;
  detailsFeed = followJob(id, {
    update: (fresh) => {
      if (id !== detailsId) return;
      dialog.dataset.feed = detailsFeed?.mode ?? 'events';
      if (!detailsJob || fresh.status !== detailsJob.status) {
        if (!ACTIVE.has(fresh.status)) stopDetailsFeed();
        void loadDetails();
        void refresh();
        return;
      }
      detailsJob = fresh;
      const progress = detailsBody.querySelector<HTMLProgressElement>('.cell-progress progress');
      const pct = detailsBody.querySelector('.cell-progress span');
      const note = detailsBody.querySelector('[data-field="progress_message"]');
      if (progress) progress.value = fresh.progress;
      if (pct) setText(pct, `${fresh.progress} %`);
      if (note) setText(note, fresh.progress_message ?? '—');
    },
    gone: () => void loadDetails(),
    problem: () => undefined,
  });
}

function stopDetailsFeed() {
  detailsFeed?.stop();
  detailsFeed = null;
}

function setUrlJob(id: string | null) {
  const url = new URL(location.href);
  if (id) url.searchParams.set('job', id);
  else url.searchParams.delete('job');
  history.replaceState(null, '', url);
}

async function openDetails(id: string) {
  stopDetailsFeed();
  detailsId = id;
  detailsJob = null;
  setUrlJob(id);
  setText($('details-title'), `Job details: job ${shortId(id)}`);
  detailsBody.replaceChildren(h('p', {}, 'Loading…'));
  if (!dialog.open) dialog.showModal();
  await loadDetails();
}

$('details-close').addEventListener('click', () => dialog.close());
dialog.addEventListener('close', () => {
  stopDetailsFeed();
  delete dialog.dataset.feed;
  detailsId = null;
  detailsJob = null;
  setUrlJob(null);
});
// A click on the backdrop (outside the dialog box) closes it.
dialog.addEventListener('click', (event) => {
  if (event.target === dialog) {
    const r = dialog.getBoundingClientRect();
    if (event.clientX < r.left || event.clientX > r.right || event.clientY < r.top || event.clientY > r.bottom) dialog.close();
  }
});

// ------------------------------------------------------------------ start

void refresh();
const initial = new URL(location.href).searchParams.get('job');
if (initial) void openDetails(initial);
