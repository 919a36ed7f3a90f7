/** Job records as OGC API – Processes status information (statusInfo.yaml of OGC 18-062r2). */
import { CANCELLED_MESSAGE } from '../../jobs/queue/scheduler.js';
import type { JobRecord, JobStatus } from '../../jobs/types.js';

export type OgcStatus = 'accepted' | 'running' | 'successful' | 'failed' | 'dismissed';
export const OGC_STATUSES: readonly OgcStatus[] = ['accepted', 'running', 'successful', 'failed', 'dismissed'];

export const REL = {
  results: 'http://www.opengis.net/def/rel/ogc/1.0/results',
  conformance: 'http://www.opengis.net/def/rel/ogc/1.0/conformance',
  processes: 'http://www.opengis.net/def/rel/ogc/1.0/processes',
  jobList: 'http://www.opengis.net/def/rel/ogc/1.0/job-list',
  execute: 'http://www.opengis.net/def/rel/ogc/1.0/execute',
} as const;

export interface Link {
  href: string;
  rel: string;
  type?: string;
  title?: string;
}

/** The OGC status of a job: pending is accepted, completed successful; a job cancelled by its user was dismissed. */
export function ogcStatus(job: Pick<JobRecord, 'status' | 'error_message'>): OgcStatus {
  const map: Record<JobStatus, OgcStatus> = { pending: 'accepted', running: 'running', completed: 'successful', failed: 'failed' };
  if (job.status === 'failed' && job.error_message === CANCELLED_MESSAGE) return 'dismissed';
  return map[job.status];
}

export function statusInfo(job: JobRecord, base: string, status: OgcStatus = ogcStatus(job)) {
  const links: Link[] = [
    { href: `${base}/ogc/jobs/${job.id}`, rel: 'self', type: 'application/json', title: 'Job status' },
    { href: `${base}/api/jobs/${job.id}/events`, rel: 'alternate', type: 'text/event-stream', title: 'Live progress (Server-Sent Events)' },
  ];
  if (status === 'successful') {
    links.push({ href: `${base}/ogc/jobs/${job.id}/results`, rel: REL.results, type: 'application/json', title: 'Job results' });
  }
  return {
    processID: job.workflow_type,
    type: 'process' as const,
    jobID: job.id,
    status,
    message: job.error_message ?? job.progress_message ?? '',
    created: job.created_at,
    ...(job.started_at ? { started: job.started_at } : {}),
    ...(job.completed_at ? { finished: job.completed_at } : {}),
    updated: job.updated_at,
    progress: job.progress,
    links,
  };
}
