import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { DomainError } from '../../core/errors/domain-error';
import { Account } from '../accounts/account.entity';
import { CreditLedgerEntry, LedgerEntryKind } from './credit-ledger-entry.entity';

/** The largest balance the `integer` column holds. */
const MAX_BALANCE = 2_147_483_647;

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
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** A grant (positive) or a correction (either sign) made by an operator. */
  async applyOperatorChange(accountId: string, amount: number, reason: string): Promise<void> {
    await this.dataSource.transaction((manager) =>
      this.changeBalance(manager, {
        accountId,
        amount,
        kind: amount > 0 ? LedgerEntryKind.Grant : LedgerEntryKind.Adjustment,
        reason,
      }),
    );
  }

  /**
   * Moves the balance and writes the ledger row. The conditional update is what keeps the
   * balance from ever going below zero, whatever runs concurrently.
   */
  async changeBalance(manager: EntityManager, change: BalanceChange): Promise<number> {
    // Wrapped in a SELECT because TypeORM reshapes the result of a bare UPDATE ... RETURNING.
    const rows: Array<{ paid_credits: number }> = await manager.query(
      `WITH updated AS (
         UPDATE accounts SET paid_credits = paid_credits + $1, updated_at = now()
          WHERE id = $2 AND paid_credits::bigint + $1 BETWEEN 0 AND $3
          RETURNING paid_credits)
       SELECT paid_credits FROM updated`,
      [change.amount, change.accountId, MAX_BALANCE],
    );
    if (rows.length === 0) {
      const account = await manager.findOneBy(Account, { id: change.accountId });
      if (!account) throw DomainError.notFound('account');
      if (change.amount > 0) {
        throw DomainError.invalid(
          [{ path: 'amount', message: `would take the balance above ${MAX_BALANCE} (balance is ${account.paidCredits})` }],
          'The grant would exceed the largest balance an account can hold.',
        );
      }
      throw DomainError.invalid(
        [{ path: 'amount', message: `would take the balance below zero (balance is ${account.paidCredits})` }],
        'The correction is larger than the balance.',
      );
    }
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
    const rows: Array<{ paid_credits: number }> = await manager.query(
      `WITH updated AS (
         UPDATE accounts SET paid_credits = paid_credits - $1, updated_at = now()
          WHERE id = $2 AND paid_credits >= $1
          RETURNING paid_credits)
       SELECT paid_credits FROM updated`,
      [credits, accountId],
    );
    if (rows.length === 0) return null;
    await this.record(manager, accountId, LedgerEntryKind.Reserve, -credits, credits, jobId);
    return rows[0].paid_credits;
  }

  /** Reserved credits become spent: the balance does not move, the ledger says so. */
  async capture(manager: EntityManager, accountId: string, jobId: string, credits: number): Promise<void> {
    if (credits > 0) await this.record(manager, accountId, LedgerEntryKind.Capture, 0, credits, jobId);
  }

  /** Reserved credits that will not be spent go back to the balance. */
  async release(manager: EntityManager, accountId: string, jobId: string, credits: number): Promise<void> {
    if (credits <= 0) return;
    await manager.query(`UPDATE accounts SET paid_credits = paid_credits + $1, updated_at = now() WHERE id = $2`, [
      credits,
      accountId,
    ]);
    await this.record(manager, accountId, LedgerEntryKind.Release, credits, credits, jobId);
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
    await manager.insert(CreditLedgerEntry, { accountId, kind, amount, credits, jobId, reason: null });
  }

  async ledger(accountId: string, limit: number): Promise<CreditLedgerEntry[]> {
    return this.dataSource.getRepository(CreditLedgerEntry).find({
      where: { accountId },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: limit,
    });
  }
}
