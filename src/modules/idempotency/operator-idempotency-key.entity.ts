import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Which operator request an admin Idempotency-Key belongs to, so a retried credit change applies once. */
@Entity({ name: 'operator_idempotency_keys' })
export class OperatorIdempotencyKey {
  @PrimaryColumn({ type: 'text' }) key!: string;
  @Column({ type: 'text' }) endpoint!: string;
  @Column({ name: 'request_hash', type: 'text' }) requestHash!: string;
  @Column({ name: 'account_id', type: 'uuid' }) accountId!: string;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
}
