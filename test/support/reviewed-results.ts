import type { ReviewedResult } from '../../src/modules/reviews/result-review';
import { ReviewState } from '../../src/modules/reviews/review-state';

/** A completed cut-out flagged for review and not yet decided, not re-cut, of this uncertainty. */
export const flaggedPendingCutout = (uncertainty: number): ReviewedResult => ({
  status: 'completed',
  uncertainty,
  flagged: true,
  reviewState: ReviewState.Pending,
  decidedBy: null,
  decidedAt: null,
  reviewNote: null,
  replacesResultId: null,
  replacedByResultId: null,
});
