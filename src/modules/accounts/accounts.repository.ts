import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { preparedStatement, runPrepared } from '../../core/database/prepared-statement';
import { Account } from './account.entity';

export interface AccountPatch {
  apiAccess?: boolean;
  restrictedUntil?: Date | null;
  reviewThreshold?: number;
}

const LOCK_BALANCE = preparedStatement(
  'accounts_lock_balance',
  `SELECT paid_credits FROM accounts WHERE id = $1 FOR UPDATE`,
);

const WITHDRAW = preparedStatement(
  'accounts_withdraw',
  `UPDATE accounts SET paid_credits = paid_credits - $1, updated_at = now()
    WHERE id = $2 AND paid_credits >= $1
    RETURNING paid_credits`,
);

/**
 * Every statement on the accounts table. Methods that take a manager run in the caller's
 * transaction; the caller decides when in its lock order the account row is taken.
 */
@Injectable()
export class AccountsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Locks the account row until the transaction ends and returns its balance; null for no such account. */
  async lockBalance(manager: EntityManager, accountId: string): Promise<number | null> {
    const [account] = await runPrepared<{ paid_credits: number }>(manager, LOCK_BALANCE, [accountId]);
    return account?.paid_credits ?? null;
  }

  /** Locks the account row until the transaction ends; false for no such account. */
  async lock(manager: EntityManager, accountId: string): Promise<boolean> {
    const rows: unknown[] = await manager.query(`SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE`, [accountId]);
    return rows.length > 0;
  }

  async exists(accountId: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(`SELECT 1 FROM accounts WHERE id = $1`, [accountId]);
    return rows.length > 0;
  }

  /** Takes `credits` out of the balance if it holds them: the new balance, or null (nothing changed) if not. */
  async withdraw(manager: EntityManager, accountId: string, credits: number): Promise<number | null> {
    const [account] = await runPrepared<{ paid_credits: number }>(manager, WITHDRAW, [credits, accountId]);
    return account?.paid_credits ?? null;
  }

  /**
   * Moves the balance by `amount` (either sign) if it stays between 0 and `max`: the new
   * balance, or null (nothing changed) if not. The bound is computed in bigint, so the check
   * itself cannot overflow.
   */
  async changeBalanceWithin(
    manager: EntityManager,
    accountId: string,
    amount: number,
    max: number,
  ): Promise<number | null> {
    // Wrapped in a SELECT because TypeORM reshapes the result of a bare UPDATE ... RETURNING.
    const rows: Array<{ paid_credits: number }> = await manager.query(
      `WITH updated AS (
         UPDATE accounts SET paid_credits = paid_credits + $1, updated_at = now()
          WHERE id = $2 AND paid_credits::bigint + $1 BETWEEN 0 AND $3
          RETURNING paid_credits)
       SELECT paid_credits FROM updated`,
      [amount, accountId, max],
    );
    return rows[0]?.paid_credits ?? null;
  }

  /**
   * Adds `credits` to the balance if it stays at most `max` (computed in bigint): false
   * (nothing changed) if not, or if the account is gone.
   */
  async depositWithin(manager: EntityManager, accountId: string, credits: number, max: number): Promise<boolean> {
    const rows: unknown[] = await manager.query(
      `WITH updated AS (
         UPDATE accounts SET paid_credits = paid_credits + $1, updated_at = now()
          WHERE id = $2 AND paid_credits::bigint + $1 <= $3
          RETURNING id)
       SELECT id FROM updated`,
      [credits, accountId, max],
    );
    return rows.length > 0;
  }

  /** A new account with an empty balance: credits arrive only through the ledger. */
  insertEmpty(manager: EntityManager, account: { name: string; apiAccess: boolean }): Promise<Account> {
    return manager.save(manager.create(Account, { ...account, paidCredits: 0 }));
  }

  findById(accountId: string): Promise<Account | null> {
    return this.dataSource.getRepository(Account).findOneBy({ id: accountId });
  }

  async update(accountId: string, patch: AccountPatch): Promise<void> {
    await this.dataSource.getRepository(Account).update({ id: accountId }, patch);
  }

  count(): Promise<number> {
    return this.dataSource.getRepository(Account).count();
  }
}
