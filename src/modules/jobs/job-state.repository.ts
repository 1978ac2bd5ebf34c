import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { StoredSegmentation } from '../../engine/mask/segmentation-report';
import type { Job } from './job.entity';
import type { JobResult } from './job-result.entity';
import type { ResultErrorCode } from '../tools/result-failure';
import type { JobStatus } from './job-status';

/** Where a settled result held its capacity slot: live results hold one in their group until they settle. */
export type CapacitySlot = Pick<JobResult, 'capacityGroup' | 'sandbox'>;

/** A result an attempt has just taken. */
export type StartedResult = Pick<
  JobResult,
  'jobId' | 'accountId' | 'index' | 'sandbox' | 'externalId' | 'sourceImageUrl' | 'subjectHints'
>;

/** What an attempt needs of its job. */
export type StartedJob = Pick<Job, 'api' | 'outputFormat' | 'options'>;

/** A result this caller has just settled (completed, failed or cancelled). */
export type SettledResult = Pick<JobResult, 'jobId' | 'accountId' | 'externalId' | 'creditsReserved'> & CapacitySlot;

/** A result this caller has just completed, with what its completion decided of its review. */
export type CompletedResult = SettledResult & Pick<JobResult, 'flagged' | 'reviewState' | 'replacesResultId'>;

/** A result of a cancelled job this caller has just cancelled, with its job's tool. */
export type CancelledResult = Pick<JobResult, 'jobId' | 'accountId' | 'creditsReserved'> &
  CapacitySlot &
  Pick<Job, 'api'>;

/** A job this caller has just cancelled. */
export type CancelledJob = Pick<Job, 'accountId' | 'api'> & CapacitySlot;

/** The job's counters after a settlement was added to them. */
export type CountedJob = Pick<
  Job,
  | 'accountId'
  | 'api'
  | 'status'
  | 'sandbox'
  | 'webhookUrl'
  | 'totalResults'
  | 'completedResults'
  | 'failedResults'
  | 'cancelledResults'
>;

/** What one settlement adds to its job's counters. */
export interface SettledCounts {
  completed: number;
  failed: number;
  cancelled: number;
  creditsUsed: number;
}

export interface ResultFiles {
  resultKey: string;
  thumbnailKey: string;
  /** Null for a result whose tool read no source image. */
  sourcePreviewKey: string | null;
}

const ACTIVE = `('queued', 'processing')`;

interface SettledRow {
  job_id: string;
  account_id: string;
  external_id: string | null;
  credits_reserved: number;
  capacity_group: JobResult['capacityGroup'];
  sandbox: boolean;
}

const settledResult = (row: SettledRow): SettledResult => ({
  jobId: row.job_id,
  accountId: row.account_id,
  externalId: row.external_id,
  creditsReserved: row.credits_reserved,
  capacityGroup: row.capacity_group,
  sandbox: row.sandbox,
});

/**
 * The state transitions of jobs and results, in the caller's transaction. Each is a conditional
 * update whose row count says whether this caller won: a method returns null (or false) when
 * the row was not in a state the transition starts from. The order they run in, and so the
 * lock order, is the caller's (`JobLifecycleService`).
 */
@Injectable()
export class JobStateRepository {
  /** Locks the row of the result's job (`FOR NO KEY UPDATE`) and returns its status; null for an unknown result. */
  async lockJobOfResult(manager: EntityManager, resultId: string): Promise<JobStatus | null> {
    const [job]: Array<{ status: JobStatus }> = await manager.query(
      `SELECT j.status FROM jobs j JOIN job_results r ON r.job_id = j.id WHERE r.id = $1 FOR NO KEY UPDATE OF j`,
      [resultId],
    );
    return job?.status ?? null;
  }

  /** Queued or processing to processing, counting the attempt; null when the result is settled. */
  async startResult(manager: EntityManager, resultId: string): Promise<StartedResult | null> {
    const [row]: Array<{
      job_id: string;
      account_id: string;
      index: number;
      sandbox: boolean;
      external_id: string | null;
      source_image_url: string | null;
      subject_hints: JobResult['subjectHints'];
    }> = await manager.query(
      `WITH started AS (
         UPDATE job_results SET status = 'processing', attempts = attempts + 1, started_at = coalesce(started_at, now())
          WHERE id = $1 AND status IN ${ACTIVE}
          RETURNING job_id, account_id, index, sandbox, external_id, source_image_url, subject_hints)
       SELECT * FROM started`,
      [resultId],
    );
    if (!row) return null;
    return {
      jobId: row.job_id,
      accountId: row.account_id,
      index: row.index,
      sandbox: row.sandbox,
      externalId: row.external_id,
      sourceImageUrl: row.source_image_url,
      subjectHints: row.subject_hints,
    };
  }

  /**
   * Undoes `startResult` for an attempt a stopping worker hands back unfinished: the attempt is
   * not counted, and a result no other attempt has run is queued again. False when the result
   * is no longer processing (settled meanwhile), which leaves it as it is.
   */
  async handBackResult(manager: EntityManager, resultId: string): Promise<boolean> {
    const handedBack: unknown[] = await manager.query(
      `WITH handed_back AS (
         UPDATE job_results
            SET attempts = greatest(attempts - 1, 0),
                status = CASE WHEN attempts <= 1 THEN 'queued' ELSE status END,
                started_at = CASE WHEN attempts <= 1 THEN NULL ELSE started_at END
          WHERE id = $1 AND status = 'processing'
          RETURNING id)
       SELECT id FROM handed_back`,
      [resultId],
    );
    return handedBack.length > 0;
  }

  /** A queued job becomes processing (any other status stays); returns what an attempt needs of it. */
  async markJobProcessing(manager: EntityManager, jobId: string): Promise<StartedJob> {
    type MovedRow = { api: Job['api']; output_format: Job['outputFormat']; options: Job['options'] };
    const [job]: MovedRow[] = await manager.query(
      `WITH moved AS (
         UPDATE jobs SET status = CASE WHEN status = 'queued' THEN 'processing' ELSE status END, updated_at = now()
          WHERE id = $1
          RETURNING api, output_format, options)
       SELECT * FROM moved`,
      [jobId],
    );
    return { api: job.api, outputFormat: job.output_format, options: job.options };
  }

  /**
   * Processing to completed, its reserved credits used, with what it says of its cut-out (nulls
   * for a result that is not one); null when the result is not processing. A cut-out (one with
   * an uncertainty) starts its review `pending`, flagged when its uncertainty reaches the
   * account's review threshold as it stands now: the flag is decided here, once.
   */
  async completeResult(
    manager: EntityManager,
    resultId: string,
    files: ResultFiles,
    cutout: { uncertainty: number | null; segmentation: StoredSegmentation | null },
  ): Promise<CompletedResult | null> {
    const [row]: Array<
      SettledRow & { flagged: boolean; review_state: JobResult['reviewState']; replaces_result_id: string | null }
    > = await manager.query(
      `WITH done AS (
         UPDATE job_results r
            SET status = 'completed', result_key = $2, thumbnail_key = $3, uncertainty = $4, segmentation = $5,
                source_preview_key = $6, credits_used = credits_reserved, completed_at = now(),
                review_state = CASE WHEN $4::real IS NULL THEN NULL ELSE 'pending' END,
                flagged = coalesce($4::real >= (SELECT a.review_threshold FROM accounts a WHERE a.id = r.account_id),
                                   false)
          WHERE id = $1 AND status = 'processing'
          RETURNING job_id, account_id, external_id, credits_reserved, capacity_group, sandbox,
                    flagged, review_state, replaces_result_id)
       SELECT * FROM done`,
      [resultId, files.resultKey, files.thumbnailKey, cutout.uncertainty, cutout.segmentation, files.sourcePreviewKey],
    );
    if (!row) return null;
    return {
      ...settledResult(row),
      flagged: row.flagged,
      reviewState: row.review_state,
      replacesResultId: row.replaces_result_id,
    };
  }

  /** Queued or processing to failed; null when the result is settled. */
  async failResult(
    manager: EntityManager,
    resultId: string,
    code: ResultErrorCode,
    message: string,
  ): Promise<SettledResult | null> {
    const [row]: SettledRow[] = await manager.query(
      `WITH done AS (
         UPDATE job_results
            SET status = 'failed', error_code = $2, error_message = $3, completed_at = now()
          WHERE id = $1 AND status IN ${ACTIVE}
          RETURNING job_id, account_id, external_id, credits_reserved, capacity_group, sandbox)
       SELECT * FROM done`,
      [resultId, code, message],
    );
    return row ? settledResult(row) : null;
  }

  /** Queued or processing to cancelled; null when the result is settled. */
  async cancelResult(manager: EntityManager, resultId: string): Promise<CancelledResult | null> {
    const [row]: Array<Omit<SettledRow, 'external_id'> & { api: Job['api'] }> = await manager.query(
      `WITH cancelled AS (
         UPDATE job_results SET status = 'cancelled', completed_at = now()
          WHERE id = $1 AND status IN ${ACTIVE}
          RETURNING job_id, account_id, credits_reserved, capacity_group, sandbox)
       SELECT c.*, j.api FROM cancelled c JOIN jobs j ON j.id = c.job_id`,
      [resultId],
    );
    if (!row) return null;
    return {
      jobId: row.job_id,
      accountId: row.account_id,
      creditsReserved: row.credits_reserved,
      capacityGroup: row.capacity_group,
      sandbox: row.sandbox,
      api: row.api,
    };
  }

  /** Queued or processing to cancelled; null when the job has ended. */
  async cancelJob(manager: EntityManager, jobId: string): Promise<CancelledJob | null> {
    const [row]: Array<{
      account_id: string;
      api: Job['api'];
      capacity_group: Job['capacityGroup'];
      sandbox: boolean;
    }> = await manager.query(
      `WITH cancelled AS (
           UPDATE jobs SET status = 'cancelled', completed_at = now(), updated_at = now()
            WHERE id = $1 AND status IN ${ACTIVE}
            RETURNING account_id, api, capacity_group, sandbox)
         SELECT * FROM cancelled`,
      [jobId],
    );
    if (!row) return null;
    return { accountId: row.account_id, api: row.api, capacityGroup: row.capacity_group, sandbox: row.sandbox };
  }

  /** Cancels the job's results no attempt has started; how many, and the credits they had reserved. */
  async cancelQueuedResults(manager: EntityManager, jobId: string): Promise<{ results: number; credits: number }> {
    const [cancelled]: Array<{ results: number; credits: number }> = await manager.query(
      `WITH cancelled AS (
         UPDATE job_results SET status = 'cancelled', completed_at = now()
          WHERE job_id = $1 AND status = 'queued'
          RETURNING credits_reserved)
       SELECT count(*)::int AS results, coalesce(sum(credits_reserved), 0)::int AS credits FROM cancelled`,
      [jobId],
    );
    return cancelled;
  }

  /** Counts results cancelled on a cancelled job (which no longer moves to another status). */
  async countCancelledResults(manager: EntityManager, jobId: string, results: number): Promise<void> {
    await manager.query(`UPDATE jobs SET cancelled_results = cancelled_results + $2 WHERE id = $1`, [jobId, results]);
  }

  /** Adds one settlement to the job's counters and returns them as they now stand. */
  async countSettlement(manager: EntityManager, jobId: string, counts: SettledCounts): Promise<CountedJob> {
    const [row]: Array<{
      account_id: string;
      api: Job['api'];
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
    return {
      accountId: row.account_id,
      api: row.api,
      status: row.status,
      sandbox: row.sandbox,
      webhookUrl: row.webhook_url,
      totalResults: row.total_results,
      completedResults: row.completed_results,
      failedResults: row.failed_results,
      cancelledResults: row.cancelled_results,
    };
  }

  /** Queued or processing to `status` (a terminal one); false when the job has already ended. */
  async endJob(manager: EntityManager, jobId: string, status: JobStatus): Promise<boolean> {
    const ended: unknown[] = await manager.query(
      `WITH ended AS (
         UPDATE jobs SET status = $2, completed_at = now() WHERE id = $1 AND status IN ${ACTIVE} RETURNING id)
       SELECT id FROM ended`,
      [jobId, status],
    );
    return ended.length > 0;
  }
}
