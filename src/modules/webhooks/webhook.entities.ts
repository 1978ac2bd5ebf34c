import { Column, Entity, JoinColumn, ManyToOne, OneToMany, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

/** A signing secret; the current one has no expiry, a rotated one signs until `expiresAt`. */
@Entity({ name: 'webhook_secrets' })
export class WebhookSecret {
  @PrimaryColumn('uuid') id!: string;
  @Column({ name: 'account_id', type: 'uuid' }) accountId!: string;
  @Column({ type: 'text' }) secret!: string;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true }) expiresAt!: Date | null;
}

export enum DeliveryStatus {
  Pending = 'pending',
  Delivered = 'delivered',
  /** Every attempt of the schedule failed. */
  Failed = 'failed',
  /** The receiver answered 410 Gone: no more attempts. */
  Gone = 'gone',
  /** The destination is not allowed (not https, or a private address). */
  Blocked = 'blocked',
}

export type AttemptOutcome =
  DeliveryStatus.Delivered | DeliveryStatus.Failed | DeliveryStatus.Gone | DeliveryStatus.Blocked;

/**
 * One event, recorded in the transaction of the state change that caused it (the outbox).
 * `body` is the exact JSON sent on every attempt, so the signature always covers the same bytes.
 */
@Entity({ name: 'webhook_events' })
export class WebhookEvent {
  @PrimaryColumn('uuid') id!: string;
  @Column({ type: 'bigint' }) sequence!: string;
  @Column({ name: 'account_id', type: 'uuid' }) accountId!: string;
  @Column({ name: 'job_id', type: 'uuid' }) jobId!: string;
  @Column({ name: 'result_id', type: 'uuid', nullable: true }) resultId!: string | null;
  @Column({ type: 'text' }) type!: string;
  @Column({ type: 'text' }) body!: string;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
}

/** The sending of one event to one URL; a redelivery is a new delivery of the same event. */
@Entity({ name: 'webhook_deliveries' })
export class WebhookDelivery {
  @PrimaryColumn('uuid') id!: string;
  @Column({ name: 'event_id', type: 'uuid' }) eventId!: string;
  @ManyToOne(() => WebhookEvent) @JoinColumn({ name: 'event_id' }) event?: WebhookEvent;
  @Column({ name: 'account_id', type: 'uuid' }) accountId!: string;
  @Column({ name: 'job_id', type: 'uuid' }) jobId!: string;
  @Column({ type: 'text' }) url!: string;
  @Column({ type: 'text' }) status!: DeliveryStatus;
  @Column({ type: 'integer' }) attempts!: number;
  @Column({ name: 'next_attempt_at', type: 'timestamptz', nullable: true }) nextAttemptAt!: Date | null;
  @Column({ name: 'last_status_code', type: 'integer', nullable: true }) lastStatusCode!: number | null;
  @Column({ name: 'created_at', type: 'timestamptz' }) createdAt!: Date;
  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true }) completedAt!: Date | null;
  @OneToMany(() => WebhookAttempt, (attempt) => attempt.delivery) attemptLog?: WebhookAttempt[];
}

@Entity({ name: 'webhook_attempts' })
export class WebhookAttempt {
  @PrimaryGeneratedColumn({ type: 'bigint' }) id!: string;
  @Column({ name: 'delivery_id', type: 'uuid' }) deliveryId!: string;
  @ManyToOne(() => WebhookDelivery, (delivery) => delivery.attemptLog)
  @JoinColumn({ name: 'delivery_id' })
  delivery?: WebhookDelivery;
  @Column({ type: 'integer' }) number!: number;
  @Column({ type: 'text' }) outcome!: AttemptOutcome;
  @Column({ name: 'status_code', type: 'integer', nullable: true }) statusCode!: number | null;
  @Column({ type: 'text', nullable: true }) error!: string | null;
  @Column({ name: 'started_at', type: 'timestamptz' }) startedAt!: Date;
  @Column({ name: 'duration_ms', type: 'integer' }) durationMs!: number;
  @Column({ name: 'next_attempt_at', type: 'timestamptz', nullable: true }) nextAttemptAt!: Date | null;
}
