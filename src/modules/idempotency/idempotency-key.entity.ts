import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Which job a client's Idempotency-Key created, so a repeat returns it instead of a second job. */
@Entity({ name: 'idempotency_keys' })
export class IdempotencyKey {
  @PrimaryColumn({ name: 'api_key_id', type: 'uuid' }) apiKeyId!: string;
  @PrimaryColumn({ type: 'text' }) key!: string;
  @Column({ type: 'text' }) endpoint!: string;
  @Column({ name: 'request_hash', type: 'text' }) requestHash!: string;
  @Column({ name: 'job_id', type: 'uuid' }) jobId!: string;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
}
