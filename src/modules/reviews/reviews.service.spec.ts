import type { DataSource, EntityManager } from 'typeorm';
import { refusalOf } from '../../../test/support/domain-errors';
import { flaggedPendingCutout } from '../../../test/support/reviewed-results';
import { ErrorCode } from '../../core/errors/error-code';
import { KeyEnvironment } from '../auth/api-key.entity';
import type { AuthContext } from '../auth/auth-context';
import { ToolId } from '../catalog/tools';
import type { LiveEventsPublisher } from '../live-events/live-events.publisher';
import type { WebhookOutbox } from '../webhooks/webhook-outbox.service';
import { ReviewState } from './review-state';
import type { ReviewRow, ReviewsRepository } from './reviews.repository';
import { ReviewsService } from './reviews.service';

const caller: AuthContext = { keyId: 'key-1', accountId: 'account-1', environment: KeyEnvironment.Sandbox };
const manager = {} as EntityManager;
const dataSource = {
  transaction: <T>(work: (m: EntityManager) => Promise<T>) => work(manager),
} as unknown as DataSource;

const row = (changes: Partial<ReviewRow> = {}): ReviewRow => ({
  id: 'result-1',
  jobId: 'job-1',
  accountId: caller.accountId,
  sandbox: true,
  tool: ToolId.RemoveBackground,
  jobStatus: 'completed',
  webhookUrl: null,
  index: 0,
  externalId: null,
  sourceImageUrl: null,
  resultKey: 'r.png',
  thumbnailKey: 't.webp',
  sourcePreviewKey: 's.webp',
  filesExpiredAt: null,
  segmentation: null,
  completedAt: new Date('2026-11-28T10:00:00Z'),
  position: '2026-11-28T10:00:00.000000Z',
  ...flaggedPendingCutout(0.9),
  ...changes,
});

function serviceWith(current: (ReviewRow & { replacementStatus?: string | null }) | undefined) {
  const decided: Array<{ state: ReviewState; note: string | null }> = [];
  const recorded: string[] = [];
  const reviews = {
    lockOwned: async () => (current ? [current] : []),
    decide: async (
      _m: EntityManager,
      _c: AuthContext,
      _id: string,
      decision: { state: ReviewState; note: string | null },
    ) => {
      decided.push(decision);
      return row({ reviewState: decision.state, reviewNote: decision.note, decidedBy: 'key-1', decidedAt: new Date() });
    },
  } as unknown as ReviewsRepository;
  const webhooks = {
    recordResult: async (_m: EntityManager, _job: unknown, result: { review: { state: string } }) => {
      recorded.push(result.review.state);
      return [];
    },
    dispatch: async () => undefined,
  } as unknown as WebhookOutbox;
  const liveEvents = { afterCommit: jest.fn() } as unknown as LiveEventsPublisher;
  return { service: new ReviewsService(dataSource, reviews, webhooks, liveEvents), decided, recorded, liveEvents };
}

describe(ReviewsService.name, () => {
  describe('decide', () => {
    it('records a new decision with its event and live event', async () => {
      const { service, decided, recorded, liveEvents } = serviceWith(row());
      const result = await service.decide(caller, 'result-1', { decision: ReviewState.Accepted, note: 'ok' });
      expect(result.reviewState).toBe(ReviewState.Accepted);
      expect(decided).toEqual([{ state: ReviewState.Accepted, note: 'ok' }]);
      expect(recorded).toEqual(['accepted']);
      expect(liveEvents.afterCommit).toHaveBeenCalledTimes(1);
    });

    it('changes nothing for the decision and note it already holds', async () => {
      const current = row({ reviewState: ReviewState.Rejected, reviewNote: 'halo', decidedAt: new Date(0) });
      const { service, decided, recorded } = serviceWith(current);
      expect(await service.decide(caller, 'result-1', { decision: ReviewState.Rejected, note: 'halo' })).toBe(current);
      expect(decided).toEqual([]);
      expect(recorded).toEqual([]);
    });

    it.each([
      ['an unknown result', undefined, ErrorCode.NotFound],
      ['a failed result', row({ status: 'failed', uncertainty: null, reviewState: null }), ErrorCode.NotReviewable],
      ['a result that is not a cut-out', row({ uncertainty: null, reviewState: null }), ErrorCode.NotReviewable],
      ['a re-cut result', row({ reviewState: ReviewState.Recut, replacedByResultId: 'r-2' }), ErrorCode.AlreadyRecut],
    ])('refuses %s, recording nothing', async (_, current, code) => {
      const { service, decided, recorded } = serviceWith(current);
      const error = await refusalOf(service.decide(caller, 'result-1', { decision: ReviewState.Accepted, note: null }));
      expect(error.code).toBe(code);
      expect(decided).toEqual([]);
      expect(recorded).toEqual([]);
    });
  });

  it('decides a re-cut result whose re-cut failed', async () => {
    const current = {
      ...row({ reviewState: ReviewState.Recut, replacedByResultId: 'r-2' }),
      replacementStatus: 'failed',
    };
    const { service, decided } = serviceWith(current);
    await service.decide(caller, 'result-1', { decision: ReviewState.Accepted, note: null });
    expect(decided).toEqual([{ state: ReviewState.Accepted, note: null }]);
  });

  describe('claimReplaced', () => {
    it('passes completed cut-outs, and refuses one of another account (not found) or re-cut before', async () => {
      await expect(serviceWith(row()).service.claimReplaced(manager, caller, ['result-1'])).resolves.toBeUndefined();
      expect((await refusalOf(serviceWith(undefined).service.claimReplaced(manager, caller, ['result-1']))).code).toBe(
        ErrorCode.NotFound,
      );
      const recut = serviceWith(row({ reviewState: ReviewState.Recut })).service;
      expect((await refusalOf(recut.claimReplaced(manager, caller, ['result-1']))).code).toBe(ErrorCode.AlreadyRecut);
      for (const replacementStatus of ['queued', 'processing', 'completed']) {
        const running = serviceWith({ ...row({ reviewState: ReviewState.Recut }), replacementStatus }).service;
        expect((await refusalOf(running.claimReplaced(manager, caller, ['result-1']))).code).toBe(
          ErrorCode.AlreadyRecut,
        );
      }
      for (const replacementStatus of ['failed', 'cancelled']) {
        const givenBack = serviceWith({ ...row({ reviewState: ReviewState.Recut }), replacementStatus }).service;
        await expect(givenBack.claimReplaced(manager, caller, ['result-1'])).resolves.toBeUndefined();
      }
    });
  });
});
