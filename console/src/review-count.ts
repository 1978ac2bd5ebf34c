import { request } from './api.js';
import { h } from './dom.js';
import { coalesce } from './jobs-store.js';
import { liveEvents } from './live.js';
import { session } from './session.js';
import type { ReviewSummary } from './types.js';

/** Live changes come in bursts (a batch completing): one summary read per burst. */
const REREAD_DELAY_MS = 1000;

/**
 * The number of flagged cut-outs waiting for a decision, shown on the navigation's Review link.
 * It is the account's shared queue (GET /reviews/summary), so it moves with every colleague's
 * decision: it is read again on live events and after this tab's own decisions.
 */
const count = h('span', { class: 'review-count', 'data-role': 'review-count', hidden: true });
let readFor: string | null = null;
/** Only the newest read shows, so a slow earlier answer never replaces a newer count. */
let generation = 0;

export async function refreshReviewCount(): Promise<void> {
  const key = session.apiKey();
  if (!key) return;
  // Another key's count is not this one's.
  if (readFor !== key) count.hidden = true;
  readFor = key;
  const mine = ++generation;
  try {
    const { pending } = await request<ReviewSummary>('/api/v1/reviews/summary');
    if (mine !== generation) return;
    count.hidden = pending === 0;
    count.replaceChildren(String(pending), h('span', { class: 'visually-hidden' }, ' pending'));
  } catch {
    // The count is a hint beside a link; the review page says what went wrong when it is opened.
  }
}

/** The Review link with the count in it; read once per signed-in key, then kept up to date. */
export function withReviewCount(reviewLink: HTMLAnchorElement): HTMLAnchorElement {
  if (readFor !== session.apiKey()) void refreshReviewCount();
  reviewLink.append(' ', count);
  return reviewLink;
}

const reread = coalesce(() => void refreshReviewCount(), REREAD_DELAY_MS);
liveEvents.subscribe(() => reread('summary'));
