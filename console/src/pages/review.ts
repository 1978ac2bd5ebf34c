import { errorMessage, query, request } from '../api.js';
import { button, errorBox, field, h, link } from '../dom.js';
import { coalesce, readJob } from '../jobs-store.js';
import { hintsEditor } from '../hints-editor.js';
import { liveEvents } from '../live.js';
import { session } from '../session.js';
import type { JobList, JobResult, Tool } from '../types.js';

/** How many of the newest cut-out jobs the queue looks through (each is one read). */
const JOBS_LOOKED_AT = 10;
const THRESHOLD = 'console.reviewThreshold';

interface Unsure {
  jobId: string;
  result: JobResult;
}

/**
 * The cut-outs the service is unsure of: each can be cut out again with a region and keep
 * points drawn on its photo, through one idempotent POST /remove-background.
 */
export function renderReview(main: HTMLElement): () => void {
  const threshold = h('input', {
    type: 'number',
    min: 0,
    max: 1,
    step: 0.05,
    value: sessionStorage.getItem(THRESHOLD) ?? '0.5',
  });
  const queue = h('div', { 'aria-live': 'polite' }, h('p', {}, 'Loading…'));
  let price: Tool | null = null;
  /** Jobs made again from a reviewed result: their new result is shown beside the old one. */
  const redone = new Map<string, { card: HTMLElement; jobId: string }>();
  /**
   * The card drawn for each result, kept across loads: a reload (a new threshold, Refresh) keeps
   * the hints being drawn on a card and never swaps the picture under the pointer.
   */
  let drawn = new Map<string, HTMLElement>();

  /** Only the newest load draws, so a slow earlier one never replaces the cards being worked on. */
  let generation = 0;
  const load = async () => {
    const mine = ++generation;
    try {
      price ??=
        (await request<{ tools: Tool[] }>('/api/v1/tools')).tools.find((tool) => tool.id === 'remove_background') ??
        null;
      const list = await request<JobList>(`/api/v1/jobs${query({ api: 'remove_background', limit: JOBS_LOOKED_AT })}`);
      const details = await Promise.all(
        list.jobs.map((job) => readJob(job.id, job.status === 'queued' || job.status === 'processing')),
      );
      if (mine !== generation) return;
      const reviewed = session.reviewed();
      const limit = Number(threshold.value);
      const unsure: Unsure[] = details.flatMap(({ job, results }) =>
        results
          .filter(
            (result) =>
              result.status === 'completed' &&
              result.uncertainty != null &&
              result.uncertainty >= limit &&
              !reviewed.has(result.id),
          )
          .map((result) => ({ jobId: job.id, result })),
      );
      const cards = unsure.map((item) => drawn.get(item.result.id) ?? card(item));
      drawn = new Map(unsure.map((item, index) => [item.result.id, cards[index]]));
      queue.replaceChildren(
        h(
          'p',
          {},
          `${unsure.length} cut-out${unsure.length === 1 ? '' : 's'} at or above ${limit} ` +
            `among the ${list.jobs.length} newest background-removal jobs.`,
        ),
        ...cards,
        ...[...redone.values()].filter(({ card: kept }) => !cards.includes(kept)).map(({ card: kept }) => kept),
      );
    } catch (error) {
      queue.replaceChildren(errorBox(errorMessage(error)));
    }
  };

  const card = ({ jobId, result }: Unsure): HTMLElement => {
    // Without a preview of the original (expired, or made before previews), hints go on the cut-out: it has its frame.
    const original = result.source_preview_url;
    const picture = h('img', {
      src: original ?? result.result_url ?? '',
      alt: original ? 'Original photo' : 'The cut-out (original not available)',
      draggable: 'false',
      'data-role': 'review-original',
    });
    const status = h('div', { 'aria-live': 'polite' });
    const newer = h(
      'figure',
      { class: 'redo' },
      h('figcaption', {}, 'Cut out again'),
      h('p', { class: 'muted' }, 'Not yet.'),
    );
    const idempotencyKey = `console-${crypto.randomUUID()}`;
    const cost = price
      ? session.sandbox()
        ? 'sandbox: no credits'
        : `${price.credits} credit${price.credits === 1 ? '' : 's'} per ${price.unit}`
      : 'price unknown';
    const redo = button(`Cut out again (${cost})`, () => submit(), {
      class: 'primary',
      disabled: true,
      'data-role': 'recut',
    });
    const editor = hintsEditor(picture, () => {
      redo.disabled = editor.hints() === null;
    });
    const element = h(
      'section',
      { class: 'card review-item', 'data-result': result.id },
      h(
        'h2',
        {},
        link(`Result #${result.index + 1} of job ${jobId.slice(0, 8)}`, `#/jobs/${jobId}/results/${result.id}`),
        ` · uncertainty ${result.uncertainty?.toFixed(2)}`,
      ),
      h(
        'div',
        { class: 'side-by-side' },
        h(
          'figure',
          {},
          editor.element,
          h('figcaption', {}, original ? 'Hints on the original' : 'Hints on the cut-out (original not available)'),
        ),
        h(
          'figure',
          {},
          h(
            'div',
            { class: 'checker' },
            h('img', { src: result.result_url ?? '', alt: 'Current cut-out', class: 'picture' }),
          ),
          h('figcaption', {}, 'Current cut-out'),
        ),
        newer,
      ),
      h(
        'div',
        { class: 'actions' },
        redo,
        button('Mark reviewed', () => {
          session.markReviewed(result.id);
          element.remove();
        }),
      ),
      status,
    );

    const submit = () => {
      const hints = editor.hints();
      if (!hints) return;
      redo.disabled = true;
      status.replaceChildren(h('p', {}, 'Creating the job…'));
      request<{ job: { id: string } }>('/api/v1/remove-background', {
        method: 'POST',
        idempotencyKey,
        body: {
          input: [
            {
              image_url: result.source_image_url,
              ...(result.external_id ? { external_id: result.external_id } : {}),
              subject_hints: hints,
            },
          ],
        },
      })
        .then(({ job }) => {
          session.markReviewed(result.id);
          redone.set(job.id, { card: element, jobId: job.id });
          status.replaceChildren(
            h(
              'p',
              { class: 'ok' },
              'Job ',
              link(job.id.slice(0, 8), `#/jobs/${job.id}`),
              ' created; its result appears beside the old one.',
            ),
          );
          void showRedone(job.id, newer);
        })
        .catch((error: unknown) => {
          redo.disabled = false;
          status.replaceChildren(errorBox(errorMessage(error)));
        });
    };
    return element;
  };

  const showRedone = async (jobId: string, into?: HTMLElement) => {
    const target = into ?? redone.get(jobId)?.card.querySelector<HTMLElement>('.redo');
    if (!target) return;
    try {
      const { results } = await readJob(jobId, true);
      const [result] = results;
      if (!result) return;
      if (result.status === 'completed') session.markReviewed(result.id);
      target.replaceChildren(
        h(
          'div',
          { class: 'checker' },
          result.result_url
            ? h('img', { src: result.result_url, alt: 'New cut-out', class: 'picture', 'data-role': 'recut-result' })
            : h('p', {}, result.status),
        ),
        h(
          'figcaption',
          {},
          `Cut out again: ${result.status}`,
          result.uncertainty != null ? `, uncertainty ${result.uncertainty.toFixed(2)}` : '',
          result.error_message ? ` (${result.error_message})` : '',
        ),
      );
    } catch (error) {
      target.replaceChildren(errorBox(errorMessage(error)));
    }
  };

  const reread = coalesce((ids) => ids.forEach((id) => void showRedone(id)));
  const unsubscribe = liveEvents.subscribe((change) => {
    if (change === 'resync') redone.forEach((_, id) => reread(id));
    else if (redone.has(change.job_id)) reread(change.job_id);
  });
  threshold.addEventListener('change', () => {
    sessionStorage.setItem(THRESHOLD, threshold.value);
    void load();
  });

  main.append(
    h('h1', {}, 'Review unsure cut-outs'),
    h(
      'div',
      { class: 'filters' },
      field('Uncertainty at least', threshold),
      button('Refresh', () => void load()),
    ),
    queue,
  );
  void load();
  return unsubscribe;
}
