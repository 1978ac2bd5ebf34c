import { ApiError, errorMessage } from '../api.js';
import { errorBox, formatDate, h, link } from '../dom.js';
import { coalesce, readJob } from '../jobs-store.js';
import { liveEvents } from '../live.js';
import type { JobDetail, JobResult } from '../types.js';
import { statusBadge } from './jobs.js';

export function notFound(what: string): HTMLElement {
  return h(
    'div',
    { class: 'card', role: 'alert' },
    h('h1', {}, `${what} not found`),
    h('p', {}, `No ${what.toLowerCase()} with this id belongs to the account and environment of your key.`),
    link('Back to the jobs', '#/jobs'),
  );
}

export function resultTile(jobId: string, result: JobResult): HTMLElement {
  const href = `#/jobs/${jobId}/results/${result.id}`;
  const picture = result.thumbnail_url
    ? h('img', { src: result.thumbnail_url, alt: `Result ${result.index + 1}`, class: 'thumb', loading: 'lazy' })
    : h('div', { class: 'thumb placeholder' }, result.status);
  return h(
    'li',
    { class: 'tile' },
    h(
      'a',
      { href, 'aria-label': `Result ${result.index + 1}: ${result.status}` },
      h('div', { class: 'checker' }, picture),
      h('span', {}, `#${result.index + 1} `, statusBadge(result.status)),
    ),
    result.external_id ? h('span', { class: 'muted' }, result.external_id) : null,
    result.uncertainty != null ? h('span', { class: 'muted' }, `uncertainty ${result.uncertainty.toFixed(2)}`) : null,
    result.error_code ? h('span', { class: 'error-text' }, result.error_code) : null,
  );
}

/** One job with its results as thumbnails, re-read when the stream says it changed. */
export function renderJob(main: HTMLElement, [jobId]: string[]): () => void {
  const body = h('div', { 'aria-live': 'polite' }, h('p', {}, 'Loading…'));
  main.append(body);

  const draw = ({ job, results }: JobDetail) => {
    body.replaceChildren(
      h('p', {}, link('← Jobs', '#/jobs')),
      h('h1', {}, 'Job ', h('span', { class: 'mono' }, job.id)),
      h(
        'dl',
        { class: 'facts' },
        h('dt', {}, 'Tool'),
        h('dd', {}, job.api),
        h('dt', {}, 'Status'),
        h('dd', {}, statusBadge(job.status)),
        h('dt', {}, 'Results'),
        h('dd', {}, `${job.completed_results} completed, ${job.failed_results} failed, of ${job.total_results}`),
        h('dt', {}, 'Credits'),
        h('dd', {}, job.sandbox ? 'sandbox (none)' : `${job.credits_used} used of ${job.credits_reserved} reserved`),
        h('dt', {}, 'Created'),
        h('dd', {}, formatDate(job.created_at)),
        h('dt', {}, 'Finished'),
        h('dd', {}, formatDate(job.completed_at)),
      ),
      h('ul', { class: 'tiles' }, ...results.map((result) => resultTile(job.id, result))),
    );
  };

  const load = (fresh: boolean) =>
    readJob(jobId, fresh)
      .then(draw)
      .catch((error: unknown) => {
        body.replaceChildren(
          error instanceof ApiError && error.status === 404 ? notFound('Job') : errorBox(errorMessage(error)),
        );
      });
  const reread = coalesce(() => void load(true));
  const unsubscribe = liveEvents.subscribe((change) => {
    if (change === 'resync' || change.job_id === jobId) reread(jobId);
  });
  void load(true);
  return unsubscribe;
}
