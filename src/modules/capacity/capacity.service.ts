import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { APP_CONFIG } from '../../core/config/config.module';
import type { AppConfig } from '../../core/config/config.schema';
import { DomainError } from '../../core/errors/domain-error';
import { ErrorCode } from '../../core/errors/error-code';
import type { CapacityGroup } from '../catalog/tools';

export interface CapacityDemand {
  accountId: string;
  keyId: string;
  sandbox: boolean;
  group: CapacityGroup;
  results: number;
}

/** Recent completions over this window give a group's throughput for Retry-After estimates. */
const THROUGHPUT_WINDOW_SECONDS = 300;
/** Without recent completions there is nothing to estimate from; ask for a modest wait. */
const UNKNOWN_THROUGHPUT_RETRY_SECONDS = 30;
const MIN_RETRY_SECONDS = 1;
const MAX_RETRY_SECONDS = 600;

const PENDING = `status IN ('queued', 'processing')`;

/**
 * Admission by active jobs and capacity groups (contract section 10). Runs inside the create
 * transaction after the account row is locked, so concurrent creates of one account are
 * counted one after the other and the last slot cannot be taken twice.
 */
@Injectable()
export class CapacityService {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  async admit(manager: EntityManager, demand: CapacityDemand): Promise<void> {
    await this.admitActiveJobs(manager, demand);
    // Sandbox results cost the workers almost nothing; they count against active jobs only.
    if (!demand.sandbox) await this.admitPendingResults(manager, demand);
  }

  private async admitActiveJobs(manager: EntityManager, demand: CapacityDemand): Promise<void> {
    const [active]: Array<{ key_active: number; account_active: number; results_left: number }> = await manager.query(
      `SELECT count(*) FILTER (WHERE api_key_id = $2)::int AS key_active,
              count(*)::int AS account_active,
              coalesce(sum(total_results - completed_results - failed_results - cancelled_results), 0)::int AS results_left
         FROM jobs WHERE account_id = $1 AND ${PENDING}`,
      [demand.accountId, demand.keyId],
    );
    const keyFull = active.key_active >= this.config.LIMIT_ACTIVE_JOBS_PER_KEY;
    const accountFull = active.account_active >= this.config.LIMIT_ACTIVE_JOBS_PER_ACCOUNT;
    if (!keyFull && !accountFull) return;
    const limit = keyFull
      ? `${this.config.LIMIT_ACTIVE_JOBS_PER_KEY} per API key`
      : `${this.config.LIMIT_ACTIVE_JOBS_PER_ACCOUNT} per account`;
    throw new DomainError(
      ErrorCode.TooManyActiveJobs,
      `Too many active jobs (at most ${limit}). Retry with the same Idempotency-Key when a job finishes.`,
      { scope: keyFull ? 'key' : 'account', active_jobs: keyFull ? active.key_active : active.account_active },
      await this.estimateWaitSeconds(manager, demand.group, Math.max(1, active.results_left)),
    );
  }

  private async admitPendingResults(manager: EntityManager, demand: CapacityDemand): Promise<void> {
    const max = this.config.CAPACITY_MAX_PENDING_RESULTS;
    const accountShare = Math.max(1, Math.floor(max * this.config.CAPACITY_ACCOUNT_SHARE));
    const [mine]: Array<{ pending: number }> = await manager.query(
      `SELECT count(*)::int AS pending FROM job_results
        WHERE capacity_group = $1 AND account_id = $2 AND ${PENDING} AND NOT sandbox`,
      [demand.group, demand.accountId],
    );
    if (mine.pending + demand.results > accountShare) {
      throw new DomainError(
        ErrorCode.TooManyPendingResults,
        `This account may hold at most ${accountShare} pending results in the ${demand.group} group; ` +
          `it holds ${mine.pending} and the request adds ${demand.results}.`,
        { group: demand.group, pending_results: mine.pending, requested_results: demand.results, limit: accountShare },
        await this.estimateWaitSeconds(manager, demand.group, mine.pending + demand.results - accountShare),
      );
    }
    // Different accounts race for the same group; one lock per group makes the count exact.
    await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`capacity:${demand.group}`]);
    const [group]: Array<{ pending: number }> = await manager.query(
      `SELECT count(*)::int AS pending FROM job_results WHERE capacity_group = $1 AND ${PENDING} AND NOT sandbox`,
      [demand.group],
    );
    if (group.pending + demand.results > max) {
      throw new DomainError(
        ErrorCode.CapacityUnavailable,
        `The ${demand.group} capacity group is full. Retry with the same Idempotency-Key later.`,
        { group: demand.group },
        await this.estimateWaitSeconds(manager, demand.group, group.pending + demand.results - max),
      );
    }
  }

  /** Seconds until `results` more results should have finished, at the group's recent pace. */
  private async estimateWaitSeconds(manager: EntityManager, group: CapacityGroup, results: number): Promise<number> {
    const [recent]: Array<{ finished: number }> = await manager.query(
      `SELECT count(*)::int AS finished FROM job_results
        WHERE capacity_group = $1 AND completed_at > now() - make_interval(secs => $2)`,
      [group, THROUGHPUT_WINDOW_SECONDS],
    );
    const perSecond = recent.finished / THROUGHPUT_WINDOW_SECONDS;
    const estimate = perSecond > 0 ? Math.ceil(results / perSecond) : UNKNOWN_THROUGHPUT_RETRY_SECONDS;
    return Math.min(MAX_RETRY_SECONDS, Math.max(MIN_RETRY_SECONDS, estimate));
  }
}
