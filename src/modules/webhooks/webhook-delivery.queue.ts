import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { APP_CONFIG } from '../../core/config/config.module';
import type { AppConfig } from '../../core/config/config.schema';
import { QueueJobName, RETENTION, type QueuePayloads } from '../../core/queue/queue-jobs';
import { QueueName } from '../../core/queue/queue-name';

/** Spreads retries by up to a tenth either way, so a recovering receiver is not hit all at once. */
const JITTER = 0.1;

export interface ScheduledAttempt {
  deliveryId: string;
  /** Carried so a worker can take the account's delivery slot before touching the database. */
  accountId: string;
  attempt: number;
  delayMs: number;
}

/** The BullMQ job id of one attempt: enqueueing the same attempt twice (the sweeper) adds nothing. */
export const attemptJobId = (deliveryId: string, attempt: number) => `${deliveryId}_${attempt}`;

/**
 * The only producer of delivery attempts. Attempt n waits WEBHOOK_RETRY_SCHEDULE[n - 1]
 * seconds, with jitter, after the event (n = 1) or after the attempt before it.
 */
@Injectable()
export class WebhookDeliveryQueue {
  private readonly logger = new Logger(WebhookDeliveryQueue.name);

  constructor(
    @InjectQueue(QueueName.WebhookDelivery)
    private readonly queue: Queue<QueuePayloads[QueueJobName.DeliverWebhook]>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get maxAttempts(): number {
    return this.config.WEBHOOK_RETRY_SCHEDULE.length;
  }

  /** Milliseconds before attempt `attempt` (1-based), jitter included. */
  delayBefore(attempt: number): number {
    const seconds = this.config.WEBHOOK_RETRY_SCHEDULE[attempt - 1] ?? 0;
    return Math.round(seconds * 1000 * (1 + (Math.random() * 2 - 1) * JITTER));
  }

  async enqueue(attempts: readonly ScheduledAttempt[]): Promise<void> {
    if (attempts.length === 0) return;
    await this.queue.addBulk(
      attempts.map(({ deliveryId, accountId, attempt, delayMs }) => ({
        name: QueueJobName.DeliverWebhook,
        data: { deliveryId, accountId, attempt },
        opts: { jobId: attemptJobId(deliveryId, attempt), delay: Math.max(0, delayMs), attempts: 1, ...RETENTION },
      })),
    );
  }

  /**
   * After the outbox transaction commits. A failure here loses nothing: the deliveries are in
   * PostgreSQL, and the sweeper enqueues what has no queue entry.
   */
  async enqueueCommitted(
    deliveries: ReadonlyArray<{ id: string; accountId: string; firstAttemptAt: Date }>,
  ): Promise<void> {
    try {
      await this.enqueue(
        deliveries.map((delivery) => ({
          deliveryId: delivery.id,
          accountId: delivery.accountId,
          attempt: 1,
          delayMs: delivery.firstAttemptAt.getTime() - Date.now(),
        })),
      );
    } catch (error) {
      this.logger.error({ err: error, deliveries: deliveries.length }, 'could not enqueue webhook deliveries');
    }
  }

  getAttempt(deliveryId: string, attempt: number) {
    return this.queue.getJob(attemptJobId(deliveryId, attempt));
  }
}
