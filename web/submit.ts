// The web interface (/): submit a job with upload progress, follow its status (live events, or polling when they
// fail), show and download the results, and list the recent jobs.
import {
  ACTIVE,
  announce,
  api,
  detailOf,
  detailsUrl,
  formatAgo,
  formatBytes,
  formatDateTime,
  formatDuration,
  h,
  resultsUrl,
  setText,
  shortId,
  statusBadge,
  type Job,
  type JobSummary,
} from './common.js';
import { followJob, type JobFeed } from './jobFeed.js';
import { resultsView } from './results.js';

/** Refresh interval of the recent-jobs list [ms]. */
const RECENT_MS = 10000;
const RECENT_COUNT = 8;

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;
const form = $<HTMLFormElement>('submit-form');
const submitButton = $<HTMLButtonElement>('submit-button');
const years = $<HTMLFieldSetElement>('years');
const model = $<HTMLFieldSetElement>('model');
const fileInput = $<HTMLInputElement>('dem_file');
const NUMERIC_FIELDS = ['step', 'linke_value', 'albedo_value', 'num_threads', 'start_year', 'end_year'];
/** The EEMT model choices (select boxes; eemt only). */
const MODEL_FIELDS = ['pet_method', 'topo_npp', 'topo_radiation', 'lieth_npp_gate'];
/** The text fields of the parameters written in a grammar (the server checks them and names the bad item). */
const TEXT_FIELDS = ['products'];
const FIELDS = ['workflow_type', 'dem_file', ...NUMERIC_FIELDS, ...MODEL_FIELDS, ...TEXT_FIELDS, 'climate_file'];
const announcer = $('announcer');
const DEM_HINT = $('dem_file-hint').textContent ?? '';

// ------------------------------------------------------------------ form: workflow choice and errors

function workflowType(): string {
  return (form.elements.namedItem('workflow_type') as RadioNodeList).value;
}

/** The climate years and the EEMT model choices are asked for (and sent) only for eemt. */
function updateYears() {
  const eemt = workflowType() === 'eemt';
  for (const fieldset of [years, model]) {
    fieldset.hidden = !eemt;
    fieldset.disabled = !eemt;
  }
  if (!eemt) {
    clearError('start_year');
    clearError('end_year');
    for (const field of MODEL_FIELDS) clearError(field);
  }
}

function inputOf(field: string): HTMLInputElement | HTMLSelectElement | null {
  if (field === 'workflow_type') return form.querySelector<HTMLInputElement>('input[name="workflow_type"]:checked');
  return $<HTMLInputElement>(field);
}

function showError(field: string, message: string) {
  const slot = $(`${field}-error`);
  slot.textContent = message;
  slot.hidden = false;
  if (field === 'workflow_type') $('workflow_type-field').setAttribute('aria-invalid', 'true');
  else $(field).setAttribute('aria-invalid', 'true');
}

function clearError(field: string) {
  const slot = $(`${field}-error`);
  slot.textContent = '';
  slot.hidden = true;
  if (field === 'workflow_type') $('workflow_type-field').removeAttribute('aria-invalid');
  else $(field).removeAttribute('aria-invalid');
}

function showFormError(message: string) {
  const slot = $('form-error');
  slot.textContent = message;
  slot.hidden = false;
}

function clearErrors() {
  for (const field of FIELDS) clearError(field);
  $('form-error').hidden = true;
  $('form-error').textContent = '';
}

/**
 * The form field a server `detail` is about: details name the field (`linke_value must be …`, `end_year (…) must not
 * be before start_year`), or speak of the DEM file or the workflow type. The earliest field named wins.
 */
export function fieldOfDetail(detail: string): string | null {
  if (/^DEM file|\bdem_file\b/i.test(detail)) return 'dem_file';
  let best: string | null = null;
  let bestAt = Infinity;
  for (const field of FIELDS) {
    const at = detail.search(new RegExp(`\\b${field}\\b`));
    if (at >= 0 && at < bestAt) {
      best = field;
      bestAt = at;
    }
  }
  if (best) return best;
  if (/workflow type/i.test(detail)) return 'workflow_type';
  return null;
}

/** Shows a server error next to the field it concerns (or above the form), and moves the focus there. */
function showServerError(detail: string) {
  const field = fieldOfDetail(detail);
  const input = field ? inputOf(field) : null;
  if (field && input && !input.disabled) {
    showError(field, detail);
    input.focus();
  } else {
    showFormError(detail);
    $('form-error').focus();
  }
}

/** The form's own checks, in plain words, from the inputs' min/max/step attributes. */
function checkForm() {
  clearErrors();
  const problems: [string, string][] = [];
  if (!fileInput.files || fileInput.files.length === 0) problems.push(['dem_file', 'Choose a DEM file (a GeoTIFF, .tif).']);
  for (const name of NUMERIC_FIELDS) {
    const input = $<HTMLInputElement>(name);
    if (input.disabled) continue;
    const v = input.validity;
    const range = input.min !== '' && input.max !== '' ? ` from ${input.min} to ${input.max}` : '';
    if (v.badInput) problems.push([name, `Enter a number${range}.`]);
    else if (v.valueMissing) problems.push([name, `Enter a value${range}.`]);
    else if (v.rangeUnderflow || v.rangeOverflow) problems.push([name, `Enter a value${range}; ${input.value} is out of range.`]);
    else if (v.stepMismatch) problems.push([name, `Enter a whole number${range}.`]);
  }
  if (!years.disabled) {
    const start = Number($<HTMLInputElement>('start_year').value);
    const end = Number($<HTMLInputElement>('end_year').value);
    if (!problems.some(([f]) => f === 'start_year' || f === 'end_year') && end < start) {
      problems.push(['end_year', 'The end year must not be before the start year.']);
    }
  }
  for (const [field, message] of problems) showError(field, message);
  if (problems.length > 0) inputOf(problems[0]![0])?.focus();
  return problems.length === 0;
}

// ------------------------------------------------------------------ submission with upload progress

let upload: XMLHttpRequest | null = null;

function setUploading(active: boolean) {
  submitButton.disabled = active;
  form.setAttribute('aria-busy', String(active));
  $('upload-cancel').hidden = !active;
}

function uploadStatus(text: string, fraction: number | null) {
  $('upload').hidden = false;
  if (fraction !== null) $<HTMLProgressElement>('upload-progress').value = Math.round(fraction * 1000) / 10;
  setText($('upload-text'), text);
}

function submitJob() {
  const file = fileInput.files![0]!;
  const data = new FormData();
  data.append('workflow_type', workflowType());
  for (const name of NUMERIC_FIELDS) {
    const input = $<HTMLInputElement>(name);
    if (!input.disabled) data.append(name, input.value.trim());
  }
  for (const name of MODEL_FIELDS) {
    const select = $<HTMLSelectElement>(name);
    if (!select.disabled) data.append(name, select.value);
  }
  for (const name of TEXT_FIELDS) {
    const input = $<HTMLInputElement>(name);
    if (!input.disabled) data.append(name, input.value);
  }
  // The files go last: the small fields reach the server first.
  const climate = $<HTMLInputElement>('climate_file');
  const climateFile = climate.disabled ? undefined : climate.files?.[0];
  if (climateFile) data.append('climate_file', climateFile, climateFile.name);
  data.append('dem_file', file, file.name);

  const xhr = new XMLHttpRequest();
  upload = xhr;
  const started = performance.now();
  xhr.open('POST', '/api/submit-job');
  xhr.responseType = 'text';
  xhr.setRequestHeader('Accept', 'application/json');
  xhr.upload.onprogress = (event) => {
    if (!event.lengthComputable) {
      uploadStatus(`Uploading… ${formatBytes(event.loaded)} sent`, null);
      return;
    }
    const fraction = event.total > 0 ? event.loaded / event.total : 1;
    const seconds = (performance.now() - started) / 1000;
    const rate = seconds > 0 ? event.loaded / seconds : 0;
    const eta = rate > 0 && fraction < 1 ? `, about ${formatDuration(((event.total - event.loaded) / rate) * 1000)} left` : '';
    uploadStatus(`Uploading… ${formatBytes(event.loaded)} of ${formatBytes(event.total)} (${Math.floor(fraction * 100)} %)${eta}`, fraction);
  };
  xhr.upload.onload = () => uploadStatus(`Upload complete (${formatBytes(file.size)}). The server is checking the DEM…`, 1);
  xhr.onload = () => {
    upload = null;
    setUploading(false);
    if (xhr.status === 200) {
      let ack: { job_id?: unknown } | null;
      try {
        ack = JSON.parse(xhr.responseText) as { job_id?: unknown } | null;
      } catch {
        ack = null;
      }
      if (!ack || typeof ack.job_id !== 'string') {
        showFormError('The server accepted the upload but sent an unexpected answer.');
        return;
      }
      const jobId = ack.job_id;
      uploadStatus(`Uploaded ${file.name} (${formatBytes(file.size)}) and submitted as job ${shortId(jobId)}.`, 1);
      announce(announcer, 'Job submitted. Its status is shown next to the form.');
      follow(jobId);
      void refreshRecent();
      return;
    }
    const detail = detailOf(xhr.status, xhr.responseText);
    uploadStatus(`The server refused the submission (${xhr.status}).`, null);
    showServerError(detail);
  };
  xhr.onerror = () => {
    upload = null;
    setUploading(false);
    uploadStatus('The upload failed.', null);
    showFormError('The upload failed: the connection to the server was lost. Check that the service is running and try again.');
  };
  xhr.onabort = () => {
    upload = null;
    setUploading(false);
    uploadStatus('Upload cancelled. Nothing was submitted.', 0);
  };
  setUploading(true);
  uploadStatus(`Uploading… 0 B of ${formatBytes(file.size)} (0 %)`, 0);
  xhr.send(data);
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  if (upload) return;
  if (checkForm()) submitJob();
});
form.addEventListener('change', (event) => {
  const target = event.target as HTMLInputElement;
  if (target.name === 'workflow_type') {
    clearError('workflow_type');
    updateYears();
  } else if (FIELDS.includes(target.name)) {
    clearError(target.name);
  }
  const chosen = fileInput.files?.[0];
  if (target === fileInput && chosen) setText($('dem_file-hint'), `${chosen.name}: ${formatBytes(chosen.size)}.`);
});
form.addEventListener('reset', () => {
  // The reset happens after this event: read the restored values on the next task.
  setTimeout(() => {
    clearErrors();
    updateYears();
    $('dem_file-hint').textContent = DEM_HINT;
  }, 0);
});
$('upload-cancel').addEventListener('click', () => upload?.abort());

// ------------------------------------------------------------------ following a job

let feed: JobFeed | null = null;
let lastStatus: string | null = null;
let resultsShown: string | null = null;

const STATUS_WORDS: Record<string, (job: Job) => string> = {
  pending: () => 'is waiting in the queue',
  running: () => 'is running',
  completed: () => 'completed. The results are ready to download',
  failed: (job) => `failed: ${job.error_message ?? 'no reason given'}`,
};

function renderJob(job: Job) {
  const panel = $('job');
  panel.hidden = false;
  if (feed) panel.dataset.feed = feed.mode;
  const badge = $('job-status');
  badge.replaceChildren(statusBadge(job.status));
  $<HTMLProgressElement>('job-progress').value = job.progress;
  setText($('job-pct'), `${job.progress} %`);
  $('job-progress').setAttribute('aria-valuetext', `${job.progress} percent, ${job.status}`);
  const message =
    job.status === 'pending'
      ? 'Waiting in the queue…'
      : job.status === 'running'
        ? job.progress_message || 'Running…'
        : job.status === 'completed'
          ? 'Finished. The results are ready to download.'
          : 'The job failed.';
  setText($('job-message'), message);
  const error = $('job-error');
  error.hidden = !job.error_message;
  setText(error, job.error_message ?? '');
  setText($('job-file'), job.dem_filename);
  setText($('job-type'), job.workflow_type);
  setText($('job-estimate'), typeof job.output_estimate_bytes === 'number' ? `about ${formatBytes(job.output_estimate_bytes)}` : '—');
  setText($('job-id'), job.id);
  setText($('job-created'), formatDateTime(job.created_at));
  setText($('job-started'), formatDateTime(job.started_at));
  setText($('job-completed'), formatDateTime(job.completed_at));
  const start = job.started_at ? new Date(job.started_at).getTime() : NaN;
  const end = job.completed_at ? new Date(job.completed_at).getTime() : Date.now();
  setText($('job-elapsed'), job.started_at ? formatDuration(end - start) : '—');
  const download = $<HTMLAnchorElement>('download');
  download.hidden = job.status !== 'completed';
  download.href = resultsUrl(job.id);
  download.setAttribute('download', `eemt_results_${job.id}.zip`);
  $<HTMLAnchorElement>('job-details').href = detailsUrl(job.id);
  renderResults(job);

  if (job.status !== lastStatus) {
    if (lastStatus !== null || !ACTIVE.has(job.status)) {
      announce(announcer, `Job for ${job.dem_filename} ${STATUS_WORDS[job.status]?.(job) ?? job.status}.`);
    }
    lastStatus = job.status;
    if (!ACTIVE.has(job.status)) void refreshRecent();
  }
}

/** The maps and the chart of a completed job, in their own panel (built once per job). */
function renderResults(job: Job) {
  const panel = $('results-panel');
  if (job.status !== 'completed') {
    panel.hidden = true;
    return;
  }
  if (resultsShown === job.id) return;
  resultsShown = job.id;
  $('results-body').replaceChildren(resultsView(job));
  panel.hidden = false;
}

function follow(id: string) {
  feed?.stop();
  lastStatus = null;
  resultsShown = null;
  $('results-panel').hidden = true;
  const url = new URL(location.href);
  url.searchParams.set('job', id);
  history.replaceState(null, '', url);
  let first = true;
  feed = followJob(id, {
    update: (job) => {
      renderJob(job);
      if (first) {
        first = false;
        // On narrow screens the status panel sits below the form.
        const smooth = !matchMedia('(prefers-reduced-motion: reduce)').matches;
        $('job').scrollIntoView({ block: 'nearest', behavior: smooth ? 'smooth' : 'auto' });
      }
    },
    gone: () => {
      $('job').hidden = false;
      $('job-status').replaceChildren();
      setText($('job-message'), 'This job no longer exists: it was deleted.');
      $('download').hidden = true;
      $('results-panel').hidden = true;
    },
    problem: (text) => {
      $('job').hidden = false;
      setText($('job-message'), text);
    },
  });
}

// ------------------------------------------------------------------ recent jobs

let recentKey = '';
let recentTimer = 0;

async function refreshRecent() {
  window.clearTimeout(recentTimer);
  try {
    const jobs = await api<JobSummary[]>(`/api/jobs?limit=${RECENT_COUNT}`);
    const key = JSON.stringify(jobs);
    // Unchanged lists are not rebuilt, so keyboard focus inside the list stays put.
    if (key !== recentKey) {
      recentKey = key;
      const now = Date.now();
      $('recent').replaceChildren(
        ...jobs.map((job) =>
          h(
            'li',
            {},
            h('a', { href: detailsUrl(job.id), title: `Details of job ${job.id}` }, job.dem_filename),
            statusBadge(job.status),
            h('span', { class: 'meta' }, `${job.workflow_type} · ${job.progress} % · ${formatAgo(job.created_at, now)} · job ${shortId(job.id)}`),
          ),
        ),
      );
      $('recent-empty').hidden = jobs.length > 0;
    }
  } catch {
    // The list is secondary: it is retried on the next round.
  }
  recentTimer = window.setTimeout(refreshRecent, RECENT_MS);
}

// ------------------------------------------------------------------ start

updateYears();
setUploading(false);
void refreshRecent();
const initial = new URL(location.href).searchParams.get('job');
if (initial) follow(initial);
