import type { EventReview } from '../webhooks/webhook-outbox.service';
import { ReviewState } from './review-state';

/** What a result's review is made of, as a result row holds it (a `JobResult` has these members). */
export interface ReviewedResult {
  status: string;
  uncertainty: number | null;
  flagged: boolean;
  reviewState: ReviewState | null;
  decidedBy: string | null;
  decidedAt: Date | null;
  reviewNote: string | null;
  replacesResultId: string | null;
  replacedByResultId: string | null;
}

/** A review as the API and events show it (`ResultReviewDto`). */
export type ResultReview = EventReview & { state: ReviewState };

/** The result's `review`: every completed cut-out has one (pending until decided); null for any other result. */
export function reviewOf(result: ReviewedResult): ResultReview | null {
  if (result.status !== 'completed' || result.uncertainty === null || result.reviewState === null) return null;
  return {
    state: result.reviewState,
    decided_by: result.decidedBy,
    decided_at: result.decidedAt?.toISOString() ?? null,
    note: result.reviewNote,
    replaces_result_id: result.replacesResultId,
    replaced_by_result_id: result.replacedByResultId,
  };
}

/** A flagged completed cut-out nobody has decided yet: what a person should look at. */
export const needsReview = (result: ReviewedResult): boolean =>
  result.flagged && reviewOf(result)?.state === ReviewState.Pending;
