// The web interface (/): submit a job with upload progress, follow its status, download the results,
// and list the recent jobs.
import {
  ACTIVE,
  ApiError,
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
} from './common.js';

/** Poll interval of the job being followed while it is pending or running [ms]. */
const FOLLOW_MS = 2000;
/** Refresh interval of the recent-jobs list [ms]. */
const RECENT_MS = 10000;
const RECENT_COUNT = 8;

const $ = (id) => document.getElementById(id);
const form = $('submit-form');
const submitButton = $('submit-button');
const years = $('years');
const fileInput = $('dem_file');
const NUMERIC_FIELDS = ['step', 'linke_value', 'albedo_value', 'num_threads', 'start_year', 'end_year'];
const FIELDS = ['workflow_type', 'dem_file', ...NUMERIC_FIELDS, 'climate_file'];
const announcer = $('announcer');
const DEM_HINT = $('dem_file-hint').textContent;

// ------------------------------------------------------------------ form: workflow choice and errors

function workflowType() {
  return form.elements.namedItem('workflow_type').value;
}

/** The climate years are asked for (and sent) only for eemt. */
function updateYears() {
  const eemt = workflowType() === 'eemt';
  years.hidden = !eemt;
  years.disabled = !eemt;
  if (!eemt) {
    clearError('start_year');
    clearError('end_year');
  }
}

function inputOf(field) {
  if (field === 'workflow_type') return form.querySelector('input[name="workflow_type"]:checked');
  return $(field);
}

function showError(field, message) {
  const slot = $(`${field}-error`);
  slot.textContent = message;
  slot.hidden = false;
  if (field === 'workflow_type') $('workflow_type-field').setAttribute('aria-invalid', 'true');
  else $(field).setAttribute('aria-invalid', 'true');
}

function clearError(field) {
  const slot = $(`${field}-error`);
  slot.textContent = '';
  slot.hidden = true;
  if (field === 'workflow_type') $('workflow_type-field').removeAttribute('aria-invalid');
  else $(field).removeAttribute('aria-invalid');
}

function showFormError(message) {
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
export function fieldOfDetail(detail) {
  if (/^DEM file|\bdem_file\b/i.test(detail)) return 'dem_file';
  let best = null;
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
function showServerError(detail) {
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
  const problems = [];
  if (!fileInput.files || fileInput.files.length === 0) problems.push(['dem_file', 'Choose a DEM file (a GeoTIFF, .tif).']);
  for (const name of NUMERIC_FIELDS) {
    const input = $(name);
    if (input.disabled) continue;
    const v = input.validity;
    const range = input.min !== '' && input.max !== '' ? ` from ${input.min} to ${input.max}` : '';
    if (v.badInput) problems.push([name, `Enter a number${range}.`]);
    else if (v.valueMissing) problems.push([name, `Enter a value${range}.`]);
    else if (v.rangeUnderflow || v.rangeOverflow) problems.push([name, `Enter a value${range}; ${input.value} is out of range.`]);
    else if (v.stepMismatch) problems.push([name, `Enter a whole number${range}.`]);
  }
  if (!years.disabled) {
    const start = Number($('start_year').value);
    const end = Number($('end_year').value);
    if (!problems.some(([f]) => f === 'start_year' || f === 'end_year') && end < start) {
      problems.push(['end_year', 'The end year must not be before the start year.']);
    }
  }
  for (const [field, message] of problems) showError(field, message);
  if (problems.length > 0) inputOf(problems[0][0]).focus();
  return problems.length === 0;
}

// ------------------------------------------------------------------ submission with upload progress

let upload = null;

function setUploading(active) {
  submitButton.disabled = active;
  form.setAttribute('aria-busy', String(active));
  $('upload-cancel').hidden = !active;
}

function uploadStatus(text, fraction) {
  $('upload').hidden = false;
  if (fraction !== null) $('upload-progress').value = Math.round(fraction * 1000) / 10;
  setText($('upload-text'), text);
}

function submitJob() {
  const file = fileInput.files[0];
  const data = new FormData();
  data.append('workflow_type', workflowType());
  for (const name of NUMERIC_FIELDS) {
    const input = $(name);
    if (!input.disabled) data.append(name, input.value.trim());
  }
  // The files go last: the small fields reach the server first.
  const climate = $('climate_file');
  if (!climate.disabled && climate.files.length > 0) data.append('climate_file', climate.files[0], climate.files[0].name);
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
      let ack;
      try {
        ack = JSON.parse(xhr.responseText);
      } catch {
        ack = null;
      }
      if (!ack || typeof ack.job_id !== 'string') {
        showFormError('The server accepted the upload but sent an unexpected answer.');
        return;
      }
      uploadStatus(`Uploaded ${file.name} (${formatBytes(file.size)}) and submitted as job ${shortId(ack.job_id)}.`, 1);
      announce(announcer, 'Job submitted. Its status is shown next to the form.');
      void follow(ack.job_id).then(() => {
        // On narrow screens the status panel sits below the form.
        const smooth = !matchMedia('(prefers-reduced-motion: reduce)').matches;
        $('job').scrollIntoView({ block: 'nearest', behavior: smooth ? 'smooth' : 'auto' });
      });
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
  const target = event.target;
  if (target.name === 'workflow_type') {
    clearError('workflow_type');
    updateYears();
  } else if (FIELDS.includes(target.name)) {
    clearError(target.name);
  }
  if (target === fileInput && fileInput.files[0]) {
    setText($('dem_file-hint'), `${fileInput.files[0].name}: ${formatBytes(fileInput.files[0].size)}.`);
  }
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

let followed = null;
let followTimer = 0;
let lastStatus = null;

function renderJob(job) {
  const panel = $('job');
  panel.hidden = false;
  const badge = $('job-status');
  badge.replaceChildren(statusBadge(job.status));
  $('job-progress').value = job.progress;
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
  setText($('job-id'), job.id);
  setText($('job-created'), formatDateTime(job.created_at));
  setText($('job-started'), formatDateTime(job.started_at));
  setText($('job-completed'), formatDateTime(job.completed_at));
  const start = job.started_at ? new Date(job.started_at).getTime() : NaN;
  const end = job.completed_at ? new Date(job.completed_at).getTime() : Date.now();
  setText($('job-elapsed'), job.started_at ? formatDuration(end - start) : '—');
  const download = $('download');
  download.hidden = job.status !== 'completed';
  download.href = resultsUrl(job.id);
  download.setAttribute('download', `eemt_results_${job.id}.zip`);
  $('job-details').href = detailsUrl(job.id);

  if (job.status !== lastStatus) {
    if (lastStatus !== null || !ACTIVE.has(job.status)) {
      const words = {
        pending: 'is waiting in the queue',
        running: 'is running',
        completed: 'completed. The results are ready to download',
        failed: `failed: ${job.error_message ?? 'no reason given'}`,
      };
      announce(announcer, `Job for ${job.dem_filename} ${words[job.status] ?? job.status}.`);
    }
    lastStatus = job.status;
  }
}

async function poll() {
  clearTimeout(followTimer);
  const id = followed;
  if (!id) return;
  try {
    const job = await api(`/api/jobs/${encodeURIComponent(id)}`);
    if (id !== followed) return;
    renderJob(job);
    if (ACTIVE.has(job.status)) followTimer = setTimeout(poll, FOLLOW_MS);
    else void refreshRecent();
  } catch (error) {
    if (id !== followed) return;
    $('job').hidden = false;
    if (error instanceof ApiError && error.status === 404) {
      $('job-status').replaceChildren();
      setText($('job-message'), 'This job no longer exists: it was deleted.');
      $('download').hidden = true;
      followed = null;
      return;
    }
    setText($('job-message'), `Could not update the status: ${error.message}. Retrying…`);
    followTimer = setTimeout(poll, FOLLOW_MS * 2);
  }
}

function follow(id) {
  followed = id;
  lastStatus = null;
  const url = new URL(location.href);
  url.searchParams.set('job', id);
  history.replaceState(null, '', url);
  return poll();
}

// ------------------------------------------------------------------ recent jobs

let recentKey = '';
let recentTimer = 0;

async function refreshRecent() {
  clearTimeout(recentTimer);
  try {
    const jobs = await api(`/api/jobs?limit=${RECENT_COUNT}`);
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
  recentTimer = setTimeout(refreshRecent, RECENT_MS);
}

// ------------------------------------------------------------------ start

updateYears();
setUploading(false);
void refreshRecent();
const initial = new URL(location.href).searchParams.get('job');
if (initial) void follow(initial);
