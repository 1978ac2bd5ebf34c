import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { StoredSegmentation } from '../../engine/mask/segmentation-report';
import { KeyEnvironment } from '../auth/api-key.entity';
import type { AuthContext } from '../auth/auth-context';
import type { ToolId } from '../catalog/tools';
import type { ReviewedResult } from './result-review';
import type { ReviewCursor } from './review-cursor';
import { ReviewState } from './review-state';

/** A result as the review list, a decision and a re-cut read it, with what its events need of its job. */
export interface ReviewRow extends ReviewedResult {
  id: string;
  jobId: string;
  accountId: string;
  sandbox: boolean;
  tool: ToolId;
  jobStatus: string;
  webhookUrl: string | null;
  index: number;
  externalId: string | null;
  sourceImageUrl: string | null;
  resultKey: string | null;
  thumbnailKey: string | null;
  sourcePreviewKey: string | null;
  filesExpiredAt: Date | null;
  segmentation: StoredSegmentation | null;
  completedAt: Date | null;
  /** `completed_at` to the microsecond, as the list's cursor holds it (a Date keeps milliseconds only). */
  position: string;
}

/** A result locked for a review change, with the status of the re-cut that replaced it (null when none did). */
export interface LockedReviewRow extends ReviewRow {
  replacementStatus: string | null;
}

export interface ReviewListFilter {
  /** One state, or null for every state. */
  state: ReviewState | null;
  tool?: ToolId;
  completedFrom?: Date;
  completedTo?: Date;
  minUncertainty?: number;
  maxUncertainty?: number;
  limit: number;
  /** Exclusive: results after this one, in listing order. */
  after?: ReviewCursor;
}

interface Row {
  id: string;
  job_id: string;
  account_id: string;
  sandbox: boolean;
  api: ToolId;
  job_status: string;
  webhook_url: string | null;
  index: number;
  external_id: string | null;
  source_image_url: string | null;
  status: string;
  result_key: string | null;
  thumbnail_key: string | null;
  source_preview_key: string | null;
  files_expired_at: Date | null;
  uncertainty: number | null;
  segmentation: StoredSegmentation | null;
  flagged: boolean;
  review_state: ReviewState | null;
  decided_by: string | null;
  decided_at: Date | null;
  review_note: string | null;
  replaces_result_id: string | null;
  replaced_by_result_id: string | null;
  completed_at: Date | null;
  position: string;
}

/** The result's columns and its job's, from `r` joined to `j`. */
const COLUMNS = `r.id, r.job_id, r.account_id, r.sandbox, j.api, j.status AS job_status, j.webhook_url, r.index,
  r.external_id, r.source_image_url, r.status, r.result_key, r.thumbnail_key, r.source_preview_key, r.files_expired_at,
  r.uncertainty, r.segmentation, r.flagged, r.review_state, r.decided_by, r.decided_at, r.review_note,
  r.replaces_result_id, r.replaced_by_result_id, r.completed_at,
  to_char(r.completed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS position`;

/** The deciding key's name, or its id when it has none; `keyParam` is the parameter holding its id. */
const decider = (keyParam: string) => `(SELECT coalesce(k.name, k.id::text) FROM api_keys k WHERE k.id = ${keyParam})`;

const reviewRow = (row: Row): ReviewRow => ({
  id: row.id,
  jobId: row.job_id,
  accountId: row.account_id,
  sandbox: row.sandbox,
  tool: row.api,
  jobStatus: row.job_status,
  webhookUrl: row.webhook_url,
  index: row.index,
  externalId: row.external_id,
  sourceImageUrl: row.source_image_url,
  status: row.status,
  resultKey: row.result_key,
  thumbnailKey: row.thumbnail_key,
  sourcePreviewKey: row.source_preview_key,
  filesExpiredAt: row.files_expired_at,
  uncertainty: row.uncertainty,
  segmentation: row.segmentation,
  flagged: row.flagged,
  reviewState: row.review_state,
  decidedBy: row.decided_by,
  decidedAt: row.decided_at,
  reviewNote: row.review_note,
  replacesResultId: row.replaces_result_id,
  replacedByResultId: row.replaced_by_result_id,
  completedAt: row.completed_at,
  position: row.position,
});

const isSandbox = (caller: AuthContext) => caller.environment === KeyEnvironment.Sandbox;

/**
 * The review columns of results. Every read and write takes the caller, so a result of another
 * account or environment is never found. Writes run in the caller's transaction and lock only
 * result rows (level 2 of the lock order in `JobLifecycleService`): a re-cut locks the replaced
 * result before its create locks the account.
 */
@Injectable()
export class ReviewsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Flagged cut-outs, newest completed first by (completed_at, id). Every condition is written
   * out (no `$n IS NULL OR ...`), so the plan of each query is the index's:
   * `job_results_review_list_idx` for one state, `job_results_review_list_all_idx` for all.
   */
  async list(caller: AuthContext, filter: ReviewListFilter): Promise<ReviewRow[]> {
    const params: unknown[] = [caller.accountId, isSandbox(caller)];
    const where = ['r.account_id = $1', 'r.sandbox = $2', 'r.flagged'];
    const param = (value: unknown) => `$${params.push(value)}`;
    if (filter.state) where.push(`r.review_state = ${param(filter.state)}`);
    if (filter.after) {
      where.push(
        `(r.completed_at, r.id) < (${param(filter.after.position)}::timestamptz, ${param(filter.after.id)}::uuid)`,
      );
    }
    if (filter.completedFrom) where.push(`r.completed_at >= ${param(filter.completedFrom)}`);
    if (filter.completedTo) where.push(`r.completed_at < ${param(filter.completedTo)}`);
    if (filter.minUncertainty !== undefined) where.push(`r.uncertainty >= ${param(filter.minUncertainty)}::real`);
    if (filter.maxUncertainty !== undefined) where.push(`r.uncertainty <= ${param(filter.maxUncertainty)}::real`);
    if (filter.tool) where.push(`j.api = ${param(filter.tool)}`);
    const rows: Row[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM job_results r JOIN jobs j ON j.id = r.job_id
        WHERE ${where.join(' AND ')}
        ORDER BY r.completed_at DESC, r.id DESC LIMIT ${param(filter.limit)}`,
      params,
    );
    return rows.map(reviewRow);
  }

  /** One result of the caller's account and environment, whatever its state; null for any other. */
  async findOwned(caller: AuthContext, id: string): Promise<ReviewRow | null> {
    const [row]: Row[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM job_results r JOIN jobs j ON j.id = r.job_id
        WHERE r.id = $1 AND r.account_id = $2 AND r.sandbox = $3`,
      [id, caller.accountId, isSandbox(caller)],
    );
    return row ? reviewRow(row) : null;
  }

  /** The flagged cut-outs still pending, counted on the list's index. */
  async countPending(caller: AuthContext): Promise<number> {
    const [row]: Array<{ pending: number }> = await this.dataSource.query(
      `SELECT count(*)::int AS pending FROM job_results
        WHERE account_id = $1 AND sandbox = $2 AND flagged AND review_state = $3`,
      [caller.accountId, isSandbox(caller), ReviewState.Pending],
    );
    return row.pending;
  }

  async threshold(accountId: string): Promise<number> {
    const [row]: Array<{ review_threshold: number }> = await this.dataSource.query(
      `SELECT review_threshold FROM accounts WHERE id = $1`,
      [accountId],
    );
    return row.review_threshold;
  }

  /**
   * The caller's results among `ids`, their rows locked until the transaction ends; others are
   * left out. The replacing re-cut's row is read, not locked: only its status is needed, and a
   * re-cut of a locked result cannot start meanwhile.
   */
  async lockOwned(manager: EntityManager, caller: AuthContext, ids: string[]): Promise<LockedReviewRow[]> {
    const rows: Array<Row & { replacement_status: string | null }> = await manager.query(
      `SELECT ${COLUMNS},
              (SELECT rb.status FROM job_results rb WHERE rb.id = r.replaced_by_result_id) AS replacement_status
         FROM job_results r JOIN jobs j ON j.id = r.job_id
        WHERE r.id = ANY($1::uuid[]) AND r.account_id = $2 AND r.sandbox = $3
        ORDER BY r.id
          FOR NO KEY UPDATE OF r`,
      [ids, caller.accountId, isSandbox(caller)],
    );
    return rows.map((row) => ({ ...reviewRow(row), replacementStatus: row.replacement_status }));
  }

  /**
   * Records a decision on a locked result: the deciding key, now, the note. A result whose re-cut
   * failed is decided as it is, no longer linked to that re-cut (which still names it).
   */
  async decide(
    manager: EntityManager,
    caller: AuthContext,
    resultId: string,
    decision: { state: ReviewState; note: string | null },
  ): Promise<ReviewRow> {
    const [row]: Row[] = await manager.query(
      `WITH decided AS (
         UPDATE job_results
            SET review_state = $2, decided_by = ${decider('$3')}, decided_at = now(), review_note = $4,
                replaced_by_result_id = NULL
          WHERE id = $1 AND account_id = $5
          RETURNING *)
       SELECT ${COLUMNS} FROM decided r JOIN jobs j ON j.id = r.job_id`,
      [resultId, decision.state, caller.keyId, decision.note, caller.accountId],
    );
    return reviewRow(row);
  }

  /**
   * Links each locked, replaced result to its re-cut (`by`, a result of the job being created in
   * this transaction) both ways; the replaced one becomes `recut`, decided by the creating key.
   * Returns the replaced results as they now stand.
   */
  async linkRecuts(
    manager: EntityManager,
    caller: AuthContext,
    links: ReadonlyArray<{ replaced: string; by: string }>,
  ): Promise<ReviewRow[]> {
    await manager.query(
      `UPDATE job_results n SET replaces_result_id = link.replaced
         FROM unnest($1::uuid[], $2::uuid[]) AS link(replaced, by_id)
        WHERE n.id = link.by_id`,
      [links.map((link) => link.replaced), links.map((link) => link.by)],
    );
    const rows: Row[] = await manager.query(
      `WITH replaced AS (
         UPDATE job_results o
            SET review_state = 'recut', replaced_by_result_id = link.by_id, decided_by = ${decider('$4')},
                decided_at = now(), review_note = NULL
           FROM unnest($1::uuid[], $2::uuid[]) AS link(replaced, by_id)
          WHERE o.id = link.replaced AND o.account_id = $3
          RETURNING o.*)
       SELECT ${COLUMNS} FROM replaced r JOIN jobs j ON j.id = r.job_id`,
      [links.map((link) => link.replaced), links.map((link) => link.by), caller.accountId, caller.keyId],
    );
    return rows.map(reviewRow);
  }
}
