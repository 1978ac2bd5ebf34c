import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

@Entity({ name: 'accounts' })
export class Account {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ name: 'api_access', type: 'boolean', default: true })
  apiAccess!: boolean;

  @Column({ name: 'restricted_until', type: 'timestamptz', nullable: true })
  restrictedUntil!: Date | null;

  /** Spendable balance; always the sum of the account's ledger amounts, never below zero. */
  @Column({ name: 'paid_credits', type: 'integer', default: 0 })
  paidCredits!: number;

  /** A completed cut-out whose uncertainty is at least this (0..1) is flagged for a person's review. */
  @Column({ name: 'review_threshold', type: 'real', default: 0.539 })
  reviewThreshold!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
