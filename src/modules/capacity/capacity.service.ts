import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { preparedStatement, runPrepared } from '../../core/database/prepared-statement';
import { APP_CONFIG } from '../../core/config/config.module';
import type { AppConfig } from '../../core/config/config.schema';
import { DomainError } from '../../core/errors/domain-error';
import { ErrorCode } from '../../core/errors/error-code';
import { CapacityGroup } from '../catalog/tools';

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

const ACTIVE_JOBS = preparedStatement(
  'capacity_active_jobs',
  `SELECT count(*) FILTER (WHERE api_key_id = $2)::int AS key_active,
          count(*)::int AS account_active,
          coalesce(sum(total_results - completed_results - failed_results - cancelled_results), 0)::int AS results_left
     FROM jobs WHERE account_id = $1 AND ${PENDING}`,
);

const ACCOUNT_PENDING_RESULTS = preparedStatement(
  'capacity_account_pending_results',
  `SELECT count(*)::int AS pending FROM job_results
    WHERE capacity_group = $1 AND account_id = $2 AND ${PENDING} AND NOT sandbox`,
);

const GROUP_PENDING = preparedStatement(
  'capacity_group_pending',
  `SELECT pending_results FROM capacity_groups WHERE name = $1`,
);

/** A conditional update, so no two creates take the same last slot. */
const TAKE_SLOTS = preparedStatement(
  'capacity_take_slots',
  `UPDATE capacity_groups SET pending_results = pending_results + $2
    WHERE name = $1 AND pending_results + $2 <= $3
    RETURNING pending_results`,
);

/**
 * Admission by active jobs and capacity groups (contract section 10). `admit` runs inside the
 * create transaction after the account row is locked, so concurrent creates of one account are
 * counted one after the other; `reserve`, the transaction's last statement, takes the group's
 * slots from its counter row (`capacity_groups`), and `release` gives them back as results
 * settle. Accounts never wait on each other for longer than a commit.
 */
@Injectable()
export class CapacityService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  async admit(manager: EntityManager, demand: CapacityDemand): Promise<void> {
    await this.admitActiveJobs(manager, demand);
    // Sandbox results cost the workers almost nothing; they count against active jobs only.
    if (!demand.sandbox) await this.admitPendingResults(manager, demand);
  }

  private async admitActiveJobs(manager: EntityManager, demand: CapacityDemand): Promise<void> {
    const [active] = await runPrepared<{ key_active: number; account_active: number; results_left: number }>(
      manager,
      ACTIVE_JOBS,
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
    // Exact: the account row is locked, so this account's creates are counted one after the other.
    const [mine] = await runPrepared<{ pending: number }>(manager, ACCOUNT_PENDING_RESULTS, [demand.group, demand.accountId]);
    if (mine.pending + demand.results > accountShare) {
      throw new DomainError(
        ErrorCode.TooManyPendingResults,
        `This account may hold at most ${accountShare} pending results in the ${demand.group} group; ` +
          `it holds ${mine.pending} and the request adds ${demand.results}.`,
        { group: demand.group, pending_results: mine.pending, requested_results: demand.results, limit: accountShare },
        await this.estimateWaitSeconds(manager, demand.group, mine.pending + demand.results - accountShare),
      );
    }
    // A read without a lock, so a full group is refused before credits are looked at (the
    // contract's order); `reserve` decides for certain at the end of the transaction.
    const pending = await this.groupPending(manager, demand.group);
    if (pending + demand.results > max) throw await this.groupFull(manager, demand, pending);
  }

  /**
   * Takes the demand's slots in its group, or refuses with 503 capacity_unavailable. The last
   * statement of the create transaction: the counter row stays locked only until the commit, so
   * creates of different accounts wait on each other for that long and no longer, and the
   * conditional update lets no two of them take the same last slot.
   */
  async reserve(manager: EntityManager, demand: CapacityDemand): Promise<void> {
    if (demand.sandbox) return;
    const max = this.config.CAPACITY_MAX_PENDING_RESULTS;
    const [taken] = await runPrepared<{ pending_results: number }>(manager, TAKE_SLOTS, [demand.group, demand.results, max]);
    if (!taken) throw await this.groupFull(manager, demand, await this.groupPending(manager, demand.group));
  }

  /**
   * Gives back the slots of live results that settled (completed, failed or cancelled). Called
   * last in the settling transaction, for the same reason as `reserve`. Never below zero: a
   * counter behind the truth (results admitted by an older release during a rolling upgrade)
   * is corrected by `reconcile` rather than failing a settlement.
   */
  async release(manager: EntityManager, group: CapacityGroup, results: number): Promise<void> {
    if (results <= 0) return;
    await manager.query(
      `UPDATE capacity_groups SET pending_results = greatest(pending_results - $2, 0) WHERE name = $1`,
      [group, results],
    );
  }

  /**
   * Sets each group's counter to the live results actually pending, returning the groups that
   * had drifted. The counter row is locked first, so every transaction that changed it has
   * committed before the count is taken, and every later one waits for this one.
   */
  async reconcile(): Promise<Array<{ group: CapacityGroup; counted: number; was: number }>> {
    const drifted: Array<{ group: CapacityGroup; counted: number; was: number }> = [];
    for (const group of Object.values(CapacityGroup)) {
      await this.dataSource.transaction(async (manager) => {
        await manager.query(
          `INSERT INTO capacity_groups (name, pending_results) VALUES ($1, 0) ON CONFLICT (name) DO NOTHING`,
          [group],
        );
        const [row]: Array<{ pending_results: number }> = await manager.query(
          `SELECT pending_results FROM capacity_groups WHERE name = $1 FOR UPDATE`,
          [group],
        );
        const [actual]: Array<{ pending: number }> = await manager.query(
          `SELECT count(*)::int AS pending FROM job_results WHERE capacity_group = $1 AND ${PENDING} AND NOT sandbox`,
          [group],
        );
        if (actual.pending === row.pending_results) return;
        await manager.query(`UPDATE capacity_groups SET pending_results = $2 WHERE name = $1`, [group, actual.pending]);
        drifted.push({ group, counted: actual.pending, was: row.pending_results });
      });
    }
    return drifted;
  }

  private async groupPending(manager: EntityManager, group: CapacityGroup): Promise<number> {
    const [row] = await runPrepared<{ pending_results: number }>(manager, GROUP_PENDING, [group]);
    if (!row) throw new Error(`capacity group ${group} has no counter row (migrations not run?)`);
    return row.pending_results;
  }

  private async groupFull(manager: EntityManager, demand: CapacityDemand, pending: number): Promise<DomainError> {
    const max = this.config.CAPACITY_MAX_PENDING_RESULTS;
    return new DomainError(
      ErrorCode.CapacityUnavailable,
      `The ${demand.group} capacity group is full. Retry with the same Idempotency-Key later.`,
      { group: demand.group },
      await this.estimateWaitSeconds(manager, demand.group, Math.max(1, pending + demand.results - max)),
    );
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
