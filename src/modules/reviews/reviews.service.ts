import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { withTransactionRetry } from '../../core/database/transaction-retry';
import { DomainError } from '../../core/errors/domain-error';
import { ErrorCode } from '../../core/errors/error-code';
import type { AuthContext } from '../auth/auth-context';
import type { ToolId } from '../catalog/tools';
import { resultChanged } from '../live-events/live-event';
import { LiveEventsPublisher } from '../live-events/live-events.publisher';
import { WebhookEventType } from '../webhooks/webhook-event-type';
import { WebhookOutbox, type EventResult, type RecordedDelivery } from '../webhooks/webhook-outbox.service';
import { needsReview, reviewOf } from './result-review';
import { decodeReviewCursor, encodeReviewCursor } from './review-cursor';
import { ReviewState, type ReviewDecision } from './review-state';
import type { ReviewListState } from './review.dto';
import { ReviewsRepository, type LockedReviewRow, type ReviewRow } from './reviews.repository';

export interface ReviewListQuery {
  state?: ReviewListState;
  tool?: ToolId;
  completedFrom?: string;
  completedTo?: string;
  minUncertainty?: number;
  maxUncertainty?: number;
  limit: number;
  cursor?: string;
}

export interface ReviewPage {
  results: ReviewRow[];
  nextCursor: string | null;
}

/** A result a new cut-out re-cuts, and that cut-out. */
export interface RecutLink {
  replaced: string;
  by: string;
}

/** A result's review can be decided only when the result is a completed cut-out. */
const isCutout = (row: ReviewRow) => row.status === 'completed' && row.uncertainty !== null && row.reviewState !== null;

/**
 * Re-cut for good: by a re-cut that is running or completed. One that failed or was cancelled
 * gives the result back, to be re-cut again or decided as it is.
 */
const isRecut = (row: LockedReviewRow) =>
  row.reviewState === ReviewState.Recut && row.replacementStatus !== 'failed' && row.replacementStatus !== 'cancelled';

/**
 * A person's review of completed cut-outs: the list of flagged ones, decisions, and re-cuts
 * (recorded by the create path, in its transaction). Each change records an
 * `image_api.result.reviewed` event in the outbox in its transaction, and announces the
 * result's change to the account's event streams once committed.
 */
@Injectable()
export class ReviewsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly reviews: ReviewsRepository,
    private readonly webhooks: WebhookOutbox,
    private readonly liveEvents: LiveEventsPublisher,
  ) {}

  async list(caller: AuthContext, query: ReviewListQuery): Promise<ReviewPage> {
    const completedFrom = query.completedFrom ? new Date(query.completedFrom) : undefined;
    const completedTo = query.completedTo ? new Date(query.completedTo) : undefined;
    const problems = [
      completedFrom &&
        completedTo &&
        completedFrom >= completedTo && { path: 'query.completed_to', message: 'must be after completed_from' },
      query.minUncertainty !== undefined &&
        query.maxUncertainty !== undefined &&
        query.minUncertainty > query.maxUncertainty && {
          path: 'query.max_uncertainty',
          message: 'must be at least min_uncertainty',
        },
    ].filter((problem) => problem !== false && problem !== undefined);
    if (problems.length > 0) throw DomainError.invalid(problems);
    const state = query.state ?? ReviewState.Pending;
    const results = await this.reviews.list(caller, {
      state: state === 'all' ? null : state,
      tool: query.tool,
      completedFrom,
      completedTo,
      minUncertainty: query.minUncertainty,
      maxUncertainty: query.maxUncertainty,
      // One more than asked, to know whether a next page exists without a count.
      limit: query.limit + 1,
      after: query.cursor ? decodeReviewCursor(query.cursor) : undefined,
    });
    const page = results.slice(0, query.limit);
    const last = page.at(-1);
    return {
      results: page,
      nextCursor:
        results.length > query.limit && last ? encodeReviewCursor({ position: last.position, id: last.id }) : null,
    };
  }

  /**
   * One completed cut-out's review, flagged or not: how a client follows `replaces_result_id` and
   * `replaced_by_result_id` without knowing the other result's job.
   */
  async get(caller: AuthContext, resultId: string): Promise<ReviewRow> {
    const row = await this.reviews.findOwned(caller, resultId);
    if (!row) throw DomainError.notFound('result');
    if (!isCutout(row)) {
      throw new DomainError(
        ErrorCode.NotReviewable,
        `The result ${resultId} is not a completed cut-out (status ${row.status}); only those have a review.`,
      );
    }
    return row;
  }

  async summary(caller: AuthContext): Promise<{ pending: number; reviewThreshold: number }> {
    const [pending, reviewThreshold] = await Promise.all([
      this.reviews.countPending(caller),
      this.reviews.threshold(caller.accountId),
    ]);
    return { pending, reviewThreshold };
  }

  /**
   * Records a person's decision on a completed cut-out of the caller's. The same decision with
   * the same note again changes nothing (no new event, the first `decided_at` kept); another
   * replaces it. A result re-cut keeps its `recut` state, unless its re-cut failed.
   */
  async decide(
    caller: AuthContext,
    resultId: string,
    decision: { decision: ReviewDecision; note: string | null },
  ): Promise<ReviewRow> {
    const { row, deliveries } = await withTransactionRetry(this.dataSource, async (manager) => {
      const [current] = await this.reviews.lockOwned(manager, caller, [resultId]);
      if (!current) throw DomainError.notFound('result');
      this.refuseUnreviewable(current, `result ${resultId}`);
      if (current.reviewState === decision.decision && current.reviewNote === decision.note) {
        return { row: current, deliveries: [] };
      }
      const decided = await this.reviews.decide(manager, caller, resultId, {
        state: decision.decision,
        note: decision.note,
      });
      return { row: decided, deliveries: await this.recordReviewed(manager, decided) };
    });
    await this.webhooks.dispatch(deliveries);
    return row;
  }

  /**
   * Locks the results a create re-cuts, in its transaction and before it locks the account:
   * each must be a completed cut-out of the caller's account and environment (404 for one that
   * is not the caller's, as for any id of another account), not re-cut before by a re-cut that
   * is running or completed. A concurrent create re-cutting the same result waits here, then
   * finds it `recut`.
   */
  async claimReplaced(manager: EntityManager, caller: AuthContext, resultIds: string[]): Promise<void> {
    if (resultIds.length === 0) return;
    const rows = await this.reviews.lockOwned(manager, caller, resultIds);
    const found = new Map(rows.map((row) => [row.id, row]));
    const missing = resultIds.find((id) => !found.has(id));
    if (missing) throw DomainError.notFound(`result ${missing} to re-cut`);
    for (const id of resultIds) this.refuseUnreviewable(found.get(id) as LockedReviewRow, `result ${id}`);
  }

  /** Links claimed results to their re-cuts, both ways, and records each replaced result's event. */
  async recordRecuts(
    manager: EntityManager,
    caller: AuthContext,
    links: readonly RecutLink[],
  ): Promise<RecordedDelivery[]> {
    if (links.length === 0) return [];
    const replaced = await this.reviews.linkRecuts(manager, caller, links);
    const deliveries: RecordedDelivery[] = [];
    for (const row of replaced) deliveries.push(...(await this.recordReviewed(manager, row)));
    return deliveries;
  }

  /** Enqueues what a transaction recorded, once it has committed. */
  dispatch(deliveries: readonly RecordedDelivery[]): Promise<void> {
    return this.webhooks.dispatch(deliveries);
  }

  private refuseUnreviewable(row: LockedReviewRow, what: string): void {
    if (!isCutout(row)) {
      throw new DomainError(
        ErrorCode.NotReviewable,
        `The ${what} is not a completed cut-out (status ${row.status}); only completed cut-outs are reviewed.`,
      );
    }
    if (isRecut(row)) {
      throw new DomainError(
        ErrorCode.AlreadyRecut,
        `The ${what} was re-cut already, by result ${row.replacedByResultId}; review that one instead.`,
        { replaced_by_result_id: row.replacedByResultId },
      );
    }
  }

  private async recordReviewed(manager: EntityManager, row: ReviewRow): Promise<RecordedDelivery[]> {
    const owner = { accountId: row.accountId, sandbox: row.sandbox };
    this.liveEvents.afterCommit(manager, [resultChanged(owner, row.jobId, row.id, row.status)]);
    const result: EventResult = {
      id: row.id,
      externalId: row.externalId,
      status: 'completed',
      resultKey: row.filesExpiredAt ? null : row.resultKey,
      thumbnailKey: row.filesExpiredAt ? null : row.thumbnailKey,
      sourcePreviewKey: row.filesExpiredAt ? null : row.sourcePreviewKey,
      uncertainty: row.uncertainty,
      segmentation: row.segmentation,
      errorCode: null,
      errorMessage: null,
      needsReview: needsReview(row),
      review: reviewOf(row),
    };
    const job = {
      id: row.jobId,
      accountId: row.accountId,
      api: row.tool,
      status: row.jobStatus,
      sandbox: row.sandbox,
      webhookUrl: row.webhookUrl,
    };
    return this.webhooks.recordResult(manager, job, result, WebhookEventType.ResultReviewed);
  }
}
