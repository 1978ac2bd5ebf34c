import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { afterCommit } from '../../core/database/after-commit';
import { withTransactionRetry } from '../../core/database/transaction-retry';
import { JobMetrics, type MetricsEnvironment } from '../../core/metrics/job.metrics';
import { CreditsService } from '../credits/credits.service';
import type { OutputFormat, ToolTask } from '../tools/tool-runner';
import type { CapacityGroup, ToolId } from '../catalog/tools';
import { CapacityService } from '../capacity/capacity.service';
import { WebhookOutbox, type EventJob, type EventResult, type RecordedDelivery } from '../webhooks/webhook-outbox.service';
import { JobStatus, ResultStatus, terminalJobStatus } from './job-status';
import type { ResultErrorCode } from '../tools/result-failure';
import { subjectHintsOf, type StoredSubjectHints } from './result-subject-hints';

/** Where a settled result held its capacity slot: live results hold one in their group until they settle. */
interface CapacitySlot {
  capacity_group: CapacityGroup;
  sandbox: boolean;
}

interface SettledResult extends CapacitySlot {
  job_id: string;
  account_id: string;
  external_id: string | null;
  credits_reserved: number;
}

interface CountedJob {
  job: EventJob;
  /** True when this settlement was the job's last and moved it to its terminal status. */
  ended: boolean;
}

interface ResultCounts {
  completed: number;
  failed: number;
  cancelled: number;
  creditsUsed: number;
}

const ACTIVE = `('queued', 'processing')`;

const environmentOf = (sandbox: boolean): MetricsEnvironment => (sandbox ? 'sandbox' : 'live');

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
 *   1. the job row          (`lockJobOf`, or cancel's `UPDATE jobs` as its first statement)
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
    private readonly credits: CreditsService,
    private readonly webhooks: WebhookOutbox,
    private readonly capacity: CapacityService,
    private readonly metrics: JobMetrics,
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
      const [row]: Array<{
        job_id: string;
        index: number;
        sandbox: boolean;
        external_id: string | null;
        source_image_url: string | null;
        subject_hints: StoredSubjectHints | null;
      }> = await manager.query(
        `WITH started AS (
           UPDATE job_results SET status = 'processing', attempts = attempts + 1, started_at = coalesce(started_at, now())
            WHERE id = $1 AND status IN ${ACTIVE}
            RETURNING job_id, index, sandbox, external_id, source_image_url, subject_hints)
         SELECT * FROM started`,
        [resultId],
      );
      if (!row) return null;
      const [job]: Array<{ api: ToolId; output_format: OutputFormat; options: Record<string, unknown> }> =
        await manager.query(
          `WITH moved AS (
             UPDATE jobs SET status = CASE WHEN status = 'queued' THEN 'processing' ELSE status END, updated_at = now()
              WHERE id = $1
              RETURNING api, output_format, options)
           SELECT * FROM moved`,
          [row.job_id],
        );
      return {
        jobId: row.job_id,
        resultId,
        tool: job.api,
        sandbox: row.sandbox,
        index: row.index,
        sourceImageUrl: row.source_image_url,
        externalId: row.external_id,
        subjectHints: subjectHintsOf(row.subject_hints),
        format: job.output_format,
        options: job.options,
      };
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
   * A result produced its image: its credits are captured. `uncertainty` is its cut-out's, or
   * null for a result that is not a cut-out. False if it was already settled.
   */
  async complete(resultId: string, files: { resultKey: string; thumbnailKey: string }, uncertainty: number | null): Promise<boolean> {
    const stored = storedUncertainty(uncertainty);
    const deliveries = await withTransactionRetry(this.dataSource, async (manager) => {
      await this.lockJobOf(manager, resultId);
      const [result]: SettledResult[] = await manager.query(
        `WITH done AS (
           UPDATE job_results
              SET status = 'completed', result_key = $2, thumbnail_key = $3, uncertainty = $4,
                  credits_used = credits_reserved, completed_at = now()
            WHERE id = $1 AND status = 'processing'
            RETURNING job_id, account_id, external_id, credits_reserved, capacity_group, sandbox)
         SELECT * FROM done`,
        [resultId, files.resultKey, files.thumbnailKey, stored],
      );
      if (!result) return null;
      await this.credits.capture(manager, result.account_id, result.job_id, result.credits_reserved);
      const counted = await this.countOnJob(manager, result.job_id, {
        completed: 1,
        failed: 0,
        cancelled: 0,
        creditsUsed: result.credits_reserved,
      });
      afterCommit(manager, () => this.metrics.resultsSettled(counted.job.api, environmentOf(result.sandbox), 'completed'));
      const deliveries = await this.recordEvents(manager, counted, {
        id: resultId,
        externalId: result.external_id,
        status: ResultStatus.Completed,
        resultKey: files.resultKey,
        thumbnailKey: files.thumbnailKey,
        uncertainty: stored,
        errorCode: null,
        errorMessage: null,
      });
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
      const [result]: SettledResult[] = await manager.query(
        `WITH done AS (
           UPDATE job_results
              SET status = 'failed', error_code = $2, error_message = $3, completed_at = now()
            WHERE id = $1 AND status IN ${ACTIVE}
            RETURNING job_id, account_id, external_id, credits_reserved, capacity_group, sandbox)
         SELECT * FROM done`,
        [resultId, code, errorMessage],
      );
      if (!result) return null;
      await this.credits.release(manager, result.account_id, result.job_id, result.credits_reserved);
      const counted = await this.countOnJob(manager, result.job_id, { completed: 0, failed: 1, cancelled: 0, creditsUsed: 0 });
      afterCommit(manager, () => this.metrics.resultsSettled(counted.job.api, environmentOf(result.sandbox), 'failed', 1, code));
      const deliveries = await this.recordEvents(manager, counted, {
        id: resultId,
        externalId: result.external_id,
        status: ResultStatus.Failed,
        resultKey: null,
        thumbnailKey: null,
        uncertainty: null,
        errorCode: code,
        errorMessage,
      });
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
    const [job]: Array<{ account_id: string; api: ToolId } & CapacitySlot> = await manager.query(
      `WITH cancelled AS (
         UPDATE jobs SET status = 'cancelled', completed_at = now(), updated_at = now()
          WHERE id = $1 AND status IN ${ACTIVE}
          RETURNING account_id, api, capacity_group, sandbox)
       SELECT * FROM cancelled`,
      [jobId],
    );
    if (!job) return false;
    const [released]: Array<{ results: number; credits: number }> = await manager.query(
      `WITH cancelled AS (
         UPDATE job_results SET status = 'cancelled', completed_at = now()
          WHERE job_id = $1 AND status = 'queued'
          RETURNING credits_reserved)
       SELECT count(*)::int AS results, coalesce(sum(credits_reserved), 0)::int AS credits FROM cancelled`,
      [jobId],
    );
    await this.credits.release(manager, job.account_id, jobId, released.credits);
    await manager.query(`UPDATE jobs SET cancelled_results = cancelled_results + $2 WHERE id = $1`, [
      jobId,
      released.results,
    ]);
    await this.releaseSlots(manager, job, released.results);
    afterCommit(manager, () => this.metrics.resultsSettled(job.api, environmentOf(job.sandbox), 'cancelled', released.results));
    return true;
  }

  /**
   * Locks the row of the result's job and returns its status (null for an unknown result).
   * Every transaction here takes the job row first, then result rows, then the account, as
   * `cancel` does: one lock order, so a cancel and a settlement of the same job queue up
   * instead of deadlocking, and a cancel either committed before an attempt starts (which then
   * sees it) or waits until that start has committed (and leaves the running result be).
   */
  private async lockJobOf(manager: EntityManager, resultId: string): Promise<JobStatus | null> {
    const [job]: Array<{ status: JobStatus }> = await manager.query(
      `SELECT j.status FROM jobs j JOIN job_results r ON r.job_id = j.id WHERE r.id = $1 FOR NO KEY UPDATE OF j`,
      [resultId],
    );
    return job?.status ?? null;
  }

  /** Settles an unfinished result of a cancelled job as cancelled and releases its credits; the job row is locked. */
  private async cancelResult(manager: EntityManager, resultId: string): Promise<boolean> {
    const [result]: Array<{ job_id: string; account_id: string; credits_reserved: number; api: ToolId } & CapacitySlot> =
      await manager.query(
        `WITH cancelled AS (
           UPDATE job_results SET status = 'cancelled', completed_at = now()
            WHERE id = $1 AND status IN ${ACTIVE}
            RETURNING job_id, account_id, credits_reserved, capacity_group, sandbox)
         SELECT c.*, j.api FROM cancelled c JOIN jobs j ON j.id = c.job_id`,
        [resultId],
      );
    if (!result) return false;
    await this.credits.release(manager, result.account_id, result.job_id, result.credits_reserved);
    await manager.query(`UPDATE jobs SET cancelled_results = cancelled_results + 1 WHERE id = $1`, [result.job_id]);
    await this.releaseSlots(manager, result, 1);
    afterCommit(manager, () => this.metrics.resultsSettled(result.api, environmentOf(result.sandbox), 'cancelled'));
    return true;
  }

  /** Last in every settling transaction: the group's counter row is the last lock taken (see the lock order). */
  private async releaseSlots(manager: EntityManager, slot: CapacitySlot, results: number): Promise<void> {
    if (!slot.sandbox) await this.capacity.release(manager, slot.capacity_group, results);
  }

  /**
   * Adds one settled result to the job's counters; the last one moves the job to its terminal
   * status. The job row, locked since the start of the transaction (`lockJobOf`), orders
   * concurrent settlements.
   */
  private async countOnJob(manager: EntityManager, jobId: string, counts: ResultCounts): Promise<CountedJob> {
    const [row]: Array<{
      account_id: string;
      api: ToolId;
      status: JobStatus;
      sandbox: boolean;
      webhook_url: string | null;
      total_results: number;
      completed_results: number;
      failed_results: number;
      cancelled_results: number;
    }> = await manager.query(
      `WITH counted AS (
         UPDATE jobs SET completed_results = completed_results + $2, failed_results = failed_results + $3,
                         cancelled_results = cancelled_results + $4, credits_used = credits_used + $5,
                         updated_at = now()
          WHERE id = $1
          RETURNING account_id, api, status, sandbox, webhook_url,
                    total_results, completed_results, failed_results, cancelled_results)
       SELECT * FROM counted`,
      [jobId, counts.completed, counts.failed, counts.cancelled, counts.creditsUsed],
    );
    const job: EventJob = {
      id: jobId,
      accountId: row.account_id,
      api: row.api,
      status: row.status,
      sandbox: row.sandbox,
      webhookUrl: row.webhook_url,
    };
    const settled = row.completed_results + row.failed_results + row.cancelled_results;
    if (settled < row.total_results) return { job, ended: false };
    const terminal = terminalJobStatus(row.completed_results, row.failed_results, row.cancelled_results);
    const ended: unknown[] = await manager.query(
      `WITH ended AS (
         UPDATE jobs SET status = $2, completed_at = now() WHERE id = $1 AND status IN ${ACTIVE} RETURNING id)
       SELECT id FROM ended`,
      [jobId, terminal],
    );
    return ended.length > 0 ? { job: { ...job, status: terminal }, ended: true } : { job, ended: false };
  }

  /** The result's event, then, when it ended the job, the job's: the sequence keeps that order. */
  private async recordEvents(manager: EntityManager, counted: CountedJob, result: EventResult): Promise<RecordedDelivery[]> {
    const deliveries = await this.webhooks.recordResult(manager, counted.job, result);
    if (counted.ended) deliveries.push(...(await this.webhooks.recordJobEnd(manager, counted.job)));
    return deliveries;
  }

  private async dispatch(deliveries: RecordedDelivery[] | null): Promise<boolean> {
    if (!deliveries) return false;
    await this.webhooks.dispatch(deliveries);
    return true;
  }
}
