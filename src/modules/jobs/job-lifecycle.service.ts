import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { CreditsService } from '../credits/credits.service';
import type { OutputFormat, ToolTask } from '../tools/tool-runner';
import type { ToolId } from '../catalog/tools';
import { WebhookOutbox, type EventJob, type EventResult, type RecordedDelivery } from '../webhooks/webhook-outbox.service';
import { JobStatus, ResultStatus, terminalJobStatus, type ResultErrorCode } from './job-status';

interface SettledResult {
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

/**
 * Every state change of jobs and results. Each is a conditional update whose row count says
 * whether this caller won, so two workers can never both finish a result, and a terminal
 * state never changes again (contract section 7).
 */
@Injectable()
export class JobLifecycleService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly credits: CreditsService,
    private readonly webhooks: WebhookOutbox,
  ) {}

  /**
   * Marks a result as running and its job as processing. Null when the result is already
   * terminal (finished by an earlier attempt, or cancelled): there is nothing to do.
   */
  async start(resultId: string): Promise<ToolTask | null> {
    return this.dataSource.transaction(async (manager) => {
      const [row]: Array<{
        job_id: string;
        index: number;
        sandbox: boolean;
        external_id: string | null;
        source_image_url: string | null;
      }> = await manager.query(
        `WITH started AS (
           UPDATE job_results SET status = 'processing', attempts = attempts + 1, started_at = coalesce(started_at, now())
            WHERE id = $1 AND status IN ${ACTIVE}
            RETURNING job_id, index, sandbox, external_id, source_image_url)
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
        format: job.output_format,
        options: job.options,
      };
    });
  }

  /** A result produced its image: its credits are captured. False if it was already settled. */
  async complete(resultId: string, files: { resultKey: string; thumbnailKey: string }): Promise<boolean> {
    const deliveries = await this.dataSource.transaction(async (manager) => {
      const [result]: SettledResult[] = await manager.query(
        `WITH done AS (
           UPDATE job_results
              SET status = 'completed', result_key = $2, thumbnail_key = $3,
                  credits_used = credits_reserved, completed_at = now()
            WHERE id = $1 AND status = 'processing'
            RETURNING job_id, account_id, external_id, credits_reserved)
         SELECT * FROM done`,
        [resultId, files.resultKey, files.thumbnailKey],
      );
      if (!result) return null;
      await this.credits.capture(manager, result.account_id, result.job_id, result.credits_reserved);
      const counted = await this.countOnJob(manager, result.job_id, {
        completed: 1,
        failed: 0,
        cancelled: 0,
        creditsUsed: result.credits_reserved,
      });
      return this.recordEvents(manager, counted, {
        id: resultId,
        externalId: result.external_id,
        status: ResultStatus.Completed,
        resultKey: files.resultKey,
        thumbnailKey: files.thumbnailKey,
        errorCode: null,
        errorMessage: null,
      });
    });
    return this.dispatch(deliveries);
  }

  /** A result will never be produced: its credits go back. False if it was already settled. */
  async fail(resultId: string, code: ResultErrorCode, message: string): Promise<boolean> {
    const errorMessage = message.slice(0, 1000);
    const deliveries = await this.dataSource.transaction(async (manager) => {
      const [result]: SettledResult[] = await manager.query(
        `WITH done AS (
           UPDATE job_results
              SET status = 'failed', error_code = $2, error_message = $3, completed_at = now()
            WHERE id = $1 AND status IN ${ACTIVE}
            RETURNING job_id, account_id, external_id, credits_reserved)
         SELECT * FROM done`,
        [resultId, code, errorMessage],
      );
      if (!result) return null;
      await this.credits.release(manager, result.account_id, result.job_id, result.credits_reserved);
      const counted = await this.countOnJob(manager, result.job_id, { completed: 0, failed: 1, cancelled: 0, creditsUsed: 0 });
      return this.recordEvents(manager, counted, {
        id: resultId,
        externalId: result.external_id,
        status: ResultStatus.Failed,
        resultKey: null,
        thumbnailKey: null,
        errorCode: code,
        errorMessage,
      });
    });
    return this.dispatch(deliveries);
  }

  /**
   * Cancels a job that has not ended: results not yet started are cancelled and their credits
   * released; running ones may still finish. Returns false when the job had already ended.
   */
  async cancel(manager: EntityManager, jobId: string): Promise<boolean> {
    const [job]: Array<{ account_id: string }> = await manager.query(
      `WITH cancelled AS (
         UPDATE jobs SET status = 'cancelled', completed_at = now(), updated_at = now()
          WHERE id = $1 AND status IN ${ACTIVE}
          RETURNING account_id)
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
    return true;
  }

  /**
   * Adds one settled result to the job's counters; the last one moves the job to its terminal
   * status. The job row lock taken by the first update orders concurrent settlements.
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
