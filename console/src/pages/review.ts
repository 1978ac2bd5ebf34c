import { errorMessage, query, request } from '../api.js';
import { append, button, errorBox, field, formatDate, h, link, select } from '../dom.js';
import { coalesce, readJob } from '../jobs-store.js';
import { hintsEditor } from '../hints-editor.js';
import { liveEvents } from '../live.js';
import { refreshReviewCount } from '../review-count.js';
import { session } from '../session.js';
import {
  REVIEW_STATES,
  TOOL_IDS,
  type AccountInfo,
  type CreatedJob,
  type RemoveBackgroundRequest,
  type ReviewDecisionRequest,
  type ReviewItem,
  type ReviewItemResponse,
  type ReviewList,
  type ReviewState,
  type ToolCatalog,
  type ToolCatalogEntry,
} from '../types.js';

const PAGE_SIZE = 20;
/** The most GET /reviews answers in one page. */
const MAX_PAGE_SIZE = 100;

type Listing = 'fresh' | 'again' | 'more';
type Decision = Extract<ReviewState, 'accepted' | 'rejected'>;

/**
 * The original's picture on a card: the service's preview of the source, never the customer's
 * URL (which the console's image policy does not allow); null for results made before previews.
 */
export const originalSource = (item: ReviewItem): string | null => item.source_preview_url;

interface Card {
  element: HTMLElement;
  item(): ReviewItem;
  show(item: ReviewItem): void;
  decide(decision: Decision): void;
  recut(): void;
  /** The job made from this card's re-cut, whose result the card shows beside the old one. */
  recutJobId(): string | null;
  showRecut(): Promise<void>;
}

/** Whether a key press belongs to what the user is typing, not to the page's shortcuts. */
const typing = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.isContentEditable || target.closest('input, textarea, select') !== null);

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/**
 * The account's review queue, shared by everyone signed in to it: the cut-outs flagged as unsure
 * when they completed (GET /reviews). Each can be accepted or rejected with a note, or cut out
 * again with a region and keep points drawn on its photo; the new result is linked to the old one
 * by the API. Cards this page acted on stay, marked, until Refresh or a change of filters.
 */
export function renderReview(main: HTMLElement): () => void {
  const errors = h('div', { class: 'review-errors', 'data-role': 'review-errors', 'aria-live': 'assertive' });
  const showError = (message: string) => errors.replaceChildren(errorBox(message));
  const clearError = () => errors.replaceChildren();

  const stateFilter = select(
    [...REVIEW_STATES.map((state): [string, string] => [state, state]), ['all', 'all states']],
    'pending',
  );
  const toolFilter = select([['', 'all tools'], ...TOOL_IDS.map((tool): [string, string] => [tool, tool])]);
  const uncertaintyInput = () => h('input', { type: 'number', min: 0, max: 1, step: 0.01, inputmode: 'decimal' });
  const minUncertainty = uncertaintyInput();
  const maxUncertainty = uncertaintyInput();
  const summary = h('p', { 'aria-live': 'polite' }, 'Loading…');
  const queue = h('div', { class: 'review-queue' });
  const more = button('Load more', () => load('more'), { hidden: true });

  const cards = new Map<string, Card>();
  /** The ids on the page, in order. */
  let shown: string[] = [];
  /** How many of them the last listing answered (the rest are cards acted on here). */
  let listedCount = 0;
  /** Results decided or re-cut on this page: they stay, marked, when the queue moves on without them. */
  const kept = new Set<string>();
  let cursor: string | null = null;
  let current: Card | null = null;
  let price: ToolCatalogEntry | null = null;

  const filters = () => ({
    state: stateFilter.value,
    tool: toolFilter.value,
    min_uncertainty: minUncertainty.value,
    max_uncertainty: maxUncertainty.value,
  });

  const markCurrent = (card: Card | null, focus: boolean) => {
    current?.element.classList.remove('current');
    current = card;
    if (!card) return;
    card.element.classList.add('current');
    if (focus) {
      card.element.focus({ preventScroll: true });
      card.element.scrollIntoView({ block: 'nearest' });
    }
  };

  /** Puts the cards in order while moving as few as possible: a moved card would lose the focus within it. */
  const place = (ids: string[]) => {
    const wanted = new Set(ids.map((id) => cards.get(id)?.element));
    for (const child of [...queue.children]) if (!wanted.has(child as HTMLElement)) child.remove();
    ids.forEach((id, index) => {
      const element = cards.get(id)?.element;
      if (element && queue.children[index] !== element) queue.insertBefore(element, queue.children[index] ?? null);
    });
  };

  /** The listing's ids, with each kept card after the card it followed before. */
  const withKept = (listed: string[]) => {
    const order = [...listed];
    const inListing = new Set(listed);
    shown.forEach((id, index) => {
      if (inListing.has(id) || !kept.has(id)) return;
      const before = shown
        .slice(0, index)
        .reverse()
        .find((earlier) => order.includes(earlier));
      order.splice(before === undefined ? 0 : order.indexOf(before) + 1, 0, id);
    });
    return order;
  };

  const describe = () => {
    const state = stateFilter.value === 'all' ? 'in any state' : stateFilter.value;
    summary.replaceChildren(
      listedCount === 0
        ? `No flagged cut-outs ${state}.`
        : `${plural(listedCount, 'flagged cut-out')} ${state}${cursor ? ', more below' : ''}.`,
    );
    more.hidden = cursor === null;
  };

  let listingFailed = false;
  /**
   * One listing: `fresh` starts the queue over (new filters, Refresh), `again` lists as many as are
   * shown once more (a live change), `more` adds the next page.
   */
  const list = async (mode: Listing) => {
    if (mode === 'fresh') {
      kept.clear();
      listedCount = 0;
    }
    try {
      price ??=
        (await request<ToolCatalog>('/api/v1/tools')).tools.find((tool) => tool.id === 'remove_background') ?? null;
      const limit = mode === 'more' ? PAGE_SIZE : Math.min(MAX_PAGE_SIZE, Math.max(PAGE_SIZE, listedCount));
      const page = await request<ReviewList>(
        `/api/v1/reviews${query({ ...filters(), limit, cursor: mode === 'more' ? cursor : null })}`,
      );
      for (const item of page.results) {
        const card = cards.get(item.result_id);
        if (card) card.show(item);
        else cards.set(item.result_id, makeCard(item));
      }
      const ids = page.results.map((item) => item.result_id);
      const hadFocus = current !== null && current.element.contains(document.activeElement);
      const position = current ? shown.indexOf(current.item().result_id) : -1;
      if (mode === 'more') {
        shown = [...shown, ...ids.filter((id) => !shown.includes(id))];
        listedCount += ids.length;
      } else {
        shown = withKept(ids);
        listedCount = ids.length;
      }
      cursor = page.next_cursor;
      place(shown);
      if (current && !shown.includes(current.item().result_id)) {
        // The focused card left the queue (decided elsewhere): its place goes to the next one.
        const next = shown[Math.min(position, shown.length - 1)];
        markCurrent(next ? (cards.get(next) ?? null) : null, hadFocus);
      }
      describe();
      // Only a listing's own failure goes with it: a refused decision stays until the next action.
      if (listingFailed) clearError();
      listingFailed = false;
    } catch (error) {
      listingFailed = true;
      showError(errorMessage(error));
    }
  };
  /**
   * Listings run one after another, so a page added by "Load more" is never lost to a live
   * re-list meanwhile, and a slow answer never replaces a newer one; one of each kind waits.
   */
  let listings = Promise.resolve();
  const waiting = new Set<Listing>();
  const load = (mode: Listing) => {
    if (waiting.has(mode)) return;
    waiting.add(mode);
    listings = listings.then(() => {
      waiting.delete(mode);
      return list(mode);
    });
  };

  const makeCard = (first: ReviewItem): Card => {
    let item = first;
    const label = `result #${item.index + 1} of job ${item.job_id.slice(0, 8)}`;
    const headingId = `review-${item.result_id}`;
    const original = originalSource(item);
    // Without a preview of the original, the hints are drawn on the cut-out, which has its frame.
    const picture = h('img', {
      src: original ?? item.result_url ?? '',
      alt: original ? 'Original photo' : 'The cut-out (the original is not available)',
      draggable: 'false',
      'data-role': 'review-original',
    });
    const cutout = h('img', { src: item.result_url ?? '', alt: 'Current cut-out', class: 'picture' });
    const facts = h('div', { class: 'review-facts' });
    const status = h('div', { 'aria-live': 'polite' });
    const newer = h('figure', { class: 'redo', hidden: true });
    const note = h('textarea', { rows: 2, maxlength: 1000, 'data-role': 'review-note' });
    const idempotencyKey = `console-${crypto.randomUUID()}`;
    const cost = price
      ? session.sandbox()
        ? 'sandbox: no credits'
        : `${price.credits} credit${price.credits === 1 ? '' : 's'} per ${price.unit}`
      : 'price unknown';
    let busy = false;
    let recutJob: string | null = null;

    const accept = button('Accept', () => decide('accepted'), {
      'aria-label': `Accept ${label}`,
      'aria-keyshortcuts': 'A',
      'data-role': 'accept',
    });
    const reject = button('Reject', () => decide('rejected'), {
      'aria-label': `Reject ${label}`,
      'aria-keyshortcuts': 'R',
      'data-role': 'reject',
    });
    const redo = button(`Cut out again (${cost})`, () => recut(), {
      class: 'primary',
      'aria-label': `Cut out ${label} again with the hints drawn (${cost})`,
      'aria-keyshortcuts': 'C',
      'data-role': 'recut',
    });
    const editor = hintsEditor(picture, () => enable());
    const enable = () => {
      const replaced = item.review.state === 'recut';
      accept.disabled = busy || replaced;
      reject.disabled = busy || replaced;
      redo.disabled = busy || replaced || editor.hints() === null;
    };

    const show = (read: ReviewItem) => {
      item = read;
      const { review } = read;
      element.dataset.state = review.state;
      cutout.src = read.result_url ?? '';
      facts.replaceChildren();
      append(
        facts,
        h(
          'p',
          {},
          h('span', { class: `status status-${review.state}`, 'data-role': 'review-state' }, review.state),
          review.decided_by ? ` by ${review.decided_by}` : '',
          review.decided_at ? `, ${formatDate(review.decided_at)}` : '',
          read.completed_at ? ` · completed ${formatDate(read.completed_at)}` : '',
        ),
        review.note ? h('p', { class: 'review-note' }, 'Note: ', review.note) : null,
        review.replaces_result_id
          ? h(
              'p',
              { class: 'muted' },
              'Cut out again from result ',
              h('span', { class: 'mono' }, review.replaces_result_id),
            )
          : null,
        review.replaced_by_result_id
          ? h(
              'p',
              { class: 'muted', 'data-role': 'replaced-by' },
              'Replaced by result ',
              h('span', { class: 'mono' }, review.replaced_by_result_id),
            )
          : null,
      );
      enable();
      if (review.replaced_by_result_id && !recutJob) void findRecut(review.replaced_by_result_id);
    };

    /**
     * A result re-cut before this page opened: its re-cut's job is read through the review of the
     * new result, then shown beside it. While the re-cut is not a completed cut-out (yet) the API
     * answers 409 and the card names it by id alone.
     */
    const findRecut = async (resultId: string) => {
      try {
        const { result } = await request<ReviewItemResponse>(`/api/v1/reviews/${encodeURIComponent(resultId)}`);
        if (recutJob) return;
        recutJob = result.job_id;
        await showRecut();
      } catch {
        // Named by id until it completes; the next listing (Refresh, a live event) asks again.
      }
    };

    const decide = (decision: Decision) => {
      if (busy || item.review.state === 'recut') return;
      busy = true;
      enable();
      const text = note.value.trim();
      request<ReviewItemResponse>(`/api/v1/reviews/${encodeURIComponent(item.result_id)}/decision`, {
        method: 'POST',
        body: { decision, ...(text ? { note: text } : {}) } satisfies ReviewDecisionRequest,
      })
        .then(({ result: read }) => {
          kept.add(read.result_id);
          show(read);
          clearError();
          void refreshReviewCount();
        })
        .catch((error: unknown) => showError(errorMessage(error)))
        .finally(() => {
          busy = false;
          enable();
        });
    };

    const recut = () => {
      const hints = editor.hints();
      if (!hints) {
        status.replaceChildren(h('p', { class: 'muted' }, 'Draw a region or keep points on the photo first.'));
        return;
      }
      if (busy || item.review.state === 'recut') return;
      // A result made without a source (a generated image) has nothing to cut out again.
      const source = item.source_image_url;
      if (source === null) {
        status.replaceChildren(h('p', { class: 'muted' }, 'This result has no source image to cut out again.'));
        return;
      }
      busy = true;
      enable();
      status.replaceChildren(h('p', {}, 'Creating the job…'));
      request<CreatedJob>('/api/v1/remove-background', {
        method: 'POST',
        idempotencyKey,
        body: {
          input: [
            {
              image_url: source,
              ...(item.external_id ? { external_id: item.external_id } : {}),
              subject_hints: hints,
              replaces_result_id: item.result_id,
            },
          ],
        } satisfies RemoveBackgroundRequest,
      })
        .then(async ({ job }) => {
          kept.add(item.result_id);
          recutJob = job.id;
          clearError();
          status.replaceChildren(
            h(
              'p',
              { class: 'ok' },
              'Job ',
              link(job.id.slice(0, 8), `#/jobs/${job.id}`),
              ' created; its result appears beside the old one.',
            ),
          );
          void showRecut();
          // The old result's review now names the new one: read it as the API has it.
          const { results } = await readJob(item.job_id, true);
          const old = results.find((result) => result.id === item.result_id);
          if (old?.review) show({ ...item, needs_review: old.needs_review, review: old.review });
          void refreshReviewCount();
        })
        .catch((error: unknown) => {
          status.replaceChildren();
          showError(errorMessage(error));
        })
        .finally(() => {
          busy = false;
          enable();
        });
    };

    const showRecut = async () => {
      if (!recutJob) return;
      newer.hidden = false;
      try {
        const { results } = await readJob(recutJob, true);
        const [result] = results;
        if (!result) return;
        newer.replaceChildren(
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
            link('Cut out again', `#/jobs/${recutJob}/results/${result.id}`),
            `: ${result.status}`,
            result.uncertainty != null ? `, uncertainty ${result.uncertainty.toFixed(2)}` : '',
            result.review ? `, ${result.review.state}` : '',
            result.error_message ? ` (${result.error_message})` : '',
          ),
        );
      } catch (error) {
        showError(errorMessage(error));
      }
    };

    const element = h(
      'article',
      {
        class: 'card review-item',
        tabindex: 0,
        'aria-labelledby': headingId,
        'data-result': item.result_id,
      },
      h(
        'h2',
        { id: headingId },
        link(
          `Result #${item.index + 1} of job ${item.job_id.slice(0, 8)}`,
          `#/jobs/${item.job_id}/results/${item.result_id}`,
        ),
        item.uncertainty != null ? ` · uncertainty ${item.uncertainty.toFixed(2)}` : '',
        item.external_id ? ` · ${item.external_id}` : '',
      ),
      facts,
      h(
        'div',
        { class: 'side-by-side' },
        h(
          'figure',
          {},
          editor.element,
          h('figcaption', {}, original ? 'Hints on the original' : 'Hints on the cut-out (original not available)'),
        ),
        h('figure', {}, h('div', { class: 'checker' }, cutout), h('figcaption', {}, 'Current cut-out')),
        newer,
      ),
      field('Note with the decision (optional)', note),
      h('div', { class: 'actions' }, accept, reject, redo),
      status,
    );
    const card: Card = {
      element,
      item: () => item,
      show,
      decide,
      recut,
      recutJobId: () => recutJob,
      showRecut,
    };
    element.addEventListener('focusin', () => {
      if (current !== card) markCurrent(card, false);
    });
    show(item);
    return card;
  };

  const move = (step: 1 | -1) => {
    if (shown.length === 0) return false;
    const at = current ? shown.indexOf(current.item().result_id) : -1;
    const next = at < 0 ? 0 : Math.min(shown.length - 1, Math.max(0, at + step));
    markCurrent(cards.get(shown[next]) ?? null, true);
    return true;
  };
  const onKey = (event: KeyboardEvent) => {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || typing(event.target)) return;
    let handled = true;
    switch (event.key) {
      case 'j':
      case 'ArrowDown':
        handled = move(1);
        break;
      case 'k':
      case 'ArrowUp':
        handled = move(-1);
        break;
      case 'a':
        current?.decide('accepted');
        break;
      case 'r':
        current?.decide('rejected');
        break;
      case 'c':
        current?.recut();
        break;
      default:
        handled = false;
    }
    if (handled) event.preventDefault();
  };
  document.addEventListener('keydown', onKey);

  // The account's threshold: the flag is set when a cut-out completes, so a change applies from then on.
  const threshold = h('input', { type: 'number', min: 0, max: 1, step: 0.01, required: true, inputmode: 'decimal' });
  const thresholdStatus = h('span', { role: 'status' });
  const thresholdForm = h(
    'form',
    { class: 'inline threshold', novalidate: true },
    field('Review threshold', threshold),
    h('button', { type: 'submit' }, 'Save threshold'),
    thresholdStatus,
  );
  thresholdForm.addEventListener('submit', (event) => {
    event.preventDefault();
    thresholdStatus.replaceChildren();
    request<AccountInfo>('/api/v1/account', {
      method: 'PATCH',
      body: { review_threshold: threshold.value === '' ? null : Number(threshold.value) },
    })
      .then(({ account }) => {
        threshold.value = String(account.review_threshold);
        thresholdStatus.replaceChildren(h('span', { class: 'ok' }, 'Saved.'));
        clearError();
        void refreshReviewCount();
      })
      .catch((error: unknown) => showError(errorMessage(error)));
  });
  request<AccountInfo>('/api/v1/account')
    .then(({ account }) => {
      threshold.value = String(account.review_threshold);
    })
    .catch((error: unknown) => showError(errorMessage(error)));

  for (const control of [stateFilter, toolFilter, minUncertainty, maxUncertainty])
    control.addEventListener('change', () => load('fresh'));

  // Another key's decision arrives as a change of a job in view; a completing result may join the queue.
  const relist = coalesce(() => load('again'));
  const rereadRecut = coalesce((jobIds) => {
    for (const card of cards.values()) if (jobIds.has(card.recutJobId() ?? '')) void card.showRecut();
  });
  const unsubscribe = liveEvents.subscribe((change) => {
    const inView = shown.map((id) => cards.get(id)).filter((card) => card !== undefined);
    if (change === 'resync') {
      relist('queue');
      for (const card of inView) if (card.recutJobId()) rereadRecut(card.recutJobId() ?? '');
      return;
    }
    if (inView.some((card) => card.recutJobId() === change.job_id)) rereadRecut(change.job_id);
    if (
      inView.some((card) => card.item().job_id === change.job_id) ||
      (change.type === 'result' && change.status === 'completed')
    )
      relist('queue');
  });

  main.append(
    h('h1', {}, 'Review queue'),
    h(
      'p',
      { class: 'muted' },
      'Cut-outs flagged as unsure when they completed. The queue is the account’s, shared by all its keys ' +
        '(live and sandbox keys each see their own): a decision made here shows in every console.',
    ),
    thresholdForm,
    h(
      'p',
      { class: 'muted' },
      'Cut-outs completing with an uncertainty at or above the threshold (0 to 1) are flagged for review; ' +
        'results already completed keep their flag.',
    ),
    h(
      'div',
      { class: 'filters' },
      field('State', stateFilter),
      field('Tool', toolFilter),
      field('Uncertainty from', minUncertainty),
      field('Uncertainty to', maxUncertainty),
      button('Refresh', () => load('fresh')),
    ),
    h(
      'p',
      { class: 'muted keys-legend', 'data-role': 'review-keys' },
      'Keys: ',
      h('kbd', {}, 'j'),
      ' / ',
      h('kbd', {}, '↓'),
      ' next, ',
      h('kbd', {}, 'k'),
      ' / ',
      h('kbd', {}, '↑'),
      ' previous, ',
      h('kbd', {}, 'a'),
      ' accept, ',
      h('kbd', {}, 'r'),
      ' reject, ',
      h('kbd', {}, 'c'),
      ' cut out again with the hints drawn (not while typing in a field).',
    ),
    errors,
    summary,
    queue,
    more,
  );
  load('fresh');
  return () => {
    unsubscribe();
    document.removeEventListener('keydown', onKey);
  };
}
