import { flaggedPendingCutout } from '../../../test/support/reviewed-results';
import { needsReview, reviewOf, type ReviewedResult } from './result-review';
import { ReviewState } from './review-state';

const completedCutout = (changes: Partial<ReviewedResult> = {}): ReviewedResult => ({
  ...flaggedPendingCutout(0.7),
  ...changes,
});

describe(reviewOf.name, () => {
  it('shows a completed cut-out’s review with its decision time in ISO', () => {
    const decidedAt = new Date('2026-11-28T10:00:00.123Z');
    expect(
      reviewOf(
        completedCutout({ reviewState: ReviewState.Rejected, decidedBy: 'lead', decidedAt, reviewNote: 'halo' }),
      ),
    ).toEqual({
      state: 'rejected',
      decided_by: 'lead',
      decided_at: '2026-11-28T10:00:00.123Z',
      note: 'halo',
      replaces_result_id: null,
      replaced_by_result_id: null,
    });
  });

  it.each([
    ['a failed result', { status: 'failed', uncertainty: null, reviewState: null }],
    ['a completed result that is not a cut-out', { uncertainty: null, reviewState: null }],
    ['a result still running', { status: 'processing', uncertainty: null, reviewState: null }],
  ])('is null for %s', (_, changes) => {
    expect(reviewOf(completedCutout(changes as Partial<ReviewedResult>))).toBeNull();
  });
});

describe(needsReview.name, () => {
  it('is true only for a flagged cut-out still pending', () => {
    expect(needsReview(completedCutout())).toBe(true);
    expect(needsReview(completedCutout({ flagged: false }))).toBe(false);
    for (const state of [ReviewState.Accepted, ReviewState.Rejected, ReviewState.Recut]) {
      expect(needsReview(completedCutout({ reviewState: state }))).toBe(false);
    }
    expect(needsReview(completedCutout({ status: 'failed', uncertainty: null, reviewState: null }))).toBe(false);
  });
});
