import { Injectable, Logger } from '@nestjs/common';
import type { Job } from 'bullmq';
import DataLoader from 'dataloader';
import { WebhookMetrics } from '../../../core/metrics/webhook.metrics';
import type { QueueJobName, QueuePayloads } from '../../../core/queue/queue-jobs';
import { JobPostponed } from '../../../core/queue/queue-worker';
import { DeliverySlots } from '../delivery-slots';
import { WebhookDeliveryQueue } from '../webhook-delivery.queue';
import {
  WebhookDeliveriesRepository,
  type AttemptRecord,
  type DeliveryForAttempt,
} from '../webhook-deliveries.repository';
import { DeliveryStatus } from '../webhook.entities';
import { WebhookSecretsService } from '../webhook-secrets.service';
import type { SendOutcome } from '../webhook-sender';
import { WebhookSender } from '../webhook-sender';
import { signWebhook } from '../webhook-signature';
import { judgeAttempt } from './attempt-verdict';

/** How long a job event waits, at a time, for its job's earlier events to have been tried. */
const ORDER_WAIT_MS = 100;
/** How long a delivery waits, at a time, for a free slot of its account. */
const SLOT_WAIT_MS = 100;
/**
 * Loads and attempt records arriving within this window share one statement: under load,
 * many deliveries cost a few round trips instead of two each.
 */
const BATCH_WINDOW_MS = 2;
const MAX_BATCH = 256;

/**
 * One delivery attempt (contract section 11): sign the stored body with every valid secret,
 * POST it, record the attempt, and schedule the next one when the schedule allows. The
 * conditional update on `attempts` makes a repeated queue entry for the same attempt harmless.
 */
@Injectable()
export class WebhookDeliveryService {
  private readonly logger = new Logger(WebhookDeliveryService.name);
  private readonly creatingSecrets = new Map<string, Promise<string>>();
  private readonly deliveries = new DataLoader<string, DeliveryForAttempt | undefined>(
    (ids) => this.store.findForAttempts(ids),
    {
      cache: false,
      maxBatchSize: MAX_BATCH,
      batchScheduleFn: (run) => setTimeout(run, BATCH_WINDOW_MS),
    },
  );
  private readonly attempts = new DataLoader<AttemptRecord, boolean>((records) => this.recordBatch(records), {
    cache: false,
    maxBatchSize: MAX_BATCH,
    batchScheduleFn: (run) => setTimeout(run, BATCH_WINDOW_MS),
  });

  constructor(
    private readonly store: WebhookDeliveriesRepository,
    private readonly sender: WebhookSender,
    private readonly secrets: WebhookSecretsService,
    private readonly slots: DeliverySlots,
    private readonly queue: WebhookDeliveryQueue,
    private readonly metrics: WebhookMetrics,
  ) {}

  /**
   * One attempt. A delivery that must wait (for a free slot of its account, or for its job's
   * earlier events) throws JobPostponed: its queue entry goes back to the delayed set, and BullMQ
   * counts nothing.
   */
  async perform(job: Job<QueuePayloads[QueueJobName.DeliverWebhook]>): Promise<void> {
    const { deliveryId, accountId, attempt } = job.data;
    // The slot comes first: a delivery that must wait for one costs no database round trip.
    if (!this.slots.take(accountId)) throw new JobPostponed(SLOT_WAIT_MS);
    let delivery: DeliveryForAttempt | undefined;
    let outcome: SendOutcome;
    let startedAt: Date;
    try {
      delivery = await this.deliveries.load(deliveryId);
      if (!delivery || delivery.status !== DeliveryStatus.Pending || delivery.attempts !== attempt - 1) return;
      if (delivery.waitsForEarlierEvents) throw new JobPostponed(ORDER_WAIT_MS);
      const headers = await this.headersFor(delivery);
      startedAt = new Date();
      outcome = await this.sender.send(delivery.url, delivery.body, headers);
    } finally {
      this.slots.release(accountId);
    }
    const verdict = judgeAttempt(outcome, attempt, this.queue);
    const durationMs = Date.now() - startedAt.getTime();
    const recorded = await this.attempts.load({ deliveryId, attempt, verdict, startedAt, durationMs });
    // Counted once recorded: a repeated queue entry for the same attempt loses the record and counts nothing.
    if (!recorded) return;
    // The attempt record says what went wrong in the account's words; the log keeps the error
    // itself (the address connected to, Node's text), which the account must not see.
    if (outcome.kind !== 'response' && outcome.cause) {
      this.logger.log(
        { delivery_id: deliveryId, event_id: delivery.eventId, attempt, error: verdict.error, err: outcome.cause },
        'webhook attempt failed',
      );
    }
    this.metrics.attempted(verdict.outcome, durationMs / 1000);
    if (verdict.status !== DeliveryStatus.Pending) this.metrics.finishedDelivery(verdict.outcome);
    if (verdict.nextAttemptAt) {
      await this.queue.enqueue([
        { deliveryId, accountId, attempt: attempt + 1, delayMs: verdict.nextAttemptAt.getTime() - Date.now() },
      ]);
    } else if (verdict.status !== DeliveryStatus.Delivered) {
      this.logger.warn(
        { delivery_id: deliveryId, event_id: delivery.eventId, status: verdict.status, error: verdict.error },
        'webhook delivery given up',
      );
    }
  }

  private async headersFor(delivery: DeliveryForAttempt): Promise<Record<string, string>> {
    const secrets = delivery.secrets.length > 0 ? delivery.secrets : [await this.firstSecret(delivery.accountId)];
    const timestamp = Math.floor(Date.now() / 1000);
    return {
      'x-service-event-id': delivery.eventId,
      'x-service-timestamp': String(timestamp),
      'x-service-signature': signWebhook(secrets, delivery.eventId, timestamp, delivery.body),
    };
  }

  /** Creates an account's first secret once, however many of its deliveries ask at the same time. */
  private firstSecret(accountId: string): Promise<string> {
    let creating = this.creatingSecrets.get(accountId);
    if (!creating) {
      creating = this.secrets.current(accountId).finally(() => this.creatingSecrets.delete(accountId));
      this.creatingSecrets.set(accountId, creating);
    }
    return creating;
  }

  /**
   * Records a batch of attempts in one statement. A repeated queue entry for an attempt already
   * in the batch, or already recorded, is told it lost (false).
   */
  private async recordBatch(records: readonly AttemptRecord[]): Promise<boolean[]> {
    const first = new Map<string, AttemptRecord>();
    for (const record of records) if (!first.has(record.deliveryId)) first.set(record.deliveryId, record);
    const recorded = await this.store.recordAttempts([...first.values()]);
    return records.map((record) => first.get(record.deliveryId) === record && recorded.has(record.deliveryId));
  }
}
