/** Where a completed cut-out stands in a person's review. */
export enum ReviewState {
  Pending = 'pending',
  Accepted = 'accepted',
  Rejected = 'rejected',
  /** Replaced by a newer cut-out of the same source (`replaced_by_result_id`): final. */
  Recut = 'recut',
}

/** The decisions a person can make on a result; a re-cut is recorded by creating the new job instead. */
export const REVIEW_DECISIONS = [ReviewState.Accepted, ReviewState.Rejected] as const;
export type ReviewDecision = (typeof REVIEW_DECISIONS)[number];

/**
 * The threshold an account starts with: BENCHMARKS.md "Uncertainty" (2026-11-28) measured that
 * 0.539 flags about a quarter of cut-outs (24.6 %) and most of the poor ones (22 of the 35 with
 * IoU < 0.9); accounts tune it with `PATCH /api/v1/account`.
 */
export const DEFAULT_REVIEW_THRESHOLD = 0.539;
