/**
 * Links of a list page (the process list and the job list, /req/core/pl-links and /req/job-list/links): `self`,
 * and `next` / `prev` when there are more items on either side (/rec/core/next-1, /per/core/prev). Next and
 * previous pages keep every query parameter of the request (filters, limit) and replace only the paging ones.
 */
import type { Link } from './statusInfo.js';

/** The query parameters that say which page; the others select and are kept. */
const PAGING_PARAMETERS = ['offset', 'before', 'after'] as const;

export interface PageCursors {
  readonly next?: Record<string, string | number>;
  readonly prev?: Record<string, string | number>;
}

/**
 * `self` (the request as it was made), then `next` and `prev` with their cursors. `base` is the origin, `url`
 * the request's path and query.
 */
export function pageLinks(base: string, url: string, title: string, cursors: PageCursors): Link[] {
  const [path, search = ''] = url.split('?', 2) as [string, string?];
  const link = (rel: string, cursor: Record<string, string | number>, linkTitle: string): Link => {
    const query = new URLSearchParams(search);
    for (const name of PAGING_PARAMETERS) query.delete(name);
    for (const [name, value] of Object.entries(cursor)) query.set(name, String(value));
    const text = query.toString();
    return { href: `${base}${path}${text ? `?${text}` : ''}`, rel, type: 'application/json', title: linkTitle };
  };
  return [
    { href: `${base}${url}`, rel: 'self', type: 'application/json', title: `${title}: this page` },
    ...(cursors.next ? [link('next', cursors.next, `${title}: next page`)] : []),
    ...(cursors.prev ? [link('prev', cursors.prev, `${title}: previous page`)] : []),
  ];
}
