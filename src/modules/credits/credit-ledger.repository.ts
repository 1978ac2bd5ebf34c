import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { preparedStatement, runPrepared } from '../../core/database/prepared-statement';
import { CreditLedgerEntry, LedgerEntryKind } from './credit-ledger-entry.entity';

/** A movement of a job's credits: reserved, captured or released. */
export interface JobCreditMovement {
  accountId: string;
  kind: LedgerEntryKind;
  amount: number;
  credits: number;
  jobId: string;
}

/** A grant or correction made by an operator, with the reason given. */
export interface OperatorCreditChange {
  accountId: string;
  kind: LedgerEntryKind.Grant | LedgerEntryKind.Adjustment;
  amount: number;
  reason: string | null;
}

/** A ledger entry as the account's own ledger shows it: with the balance it left. */
export interface LedgerEntryWithBalance {
  id: string;
  kind: LedgerEntryKind;
  amount: number;
  credits: number;
  jobId: string | null;
  reason: string | null;
  createdAt: Date;
  balanceAfter: number;
}

export interface LedgerPageFilter {
  limit: number;
  /** Exclusive: entries listed after this one (newest first). */
  afterId?: string;
  /** Only entries no job made (grants and corrections): what a sandbox key sees. */
  withoutJobs: boolean;
}

const RECORD_JOB_MOVEMENT = preparedStatement(
  'credits_record',
  `INSERT INTO credit_ledger (account_id, kind, amount, credits, job_id, reason) VALUES ($1, $2, $3, $4, $5, NULL)`,
);

/** Every statement on the credit ledger; writes run in the caller's transaction. */
@Injectable()
export class CreditLedgerRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async recordJobMovement(manager: EntityManager, movement: JobCreditMovement): Promise<void> {
    await runPrepared(manager, RECORD_JOB_MOVEMENT, [
      movement.accountId,
      movement.kind,
      movement.amount,
      movement.credits,
      movement.jobId,
    ]);
  }

  async recordOperatorChange(manager: EntityManager, change: OperatorCreditChange): Promise<void> {
    await manager.insert(CreditLedgerEntry, {
      accountId: change.accountId,
      kind: change.kind,
      amount: change.amount,
      credits: Math.abs(change.amount),
      jobId: null,
      reason: change.reason,
    });
  }

  /** Credits reserved by results not yet settled: reserved, less what was captured or released. */
  async outstandingReservations(manager: EntityManager, accountId: string): Promise<number> {
    const [{ reserved }]: Array<{ reserved: string }> = await manager.query(
      `SELECT coalesce(sum(CASE kind WHEN 'reserve' THEN credits ELSE -credits END), 0)::bigint AS reserved
         FROM credit_ledger
        WHERE account_id = $1 AND kind IN ('reserve', 'capture', 'release')`,
      [accountId],
    );
    return Number(reserved);
  }

  /**
   * The account's entries newest first, after `afterId`, each with the balance it left: the sum
   * of every amount up to it (the balance always equals the sum of the ledger, contract section
   * 8). The running sum covers the whole ledger of the account, read through its
   * `(account_id, created_at)` index; entries written by one transaction share their
   * `created_at` and are ordered among themselves by id.
   */
  async page(accountId: string, filter: LedgerPageFilter): Promise<LedgerEntryWithBalance[]> {
    const rows: Array<{
      id: string;
      kind: LedgerEntryKind;
      amount: number;
      credits: number;
      job_id: string | null;
      reason: string | null;
      created_at: Date;
      balance_after: string;
    }> = await this.dataSource.query(
      `SELECT l.id, l.kind, l.amount, l.credits, l.job_id, l.reason, l.created_at, l.balance_after
         FROM (SELECT e.*, sum(e.amount) OVER (ORDER BY e.created_at, e.id) AS balance_after
                 FROM credit_ledger e WHERE e.account_id = $1) l
        WHERE ($2::uuid IS NULL OR (l.created_at, l.id) <
                (SELECT p.created_at, p.id FROM credit_ledger p WHERE p.id = $2 AND p.account_id = $1))
          AND (NOT $3 OR l.job_id IS NULL)
        ORDER BY l.created_at DESC, l.id DESC
        LIMIT $4`,
      [accountId, filter.afterId ?? null, filter.withoutJobs, filter.limit],
    );
    return rows.map((row) => ({
      id: row.id,
      kind: row.kind,
      amount: row.amount,
      credits: row.credits,
      jobId: row.job_id,
      reason: row.reason,
      createdAt: row.created_at,
      balanceAfter: Number(row.balance_after),
    }));
  }

  /** The account's latest entries, newest first. */
  recent(accountId: string, limit: number): Promise<CreditLedgerEntry[]> {
    return this.dataSource.getRepository(CreditLedgerEntry).find({
      where: { accountId },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: limit,
    });
  }
}
