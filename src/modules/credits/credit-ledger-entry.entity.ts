import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

export enum LedgerEntryKind {
  Grant = 'grant',
  Reserve = 'reserve',
  Capture = 'capture',
  Release = 'release',
  Adjustment = 'adjustment',
}

/**
 * One credit movement. `amount` is its signed effect on the balance (capture moves reserved
 * credits to spent ones, so its amount is 0 and `credits` carries the count).
 */
@Entity({ name: 'credit_ledger' })
@Index(['accountId', 'createdAt'])
export class CreditLedgerEntry {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'account_id', type: 'uuid' })
  accountId!: string;

  @Column({ type: 'text' })
  kind!: LedgerEntryKind;

  @Column({ type: 'integer' })
  amount!: number;

  @Column({ type: 'integer' })
  credits!: number;

  @Column({ name: 'job_id', type: 'uuid', nullable: true })
  jobId!: string | null;

  @Column({ type: 'text', nullable: true })
  reason!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
