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

  /** The account's latest entries, newest first. */
  recent(accountId: string, limit: number): Promise<CreditLedgerEntry[]> {
    return this.dataSource.getRepository(CreditLedgerEntry).find({
      where: { accountId },
      order: { createdAt: 'DESC', id: 'DESC' },
      take: limit,
    });
  }
}
