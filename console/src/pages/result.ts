import { ApiError, errorMessage } from '../api.js';
import { errorBox, formatDate, h, link } from '../dom.js';
import { coalesce, readJob } from '../jobs-store.js';
import { liveEvents } from '../live.js';
import type { JobResult } from '../types.js';
import { statusBadge } from './jobs.js';
import { notFound } from './job.js';

/**
 * The original as the service read it, from the result's `source_preview_url` (never the customer's
 * URL, which the console's policy does not allow), or a note where there is no preview: none was
 * made, or the result's files have expired.
 */
function originalImage(result: JobResult, className: string, role: string): HTMLElement {
  if (!result.source_preview_url) {
    return h(
      'div',
      { class: `${className} original-missing`, 'data-role': `${role}-missing` },
      'Original not available',
    );
  }
  return h('img', { src: result.source_preview_url, alt: 'Original', class: className, 'data-role': role });
}

/** The before/after slider: the result over the original, cut at the slider's position. */
function beforeAfter(result: JobResult, resultUrl: string): HTMLElement {
  const after = h('img', { src: resultUrl, alt: 'Result', class: 'layer after', 'data-role': 'compare-after' });
  const slider = h('input', {
    type: 'range',
    min: 0,
    max: 100,
    value: 50,
    'aria-label': 'Before and after: share of the result shown',
  });
  const place = () => {
    after.style.clipPath = `inset(0 ${100 - Number(slider.value)}% 0 0)`;
  };
  slider.addEventListener('input', place);
  place();
  const before = originalImage(result, 'layer before', 'compare-before');
  return h(
    'figure',
    { class: 'compare' },
    h('div', { class: 'stack checker' }, before, after),
    slider,
    h('figcaption', {}, 'Before (left of the cut) and after'),
  );
}

/** One result: original and result side by side, the slider, the cut-out over a checkerboard, its figures. */
export function renderResult(main: HTMLElement, [jobId, resultId]: string[]): () => void {
  const body = h('div', { 'aria-live': 'polite' }, h('p', {}, 'Loading…'));
  main.append(body);

  const load = (fresh: boolean) =>
    readJob(jobId, fresh)
      .then(({ job, results }) => {
        const result = results.find((candidate) => candidate.id === resultId);
        if (!result) {
          body.replaceChildren(notFound('Result'));
          return;
        }
        body.replaceChildren(
          h('p', {}, link('← Job', `#/jobs/${job.id}`)),
          h('h1', {}, `Result #${result.index + 1} `, statusBadge(result.status)),
          h(
            'dl',
            { class: 'facts' },
            h('dt', {}, 'Source'),
            h('dd', { class: 'mono wrap' }, result.source_image_url),
            h('dt', {}, 'Uncertainty'),
            h('dd', {}, result.uncertainty == null ? '–' : result.uncertainty.toFixed(3)),
            h('dt', {}, 'Error'),
            h('dd', {}, result.error_code ? `${result.error_code}: ${result.error_message ?? ''}` : 'none'),
            h('dt', {}, 'Credits'),
            h(
              'dd',
              {},
              job.sandbox ? 'sandbox (none)' : `${result.credits_used} used of ${result.credits_reserved} reserved`,
            ),
            h('dt', {}, 'Subject hints'),
            h('dd', { class: 'mono wrap' }, result.subject_hints ? JSON.stringify(result.subject_hints) : 'none'),
            h('dt', {}, 'Completed'),
            h('dd', {}, formatDate(result.completed_at)),
          ),
          result.result_url
            ? h(
                'div',
                {},
                h(
                  'div',
                  { class: 'side-by-side' },
                  h('figure', {}, originalImage(result, 'picture', 'original'), h('figcaption', {}, 'Original')),
                  h(
                    'figure',
                    {},
                    h(
                      'div',
                      { class: 'checker' },
                      h('img', {
                        src: result.result_url,
                        alt: 'Result over a checkerboard',
                        class: 'picture',
                        'data-role': 'result',
                      }),
                    ),
                    h('figcaption', {}, 'Result (transparency shows as a checkerboard)'),
                  ),
                ),
                beforeAfter(result, result.result_url),
                h('p', {}, link('Open the result file', result.result_url, { rel: 'noopener', target: '_blank' })),
              )
            : h('p', {}, result.status === 'completed' ? 'The result file has expired.' : 'No result image yet.'),
        );
      })
      .catch((error: unknown) => {
        body.replaceChildren(
          error instanceof ApiError && error.status === 404 ? notFound('Job') : errorBox(errorMessage(error)),
        );
      });
  const reread = coalesce(() => void load(true));
  const unsubscribe = liveEvents.subscribe((change) => {
    if (change === 'resync' || (change.type === 'result' && change.result_id === resultId)) reread(jobId);
  });
  void load(false);
  return unsubscribe;
}
