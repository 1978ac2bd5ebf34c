import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { afterCommit } from '../../core/database/after-commit';
import { withTransactionRetry } from '../../core/database/transaction-retry';
import { JobMetrics, type MetricsEnvironment } from '../../core/metrics/job.metrics';
import { storedSegmentation } from '../../engine/mask/segmentation-report';
import { CreditsService } from '../credits/credits.service';
import type { ToolOutput, ToolTask } from '../tools/tool-runner';
import { CapacityService } from '../capacity/capacity.service';
import {
  WebhookOutbox,
  type EventJob,
  type EventResult,
  type RecordedDelivery,
} from '../webhooks/webhook-outbox.service';
import { jobChanged, resultChanged } from '../live-events/live-event';
import { LiveEventsPublisher } from '../live-events/live-events.publisher';
import { JobStatus, ResultStatus, terminalJobStatus } from './job-status';
import type { ResultErrorCode } from '../tools/result-failure';
import {
  JobStateRepository,
  type CapacitySlot,
  type CompletedResult,
  type ResultFiles,
  type SettledCounts,
} from './job-state.repository';
import { needsReview, reviewOf } from '../reviews/result-review';
import { subjectHintsOf } from './result-subject-hints';

interface JobSettlement {
  job: EventJob;
  /** True when this settlement was the job's last and moved it to its terminal status. */
  ended: boolean;
}

const environmentOf = (sandbox: boolean): MetricsEnvironment => (sandbox ? 'sandbox' : 'live');

/** What a completed result says of its cut-out: its uncertainty and segmentation, both absent when it is none. */
export type CutoutReport = Pick<ToolOutput, 'uncertainty' | 'segmentation'>;

/**
 * An uncertainty as results show it: 0 to 1, three decimals (finer says nothing a ranking
 * needs). A segmenter's score outside that range is held to it; one that is not a number is none.
 */
function storedUncertainty(uncertainty: number | null): number | null {
  if (uncertainty === null || !Number.isFinite(uncertainty)) return null;
  return Math.round(Math.min(1, Math.max(0, uncertainty)) * 1000) / 1000;
}

/**
 * Every state change of jobs and results. Each is a conditional update whose row count says
 * whether this caller won, so two workers can never both finish a result, and a terminal
 * state never changes again (contract section 7).
 *
 * Lock order, for every transaction of the service that locks more than one of these rows:
 *
 *   1. the job row          (`lockJobOf`, or cancel's `cancelJob` as its first statement)
 *   2. its result row(s)
 *   3. the account row      (`CreditsService.release` / `reserve` / `changeBalance`)
 *   4. the capacity group's counter row (`CapacityService.reserve` / `release`), always the
 *      transaction's last statement, so it is held only until the commit
 *
 * A transaction may skip a level, never go back up one: a cancel (job, results, account) and
 * an attempt starting or failing (job, result, account) of the same job then queue on the job
 * row instead of deadlocking. Creation locks the account (after the idempotency row), inserts
 * its job and results, which no other transaction can hold yet, and reserves its group's slots
 * last; operator balance changes lock the account alone. Should PostgreSQL still abort one of them (a deadlock with
 * something outside this order, a serialization failure, `lock_timeout`), the whole
 * transaction is run again by `withTransactionRetry`: nothing inside one is assumed to have
 * happened until it commits.
 */
@Injectable()
export class JobLifecycleService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly states: JobStateRepository,
    private readonly credits: CreditsService,
    private readonly webhooks: WebhookOutbox,
    private readonly capacity: CapacityService,
    private readonly metrics: JobMetrics,
    private readonly liveEvents: LiveEventsPublisher,
  ) {}

  /**
   * Marks a result as running and its job as processing. Null when there is nothing to run: the
   * result is already terminal (finished by an earlier attempt, or cancelled), or its job was
   * cancelled while it waited for this attempt (a retry's backoff), in which case the result is
   * cancelled here and its credits released rather than run.
   */
  async start(resultId: string): Promise<ToolTask | null> {
    return withTransactionRetry(this.dataSource, async (manager) => {
      const jobStatus = await this.lockJobOf(manager, resultId);
      if (jobStatus === null) return null;
      if (jobStatus === JobStatus.Cancelled) {
        await this.cancelResult(manager, resultId);
        return null;
      }
      const result = await this.states.startResult(manager, resultId);
      if (!result) return null;
      const job = await this.states.markJobProcessing(manager, result.jobId);
      this.liveEvents.afterCommit(manager, [
        resultChanged(result, result.jobId, resultId, ResultStatus.Processing),
        jobChanged(result, result.jobId, JobStatus.Processing),
      ]);
      return {
        jobId: result.jobId,
        resultId,
        accountId: result.accountId,
        tool: job.api,
        sandbox: result.sandbox,
        index: result.index,
        sourceImageUrl: result.sourceImageUrl,
        externalId: result.externalId,
        subjectHints: subjectHintsOf(result.subjectHints),
        format: job.outputFormat,
        options: job.options,
      };
    });
  }

  /**
   * A stopping worker gives back an attempt it could not finish: the result returns to the state
   * its next attempt starts from, with no attempt counted and no credits, event or failure
   * recorded; its queue entry goes back to waiting. False when the result was settled meanwhile.
   */
  async handBack(resultId: string): Promise<boolean> {
    return withTransactionRetry(this.dataSource, async (manager) => {
      await this.lockJobOf(manager, resultId);
      return this.states.handBackResult(manager, resultId);
    });
  }

  /**
   * Cancels a result of a cancelled job that is waiting for its next attempt, releasing its
   * credits, without waiting for that attempt. Only for a result no attempt is running for: a
   * running one may still finish. False when the job is not cancelled or the result is settled.
   */
  async cancelWaitingResult(resultId: string): Promise<boolean> {
    return withTransactionRetry(this.dataSource, async (manager) => {
      if ((await this.lockJobOf(manager, resultId)) !== JobStatus.Cancelled) return false;
      return this.cancelResult(manager, resultId);
    });
  }

  /**
   * A result produced its image: its credits are captured. `cutout` is what it says of its
   * cut-out (nothing for a result that is not a cut-out). False if it was already settled.
   */
  async complete(resultId: string, files: ResultFiles, cutout: CutoutReport): Promise<boolean> {
    const uncertainty = storedUncertainty(cutout.uncertainty ?? null);
    const segmentation = storedSegmentation(cutout.segmentation ?? null);
    const deliveries = await withTransactionRetry(this.dataSource, async (manager) => {
      await this.lockJobOf(manager, resultId);
      const result = await this.states.completeResult(manager, resultId, files, { uncertainty, segmentation });
      if (!result) return null;
      await this.credits.capture(manager, result.accountId, result.jobId, result.creditsReserved);
      const settlement = await this.countOnJob(manager, result.jobId, {
        completed: 1,
        failed: 0,
        cancelled: 0,
        creditsUsed: result.creditsReserved,
      });
      const { api } = settlement.job;
      afterCommit(manager, () => this.metrics.resultsSettled(api, environmentOf(result.sandbox), 'completed'));
      const deliveries = await this.recordEvents(manager, settlement, {
        id: resultId,
        externalId: result.externalId,
        status: ResultStatus.Completed,
        resultKey: files.resultKey,
        thumbnailKey: files.thumbnailKey,
        sourcePreviewKey: files.sourcePreviewKey,
        uncertainty,
        segmentation,
        errorCode: null,
        errorMessage: null,
        ...this.completedReview(result, uncertainty),
      });
      this.announceSettlement(manager, settlement, result, resultId, ResultStatus.Completed);
      await this.releaseSlots(manager, result, 1);
      return deliveries;
    });
    return this.dispatch(deliveries);
  }

  /** A result will never be produced: its credits go back. False if it was already settled. */
  async fail(resultId: string, code: ResultErrorCode, message: string): Promise<boolean> {
    const errorMessage = message.slice(0, 1000);
    const deliveries = await withTransactionRetry(this.dataSource, async (manager) => {
      await this.lockJobOf(manager, resultId);
      const result = await this.states.failResult(manager, resultId, code, errorMessage);
      if (!result) return null;
      await this.credits.release(manager, result.accountId, result.jobId, result.creditsReserved);
      const settlement = await this.countOnJob(manager, result.jobId, {
        completed: 0,
        failed: 1,
        cancelled: 0,
        creditsUsed: 0,
      });
      const { api } = settlement.job;
      afterCommit(manager, () => this.metrics.resultsSettled(api, environmentOf(result.sandbox), 'failed', 1, code));
      const deliveries = await this.recordEvents(manager, settlement, {
        id: resultId,
        externalId: result.externalId,
        status: ResultStatus.Failed,
        resultKey: null,
        thumbnailKey: null,
        sourcePreviewKey: null,
        uncertainty: null,
        segmentation: null,
        errorCode: code,
        errorMessage,
        needsReview: false,
        review: null,
      });
      this.announceSettlement(manager, settlement, result, resultId, ResultStatus.Failed);
      await this.releaseSlots(manager, result, 1);
      return deliveries;
    });
    return this.dispatch(deliveries);
  }

  /**
   * Cancels a job that has not ended: results not yet started are cancelled and their credits
   * released; running ones may still finish. A result between two attempts (processing, its
   * queue entry waiting out a retry's backoff) is cancelled by its next attempt's `start`.
   * Returns false when the job had already ended.
   */
  async cancel(manager: EntityManager, jobId: string): Promise<boolean> {
    const job = await this.states.cancelJob(manager, jobId);
    if (!job) return false;
    const released = await this.states.cancelQueuedResults(manager, jobId);
    await this.credits.release(manager, job.accountId, jobId, released.credits);
    await this.states.countCancelledResults(manager, jobId, released.results);
    await this.releaseSlots(manager, job, released.results);
    afterCommit(manager, () =>
      this.metrics.resultsSettled(job.api, environmentOf(job.sandbox), 'cancelled', released.results),
    );
    // One job event: its results cancelled here are re-read with it.
    this.liveEvents.afterCommit(manager, [jobChanged(job, jobId, JobStatus.Cancelled)]);
    return true;
  }

  /** A just-completed result's review as its event shows it: a cut-out's is pending, undecided. */
  private completedReview(
    result: CompletedResult,
    uncertainty: number | null,
  ): Pick<EventResult, 'needsReview' | 'review'> {
    const reviewed = {
      ...result,
      status: ResultStatus.Completed,
      uncertainty,
      decidedBy: null,
      decidedAt: null,
      reviewNote: null,
      replacedByResultId: null,
    };
    return { needsReview: needsReview(reviewed), review: reviewOf(reviewed) };
  }

  /**
   * Locks the row of the result's job and returns its status (null for an unknown result).
   * Every transaction here takes the job row first, then result rows, then the account, as
   * `cancel` does: one lock order, so a cancel and a settlement of the same job queue up
   * instead of deadlocking, and a cancel either committed before an attempt starts (which then
   * sees it) or waits until that start has committed (and leaves the running result be).
   */
  private lockJobOf(manager: EntityManager, resultId: string): Promise<JobStatus | null> {
    return this.states.lockJobOfResult(manager, resultId);
  }

  /** Settles an unfinished result of a cancelled job as cancelled and releases its credits; the job row is locked. */
  private async cancelResult(manager: EntityManager, resultId: string): Promise<boolean> {
    const result = await this.states.cancelResult(manager, resultId);
    if (!result) return false;
    await this.credits.release(manager, result.accountId, result.jobId, result.creditsReserved);
    await this.states.countCancelledResults(manager, result.jobId, 1);
    await this.releaseSlots(manager, result, 1);
    afterCommit(manager, () => this.metrics.resultsSettled(result.api, environmentOf(result.sandbox), 'cancelled'));
    this.liveEvents.afterCommit(manager, [resultChanged(result, result.jobId, resultId, ResultStatus.Cancelled)]);
    return true;
  }

  /** Last in every settling transaction: the group's counter row is the last lock taken (see the lock order). */
  private async releaseSlots(manager: EntityManager, slot: CapacitySlot, results: number): Promise<void> {
    if (!slot.sandbox) await this.capacity.release(manager, slot.capacityGroup, results);
  }

  /**
   * Adds one settled result to the job's counters; the last one moves the job to its terminal
   * status. The job row, locked since the start of the transaction (`lockJobOf`), orders
   * concurrent settlements.
   */
  private async countOnJob(manager: EntityManager, jobId: string, counts: SettledCounts): Promise<JobSettlement> {
    const counted = await this.states.countSettlement(manager, jobId, counts);
    const job: EventJob = {
      id: jobId,
      accountId: counted.accountId,
      api: counted.api,
      status: counted.status,
      sandbox: counted.sandbox,
      webhookUrl: counted.webhookUrl,
    };
    const settled = counted.completedResults + counted.failedResults + counted.cancelledResults;
    if (settled < counted.totalResults) return { job, ended: false };
    const terminal = terminalJobStatus(counted.completedResults, counted.failedResults, counted.cancelledResults);
    const ended = await this.states.endJob(manager, jobId, terminal);
    return ended ? { job: { ...job, status: terminal }, ended: true } : { job, ended: false };
  }

  /** The result's new status and, when it ended the job, the job's, for the event streams once committed. */
  private announceSettlement(
    manager: EntityManager,
    settlement: JobSettlement,
    owner: { accountId: string; sandbox: boolean },
    resultId: string,
    status: ResultStatus,
  ): void {
    const jobId = settlement.job.id;
    this.liveEvents.afterCommit(manager, [
      resultChanged(owner, jobId, resultId, status),
      ...(settlement.ended ? [jobChanged(owner, jobId, settlement.job.status)] : []),
    ]);
  }

  /** The result's event, then, when it ended the job, the job's: the sequence keeps that order. */
  private async recordEvents(
    manager: EntityManager,
    settlement: JobSettlement,
    result: EventResult,
  ): Promise<RecordedDelivery[]> {
    const deliveries = await this.webhooks.recordResult(manager, settlement.job, result);
    if (settlement.ended) deliveries.push(...(await this.webhooks.recordJobEnd(manager, settlement.job)));
    return deliveries;
  }

  private async dispatch(deliveries: RecordedDelivery[] | null): Promise<boolean> {
    if (!deliveries) return false;
    await this.webhooks.dispatch(deliveries);
    return true;
  }
}
