import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { afterCommit } from '../../core/database/after-commit';
import { DomainError } from '../../core/errors/domain-error';
import { CreditMetrics } from '../../core/metrics/credit.metrics';
import { AccountsRepository } from '../accounts/accounts.repository';
import { IdempotencyService, type OperatorIdempotentRequest } from '../idempotency/idempotency.service';
import { CreditLedgerRepository, type LedgerEntryWithBalance } from './credit-ledger.repository';
import { LedgerEntryKind, type CreditLedgerEntry } from './credit-ledger-entry.entity';

/** The largest balance the `integer` column holds. */
const MAX_BALANCE = 2_147_483_647;

export interface BalanceChange {
  accountId: string;
  /** Signed effect on the balance. */
  amount: number;
  kind: LedgerEntryKind.Grant | LedgerEntryKind.Adjustment;
  reason: string | null;
}

export interface NewAccount {
  name: string;
  credits: number;
  apiAccess: boolean;
}

/**
 * Owns the balance and its ledger: every change to `accounts.paid_credits` happens here,
 * beside the ledger row that explains it, in the caller's transaction.
 */
@Injectable()
export class CreditsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly accounts: AccountsRepository,
    private readonly ledgerEntries: CreditLedgerRepository,
    private readonly idempotency: IdempotencyService,
    private readonly metrics: CreditMetrics,
  ) {}

  /** The account and its opening grant are one transaction: no account without its ledger. Returns its id. */
  async openAccount({ name, credits, apiAccess }: NewAccount): Promise<string> {
    return this.dataSource.transaction(async (manager) => {
      const account = await this.accounts.insertEmpty(manager, { name, apiAccess });
      if (credits > 0) {
        await this.changeBalance(manager, {
          accountId: account.id,
          amount: credits,
          kind: LedgerEntryKind.Grant,
          reason: 'opening balance',
        });
      }
      return account.id;
    });
  }

  /**
   * A grant (positive) or a correction (either sign) made by an operator. With an idempotency
   * request, the key is claimed first in the same transaction: a repeat of an earlier request
   * changes nothing, and a concurrent one waits for the first to commit (contract section 9).
   * Returns whether this call made the change (false for a repeat).
   */
  async applyOperatorChange(
    accountId: string,
    amount: number,
    reason: string,
    idempotent?: OperatorIdempotentRequest,
  ): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      if (idempotent && !(await this.idempotency.claimOperatorRequest(manager, idempotent))) return false;
      await this.changeBalance(manager, {
        accountId,
        amount,
        kind: amount > 0 ? LedgerEntryKind.Grant : LedgerEntryKind.Adjustment,
        reason,
      });
      return true;
    });
  }

  /**
   * Moves the balance and writes the ledger row. The account row is locked first, so no
   * reservation or release interleaves between the checks and the update.
   *
   * A grant must leave room for the credits still reserved by unsettled results: each of them
   * will be released or captured, and a release adds them back to the balance. Keeping
   * `balance + reserved <= MAX_BALANCE` here (the only place the sum grows) is what makes every
   * later release fit the `integer` column.
   */
  async changeBalance(manager: EntityManager, change: BalanceChange): Promise<number> {
    const balance = await this.accounts.lockBalance(manager, change.accountId);
    if (balance === null) throw DomainError.notFound('account');
    if (balance + change.amount < 0) {
      throw DomainError.invalid(
        [{ path: 'amount', message: `would take the balance below zero (balance is ${balance})` }],
        'The correction is larger than the balance.',
      );
    }
    if (change.amount > 0) {
      // Read after the lock: every reservation and release of this account that committed is seen.
      const reserved = await this.ledgerEntries.outstandingReservations(manager, change.accountId);
      if (balance + reserved + change.amount > MAX_BALANCE) {
        throw DomainError.invalid(
          [
            {
              path: 'amount',
              message:
                `would take the balance plus the ${reserved} credits still reserved ` +
                `above ${MAX_BALANCE} (balance is ${balance})`,
            },
          ],
          'The grant would exceed the largest balance an account can hold.',
        );
      }
    }
    const changed = await this.accounts.changeBalanceWithin(manager, change.accountId, change.amount, MAX_BALANCE);
    if (changed === null) throw new Error(`the balance of account ${change.accountId} changed while locked`);
    await this.ledgerEntries.recordOperatorChange(manager, change);
    return changed;
  }

  /**
   * Takes a job's credits out of the balance, in the job's creation transaction. Returns the
   * balance after the reservation, or null (and changes nothing) when it is too small.
   */
  async reserve(manager: EntityManager, accountId: string, jobId: string, credits: number): Promise<number | null> {
    const remaining = await this.accounts.withdraw(manager, accountId, credits);
    if (remaining === null) return null;
    await this.ledgerEntries.recordJobMovement(manager, {
      accountId,
      kind: LedgerEntryKind.Reserve,
      amount: -credits,
      credits,
      jobId,
    });
    afterCommit(manager, () => this.metrics.reserved(credits));
    return remaining;
  }

  /** Reserved credits become spent: the balance does not move, the ledger says so. */
  async capture(manager: EntityManager, accountId: string, jobId: string, credits: number): Promise<void> {
    if (credits <= 0) return;
    await this.ledgerEntries.recordJobMovement(manager, {
      accountId,
      kind: LedgerEntryKind.Capture,
      amount: 0,
      credits,
      jobId,
    });
    afterCommit(manager, () => this.metrics.captured(credits));
  }

  /**
   * Reserved credits that will not be spent go back to the balance. Grants leave room for every
   * outstanding reservation (see `changeBalance`), so this always fits; the bound in the WHERE
   * clause, computed in bigint, is the guard should that ever be broken (say, by a balance set
   * by hand): the release then fails with a clear error, rolling back the settlement, instead
   * of an `integer out of range` from the database or a silently clipped balance.
   */
  async release(manager: EntityManager, accountId: string, jobId: string, credits: number): Promise<void> {
    if (credits <= 0) return;
    if (!(await this.accounts.depositWithin(manager, accountId, credits, MAX_BALANCE))) {
      throw new Error(
        `Releasing ${credits} credits of job ${jobId} would take the balance of account ${accountId} ` +
          `above ${MAX_BALANCE}, or the account is gone`,
      );
    }
    await this.ledgerEntries.recordJobMovement(manager, {
      accountId,
      kind: LedgerEntryKind.Release,
      amount: credits,
      credits,
      jobId,
    });
    afterCommit(manager, () => this.metrics.released(credits));
  }

  async balance(accountId: string): Promise<number> {
    const account = await this.accounts.findById(accountId);
    if (!account) throw DomainError.notFound('account');
    return account.paidCredits;
  }

  async ledger(accountId: string, limit: number): Promise<CreditLedgerEntry[]> {
    return this.ledgerEntries.recent(accountId, limit);
  }

  /**
   * A page of the account's ledger as its own keys see it, newest first, each entry with the
   * balance it left; `limit + 1` are read so the caller can tell whether a next page exists.
   * Entries a job made belong to live jobs (sandbox jobs move no credits), so a sandbox key
   * sees the account's grants and corrections only.
   */
  async ledgerPage(
    accountId: string,
    query: { limit: number; afterId?: string; sandbox: boolean },
  ): Promise<LedgerEntryWithBalance[]> {
    return this.ledgerEntries.page(accountId, {
      limit: query.limit + 1,
      afterId: query.afterId,
      withoutJobs: query.sandbox,
    });
  }
}
