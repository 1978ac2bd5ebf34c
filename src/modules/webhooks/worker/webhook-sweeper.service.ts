import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG } from '../../../core/config/config.module';
import type { AppConfig } from '../../../core/config/config.schema';
import { WebhookDeliveriesRepository } from '../webhook-deliveries.repository';
import { WebhookDeliveryQueue, type ScheduledAttempt } from '../webhook-delivery.queue';

/** Bounded so one sweep stays short; the next sweep takes the rest. */
const SWEEP_BATCH = 500;
/** Bounded like the sweep itself; a large backlog goes over several sweeps. */
const PURGE_BATCH = 5000;
/** An attempt in one of these states will still run; any other entry is stale and replaced. */
const QUEUED_STATES: ReadonlySet<string> = new Set(['waiting', 'delayed', 'active', 'prioritized', 'waiting-children']);

/**
 * The safety net for "no lost events": a pending delivery whose next attempt is overdue by the
 * grace period and has no queue entry (the process died between commit and enqueue, or between
 * an attempt and scheduling the next) is enqueued again; one whose entry ended without
 * recording the attempt (its worker died during it more often than BullMQ tolerates) is tried again.
 */
@Injectable()
export class WebhookSweeperService {
  private readonly logger = new Logger(WebhookSweeperService.name);

  constructor(
    private readonly store: WebhookDeliveriesRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly queue: WebhookDeliveryQueue,
  ) {}

  async sweep(): Promise<{ requeued: number; purged: number }> {
    const overdue = await this.store.findOverdue(this.config.SWEEP_GRACE_SECONDS, SWEEP_BATCH);
    const requeue: ScheduledAttempt[] = [];
    for (const delivery of overdue) {
      const attempt = delivery.attempts + 1;
      const entry = await this.queue.getAttempt(delivery.id, attempt);
      if (entry && QUEUED_STATES.has(await entry.getState())) continue;
      await entry?.remove();
      requeue.push({ deliveryId: delivery.id, accountId: delivery.accountId, attempt, delayMs: 0 });
    }
    await this.queue.enqueue(requeue);
    if (requeue.length > 0) this.logger.warn({ requeued: requeue.length }, 'swept stranded webhook deliveries');
    return { requeued: requeue.length, purged: await this.purgeExpired() };
  }

  /** Events past WEBHOOK_RETENTION_DAYS go, with their deliveries and attempts, unless one is pending. */
  private purgeExpired(): Promise<number> {
    return this.store.deleteExpiredEvents(this.config.WEBHOOK_RETENTION_DAYS, PURGE_BATCH);
  }
}
