import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { APP_CONFIG } from '../../core/config/config.module';
import type { AppConfig } from '../../core/config/config.schema';
import { DomainError } from '../../core/errors/domain-error';
import { ErrorCode } from '../../core/errors/error-code';
import { CapacityGroup } from '../catalog/tools';
import { CapacityRepository } from './capacity.repository';

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
    private readonly counters: CapacityRepository,
  ) {}

  async admit(manager: EntityManager, demand: CapacityDemand): Promise<void> {
    await this.admitActiveJobs(manager, demand);
    // Sandbox results cost the workers almost nothing; they count against active jobs only.
    if (!demand.sandbox) await this.admitPendingResults(manager, demand);
  }

  private async admitActiveJobs(manager: EntityManager, demand: CapacityDemand): Promise<void> {
    const active = await this.counters.countActiveJobs(manager, demand.accountId, demand.keyId);
    const keyFull = active.keyActive >= this.config.LIMIT_ACTIVE_JOBS_PER_KEY;
    const accountFull = active.accountActive >= this.config.LIMIT_ACTIVE_JOBS_PER_ACCOUNT;
    if (!keyFull && !accountFull) return;
    const limit = keyFull
      ? `${this.config.LIMIT_ACTIVE_JOBS_PER_KEY} per API key`
      : `${this.config.LIMIT_ACTIVE_JOBS_PER_ACCOUNT} per account`;
    throw new DomainError(
      ErrorCode.TooManyActiveJobs,
      `Too many active jobs (at most ${limit}). Retry with the same Idempotency-Key when a job finishes.`,
      { scope: keyFull ? 'key' : 'account', active_jobs: keyFull ? active.keyActive : active.accountActive },
      await this.estimateWaitSeconds(manager, demand.group, Math.max(1, active.resultsLeft)),
    );
  }

  private async admitPendingResults(manager: EntityManager, demand: CapacityDemand): Promise<void> {
    const max = this.config.CAPACITY_MAX_PENDING_RESULTS;
    const accountShare = Math.max(1, Math.floor(max * this.config.CAPACITY_ACCOUNT_SHARE));
    // Exact: the account row is locked, so this account's creates are counted one after the other.
    const mine = await this.counters.countAccountPendingResults(manager, demand.group, demand.accountId);
    if (mine + demand.results > accountShare) {
      throw new DomainError(
        ErrorCode.TooManyPendingResults,
        `This account may hold at most ${accountShare} pending results in the ${demand.group} group; ` +
          `it holds ${mine} and the request adds ${demand.results}.`,
        { group: demand.group, pending_results: mine, requested_results: demand.results, limit: accountShare },
        await this.estimateWaitSeconds(manager, demand.group, mine + demand.results - accountShare),
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
    if (!(await this.counters.takeSlots(manager, demand.group, demand.results, max)))
      throw await this.groupFull(manager, demand, await this.groupPending(manager, demand.group));
  }

  /**
   * Gives back the slots of live results that settled (completed, failed or cancelled). Called
   * last in the settling transaction, for the same reason as `reserve`. Never below zero: a
   * counter behind the truth (results admitted by an older release during a rolling upgrade)
   * is corrected by `reconcile` rather than failing a settlement.
   */
  async release(manager: EntityManager, group: CapacityGroup, results: number): Promise<void> {
    if (results <= 0) return;
    await this.counters.releaseSlots(manager, group, results);
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
        await this.counters.ensureCounter(manager, group);
        const was = await this.counters.lockCounter(manager, group);
        const counted = await this.counters.countPendingResults(manager, group);
        if (counted === was) return;
        await this.counters.setCounter(manager, group, counted);
        drifted.push({ group, counted, was });
      });
    }
    return drifted;
  }

  private async groupPending(manager: EntityManager, group: CapacityGroup): Promise<number> {
    const pending = await this.counters.readCounter(manager, group);
    if (pending === null) throw new Error(`capacity group ${group} has no counter row (migrations not run?)`);
    return pending;
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
    const finished = await this.counters.countRecentlyCompleted(manager, group, THROUGHPUT_WINDOW_SECONDS);
    const perSecond = finished / THROUGHPUT_WINDOW_SECONDS;
    const estimate = perSecond > 0 ? Math.ceil(results / perSecond) : UNKNOWN_THROUGHPUT_RETRY_SECONDS;
    return Math.min(MAX_RETRY_SECONDS, Math.max(MIN_RETRY_SECONDS, estimate));
  }
}
