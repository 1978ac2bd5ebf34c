import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { afterCommit } from '../../core/database/after-commit';
import { preparedStatement, runPrepared } from '../../core/database/prepared-statement';
import { DomainError } from '../../core/errors/domain-error';
import { CreditMetrics } from '../../core/metrics/credit.metrics';
import { Account } from '../accounts/account.entity';
import { IdempotencyService, type OperatorIdempotentRequest } from '../idempotency/idempotency.service';
import { CreditLedgerEntry, LedgerEntryKind } from './credit-ledger-entry.entity';

/** The largest balance the `integer` column holds. */
const MAX_BALANCE = 2_147_483_647;

const RESERVE = preparedStatement(
  'credits_reserve',
  `UPDATE accounts SET paid_credits = paid_credits - $1, updated_at = now()
    WHERE id = $2 AND paid_credits >= $1
    RETURNING paid_credits`,
);

const RECORD = preparedStatement(
  'credits_record',
  `INSERT INTO credit_ledger (account_id, kind, amount, credits, job_id, reason) VALUES ($1, $2, $3, $4, $5, NULL)`,
);

export interface BalanceChange {
  accountId: string;
  /** Signed effect on the balance. */
  amount: number;
  kind: LedgerEntryKind.Grant | LedgerEntryKind.Adjustment;
  reason: string | null;
}

/**
 * Owns the balance and its ledger: every change to `accounts.paid_credits` happens here,
 * beside the ledger row that explains it, in the caller's transaction.
 */
@Injectable()
export class CreditsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly idempotency: IdempotencyService,
    private readonly metrics: CreditMetrics,
  ) {}

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
    const [account]: Array<{ paid_credits: number }> = await manager.query(
      `SELECT paid_credits FROM accounts WHERE id = $1 FOR UPDATE`,
      [change.accountId],
    );
    if (!account) throw DomainError.notFound('account');
    const balance = account.paid_credits;
    if (balance + change.amount < 0) {
      throw DomainError.invalid(
        [{ path: 'amount', message: `would take the balance below zero (balance is ${balance})` }],
        'The correction is larger than the balance.',
      );
    }
    if (change.amount > 0) {
      // Read after the lock: every reservation and release of this account that committed is seen.
      const reserved = await this.outstandingReservations(manager, change.accountId);
      if (balance + reserved + change.amount > MAX_BALANCE) {
        throw DomainError.invalid(
          [
            {
              path: 'amount',
              message: `would take the balance plus the ${reserved} credits still reserved above ${MAX_BALANCE} (balance is ${balance})`,
            },
          ],
          'The grant would exceed the largest balance an account can hold.',
        );
      }
    }
    // Wrapped in a SELECT because TypeORM reshapes the result of a bare UPDATE ... RETURNING.
    // The bound is computed in bigint, so the check itself cannot overflow.
    const rows: Array<{ paid_credits: number }> = await manager.query(
      `WITH updated AS (
         UPDATE accounts SET paid_credits = paid_credits + $1, updated_at = now()
          WHERE id = $2 AND paid_credits::bigint + $1 BETWEEN 0 AND $3
          RETURNING paid_credits)
       SELECT paid_credits FROM updated`,
      [change.amount, change.accountId, MAX_BALANCE],
    );
    if (rows.length === 0) throw new Error(`the balance of account ${change.accountId} changed while locked`);
    await manager.insert(CreditLedgerEntry, {
      accountId: change.accountId,
      kind: change.kind,
      amount: change.amount,
      credits: Math.abs(change.amount),
      jobId: null,
      reason: change.reason,
    });
    return rows[0].paid_credits;
  }

  /**
   * Takes a job's credits out of the balance, in the job's creation transaction. Returns the
   * balance after the reservation, or null (and changes nothing) when it is too small.
   */
  async reserve(manager: EntityManager, accountId: string, jobId: string, credits: number): Promise<number | null> {
    const rows = await runPrepared<{ paid_credits: number }>(manager, RESERVE, [credits, accountId]);
    if (rows.length === 0) return null;
    await this.record(manager, accountId, LedgerEntryKind.Reserve, -credits, credits, jobId);
    afterCommit(manager, () => this.metrics.reserved(credits));
    return rows[0].paid_credits;
  }

  /** Reserved credits become spent: the balance does not move, the ledger says so. */
  async capture(manager: EntityManager, accountId: string, jobId: string, credits: number): Promise<void> {
    if (credits <= 0) return;
    await this.record(manager, accountId, LedgerEntryKind.Capture, 0, credits, jobId);
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
    const rows: unknown[] = await manager.query(
      `WITH updated AS (
         UPDATE accounts SET paid_credits = paid_credits + $1, updated_at = now()
          WHERE id = $2 AND paid_credits::bigint + $1 <= $3
          RETURNING id)
       SELECT id FROM updated`,
      [credits, accountId, MAX_BALANCE],
    );
    if (rows.length === 0) {
      throw new Error(
        `Releasing ${credits} credits of job ${jobId} would take the balance of account ${accountId} above ${MAX_BALANCE}, or the account is gone`,
      );
    }
    await this.record(manager, accountId, LedgerEntryKind.Release, credits, credits, jobId);
    afterCommit(manager, () => this.metrics.released(credits));
  }

  /** Credits reserved by results not yet settled: reserved, less what was captured or released. */
  private async outstandingReservations(manager: EntityManager, accountId: string): Promise<number> {
    const [{ reserved }]: Array<{ reserved: string }> = await manager.query(
      `SELECT coalesce(sum(CASE kind WHEN 'reserve' THEN credits ELSE -credits END), 0)::bigint AS reserved
         FROM credit_ledger
        WHERE account_id = $1 AND kind IN ('reserve', 'capture', 'release')`,
      [accountId],
    );
    return Number(reserved);
  }

  async balance(accountId: string): Promise<number> {
    const account = await this.dataSource.getRepository(Account).findOneBy({ id: accountId });
    if (!account) throw DomainError.notFound('account');
    return account.paidCredits;
  }

  private async record(
    manager: EntityManager,
    accountId: string,
    kind: LedgerEntryKind,
    amount: number,
    credits: number,
    jobId: string,
  ): Promise<void> {
    await runPrepared(manager, RECORD, [accountId, kind, amount, credits, jobId]);
  }

  async ledger(accountId: string, limit: number): Promise<CreditLedgerEntry[]> {
    return this.dataSource.getRepository(CreditLedgerEntry).find({
      where: { accountId },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: limit,
    });
  }
}
